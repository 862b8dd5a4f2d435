package inject

import "bytes"
import "strings"
import "unicode"
import "unicode/utf8"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

// tagRegions lists the <script> and <style> elements' raw text. A lang
// attribute names the language (lang="ts": TypeScript, lang="scss": SCSS);
// without one, a script's type decides: none or a JavaScript type is
// JavaScript, a JSON type (application/json, importmap, ...) JSON, and any
// other type (a template, a data block) is not code; a style is CSS. A
// lang no shipped grammar knows is no region.
func tagRegions(t *engine.Tree) []Region {
	var out []Region
	t.Root().Walk(func(n engine.Node) bool {
		kind := n.Kind()
		if kind != "script_element" && kind != "style_element" {
			return true
		}
		var attrs map[string]string
		var text engine.Node
		for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
			switch c.Kind() {
			case "start_tag":
				attrs = tagAttributes(c)
			case "raw_text":
				text = c
			}
		}
		if !text.Valid() {
			return false
		}
		if lang := elementLanguage(kind == "script_element", attrs); lang != "" {
			out = append(out, regionOf(text, lang))
		}
		return false
	})
	return out
}

// elementLanguage is the language of a script (or style) element with the
// given attributes, "" for none shipped.
func elementLanguage(script bool, attrs map[string]string) string {
	if v, ok := attrs["lang"]; ok {
		if l, ok := grammars.Lookup(v); ok {
			return l.ID
		}
		return ""
	}
	typ := strings.ToLower(strings.TrimSpace(attrs["type"]))
	if !script {
		if typ == "" || typ == "text/css" {
			return "css"
		}
		return ""
	}
	switch typ {
	case "", "module", "text/javascript", "application/javascript", "text/ecmascript", "application/ecmascript", "text/jsx", "text/babel":
		return "javascript"
	case "text/typescript", "application/typescript":
		return "typescript"
	case "application/json", "importmap", "application/ld+json", "speculationrules":
		return "json"
	}
	return ""
}

// tagAttributes reads a start tag's attributes: name (lower case) to value.
func tagAttributes(tag engine.Node) map[string]string {
	attrs := map[string]string{}
	for a, ok := tag.FirstChild(); ok; a, ok = a.NextSibling() {
		if a.Kind() != "attribute" {
			continue
		}
		var name, value string
		for c, ok := a.FirstChild(); ok; c, ok = c.NextSibling() {
			switch c.Kind() {
			case "attribute_name":
				name = strings.ToLower(c.Text())
			case "attribute_value":
				value = c.Text()
			case "quoted_attribute_value":
				for v, ok := c.FirstChild(); ok; v, ok = v.NextSibling() {
					if v.Kind() == "attribute_value" {
						value = v.Text()
					}
				}
			}
		}
		if _, dup := attrs[name]; name != "" && !dup {
			attrs[name] = value
		}
	}
	return attrs
}

// mayHoldTag says whether src has a <script (for a script's languages) or
// a <style (for CSS and SCSS) tag as the grammars read one: white space may
// follow the "<", and the name is compared upper-cased rune by rune, as
// their scanners' towupper does ("< STYLE", "<ſcript").
func mayHoldTag(src []byte, lang string) bool {
	tag := "SCRIPT"
	if lang == "css" || lang == "scss" {
		tag = "STYLE"
	}
	for i := 0; i < len(src); {
		k := bytes.IndexByte(src[i:], '<')
		if k < 0 {
			return false
		}
		i += k + 1
		j := i
		for j < len(src) {
			r, n := utf8.DecodeRune(src[j:])
			if !unicode.IsSpace(r) {
				break
			}
			j += n
		}
		if hasUpperPrefix(src[j:], tag) {
			return true
		}
	}
	return false
}

// hasUpperPrefix says whether b starts with runes whose upper case spells
// upper (ASCII).
func hasUpperPrefix(b []byte, upper string) bool {
	for _, want := range upper {
		if len(b) == 0 {
			return false
		}
		r, n := utf8.DecodeRune(b)
		if unicode.ToUpper(r) != want {
			return false
		}
		b = b[n:]
	}
	return true
}
