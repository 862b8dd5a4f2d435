package search_test

import "context"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/search"

const scopedCpp = `namespace outer {
namespace inner {
class Foo {
 public:
  int bar() { return 1; }
  ~Foo() {}
  int baz();
};
int Foo::baz() { return 2; }
}  // namespace inner
int free_fn() { return 3; }
}
namespace a::b {
void f() {}
}
namespace {
void hidden() {}
}
template <typename T> struct Box { T get(); };
template <typename T> T Box<T>::get() { return T(); }
void outer::inner::Foo::qux() {}
`

const scopedRust = `mod net {
    pub mod tcp {
        pub struct Conn;
        impl Conn {
            pub fn open() -> Self { Conn }
        }
        pub fn dial() {}
    }
}
fn main() {}
`

// TestDeclarationScopes: C++ namespaces and Rust modules hold what they
// declare in its name path (an anonymous namespace adds nothing), and a
// C++ definition outside its class (Foo::baz, ns::Foo::qux, Box<T>::get)
// is found under its class, so that a name path such as
// outer::inner::Foo::baz or net/tcp/dial picks it.
func TestDeclarationScopes(t *testing.T) {
	s := search.NewSearcher(parser(t), search.Config{})
	for _, c := range []struct {
		file, src string
		want      []string
	}{
		{"a.cc", scopedCpp, []string{
			"outer/inner/Foo:3", "outer/inner/Foo/bar:5", "outer/inner/Foo/~Foo:6", "outer/inner/Foo/baz:9",
			"outer/free_fn:11", "a/b/f:14", "hidden:17", "Box:19", "Box/get:20", "outer/inner/Foo/qux:21",
		}},
		{"a.rs", scopedRust, []string{"net/tcp/Conn:3", "net/tcp/Conn/open:5", "net/tcp/dial:7", "main:10"}},
	} {
		f, err := s.DeclarationsOf(context.Background(), c.file, []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range f.Decls {
			got = append(got, d.PathString()+":"+strconv.Itoa(d.Line))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s declarations:\n got %v\nwant %v", c.file, got, c.want)
		}
	}

	f, err := s.DeclarationsOf(context.Background(), "a.cc", []byte(scopedCpp))
	if err != nil {
		t.Fatal(err)
	}
	for path, line := range map[string]int{"outer::inner::Foo::baz": 9, "Foo::baz": 9, "inner/Foo/qux": 21, "Box<T>::get": 20, "Foo::~Foo": 6} {
		d, err := f.Find(path)
		if err != nil || d.Line != line {
			t.Errorf("Find(%q) = line %d, %v; want line %d", path, d.Line, err, line)
		}
	}
	d, err := f.Find("outer::inner::Foo::baz")
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.EditSymbol(d, search.SymbolEdit{Action: search.SymbolReplace, Body: true, Text: "return 20;"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "int Foo::baz() {\n return 20;\n}\n") || strings.Contains(string(got), "return 2;") ||
		!strings.Contains(string(got), "int bar() { return 1; }") {
		t.Errorf("body of outer::inner::Foo::baz replaced:\n%s", got)
	}
}
