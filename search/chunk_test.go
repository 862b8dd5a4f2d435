package search

import (
	"reflect"
	"testing"
)

func TestSplitGo(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []int
	}{
		{"decls", "package p\n\nfunc a() {}\n\ntype T int\nvar v = 1\nconst c = 2\nfunc (T) m() {}\n", []int{0, 11, 24, 35, 45, 57}},
		{"inside a raw string", "package p\nvar s = `\nfunc x() {}\n`\nfunc y() {}\n", []int{0, 10, 34}},
		{"inside a block comment", "package p\n/*\nfunc x() {}\n*/\nfunc y() {}\n", []int{0, 28}},
		{"inside brackets", "package p\nvar (\nfunc_ = 1\n)\nvar f = func() {\nfunc x() {}\n}\n", []int{0, 10, 28}},
		{"line comment with a quote", "package p\n// don't\nfunc y() {}\n", []int{0, 19}},
		{"unterminated string", "package p\nvar s = \"abc\nfunc y() {}\n", nil},
		{"unbalanced", "package p\nfunc y() {\n", nil},
	}
	for _, tt := range tests {
		if got := splitGo([]byte(tt.src)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: splitGo = %v, want %v", tt.name, got, tt.want)
		}
	}
}
