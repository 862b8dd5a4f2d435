// Package rule compiles ast-grep's rule language (a YAML or JSON rule
// object) into a matcher over the trees of package engine: the atomic rules
// (pattern, kind, regex, nthChild, range; a kind may be an ESQuery-style
// selector, compiled to the rules it stands for), the relational ones (inside, has,
// follows, precedes, with stopBy and field), the composite ones (all, any,
// not, matches), and around a rule its constraints, utils, transform, fix
// and rewriters.
//
// A rule is compiled for one language (Compile, CompileConfig); a Runner
// finds its matches in a tree (Runner.Find) and a Fix turns each into an
// edit. Metavariables are shared across the parts of a rule as ast-grep
// shares them: the parts of a rule object and of an all are matched in
// order, each seeing the captures the earlier ones made; an any keeps the
// captures of its first branch that matches; a not keeps none.
//
// rule imports matcher, engine and the standard library (and a YAML
// reader); it must not import search, tools or anything above them.
package rule
