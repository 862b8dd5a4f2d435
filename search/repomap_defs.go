package search

import "bytes"
import "context"
import "regexp"
import "strings"
import "sync"

import "github.com/tetherhq/tether/engine"

// defKind says how a node kind of a language's tree is outlined by Map.
type defKind struct {
	// role is what the definition is: function, method, type, class,
	// interface or constant ("" for a kind that is only opaque)
	role string
	// prefix is put before the node's first line where the keyword that
	// names the role is its parent's ("type " for a Go type_spec)
	prefix string
	// opaque: the outline does not descend into the node (a function's
	// body holds no definition the rest of the project can name)
	opaque bool
	// constant: only a name of capitals (MAX_SIZE) is a definition
	constant bool
	// proto: only a declaration of a function is one (a C prototype, not
	// a variable)
	proto bool
	// body: only a node with a body is one (a C struct's definition, not
	// a use of its name)
	body bool
}

// outlineKinds is, per language, the node kinds Map lists as definitions
// and those it does not descend into. A language that is not here is not
// outlined: Map says so instead of listing nothing for it.
var outlineKinds = map[string]map[string]defKind{
	"go": {
		"function_declaration": {role: "function", opaque: true},
		"method_declaration":   {role: "method", opaque: true},
		"type_spec":            {role: "type", prefix: "type "},
		"type_alias":           {role: "type", prefix: "type "},
		"const_spec":           {role: "constant", prefix: "const "},
		"func_literal":         {opaque: true},
	},
	"python": {
		"function_definition": {role: "function", opaque: true},
		"class_definition":    {role: "class"},
		"assignment":          {role: "constant", constant: true, opaque: true},
		"lambda":              {opaque: true},
	},
	"javascript": jsKinds(nil),
	"typescript": jsKinds(tsKinds),
	"tsx":        jsKinds(tsKinds),
	"rust": {
		"function_item":           {role: "function", opaque: true},
		"function_signature_item": {role: "function"},
		"struct_item":             {role: "type"},
		"enum_item":               {role: "type"},
		"union_item":              {role: "type"},
		"type_item":               {role: "type"},
		"trait_item":              {role: "interface"},
		"const_item":              {role: "constant", opaque: true},
		"static_item":             {role: "constant", opaque: true},
		"macro_definition":        {role: "function", opaque: true},
		"closure_expression":      {opaque: true},
	},
	"c":   cKinds(nil),
	"cpp": cKinds(map[string]defKind{"class_specifier": {role: "class", body: true}}),
	"java": {
		"class_declaration":           {role: "class"},
		"record_declaration":          {role: "class"},
		"interface_declaration":       {role: "interface"},
		"annotation_type_declaration": {role: "interface"},
		"enum_declaration":            {role: "type"},
		"method_declaration":          {role: "method", opaque: true},
		"constructor_declaration":     {role: "method", opaque: true},
		"field_declaration":           {role: "constant", constant: true, opaque: true},
		"lambda_expression":           {opaque: true},
	},
}

// tsKinds are TypeScript's kinds beyond JavaScript's.
var tsKinds = map[string]defKind{
	"interface_declaration":      {role: "interface"},
	"type_alias_declaration":     {role: "type"},
	"enum_declaration":           {role: "type"},
	"abstract_class_declaration": {role: "class"},
	"function_signature":         {role: "function"},
	"method_signature":           {role: "method"},
	"abstract_method_signature":  {role: "method"},
	"internal_module":            {role: "type"},
	"public_field_definition":    {opaque: true},
	"property_signature":         {opaque: true},
	"type_annotation":            {opaque: true},
	"generic_type":               {opaque: true},
	"index_signature":            {opaque: true},
	"call_signature":             {opaque: true},
	"construct_signature":        {opaque: true},
}

// jsKinds returns JavaScript's kinds, with more (TypeScript's) added.
func jsKinds(more map[string]defKind) map[string]defKind {
	k := map[string]defKind{
		"function_declaration":           {role: "function", opaque: true},
		"generator_function_declaration": {role: "function", opaque: true},
		"class_declaration":              {role: "class"},
		"method_definition":              {role: "method", opaque: true},
		"variable_declarator":            {role: "constant", opaque: true},
		"arrow_function":                 {opaque: true},
		"function_expression":            {opaque: true},
		"function":                       {opaque: true},
		"generator_function":             {opaque: true},
	}
	for n, d := range more {
		k[n] = d
	}
	return k
}

