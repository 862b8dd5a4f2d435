package tools_test

import "context"
import "encoding/json"
import "fmt"
import "os"
import "path/filepath"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/tools"

// Example_host is a Go program that hosts tether for many conversations (a
// multi-tenant agent server): one process opens one engine, whose grammar
// modules (embedded in the binary, no C toolchain needed) are compiled once
// and shared, and serves a run per conversation, each on its own working
// directory and with its own parser: its own instances and limits.
func Example_host() {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close(ctx)

	projects := map[string]string{
		"conv-1": "package a\n\nimport \"fmt\"\n\nfunc A(n int) error { return fmt.Errorf(\"a %d\", n) }\n",
		"conv-2": "package b\n\nimport \"fmt\"\n\n// B fails.\nfunc B() error { return fmt.Errorf(\"b\") }\n",
	}
	runs := map[string]*tools.Run{}
	for _, conv := range []string{"conv-1", "conv-2"} {
		dir, err := os.MkdirTemp("", "tether-host")
		if err != nil {
			fmt.Println(err)
			return
		}
		defer os.RemoveAll(dir)
		os.WriteFile(filepath.Join(dir, "main.go"), []byte(projects[conv]), 0o644)

		parser := eng.NewParser(engine.Limits{Memory: 128 << 20, Timeout: time.Minute, Instances: 2})
		defer parser.Close(ctx)
		run, err := tools.NewRun(ctx, tools.Config{
			WorkDir:        dir,
			ConversationID: conv,
			Surface:        tools.SurfaceReadonly,
			Search:         tools.SearchConfig{Parser: parser},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer run.Close()
		runs[conv] = run
	}

	// Both runs are live at once; each searches only its own directory.
	for _, conv := range []string{"conv-1", "conv-2"} {
		res, err := runs[conv].Call(ctx, "ast_grep", json.RawMessage(`{"pattern":"fmt.Errorf($$$ARGS)","language":"go"}`), tools.FromModel)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s:\n%s\n", conv, res.AllText())
	}
	// Output:
	// conv-1:
	// 1 match in 1 of 1 file searched (go pattern parsed as statement)
	//
	// main.go:5:30-5:51
	//     func A(n int) error { return fmt.Errorf("a %d", n) }
	//   $$$ARGS = "a %d", n
	//
	// conv-2:
	// 1 match in 1 of 1 file searched (go pattern parsed as statement)
	//
	// main.go:6:25-6:40
	//     func B() error { return fmt.Errorf("b") }
	//   $$$ARGS = "b"
}
