package tools

import "bytes"
import "encoding/json"
import "fmt"
import "iter"
import "maps"
import "math"
import "math/big"
import "reflect"
import "regexp"
import "slices"
import "sort"
import "strconv"
import "strings"
import "sync"
import "unicode/utf8"

import "github.com/google/jsonschema-go/jsonschema"

// schema is a tool's input schema resolved by github.com/google/jsonschema-go
// (the validator the MCP go-sdk uses), which decides whether arguments are
// valid. When they are not, explain walks the schema to say which argument is
// wrong and what is expected, in words an agent can act on; a property's
// description is quoted when a required argument is missing or empty, so the
// error says what to send. "$ref" is refused at registration: a tool's schema
// is one self-contained object.
type schema struct {
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// compiledSchemas holds the schemas compiled so far, by their JSON: every
// run registers the same tools, a host runs one per session, and a compiled
// schema is only read once compiled (the validator may be used from many
// goroutines at once, as the go-sdk uses it), so runs share one. Compiling
// them all cost each run about 100 KiB of live heap. At most
// maxSharedSchemas are kept: past that (tools an agent defines itself), a
// schema is compiled for its registry alone.
var compiledSchemas = struct {
	sync.Mutex
	m map[string]*schema
}{m: map[string]*schema{}}

const maxSharedSchemas = 128

// sharedSchema is compileSchema through compiledSchemas.
func sharedSchema(raw json.RawMessage) (*schema, error) {
	key := string(raw)
	compiledSchemas.Lock()
	s := compiledSchemas.m[key]
	compiledSchemas.Unlock()
	if s != nil {
		return s, nil
	}
	s, err := compileSchema(raw)
	if err != nil {
		return nil, err
	}
	compiledSchemas.Lock()
	defer compiledSchemas.Unlock()
	if prev := compiledSchemas.m[key]; prev != nil {
		return prev, nil
	}
	if len(compiledSchemas.m) < maxSharedSchemas {
		compiledSchemas.m[key] = s
	}
	return s, nil
}

// compileSchema resolves a tool's input schema. An empty schema accepts any object.
func compileSchema(raw json.RawMessage) (*schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	var root jsonschema.Schema
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("input schema is not a valid JSON Schema object: %w", err)
	}
	if root.Type != "object" {
		return nil, fmt.Errorf(`input schema must have "type": "object"`)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err == nil && hasRef(tree) {
		return nil, fmt.Errorf("input schema: $ref is not supported; inline the definition")
	}
	res, err := root.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &schema{root: &root, resolved: res}, nil
}

// hasRef reports whether a decoded schema holds a "$ref" or "$dynamicRef" anywhere.
func hasRef(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "$ref" || k == "$dynamicRef" || hasRef(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasRef(e) {
				return true
			}
		}
	}
	return false
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
	// The validator decides; explain words its refusal, and also holds
	// integers to what a Go int can take (the handler decodes into one).
	if err := s.resolved.Validate(numbersAsFloats(v)); err != nil {
		if e := explain(s.root, v, ""); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("arguments do not match the tool's input schema: %v", err)
	} else if e := explain(s.root, v, ""); e != nil {
		return nil, e
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
		return x, plainIntegersIn(slices.All(x), func(k int, e any) { x[k] = e })
	case map[string]any:
		return x, plainIntegersIn(maps.All(x), func(k string, e any) { x[k] = e })
	}
	return v, false
}

// plainIntegersIn rewrites the elements of a list or the values of an
// object (all) with plainIntegers, setting each back with set, and reports
// whether any changed.
func plainIntegersIn[K comparable](all iter.Seq2[K, any], set func(K, any)) bool {
	changed := false
	for k, e := range all {
		e, c := plainIntegers(e)
		set(k, e)
		changed = changed || c
	}
	return changed
}

// numbersAsFloats returns a copy of v with its json.Numbers as float64, the
// form the validator types by value (a json.Number is a string to reflect).
// A number too large for a float64 becomes ±Inf, which no bound admits.
func numbersAsFloats(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = numbersAsFloats(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = numbersAsFloats(e)
		}
		return out
	}
	return v
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

