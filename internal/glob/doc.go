// Package glob translates slash-separated path globs to regular
// expressions: the one translation that gitignore files, tsconfig include
// and exclude lists and the diagnostics tool's file patterns share, with
// options where their dialects differ.
//
// It imports no tether package outside internal/ (the standard library
// only), so that every layer may use it.
package glob
