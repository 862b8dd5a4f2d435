// Package sourcemap decodes source maps, revision 3
// (https://tc39.es/ecma426/), and maps places both ways: a generated line
// and column to the source it came from, and a source line to the first
// generated place for it. The node adapter (../nodeadapter) reads the maps
// tsc and bundlers write with it, to set breakpoints on TypeScript lines and
// name a frame's TypeScript line.
//
// It imports only the standard library: it reads no files and knows nothing
// of DAP or of the inspector protocol.
package sourcemap
