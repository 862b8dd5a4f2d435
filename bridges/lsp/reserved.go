package lsp

import "path/filepath"
import "strings"
import "sync"

import "github.com/tetherhq/tether/grammars"

// identRules is what a new name must be in one language: its name,
// whether $ may appear in an identifier, and the words that cannot name
// anything. Contextual keywords (Go's predeclared int, Python's match,
// TypeScript's type, Java's var) are left out: they name things.
type identRules struct {
	name     string
	dollar   bool
	reserved map[string]bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// The reserved words of each language, from its specification: Go's
// keywords; Python's keyword.kwlist; ECMAScript's reserved words in strict
// code (modules and classes are strict, and TypeScript files are modules),
// with await; Java's keywords and literals (JLS 3.9, 3.10) with _; C23's
// keywords with the C11 spellings; C++'s keywords and alternative tokens;
// Rust's strict and reserved keywords; Dart's reserved words.
const (
	goWords = `break case chan const continue default defer else fallthrough for func go goto if
		import interface map package range return select struct switch type var`
	pythonWords = `False None True and as assert async await break class continue def del elif else
		except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield`
	jsWords = `await break case catch class const continue debugger default delete do else enum export
		extends false finally for function if import in instanceof new null return super switch this throw true
		try typeof var void while with yield let static implements interface package private protected public`
	javaWords = `abstract assert boolean break byte case catch char class const continue default do
		double else enum extends final finally float for goto if implements import instanceof int interface long
		native new package private protected public return short static strictfp super switch synchronized this
		throw throws transient try void volatile while true false null _`
	cWords = `auto break case char const continue default do double else enum extern float for goto if
		inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
		void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert
		_Thread_local alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual`
	cppWords = `alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
		char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
		co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern false
		float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or
		or_eq private protected public register reinterpret_cast requires return short signed sizeof static
		static_assert static_cast struct switch template this thread_local throw true try typedef typeid typename
		union unsigned using virtual void volatile wchar_t while xor xor_eq`
	rustWords = `as break const continue crate else enum extern false fn for if impl in let loop match
		mod move mut pub ref return self Self static struct super trait true type unsafe use where while async
		await dyn abstract become box do final macro override priv typeof unsized virtual yield try gen`
	dartWords = `assert break case catch class const continue default do else enum extends false final
		finally for if in is new null rethrow return super switch this throw true try var void while with`
)

func union(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for w := range s {
			m[w] = true
		}
	}
	return m
}

// rulesByLang are the identifier rules by grammar id (grammars/manifest.json,
// which also names each language), for every language tether has a server
// row for and Java; made on first use (a rename's check), not at every start.
var rulesByLang = sync.OnceValue(func() map[string]identRules {
	js := words(jsWords)
	return map[string]identRules{
		"go":         {reserved: words(goWords)},
		"python":     {reserved: words(pythonWords)},
		"typescript": {dollar: true, reserved: js},
		"tsx":        {dollar: true, reserved: js},
		"javascript": {dollar: true, reserved: js},
		"java":       {dollar: true, reserved: words(javaWords)},
		"c":          {reserved: words(cWords)},
		"cpp":        {reserved: words(cppWords)},
		"rust":       {reserved: words(rustWords)},
		"dart":       {dollar: true, reserved: words(dartWords)},
	}
})

// rulesFor returns the identifier rules for path's language, named as the
// grammar manifest names it, or for a server's language when the file is of
// none of rulesByLang's (a server row a user added): letters, digits and _,
// nothing reserved. A .h file may be C or C++: both languages' words are
// refused there.
func rulesFor(path, language string) identRules {
	l, ok := grammars.ForPath(path)
	if !ok {
		return identRules{name: language}
	}
	r, known := rulesByLang()[l.ID]
	if !known {
		return identRules{name: language}
	}
	r.name = l.Name
	if strings.EqualFold(filepath.Ext(path), ".h") {
		if cpp, ok := grammars.Lookup("cpp"); ok {
			r.name += "/" + cpp.Name
		}
		r.reserved = union(words(cWords), words(cppWords))
	}
	return r
}
