package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schema is a compiled JSON Schema: the subset tool input schemas use (type,
// properties, required, additionalProperties, items, enum, const, minimum,
// maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems,
// maxItems, pattern, anyOf, oneOf, allOf). Annotations (description, title,
// default, examples) do not validate; a property's description is quoted when
// a required argument is missing or empty, so the error says what to send.
// "$ref" is refused at registration.
type schema struct {
	desc       string
	types      []string
	props      map[string]*schema
	propOrder  []string
	required   []string
	addl       *schema // nil: any additional property allowed
	addlFalse  bool
	items      *schema
	enum       []any
	hasConst   bool
	constV     any
	min, max   *float64
	xmin, xmax *float64
	minLen     *int
	maxLen     *int
	minItems   *int
	maxItems   *int
	pattern    *regexp.Regexp
	anyOf      []*schema
	oneOf      []*schema
	allOf      []*schema
}

// compileSchema compiles a tool's input schema. An empty schema accepts any object.
func compileSchema(raw json.RawMessage) (*schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return &schema{types: []string{"object"}}, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("input schema is not valid JSON: %w", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("input schema must be a JSON object")
	}
	s, err := compileNode(m, "")
	if err != nil {
		return nil, err
	}
	if len(s.types) != 1 || s.types[0] != "object" {
		return nil, fmt.Errorf(`input schema must have "type": "object"`)
	}
	return s, nil
}

func compileNode(m map[string]any, at string) (*schema, error) {
	s := &schema{}
	where := func() string {
		if at == "" {
			return "schema"
		}
		return "schema at " + at
	}
	if _, ok := m["$ref"]; ok {
		return nil, fmt.Errorf("%s: $ref is not supported; inline the definition", where())
	}
	s.desc, _ = m["description"].(string)
	switch t := m["type"].(type) {
	case nil:
	case string:
		s.types = []string{t}
	case []any:
		for _, x := range t {
			str, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s: type must be a string or a list of strings", where())
			}
			s.types = append(s.types, str)
		}
	default:
		return nil, fmt.Errorf("%s: type must be a string or a list of strings", where())
	}
	for _, t := range s.types {
		switch t {
		case "object", "array", "string", "number", "integer", "boolean", "null":
		default:
			return nil, fmt.Errorf("%s: unknown type %q", where(), t)
		}
	}
	if p, ok := m["properties"].(map[string]any); ok {
		s.props = map[string]*schema{}
		for name, sub := range p {
			sm, ok := sub.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: property %q must be a schema object", where(), name)
			}
			c, err := compileNode(sm, join(at, name))
			if err != nil {
				return nil, err
			}
			s.props[name] = c
			s.propOrder = append(s.propOrder, name)
		}
		sort.Strings(s.propOrder)
	}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			str, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s: required must list property names", where())
			}
			s.required = append(s.required, str)
		}
	}
	switch a := m["additionalProperties"].(type) {
	case bool:
		s.addlFalse = !a
	case map[string]any:
		c, err := compileNode(a, join(at, "*"))
		if err != nil {
			return nil, err
		}
		s.addl = c
	}
	if it, ok := m["items"].(map[string]any); ok {
		c, err := compileNode(it, at+"[]")
		if err != nil {
			return nil, err
		}
		s.items = c
	}
	if e, ok := m["enum"].([]any); ok {
		s.enum = e
	}
	if c, ok := m["const"]; ok {
		s.hasConst, s.constV = true, c
	}
	var err error
	num := func(key string) *float64 {
		n, ok := m[key].(json.Number)
		if !ok {
			return nil
		}
		f, e := n.Float64()
		if e != nil {
			err = fmt.Errorf("%s: %s: %v", where(), key, e)
		}
		return &f
	}
	integer := func(key string) *int {
		f := num(key)
		if f == nil {
			return nil
		}
		i := int(*f)
		return &i
	}
	s.min, s.max = num("minimum"), num("maximum")
	s.xmin, s.xmax = num("exclusiveMinimum"), num("exclusiveMaximum")
	s.minLen, s.maxLen = integer("minLength"), integer("maxLength")
	s.minItems, s.maxItems = integer("minItems"), integer("maxItems")
	if err != nil {
		return nil, err
	}
	if p, ok := m["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: pattern: %v", where(), err)
		}
		s.pattern = re
	}
	for key, dst := range map[string]*[]*schema{"anyOf": &s.anyOf, "oneOf": &s.oneOf, "allOf": &s.allOf} {
		list, ok := m[key].([]any)
		if !ok {
			continue
		}
		for i, x := range list {
			sm, ok := x.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s[%d] must be a schema object", where(), key, i)
			}
			c, err := compileNode(sm, at)
			if err != nil {
				return nil, err
			}
			*dst = append(*dst, c)
		}
	}
	return s, nil
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// validateArgs checks raw JSON arguments against s and returns them as the
// handler (and the approver) should see them. The error names the field and
// what is expected.
//
// A key given twice is refused: the validator, the approval prompt and the
// handler's decoder could each take a different one of the two values. An
// integer written with a fraction or an exponent (3.0, 1e2), which JSON Schema
// counts as an integer but encoding/json will not decode into an int, is
// rewritten as a plain integer.
func (s *schema) validateArgs(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v; send a JSON object", err)
	}
	if d.More() {
		return nil, fmt.Errorf("arguments hold more than one JSON value; send one JSON object")
	}
	if at, ok := duplicateKey(raw); ok {
		return nil, fmt.Errorf("%s is given twice; give each argument once", field(at))
	}
	if err := s.validate(v, ""); err != nil {
		return nil, err
	}
	v, changed := plainIntegers(v)
	if !changed {
		return raw, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("arguments do not encode: %v", err)
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes())), nil
}

