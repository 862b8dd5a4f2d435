// Package ipynb reads Jupyter notebooks (nbformat 4) and rewrites them by
// spans of their JSON text: a cell that is not changed keeps its bytes, and
// the notebook's metadata, key order and indentation are kept, so that a
// rewrite diffs as Jupyter's own save would.
//
// It imports only the standard library, so that every layer may use it.
package ipynb
