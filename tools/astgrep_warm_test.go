package tools_test

import "context"
import "fmt"
import "os"
import "path/filepath"
import "strings"
import "sync"
import "testing"

import "github.com/tetherhq/tether/bridges/lsp"
import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/matcher"
import "github.com/tetherhq/tether/tools"

// TestAstGrepWarmUp: a run with WarmUp answers ast_grep while its warm-up
// parses the working directory, and its Close stops the warm-up and returns.
func TestAstGrepWarmUp(t *testing.T) {
	dir := t.TempDir()
	for i := range 200 {
		body := fmt.Sprintf("package p\n\nfunc f%d(err error) error {\n\tif err != nil {\n\t\treturn fmt.Errorf(\"f%d: %%w\", err)\n\t}\n\treturn nil\n}\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tools.NewRun(context.Background(), tools.Config{
		WorkDir: dir,
		Policy:  tools.PolicyOf(tools.Allow),
		Search:  tools.SearchConfig{Parser: parseEngine(t), WarmUp: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := callResult(t, r, "ast_grep", `{"pattern":"fmt.Errorf($$$A)","language":"go","max_results":1}`)
	if !strings.Contains(res.AllText(), "1 of 200 matches shown") {
		t.Errorf("ast_grep during the warm-up: %s", res.AllText())
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// gateParser holds the first parse it is given (the warm-up's: no query has
// come yet) until its context is cancelled, which a query does; every other
// parse goes straight to the engine.
type gateParser struct {
	p       matcher.Parser
	once    sync.Once
	entered chan struct{}
}

func (g *gateParser) Parse(ctx context.Context, lang *grammars.Language, src []byte) (*engine.Tree, error) {
	first := false
	g.once.Do(func() { first = true })
	if first {
		close(g.entered)
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return g.p.Parse(ctx, lang, src)
}

// TestAstGrepWarmUpProgress: an ast_grep answered while the warm-up is still
// parsing says how far the structural index is, in its text and its
// structured result, and the lsp tool's status shows the index's progress.
func TestAstGrepWarmUpProgress(t *testing.T) {
	dir := t.TempDir()
	// content no other test put in the process's store: the warm-up parses
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package p\n\n// %s\nfunc f%d() { mu.Lock() }\n", dir, i)
	}
	testenv.WriteFiles(t, dir, files)
	sup, err := lsp.New(dir, lsp.WithEnv(testenv.WithPeersOnPath()))
	if err != nil {
		t.Fatal(err)
	}
	gate := &gateParser{p: parseEngine(t), entered: make(chan struct{})}
	r, err := tools.NewRun(context.Background(), tools.Config{WorkDir: dir, Policy: tools.PolicyOf(tools.Allow), LSP: sup, Search: tools.SearchConfig{Parser: gate, WarmUp: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	<-gate.entered // the warm-up is parsing its first file
	res := callResult(t, r, "ast_grep", `{"pattern":"$M.Lock()","language":"go"}`)
	st, _ := res.Structured.(*tools.AstGrepResult)
	if st == nil || !strings.HasPrefix(st.Index, "structural index: ") || !strings.Contains(st.Index, " of 30 files (parsing in the background)") {
		t.Errorf("structured index while warming up: %+v", st)
	}
	if txt := res.AllText(); !strings.Contains(txt, "30 matches in 30 of 30 files") || !strings.Contains(txt, "note: structural index: ") {
		t.Errorf("ast_grep during the warm-up:\n%s", txt)
	}
	out, err := lspCall(t, r, "lsp", map[string]any{"action": "status"})
	if err != nil || !strings.Contains(out, "structural index: ") || !strings.Contains(out, " of 30 files") {
		t.Errorf("lsp status: %v\n%s", err, out)
	}
}
