package ipynb_test

import (
	"testing"

	"github.com/tetherhq/tether/internal/ipynb"
)

func TestBlankIPython(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"plain Python is kept", "x = 1\nprint(x)\n", "x = 1\nprint(x)\n"},
		{"line magic and shell escape", "%matplotlib inline\n!pip install pandas\nimport pandas\n",
			"...               \n...                \nimport pandas\n"},
		{"indented escape stays a statement", "if x:\n    !ls -l\n", "if x:\n    ...   \n"},
		{"short escape is blanked", "%a\nx = 1", "  \nx = 1"},
		{"help lines", "len?\n??print\nobj.attr??  \n", "... \n...    \n...         \n"},
		{"assignment from a shell escape", "files = !ls *.csv\nn = len(files)\n", "files = []       \nn = len(files)\n"},
		{"assignment from a magic", "here = %pwd\nt = %timeit -o f()\n", "here = []  \nt = [][0]         \n"},
		{"a cell magic blanks the cell", "\n%%bash\necho hi\nls\n", "\n      \n       \n  \n"},
		{"a Python-bodied cell magic keeps its body", "%%time\nx = f()\n", "      \nx = f()\n"},
		{"modulo continuation in brackets is Python", "y = (a\n     % b)\n", "y = (a\n     % b)\n"},
		{"percent lines in a string are kept", "s = \"\"\"\n%not a magic\n!nor this\n\"\"\"\n", "s = \"\"\"\n%not a magic\n!nor this\n\"\"\"\n"},
		{"continuation after a backslash is kept", "z = 1 + \\\n  %2\n", "z = 1 + \\\n  %2\n"},
		{"CRLF line ends are kept", "%cd x\r\ny = 1\r\n", "...  \r\ny = 1\r\n"},
		{"comparison is not help", "a == b\n", "a == b\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ipynb.BlankIPython(tc.src)
			if got != tc.want {
				t.Errorf("BlankIPython(%q)\n = %q\nwant %q", tc.src, got, tc.want)
			}
			if len(got) != len(tc.src) {
				t.Errorf("length %d, want %d (offsets must hold)", len(got), len(tc.src))
			}
		})
	}
}
