package tools

import "encoding/json"
import "fmt"
import "reflect"
import "strconv"
import "strings"

import "github.com/google/jsonschema-go/jsonschema"

// SchemaFor returns the input schema of a tool whose arguments decode into T,
// so the schema the model sees and the struct the handler decodes cannot
// drift apart. It is inferred by jsonschema.For: a property per exported field
// under its json name, required unless the field is omitempty (or omitzero),
// no other properties. A field's `jsonschema` tag is its description, and its
// `bounds` tag adds the constraints that a Go type cannot say, as
// comma-separated KEY=VALUE pairs:
//
//	minLength, maxLength, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
//	minItems, maxItems, enum (values separated by |), pattern (last: it takes
//	the rest of the tag)
//
// and the same keys prefixed with "items." for the elements of a slice field.
// A pointer field is optional and admits the pointed-to type (not null). The
// fields of an embedded struct are the struct's own, as for encoding/json.
//
// What a tag cannot say, because it comes from the package's constants or
// tables (an enum that a handler also checks, a description naming a limit),
// the argument type says in a tuneSchema method, called on the schema after
// the tags are applied (see schemaTuner).
//
// SchemaFor panics on a malformed tag: tags are constants, and every tool's
// schema is built when its package is tested.
func SchemaFor[T any]() json.RawMessage { return schemaForRun[T](nil) }

// schemaForRun is SchemaFor with a last tuning step, tune, for what only the
// run knows (the debug tool's adapter ids come from its supervisor's table);
// tune may be nil.
func schemaForRun[T any](tune func(s *jsonschema.Schema)) json.RawMessage {
	t := reflect.TypeFor[T]()
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", t, err))
	}
	if err := applyBounds(t, s); err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", t, err))
	}
	var zero T
	if tu, ok := any(zero).(schemaTuner); ok {
		tu.tuneSchema(s)
	}
	if tune != nil {
		tune(s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %s: %v", t, err))
	}
	return b
}

// schemaTuner is implemented by an argument type whose schema says something
// no tag can: SchemaFor calls tuneSchema with the inferred schema (tags
// applied), which it may change in place.
type schemaTuner interface {
	tuneSchema(s *jsonschema.Schema)
}

// applyBounds walks t and its inferred schema s together, applying each
// field's bounds tag and dropping the null that jsonschema.For admits for
// pointers.
func applyBounds(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dropNull(s)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return applyBounds(t.Elem(), s.Items)
		}
	case reflect.Struct:
		if s.Properties == nil {
			// {"properties":{}} for no arguments: some clients refuse an
			// object schema without properties
			s.Properties = map[string]*jsonschema.Schema{}
		}
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				continue // its fields are visited as the struct's own
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			p := s.Properties[name]
			if !f.IsExported() || name == "-" || p == nil {
				continue
			}
			if err := applyBounds(f.Type, p); err != nil {
				return err
			}
			if tag, ok := f.Tag.Lookup("bounds"); ok {
				if err := parseBounds(tag, f.Type, p); err != nil {
					return fmt.Errorf("field %s: bounds %q: %w", f.Name, tag, err)
				}
			}
		}
	}
	return nil
}

// dropNull turns {"type":["null","X"]} into {"type":"X"}.
func dropNull(s *jsonschema.Schema) {
	if len(s.Types) != 2 {
		return
	}
	for i, ty := range s.Types {
		if ty == "null" {
			s.Type, s.Types = s.Types[1-i], nil
			return
		}
	}
}

// parseBounds applies one bounds tag to p, the schema of a field of type t.
func parseBounds(tag string, t reflect.Type, p *jsonschema.Schema) error {
	for tag != "" {
		var kv string
		if strings.HasPrefix(tag, "pattern=") || strings.HasPrefix(tag, "items.pattern=") {
			kv, tag = tag, ""
		} else {
			kv, tag, _ = strings.Cut(tag, ",")
		}
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not KEY=VALUE", kv)
		}
		target, et := p, t
		if k, ok := strings.CutPrefix(key, "items."); ok {
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if p.Items == nil || (et.Kind() != reflect.Slice && et.Kind() != reflect.Array) {
				return fmt.Errorf("%s: the field is not a list", key)
			}
			target, et, key = p.Items, et.Elem(), k
		}
		if err := setBound(target, et, key, val); err != nil {
			return err
		}
	}
	return nil
}

func setBound(s *jsonschema.Schema, t reflect.Type, key, val string) error {
	num := func() (*float64, error) {
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", key, val)
		}
		return &f, nil
	}
	count := func() (*int, error) {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: %q is not a count", key, val)
		}
		return &n, nil
	}
	var err error
	switch key {
	case "minLength":
		s.MinLength, err = count()
	case "maxLength":
		s.MaxLength, err = count()
	case "minItems":
		s.MinItems, err = count()
	case "maxItems":
		s.MaxItems, err = count()
	case "minimum":
		s.Minimum, err = num()
	case "maximum":
		s.Maximum, err = num()
	case "exclusiveMinimum":
		s.ExclusiveMinimum, err = num()
	case "exclusiveMaximum":
		s.ExclusiveMaximum, err = num()
	case "pattern":
		s.Pattern = val
	case "enum":
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		s.Enum = nil
		for _, e := range strings.Split(val, "|") {
			switch t.Kind() {
			case reflect.String:
				s.Enum = append(s.Enum, e)
			case reflect.Int, reflect.Int64, reflect.Int32:
				n, err := strconv.Atoi(e)
				if err != nil {
					return fmt.Errorf("enum: %q is not an integer", e)
				}
				s.Enum = append(s.Enum, n)
			default:
				return fmt.Errorf("enum: not supported for %s", t)
			}
		}
	default:
		return fmt.Errorf("unknown key %q", key)
	}
	return err
}

// stringsAsAny returns ss as an enum's values.
func stringsAsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, v := range ss {
		out[i] = v
	}
	return out
}
