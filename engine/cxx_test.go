package engine

import "bytes"
import "context"
import "errors"

import "testing"

// vueNested is a Vue component whose template nests n custom elements with
// long names: the C++ scanner keeps one std::string per open tag on its
// std::vector tag stack, so the source makes the scanner allocate through
// libc++'s operator new as it grows.
func vueNested(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<template>\n")
	for i := 0; i < n; i++ {
		b.WriteString("<custom-element-with-a-long-name>")
	}
	b.WriteString("\n</template>\n")
	return b.Bytes()
}

// TestCXXScanner: a grammar whose external scanner is C++ (vue, linked
// with libc++) imports only what every module may, parses, and when its
// scanner's allocations pass the tenant's memory cap the parse fails with
// ErrMemoryLimit (libc++'s operator new aborts: a trap) and the parser
// keeps working.
func TestCXXScanner(t *testing.T) {
	requireBuilt(t, "vue")
	ctx := context.Background()
	e := newTestEngine(t, NewConfig().WithMemoryLimit(512<<20))
	m, err := e.module(mustLang("vue"))
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range m.compiled.ImportedFunctions() {
		mod, name, _ := imp.Import()
		if !(mod == "tether" && name == "should_stop") && !(mod == wasiModule && wasiFuncs[name]) {
			t.Errorf("vue imports %s.%s", mod, name)
		}
	}
	small := []byte("<template>\n  <my-el :a=\"b\">{{ c }}</my-el>\n</template>\n")
	p := e.NewParser(Limits{Instances: 1, Memory: 8 << 20})
	defer p.Close(ctx)
	src := vueNested(30000)
	for i := 0; i < 2; i++ {
		_, err := p.Parse(ctx, mustLang("vue"), src)
		if !errors.Is(err, ErrMemoryLimit) {
			t.Fatalf("parse over the cap: %v", err)
		}
		tree, err := p.Parse(ctx, mustLang("vue"), small)
		if err != nil || tree.HasError() {
			t.Fatalf("parse after hitting the cap: %v", err)
		}
	}
}
