// Package inject finds embedded languages: the regions of a host file
// written in another language, JavaScript in an HTML <script>, CSS in a
// <style>, an expression in a Svelte or Vue template, Go in a markdown
// fence, and those a project's languageInjections (Injection) name. Regions
// are read from the host's own tree, each with its place in the host file,
// so that a search parses each region as its language and reports its
// matches in the host file's coordinates; a cheap look at a host file's
// bytes (May, MayHold) says when it can hold none, so that it is not
// parsed at all. Regions are one level deep: a region is not itself a host.
//
// inject imports engine, grammars and matcher/rule only; it must not import
// search, tools or anything above them.
package inject
