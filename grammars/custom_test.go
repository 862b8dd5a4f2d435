package grammars_test

import "errors"
import "strings"
import "testing"

import "github.com/tetherhq/tether/grammars"

// TestCustom: NewCustom checks a custom language's name and spec;
// RegisterCustom makes Lookup and ForPath find it, keeps one registration
// per module, replaces a name's module and gives an extension two claim to
// the latest; Key tells two modules of one name apart.
func TestCustom(t *testing.T) {
	mod := []byte("\x00asm\x01\x00\x00\x00 one")
	for _, c := range []struct {
		name string
		spec grammars.CustomSpec
		want string
	}{
		{"Props", grammars.CustomSpec{Extensions: []string{"props"}}, "lower case letters"},
		{"bash", grammars.CustomSpec{Extensions: []string{"props"}}, "names a shipped language"},
		{"sh", grammars.CustomSpec{Extensions: []string{"props"}}, "names a shipped language"},
		{"props", grammars.CustomSpec{}, "no extensions"},
		{"props", grammars.CustomSpec{Extensions: []string{"*.p"}}, "extension"},
	} {
		if _, err := grammars.NewCustom(c.name, mod, c.spec); !errors.Is(err, grammars.ErrCustom) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewCustom(%q, %v) = %v, want %q", c.name, c.spec, err, c.want)
		}
	}
	a, err := grammars.NewCustom("props-x", mod, grammars.CustomSpec{Extensions: []string{"PROPX", ".propx2"}, Expando: 'µ'})
	if err != nil {
		t.Fatal(err)
	}
	if a.Custom.Symbol != "tree_sitter_props_x" || a.Extensions[0] != ".propx" || a.Module.SHA256 != grammars.SHA256(mod) || !strings.HasPrefix(a.Key(), "props-x@") {
		t.Errorf("NewCustom = %+v, key %s", a, a.Key())
	}
	if _, ok := grammars.Lookup("props-x"); ok {
		t.Error("found before RegisterCustom")
	}
	ra, err := grammars.RegisterCustom(a)
	if err != nil || ra != a {
		t.Fatalf("RegisterCustom = %v, %v", ra, err)
	}
	again, _ := grammars.NewCustom("props-x", mod, grammars.CustomSpec{Extensions: []string{"propx", "propx2"}, Expando: 'µ'})
	if r, err := grammars.RegisterCustom(again); err != nil || r != a {
		t.Errorf("registering the same module again = %p, %v, want %p", r, err, a)
	}
	if l, ok := grammars.Lookup("Props-X"); !ok || l != a {
		t.Errorf("Lookup = %v, %v", l, ok)
	}
	if l, ok := grammars.ForPath("dir/a.propx2"); !ok || l != a {
		t.Errorf("ForPath = %v, %v", l, ok)
	}
	other, _ := grammars.NewCustom("other", mod, grammars.CustomSpec{Extensions: []string{"propx"}})
	if _, err := grammars.RegisterCustom(other); err != nil {
		t.Fatal(err)
	}
	if l, _ := grammars.ForPath("a.propx"); l != other {
		t.Errorf("an extension claimed twice is %v's, want the latest's", l)
	}
	b, _ := grammars.NewCustom("props-x", []byte("\x00asm\x01\x00\x00\x00 two"), grammars.CustomSpec{Extensions: []string{"propx"}})
	if r, err := grammars.RegisterCustom(b); err != nil || r != b {
		t.Fatalf("replacing = %v, %v", r, err)
	}
	if l, _ := grammars.Lookup("props-x"); l != b || a.Key() == b.Key() {
		t.Errorf("after replacing: Lookup = %p (want %p), keys %s %s", l, b, a.Key(), b.Key())
	}
	if w, err := grammars.Wasm(b); err != nil || string(w) != string(b.Custom.Wasm) {
		t.Errorf("Wasm = %q, %v", w, err)
	}
	if n := len(grammars.Customs()); n != 2 {
		t.Errorf("Customs = %d languages", n)
	}
	if l, ok := grammars.Lookup("go"); !ok || l.Key() != "go" {
		t.Errorf("a shipped language's key = %v", l)
	}
}
