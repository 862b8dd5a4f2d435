// Package inject finds embedded languages: the regions of a host file
// written in another language, JavaScript in an HTML <script>, CSS in a
// <style>, an expression in a Svelte or Vue template, Go in a markdown
// fence, and those a project's languageInjections (Injection) name. Regions
// are read from the host's own tree, each with its place in the host file,
// so that a search parses each region as its language and reports its
// matches in the host file's coordinates; a cheap look at a host file's
// bytes (May, MayHold) says when it can hold none, so that it is not
// parsed at all. Regions are one level deep: a region is not itself a host.
// A Jupyter notebook's code cells are regions of another kind, decoded
// from its JSON and placed by cell rather than by file offset
// (NotebookCells).
//
// inject imports engine, grammars, matcher/rule and internal/ipynb only;
// it must not import search, tools or anything above them.
package inject
