// Package matcher is the pattern language: it compiles code patterns with
// metavariables and finds their matches in parsed trees.
//
// A pattern is source code in the target language with metavariables: $NAME
// matches one named node, $$$NAME zero or more consecutive sibling nodes, $$$
// the same without a name, and $_ (or any $_NAME) one node that binds nothing.
// A metavariable repeated in one pattern must capture the same text.
//
// Patterns are parsed with the target language's grammar inside a scaffold: the
// compiler tries a per-language ladder of contexts (statement, expression, class
// member, declaration) and keeps the first whose parse has no error, so the
// pattern means what it would mean inside real code. A pattern no context
// accepts is an error naming the contexts tried (ErrUnparseable); it is never
// matched. Compile reads a pattern; CompileSelector reads it as the code
// around the node of a given kind to match.
//
// A Matcher finds a Pattern's matches in one tree, within a step budget
// (ErrTooExpensive), and a Template turns the matches into edits.
//
// matcher knows nothing of files: walking directories, ignore rules, the store
// of parsed trees and staged edits are package search, which imports this
// one. matcher imports only engine, grammars and the standard library; it must
// not import search, tools or anything above them.
package matcher
