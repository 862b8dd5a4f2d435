// Package jsontree walks trees of JSON values as encoding/json decodes them
// into an any (map[string]any, []any, string, float64, bool, nil), such as
// the templates of a debug adapter's launch arguments or a language
// server's command arguments, where strings stand for values known only
// later ("${file}", "${program}").
//
// It imports no tether package outside internal/ (the standard library and the
// few third-party modules internal/layout_test.go allows it), so that every
// layer may use it.
package jsontree
