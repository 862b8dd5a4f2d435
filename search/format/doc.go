// Package format prints structural-search matches as ast-grep's command
// line prints them: its JSON shapes (--json=pretty, compact, stream) and its
// human "file:line:text" lines. It is presentation, kept out of package
// search as ast-grep keeps its printers in its CLI crate.
//
// format imports search and grammars (for ast-grep's language names) only:
// never tools, server or anything above them.
package format
