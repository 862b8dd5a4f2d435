package search_test

import "context"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/search"
import "github.com/tetherhq/tether/search/internal/searchtest"
import "github.com/tetherhq/tether/search/store"

// goldenKindRun searches q with s, after a warm-up of q's paths has noted
// the kind set of every file, and with a searcher over an empty store,
// which knows no kind set, and fails unless both find the same. It returns
// the first result. (search/store's tests hold the rest of the kind sets'.)
func goldenKindRun(t *testing.T, s *search.Searcher, q search.Query) *search.Result {
	t.Helper()
	base, err := search.NewSearcher(parser(t), search.Config{Cache: store.NewCache(0)}).Search(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q.Pattern, err)
	}
	return searchtest.SameWithKindSets(t, s, q, base)
}

// TestKindPrefilterGolden: every golden pattern finds the same matches with
// the kind sets of all the golden inputs of its language as without: each
// language's inputs are one directory, searched by every pattern of the
// language (its own input and the others').
func TestKindPrefilterGolden(t *testing.T) {
	p := parser(t)
	byLang := map[string][]*goldenCase{}
	for _, c := range loadCases(t) {
		if _, bad := c.section("error"); !bad {
			byLang[c.lang] = append(byLang[c.lang], c)
		}
	}
	skipped, searched := 0, 0
	for lang, cases := range byLang {
		dir := t.TempDir()
		for _, c := range cases {
			name := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(c.path), ".txtar"), ".", "_") + filepath.Ext(c.inputName)
			if err := os.WriteFile(filepath.Join(dir, name), c.input, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
		for _, c := range cases {
			r := goldenKindRun(t, s, search.Query{Pattern: c.pattern, Selector: c.selector, Language: lang, Paths: []string{dir}})
			skipped += r.KindSkipped
			searched += r.Searched
		}
	}
	if skipped == 0 {
		t.Errorf("no file of %d skipped by its kinds", searched)
	}
	t.Logf("%d of %d files skipped by their kinds", skipped, searched)
}

// chunkedTS is TypeScript whose cuts are easy to get wrong: decorators on
// classes and members, a generic class header with an object type, a
// member that is an arrow function, regular expressions and templates
// holding braces, overloads, an abstract class, statements without
// semicolons, a class expression, and a match on each side of every cut.
const chunkedTS = `import { Entity, Column } from "typeorm";
import * as path from "path"

@Entity({ name: "users" })
export class User<T extends { id: number }> extends Base<() => void> {
    @Column({ type: "varchar" })
    name: string;

    private handler = async (x: T) => {
        await this.save(x);
        return new Promise((resolve) => resolve(x));
    };

    static pattern = /[}{]+\//g;

    describe(): string {
        return ` + "`" + `${this.name} {${ {a: 1}.a }}` + "`" + `;
    }

    load(id: number): Promise<User<T>>;
    load(id: string): Promise<User<T>>;
    async load(id: any) {
        const found = await repo.findOne(id)
        if (found === undefined) {
            throw new Error("missing " + id);
        }
        return found
    }
}

export abstract class Shape {
    abstract area(): number;
    describe() { return JSON.parse("{}"); }
}

const Mixed = class {
    run() { console.log(new Promise(() => {})); }
};

export function helper(a: number) {
    return a === undefined ? 0 : a
}
let later = helper(1)
export const value = new Promise<number>((r) => r(later));
`

