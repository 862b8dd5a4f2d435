package nodeadapter

import "strings"
import "testing"

// funcSrc declares functions every way findFunction reads, each body's
// first statement marked with a comment naming it.
const funcSrc = `'use strict';
function plain(a, b = f(1)) {
  return a + b; // plain
}
async function* gen() { yield 1; // gen
}
const arrow = (x, { y }) => {
  return x; // arrow
};
const short = x => x * 2; // short
let expr = function named(z) { return z; // expr
};
module.exports.exported = async () => { await 0; // exported
};
class Shape {
  constructor(n) { this.n = n; // constructor
  }
  static area(s) {
    return s.n; // area
  }
  get size() { return 1; // size
  }
}
const obj = { method(q) { return q; // method
}, prop: function () { return 2; // prop
} };
plain(1, 2);
if (plain(3)) { plain(4); }
// callsOnly(1) is a comment; callsOnly(2);
callsOnly(3);
`

func TestFindFunction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		marks []string // the comments on the lines of the statements found
	}{
		{"plain", []string{"plain"}},
		{"gen", []string{"gen"}},
		{"arrow", []string{"arrow"}},
		{"short", []string{"short"}},
		{"expr", []string{"expr"}},
		{"module.exports.exported", []string{"exported"}},
		{"Shape.area", []string{"area"}},
		{"area", []string{"area"}},
		{"Shape.constructor", []string{"constructor"}},
		{"size", []string{"size"}},
		{"method", []string{"method"}},
		{"prop", []string{"prop"}},
		{"obj.method", nil}, // obj is no class, and obj.method is not assigned
		{"callsOnly", nil},
		{"missing", nil},
		{"Other.area", nil},
		{"not a name", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, off := range findFunction(funcSrc, tc.name) {
				line, _ := lineCol(funcSrc, off)
				text := strings.Split(funcSrc, "\n")[line]
				_, mark, _ := strings.Cut(text, "// ")
				got = append(got, mark)
			}
			if strings.Join(got, ",") != strings.Join(tc.marks, ",") {
				t.Fatalf("findFunction(%q) found the statements marked %q, want %q", tc.name, got, tc.marks)
			}
		})
	}
}

// TestLineColUTF16: columns count UTF-16 units, as the inspector does.
func TestLineColUTF16(t *testing.T) {
	src := "a\nconst s = '😀é'; x"
	line, col := lineCol(src, strings.Index(src, "x"))
	if line != 1 || col != len("const s = '")+2+1+len("'; ") {
		t.Fatalf("lineCol = %d, %d", line, col)
	}
}