// cKinds returns C's kinds, with more (C++'s) added.
func cKinds(more map[string]defKind) map[string]defKind {
	k := map[string]defKind{
		"function_definition":  {role: "function", opaque: true},
		"struct_specifier":     {role: "type", body: true},
		"union_specifier":      {role: "type", body: true},
		"enum_specifier":       {role: "type", body: true},
		"type_definition":      {role: "type", opaque: true},
		"preproc_def":          {role: "constant", opaque: true},
		"preproc_function_def": {role: "function", opaque: true},
		"declaration":          {role: "function", proto: true, opaque: true},
	}
	for n, d := range more {
		k[n] = d
	}
	return k
}

// refKinds are the node kinds whose text names something another file may
// define: the references a definition's rank counts.
var refKinds = map[string]bool{
	"identifier": true, "type_identifier": true, "field_identifier": true,
	"property_identifier": true, "shorthand_property_identifier": true,
	"constant": true, "namespace_identifier": true,
}

// memberNameKinds name a C++ member that is no identifier: ~Foo, operator==.
var memberNameKinds = map[string]bool{"destructor_name": true, "operator_name": true}

// capitals is the name of a constant where only such names are.
var capitals = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`) })

// maxSignature bounds a definition's signature, in bytes.
const maxSignature = 200

// outlineTree returns the definitions of a tree (in source order) and how
// many times each identifier occurs in it. It stops early when ctx is done.
func outlineTree(ctx context.Context, t *engine.Tree, kinds map[string]defKind) ([]MapDef, map[string]int) {
	var defs []MapDef
	refs := map[string]int{}
	seen := 0
	t.Root().Walk(func(n engine.Node) bool {
		if seen++; seen&4095 == 0 && ctx.Err() != nil {
			return false
		}
		if !n.IsNamed() {
			return false
		}
		kind := n.Kind()
		if refKinds[kind] {
			refs[n.Text()]++
			return false
		}
		d, ok := kinds[kind]
		if !ok {
			return true
		}
		if d.role != "" && d.holds(n) {
			if name, at := defName(n); name != "" && (!d.constant || capitals().MatchString(name)) {
				defs = append(defs, MapDef{Name: name, Kind: d.role, Line: int(at.Range().StartPoint.Row) + 1, Signature: signature(n, d.prefix)})
			}
		}
		if d.opaque {
			// the names the body uses still count as references
			n.Walk(func(c engine.Node) bool {
				if refKinds[c.Kind()] && c.IsNamed() {
					refs[c.Text()]++
					return false
				}
				return true
			})
			return false
		}
		return true
	})
	return defs, refs
}

// holds reports whether n is a definition d lists: one with a body when
// d needs it, and a function's declaration when d needs that.
func (d defKind) holds(n engine.Node) bool {
	if d.body {
		if _, ok := n.ChildByField("body"); !ok {
			return false
		}
	}
	if !d.proto {
		return true
	}
	c, ok := n.ChildByField("declarator")
	for depth := 0; ok && depth < 8; depth++ {
		if c.Kind() == "function_declarator" {
			return true
		}
		c, ok = c.ChildByField("declarator")
	}
	return false
}

// defName finds a definition's name: its name field, else the name its
// declarator declares (C), else its left side (a Python assignment).
func defName(n engine.Node) (string, engine.Node) {
	if c, ok := defNameNode(n); ok {
		return c.Text(), n
	}
	return "", n
}

// defNameNode is the node of a definition's name (see defName).
func defNameNode(n engine.Node) (engine.Node, bool) {
	for _, f := range []string{"name", "declarator", "left"} {
		c, ok := n.ChildByField(f)
		for depth := 0; ok && depth < 8; depth++ {
			if refKinds[c.Kind()] || memberNameKinds[c.Kind()] {
				return c, true
			}
			if c.Kind() == "qualified_identifier" {
				// C++'s Foo::bar, ns::Foo::bar: the name is the last part
				c, ok = c.ChildByField("name")
				continue
			}
			// a C declarator wraps the name (pointer, function, array)
			c, ok = c.ChildByField("declarator")
		}
	}
	// a Java field or Go const spec may name it in a declarator child
	for c, ok := n.FirstChild(); ok; c, ok = c.NextSibling() {
		if c.Kind() == "variable_declarator" {
			return defNameNode(c)
		}
	}
	return engine.Node{}, false
}

// signature is a definition's text without its body: up to its body
// field, else its first line, with the whitespace folded and cut at
// maxSignature bytes.
func signature(n engine.Node, prefix string) string {
	src := n.Bytes()
	if body, ok := n.ChildByField("body"); ok && body.StartByte() > n.StartByte() {
		src = src[:body.StartByte()-n.StartByte()]
	} else if i := bytes.IndexByte(src, '\n'); i >= 0 {
		src = src[:i]
	}
	s := prefix + strings.Join(strings.Fields(string(src)), " ")
	s = strings.TrimSuffix(s, " {")
	if len(s) > maxSignature {
		cut := maxSignature
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