// TestChunkedTypeScriptAgreesWithWhole: a search that parses TypeScript in
// chunks (top-level declarations, class members) finds exactly what a
// search parsing every file whole finds, on the golden inputs and the
// tricky file above, for patterns of expressions, statements, members and
// decorators. TETHER_TS_CORPUS names more directories to compare on (a
// real project: go test ./search -run ChunkedTypeScript -v with it set).
func TestChunkedTypeScriptAgreesWithWhole(t *testing.T) {
	chunkedAgree(t, "typescript", ".ts", map[string]string{"chunked.ts": chunkedTS}, filepath.SplitList(os.Getenv("TETHER_TS_CORPUS")), []string{
		"new Promise($$$)", "await $X", "console.log($$$)", "$A === undefined", "JSON.parse($A)",
		"this.$F($$$)", "return $X", "throw new $E($$$)", "if ($C) { $$$ }", "async $M($$$) { $$$ }",
		"@Column($$$)", "private $F = $V", "$X as $T", "for (const $X of $Y) { $$$ }", "const $X = await $Y",
		"abstract $M(): $T;", "import $X from $Y", "export const $X = $Y", "$O.find($$$)",
	})
}

// chunkedJS is JavaScript without semicolons and with classes, regular
// expressions holding quotes and braces, a template with a nested
// template, a class expression and a match on each side of every cut;
// chunkedJSX holds JSX, whose file is parsed whole.
const chunkedJS = `import fs from "fs"
const re = /["'{]+/g

export class Store extends Base {
  static #count = 0
  items = []

  add(item) {
    this.items.push(item)
    return new Promise((resolve) => resolve(item))
  }

  async load(path) {
    const text = await fs.promises.readFile(path, "utf8")
    return JSON.parse(text.replace(re, ` + "`${`x`}`" + `))
  }
  get size() { return this.items.length }
}

export const Other = class {
  run() { console.log(new Promise(() => {})) }
}

module.exports = { Store }
`

const chunkedJSX = `export function App() {
  return <div className="a">{items.map((i) => <p key={i}>it's {i}</p>)}</div>
}

export const value = JSON.parse("{}")
`

// TestChunkedJavaScriptAgreesWithWhole: the same for JavaScript, whose
// files without JSX are cut as TypeScript's are (more with
// TETHER_JS_CORPUS).
func TestChunkedJavaScriptAgreesWithWhole(t *testing.T) {
	chunkedAgree(t, "javascript", ".js", map[string]string{"chunked.js": chunkedJS, "app.js": chunkedJSX}, filepath.SplitList(os.Getenv("TETHER_JS_CORPUS")), []string{
		"new Promise($$$)", "await $X", "console.log($$$)", "JSON.parse($A)", "this.$F.push($$$)",
		"return $X", "async $M($$$) { $$$ }", "get $P() { $$$ }", "static $F = $V", "$X.replace($$$)",
		"const $X = await $Y", "module.exports = $X", "import $X from $Y", "$A.map($$$)",
	})
}

// chunkedPy is Python whose cuts are easy to get wrong: decorators, a
// class docstring, clauses at column 0, a comment at column 0 inside a
// function, continuations, triple-quoted strings holding code, nested
// classes and a match on each side of every cut.
const chunkedPy = `import os
from typing import Any

CONFIG = {
"a": 1,
}

@dataclass
class User(Base):
    """A user.

def not_a_def(): pass
"""
    name: str = "x"

    @property
    def label(self) -> str:
        return self.name.upper()

    def save(self, db: Any) -> None:
        if self.name:
            db.save(self)
# a comment at column 0, inside save
        else:
            raise ValueError("no name")

    class Meta:
        table = "users"

    async def load(self, db):
        return await db.get(self.name)

def helper(x):
    return x.upper() \
        + "!"

if __name__ == "__main__":
    print(helper("a"))
else:
    print("imported")
try:
    import json
except ImportError:
    json = None

def statements(self, xs, d):
    if xs: self.first = xs[0]
    else: self.first = None
    for x in xs: total = x; self.last = x
    self.table = {
        "a":
            1,
    }
    self.doc = """a line that ends in a colon:
    self.inner = 1
"""
    self.cont = 1 + \
        2
	# a comment at another indentation
    label = lambda v: v
    count: int = 0
    count += 1
    del d["x"]
    assert xs, "no xs"
    global CONFIG
    match d:
        case {"k": v}:
            self.k = v
        case _:
            pass
    with open("f") as f: self.f = f
    while False:
        break
    return self.first
`