// types returns the types s admits (none: any).
func types(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// integerOnly reports whether s admits integers but not other numbers.
func integerOnly(s *jsonschema.Schema) bool {
	integer := false
	for _, t := range types(s) {
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
		return "string " + strconv.Quote(truncateText(x, 60))
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

// explain returns the first way v breaks s, worded for an agent, or nil when
// it finds none (the validator decides; explain only says why). It words the
// keywords SchemaFor writes (type, enum, the bounds, required, properties,
// additionalProperties, items); a schema written by hand with others (anyOf,
// const, ...) is still validated, and a refusal by one of those is reported in
// the validator's words.
func explain(s *jsonschema.Schema, v any, at string) error {
	if s == nil {
		return nil
	}
	if err := explainKind(s, v, at); err != nil {
		return err
	}
	switch x := v.(type) {
	case json.Number:
		return explainNumber(s, x, at)
	case string:
		return explainString(s, x, at)
	case []any:
		return explainArray(s, x, at)
	case map[string]any:
		return explainObject(s, x, at)
	}
	return nil
}

// explainKind words a value of the wrong type, or not in the enum.
func explainKind(s *jsonschema.Schema, v any, at string) error {
	if len(types(s)) > 0 {
		got := jsonType(v)
		ok := false
		for _, t := range types(s) {
			if t == got || (t == "number" && got == "integer") {
				ok = true
				break
			}
		}
		if !ok {
			want := strings.Join(types(s), " or ")
			if at == "" && want == "object" {
				return fmt.Errorf("arguments must be a JSON object, got %s", describe(v))
			}
			return fmt.Errorf("%s: expected %s, got %s", field(at), article(want), describe(v))
		}
	}
	if s.Enum != nil {
		ok := false
		for _, e := range s.Enum {
			if jsonEqual(e, v) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("%s: expected one of %s, got %s", field(at), listValues(s.Enum), describe(v))
		}
	}
	return nil
}

func explainNumber(s *jsonschema.Schema, x json.Number, at string) error {
	if integerOnly(s) {
		if _, ok := exactInt64(x); !ok {
			return fmt.Errorf("%s: %s is out of range for an integer", field(at), x)
		}
	}
	f, _ := x.Float64()
	switch {
	case s.Minimum != nil && f < *s.Minimum:
		return fmt.Errorf("%s: expected a number >= %v, got %s", field(at), *s.Minimum, x)
	case s.Maximum != nil && f > *s.Maximum:
		return fmt.Errorf("%s: expected a number <= %v, got %s", field(at), *s.Maximum, x)
	case s.ExclusiveMinimum != nil && f <= *s.ExclusiveMinimum:
		return fmt.Errorf("%s: expected a number > %v, got %s", field(at), *s.ExclusiveMinimum, x)
	case s.ExclusiveMaximum != nil && f >= *s.ExclusiveMaximum:
		return fmt.Errorf("%s: expected a number < %v, got %s", field(at), *s.ExclusiveMaximum, x)
	}
	return nil
}

func explainString(s *jsonschema.Schema, x string, at string) error {
	n := utf8.RuneCountInString(x)
	switch {
	case s.MinLength != nil && n < *s.MinLength:
		if *s.MinLength == 1 {
			if s.Description != "" {
				return fmt.Errorf("%s: expected a non-empty string (%s)", field(at), s.Description)
			}
			return fmt.Errorf("%s: expected a non-empty string", field(at))
		}
		return fmt.Errorf("%s: expected at least %d characters, got %d", field(at), *s.MinLength, n)
	case s.MaxLength != nil && n > *s.MaxLength:
		return fmt.Errorf("%s: expected at most %d characters, got %d", field(at), *s.MaxLength, n)
	case s.Pattern != "" && !matches(s.Pattern, x):
		if s.Description != "" {
			return fmt.Errorf("%s: expected a string matching %s (%s), got %s", field(at), s.Pattern, s.Description, describe(x))
		}
		return fmt.Errorf("%s: expected a string matching %s, got %s", field(at), s.Pattern, describe(x))
	}
	return nil
}

func explainArray(s *jsonschema.Schema, x []any, at string) error {
	switch {
	case s.MinItems != nil && len(x) < *s.MinItems:
		return fmt.Errorf("%s: expected at least %d items, got %d", field(at), *s.MinItems, len(x))
	case s.MaxItems != nil && len(x) > *s.MaxItems:
		return fmt.Errorf("%s: expected at most %d items, got %d", field(at), *s.MaxItems, len(x))
	}
	if s.Items != nil {
		for i, e := range x {
			if err := explain(s.Items, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func explainObject(s *jsonschema.Schema, x map[string]any, at string) error {
	for _, r := range s.Required {
		if _, ok := x[r]; !ok {
			msg := fmt.Sprintf("missing required %s", field(join(at, r)))
			if p := s.Properties[r]; p != nil && len(types(p)) > 0 {
				what := article(strings.Join(types(p), " or "))
				if p.Description != "" {
					what += ": " + p.Description
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
		if p := s.Properties[k]; p != nil {
			if err := explain(p, x[k], join(at, k)); err != nil {
				return err
			}
			continue
		}
		if denies(s.AdditionalProperties) {
			if len(s.Properties) == 0 {
				return fmt.Errorf("unknown %s: this takes no arguments", field(join(at, k)))
			}
			return fmt.Errorf("unknown %s: expected only %s", field(join(at, k)), strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", "))
		}
		if a := s.AdditionalProperties; a != nil && !denies(a) {
			if err := explain(a, x[k], join(at, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// denies reports whether s is the schema false (additionalProperties: false).
func denies(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.ValueOf(*s.Not).IsZero()
}

// matches reports whether x matches the pattern (already checked to compile
// when the schema was resolved).
func matches(pattern, x string) bool {
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(x)
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
