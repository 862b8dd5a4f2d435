package main

import "errors"
import "fmt"
import "os"
import "strings"
import "unicode/utf8"

import "github.com/tetherhq/tether/grammars"

// grammarUsage is --grammar's help.
const grammarUsage = "add a custom language: name=NAME,wasm=FILE,ext=EXT[,ext=EXT...][,expando=C][,symbol=tree_sitter_NAME]; FILE is the grammar's WebAssembly module as `tree-sitter build --wasm` writes it (the .wasm grammar packages ship for web-tree-sitter), run in the same sandbox as the shipped grammars; expando replaces '$' in patterns, as ast-grep's expandoChar; repeatable"

// grammarFlag is --grammar: each value registers a custom language for the
// process (grammars.RegisterCustom), as a project's customLanguages do.
type grammarFlag struct{ names []string }

func (g *grammarFlag) String() string { return strings.Join(g.names, ",") }

func (g *grammarFlag) Set(v string) error {
	var name, file string
	var spec grammars.CustomSpec
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || val == "" {
			return fmt.Errorf("%q is not KEY=VALUE: give name=NAME,wasm=FILE,ext=EXT", kv)
		}
		switch k {
		case "name":
			name = val
		case "wasm":
			file = val
		case "ext":
			spec.Extensions = append(spec.Extensions, val)
		case "expando":
			if utf8.RuneCountInString(val) != 1 {
				return fmt.Errorf("expando %q: give one character", val)
			}
			spec.Expando, _ = utf8.DecodeRuneInString(val)
		case "symbol":
			spec.Symbol = val
		default:
			return fmt.Errorf("unknown key %q: use name, wasm, ext, expando, symbol", k)
		}
	}
	if name == "" || file == "" {
		return errors.New("name= and wasm= are needed: name=NAME,wasm=FILE,ext=EXT")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	spec.Source = file
	l, err := grammars.NewCustom(name, b, spec)
	if err == nil {
		_, err = grammars.RegisterCustom(l)
	}
	if err != nil {
		return err
	}
	g.names = append(g.names, name)
	return nil
}