// TestChunkedPythonAgreesWithWhole: the same for Python: top-level
// statements and a class's members in chunks find exactly what whole files
// do, on the golden inputs, the tricky file above and a few packages of
// the standard library of the python3 on PATH (more with
// TETHER_PY_CORPUS).
func TestChunkedPythonAgreesWithWhole(t *testing.T) {
	more := filepath.SplitList(os.Getenv("TETHER_PY_CORPUS"))
	if py := testenv.LookPath("python3"); py != "" {
		out, err := exec.Command(py, "-c", "import json, email, os; print(os.path.dirname(json.__file__)); print(os.path.dirname(email.__file__))").Output()
		if err == nil {
			more = append(more, strings.Fields(string(out))...)
		}
	}
	chunkedAgree(t, "python", ".py", map[string]string{"chunked.py": chunkedPy,
		"crlf.py": "import os\r\nfrom a import b, \\\r\n    c\r\ndef f():\r\n    return b + \\\r\n        c\r\n"}, more, []string{
		"$X.upper()", "return $X", "await $X", "raise $E($$$)", "print($$$)", "if $C: $$$", "self.$F = $V",
		"def $F(self): $$$", "import $M", "$D.get($$$)", "isinstance($X, $T)", "for $X in $Y: $$$",
		"$A == $B", "len($X)", "@property", "class Meta: $$$", "$A += $B", "del $X", "assert $X, $M", "from $M import $N",
		"global $X", "pass", "$X = $Y", "return", "self.$A = $B", "$X: int = $Y", "break",
	})
}

// chunkedAgree searches lang's golden inputs (files of extension ext),
// the tricky files (by name) and the directories more, for each pattern,
// in chunks and whole, and fails where the two differ.
func chunkedAgree(t *testing.T, lang, ext string, tricky map[string]string, more, patterns []string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range tricky {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, c := range loadCases(t) {
		if c.lang == lang && filepath.Ext(c.inputName) == ext {
			n++
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("golden%d%s", n, ext)), c.input, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	paths := append([]string{dir}, more...)
	p := parser(t)
	whole := search.NewSearcher(p, search.Config{Cache: store.NewCache(0), WholeFiles: true})
	total := 0
	for _, pat := range patterns {
		// a store of its own: a whole tree an earlier pattern left in it
		// would serve this one instead of its chunks
		chunked := search.NewSearcher(p, search.Config{Cache: store.NewCache(0)})
		q := search.Query{Pattern: pat, Language: lang, Paths: paths}
		a, err := chunked.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		b, err := whole.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v", pat, err)
		}
		if got, want := matchList(a), matchList(b); got != want {
			t.Errorf("%s: in chunks %d matches, whole %d:\n--- in chunks\n%s\n--- whole\n%s", pat, len(a.Matches), len(b.Matches), got, want)
		}
		total += len(b.Matches)
	}
	if total == 0 {
		t.Fatal("no pattern found anything: the comparison compared nothing")
	}
	t.Logf("%s: %d patterns over %v, %d matches in all, the same in chunks as whole", lang, len(patterns), paths[1:], total)
}

// matchList lists a result's matches with their places, texts and
// captures, one a line.
func matchList(r *search.Result) string {
	var b strings.Builder
	for _, m := range r.Matches {
		fmt.Fprintf(&b, "%s:%d:%d-%d:%d [%d,%d) %q", m.Path, m.Span.Start.Line, m.Span.Start.Column, m.Span.End.Line, m.Span.End.Column, m.Span.StartByte, m.Span.EndByte, m.Text)
		for _, c := range m.Bindings {
			fmt.Fprintf(&b, " %s=%q", c.Name, c.Text)
		}
		fmt.Fprintf(&b, " lines %q\n", m.Lines)
	}
	return b.String()
}
