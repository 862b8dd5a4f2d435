package search_test

import "context"
import "fmt"
import "log"
import "os"
import "path/filepath"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/search"

// A repeated metavariable must capture the same code: this pattern finds the
// guard that closes what it checked, not the one that closes something else.
func Example() {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close(ctx)

	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := `package p

func f() {
	if a != nil {
		a.Close()
	}
	if b != nil {
		c.Close()
	}
}
`
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}

	s := search.NewSearcher(eng, search.Config{})
	res, err := s.Search(ctx, search.Query{
		Pattern:  "if $X != nil { $X.Close() }",
		Language: "go",
		Paths:    []string{dir},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range res.Matches {
		fmt.Printf("%s:%d: $X = %s\n", filepath.Base(m.Path), m.Span.Start.Line, m.Bindings[0].Text)
	}
	fmt.Println(res.Summary())
	// Output:
	// p.go:4: $X = a
	// 1 match in 1 of 1 file searched
}
