// Package search runs structural searches and rewrites over a corpus of
// files, with the pattern language of package matcher.
//
// A Searcher walks files and directories (respecting .gitignore, .ignore and
// the repository's exclude files, and skipping hidden files, binaries and
// files over a size cap), skips files that lack the literal tokens or the
// node kinds the pattern needs before parsing them, parses and matches on
// every core, and keeps parsed trees in a store (package store) shared by
// every search of the process, with an optional disk tier shared by
// processes. Rewrite computes a Plan of every file's new content, which
// Plan.Apply writes, all files or none; package stage holds plans as staged
// edits (edit_1, edit_2, ...) until they are accepted or discarded.
//
// Do and DoScan run a search, rewrite or scan as ast-grep's command line
// does (tether ast-grep, tether scan): the rewrite or the fixes applied at
// once when asked, the rules loaded from a project (LoadRules, FindProject).
// RunRuleTests runs a project's rule tests (LoadRuleTests) and CreateItem
// writes a new project, rule, test or util, as ast-grep's test and new do.
//
// Embedded code (a <script> in HTML, a fence in markdown) is found by
// package inject, and searched as its own language.
//
// search imports its own packages below it (store, inject), matcher, engine,
// grammars and internal packages; it must not import tools, server or
// anything above them.
package search
