package glob

import "regexp"
import "strings"

// Options choose a dialect; the zero value is the plain one: "*" and "?"
// within a path component, "**/" any number of directories (none
// included), any other "**" anything, "/" included.
type Options struct {
	// Classes reads "[abc]" and "[!a-z]" as character classes and "\x" as
	// x, as gitignore does; without it "[" and "\" are themselves.
	Classes bool
	// Components reads "**" as tsconfig does: "**/" is whole directories
	// only (none, or non-empty ones each with its "/") and any other "**"
	// stays within a component, as "*" does.
	Components bool
}

// Expr returns the regular expression for g, unanchored: a caller adds
// "^" and "$", or what its dialect puts around a pattern.
func Expr(g string, o Options) string {
	dirs, star2 := "(?:.*/)?", ".*"
	if o.Components {
		dirs, star2 = "(?:[^/]+/)*", "[^/]*"
	}
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case strings.HasPrefix(g[i:], "**/"):
			b.WriteString(dirs)
			i += 2
		case strings.HasPrefix(g[i:], "**"):
			b.WriteString(star2)
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[' && o.Classes:
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && o.Classes && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(string(g[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
