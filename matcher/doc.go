// Package matcher finds code by shape and stages structural rewrites.
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
// accepts is an error naming the contexts tried; it is never searched.
//
// Searches walk a file or directory (respecting .gitignore and .ignore), skip
// files that lack the literal tokens the pattern requires before parsing them,
// parse and match on every core, and keep parsed trees in a per-run cache.
// Rewrites are staged as edits (edit_1, edit_2, ...) that a later resolve
// accepts (all files or none, atomically) or discards.
//
// See SPEC.md, sections "ast_grep", "ast_edit" and "resolve".
package matcher
