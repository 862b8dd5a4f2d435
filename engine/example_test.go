package engine_test

import "context"
import "errors"
import "fmt"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// exampleEngine starts an engine as ExampleEngine_Parse does; the caller closes it.
func exampleEngine(ctx context.Context) *engine.Engine {
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		panic(err)
	}
	return e
}

// exampleTree parses src as the named language with an engine of its own, as
// ExampleEngine_Parse does: a Tree is plain data that outlives the engine.
func exampleTree(language, src string) *engine.Tree {
	ctx := context.Background()
	e := exampleEngine(ctx)
	defer e.Close(ctx)
	lang, ok := grammars.Lookup(language)
	if !ok {
		panic("no grammar for " + language)
	}
	tree, err := e.Parse(ctx, lang, []byte(src))
	if err != nil {
		panic(err)
	}
	return tree
}

func ExampleEngine_Parse() {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		panic(err)
	}
	defer e.Close(ctx)
	python, _ := grammars.Lookup("python")
	tree, err := e.Parse(ctx, python, []byte("x = f(1)\n"))
	if err != nil {
		panic(err)
	}
	fmt.Println(tree)
	fmt.Println(tree.HasError())
	// Output:
	// (module (expression_statement (assignment left: (identifier) right: (call function: (identifier) arguments: (argument_list (integer))))))
	// false
}

// A tenant (one run) gets its own instances and limits over the engine's
// shared compiled grammars.
func ExampleEngine_NewParser() {
	ctx := context.Background()
	e := exampleEngine(ctx)
	defer e.Close(ctx)
	p := e.NewParser(engine.Limits{Memory: 64 << 20, Timeout: 10 * time.Second, Instances: 2})
	defer p.Close(ctx)
	lang, _ := grammars.ForPath("main.go")
	tree, err := p.Parse(ctx, lang, []byte("package main\n\nfunc main() { go f() }\n"))
	if err != nil {
		panic(err)
	}
	fmt.Println(tree.Language(), tree.Root().Kind(), tree.Len())

	_, err = p.Parse(ctx, nil, nil)
	fmt.Println(errors.Is(err, engine.ErrUnknownLanguage))
	// Output:
	// go source_file 21
	// true
}

func ExampleNode_Walk() {
	tree := exampleTree("javascript", "let a = b +\n  c;\n")
	tree.Root().Walk(func(n engine.Node) bool {
		if n.Kind() == "identifier" {
			p := n.Range().StartPoint
			fmt.Printf("%s at %d:%d field %q\n", n.Text(), p.Row+1, p.Column+1, n.Field())
		}
		return true
	})
	// Output:
	// a at 1:5 field "name"
	// b at 1:9 field "left"
	// c at 2:3 field "right"
}

// Outline prints a tree the way the tree-sitter CLI's parse command does.
func ExampleNode_Outline() {
	tree := exampleTree("python", "x = f(1)\n")
	fmt.Println(tree.Root().Outline(true))
	// Output:
	// (module [0, 0] - [1, 0]
	//   (expression_statement [0, 0] - [0, 8]
	//     (assignment [0, 0] - [0, 8]
	//       left: (identifier [0, 0] - [0, 1])
	//       right: (call [0, 4] - [0, 8]
	//         function: (identifier [0, 4] - [0, 5])
	//         arguments: (argument_list [0, 5] - [0, 8]
	//           (integer [0, 6] - [0, 7]))))))
}
