// Package store keeps parsed trees for structural search: a content-addressed
// memory store (Cache) shared by every search of the process, with an
// optional disk tier (DiskCache) shared by processes, the kind sets of whole
// files that let a search skip a file without its tree, the outlines of whole
// files a map ranks without their trees (both side indexes, sideindex.go),
// the stat memo that lets it skip reading an unchanged one, the gate that
// bounds the source bytes parsed at once, and the schedule of a background
// warm-up (Warmer).
//
// A tree is keyed by its language, grammar module and source (KeyOf), never
// by a path, so it is never served for changed content. What to search,
// and how to match, are package search's; the store parses only what it is
// asked for, with the parser it is handed.
//
// store imports matcher (for its Parser), engine, grammars and internal
// packages; it must not import search, tools, server or anything above
// them.
package store