// duplicateKey returns the path of the first object key that appears twice in
// one object of raw (which must be valid JSON).
func duplicateKey(raw []byte) (string, bool) {
	type frame struct {
		obj       bool
		keys      map[string]bool
		at        string // the path of this object or array
		expectKey bool
		next      string // the path of the value after the last key
		i         int    // the index of the next array element
	}
	var stack []*frame
	// valueAt returns the path of a value starting now in the top frame.
	valueAt := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.obj {
			f.expectKey = true
			return f.next
		}
		f.i++
		return fmt.Sprintf("%s[%d]", f.at, f.i-1)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return "", false
		}
		if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
			f := stack[n-1]
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				continue
			}
			k, _ := tok.(string)
			f.next = join(f.at, k)
			if f.keys[k] {
				return f.next, true
			}
			f.keys[k] = true
			f.expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, at: valueAt(), expectKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{at: valueAt()})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			valueAt()
		}
	}
}

// plainIntegers rewrites every number in v that is an integer written with a
// fraction or an exponent (3.0, 1e2) and fits in an int64 as a plain integer.
func plainIntegers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			return x, false
		}
		if i, ok := exactInt64(x); ok {
			return json.Number(strconv.FormatInt(i, 10)), true
		}
	case []any:
		changed := false
		for k, e := range x {
			var c bool
			x[k], c = plainIntegers(e)
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		for k, e := range x {
			var c bool
			x[k], c = plainIntegers(e)
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}

// exactInt64 returns n as an int64 when it is exactly an integer in range.
func exactInt64(n json.Number) (int64, bool) {
	if i, err := n.Int64(); err == nil {
		return i, true
	}
	f, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
	if err != nil || !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	return i, acc == big.Exact
}

// integerOnly reports whether s admits integers but not other numbers.
func (s *schema) integerOnly() bool {
	integer := false
	for _, t := range s.types {
		switch t {
		case "number":
			return false
		case "integer":
			integer = true
		}
	}
	return integer
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case json.Number:
		return "number " + x.String()
	case string:
		return "string " + strconv.Quote(TruncateText(x, 60))
	case []any:
		return fmt.Sprintf("an array of %d items", len(x))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func field(at string) string {
	if at == "" {
		return "arguments"
	}
	return fmt.Sprintf("argument %q", at)
}

func (s *schema) validate(v any, at string) error {
	if len(s.types) > 0 {
		got := jsonType(v)
		ok := false
		for _, t := range s.types {
			if t == got || (t == "number" && got == "integer") {
				ok = true
				break
			}
		}
		if !ok {
			want := strings.Join(s.types, " or ")
			if at == "" && want == "object" {
				return fmt.Errorf("arguments must be a JSON object, got %s", describe(v))
			}
			return fmt.Errorf("%s: expected %s, got %s", field(at), article(want), describe(v))
		}
	}
	if s.enum != nil {
		ok := false
		for _, e := range s.enum {
			if jsonEqual(e, v) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%s: expected one of %s, got %s", field(at), listValues(s.enum), describe(v))
		}
	}
	if s.hasConst && !jsonEqual(s.constV, v) {
		return fmt.Errorf("%s: expected %s, got %s", field(at), listValues([]any{s.constV}), describe(v))
	}
	switch x := v.(type) {
	case json.Number:
		if s.integerOnly() {
			if _, ok := exactInt64(x); !ok {
				return fmt.Errorf("%s: %s is out of range for an integer", field(at), x)
			}
		}
		f, _ := x.Float64()
		switch {
		case s.min != nil && f < *s.min:
			return fmt.Errorf("%s: expected a number >= %v, got %s", field(at), *s.min, x)
		case s.max != nil && f > *s.max:
			return fmt.Errorf("%s: expected a number <= %v, got %s", field(at), *s.max, x)
		case s.xmin != nil && f <= *s.xmin:
			return fmt.Errorf("%s: expected a number > %v, got %s", field(at), *s.xmin, x)
		case s.xmax != nil && f >= *s.xmax:
			return fmt.Errorf("%s: expected a number < %v, got %s", field(at), *s.xmax, x)
		}
	case string:
		n := utf8.RuneCountInString(x)
		switch {
		case s.minLen != nil && n < *s.minLen:
			if *s.minLen == 1 {
				if s.desc != "" {
					return fmt.Errorf("%s: expected a non-empty string (%s)", field(at), s.desc)
				}
				return fmt.Errorf("%s: expected a non-empty string", field(at))
			}
			return fmt.Errorf("%s: expected at least %d characters, got %d", field(at), *s.minLen, n)
		case s.maxLen != nil && n > *s.maxLen:
			return fmt.Errorf("%s: expected at most %d characters, got %d", field(at), *s.maxLen, n)
		case s.pattern != nil && !s.pattern.MatchString(x):
			return fmt.Errorf("%s: expected a string matching %s, got %s", field(at), s.pattern, describe(x))
		}
	case []any:
		switch {
		case s.minItems != nil && len(x) < *s.minItems:
			return fmt.Errorf("%s: expected at least %d items, got %d", field(at), *s.minItems, len(x))
		case s.maxItems != nil && len(x) > *s.maxItems:
			return fmt.Errorf("%s: expected at most %d items, got %d", field(at), *s.maxItems, len(x))
		}
		if s.items != nil {
			for i, e := range x {
				if err := s.items.validate(e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		for _, r := range s.required {
			if _, ok := x[r]; !ok {
				msg := fmt.Sprintf("missing required %s", field(join(at, r)))
				if p := s.props[r]; p != nil && len(p.types) > 0 {
					what := article(strings.Join(p.types, " or "))
					if p.desc != "" {
						what += ": " + p.desc
					}
					msg += fmt.Sprintf(" (%s)", what)
				}
				return fmt.Errorf("%s", msg)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := s.props[k]; p != nil {
				if err := p.validate(x[k], join(at, k)); err != nil {
					return err
				}
				continue
			}
			if s.addlFalse {
				if len(s.propOrder) == 0 {
					return fmt.Errorf("unknown %s: this takes no arguments", field(join(at, k)))
				}
				return fmt.Errorf("unknown %s: expected only %s", field(join(at, k)), strings.Join(s.propOrder, ", "))
			}
			if s.addl != nil {
				if err := s.addl.validate(x[k], join(at, k)); err != nil {
					return err
				}
			}
		}
	}
	for _, sub := range s.allOf {
		if err := sub.validate(v, at); err != nil {
			return err
		}
	}
	if len(s.anyOf) > 0 {
		var first error
		ok := false
		for _, sub := range s.anyOf {
			if err := sub.validate(v, at); err == nil {
				ok = true
				break
			} else if first == nil {
				first = err
			}
		}
		if !ok {
			return fmt.Errorf("%s matches none of the allowed forms (first: %v)", field(at), first)
		}
	}
	if len(s.oneOf) > 0 {
		n := 0
		var first error
		for _, sub := range s.oneOf {
			if err := sub.validate(v, at); err == nil {
				n++
			} else if first == nil {
				first = err
			}
		}
		switch {
		case n == 0:
			return fmt.Errorf("%s matches none of the allowed forms (first: %v)", field(at), first)
		case n > 1:
			return fmt.Errorf("%s matches %d of the allowed forms; it must match exactly one", field(at), n)
		}
	}
	return nil
}

func article(t string) string {
	switch t {
	case "object", "array", "integer":
		return "an " + t
	case "string", "number", "boolean":
		return "a " + t
	}
	return t
}

func listValues(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		b, _ := json.Marshal(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func jsonEqual(a, b any) bool {
	an, aok := a.(json.Number)
	bn, bok := b.(json.Number)
	if aok && bok {
		af, _ := an.Float64()
		bf, _ := bn.Float64()
		return af == bf
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb)
}
