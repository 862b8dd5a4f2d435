package matcher_test

import "context"
import "fmt"
import "log"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"
import "github.com/tetherhq/tether/matcher"

// Compile a pattern, find its matches in one parsed tree, and rewrite them
// with a template.
func Example() {
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close(ctx)

	goLang, _ := grammars.Lookup("go")
	pat, err := matcher.Compile(ctx, eng, goLang, "fmt.Errorf($MSG, $$$ARGS)")
	if err != nil {
		log.Fatal(err)
	}
	src := []byte("package p\n\nfunc f(err error) error {\n\treturn fmt.Errorf(\"open: %w\", err)\n}\n")
	tree, err := eng.Parse(ctx, goLang, src)
	if err != nil {
		log.Fatal(err)
	}
	ms, err := matcher.NewMatcher(pat).Find(ctx, tree)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		fmt.Printf("%s (%s)\n", src[m.Start():m.End()], pat.Context())
		for _, c := range m.Captures {
			fmt.Printf("  $%s = %s\n", c.Name, c.Text(src))
		}
	}
	tmpl := matcher.NewTemplate(pat, "errors.Wrap($$$ARGS, $MSG)")
	fmt.Print(string(matcher.Apply(src, tmpl.Edits(src, ms))))
	// Output:
	// fmt.Errorf("open: %w", err) (statement)
	//   $MSG = "open: %w"
	//   $ARGS = err
	// package p
	//
	// func f(err error) error {
	// 	return errors.Wrap(err, "open: %w")
	// }
}
