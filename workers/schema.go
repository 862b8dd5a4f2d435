package workers

import "bytes"
import "encoding/json"
import "fmt"
import "regexp"
import "sync"

import "github.com/google/jsonschema-go/jsonschema"

// EnvOutputSchema holds the JSON Schema a worker's result must conform to,
// when its spawn gave one; the brief says so too.
const EnvOutputSchema = "TETHER_WORKER_OUTPUT_SCHEMA"

// maxSchemaBytes caps an output schema, as written in JSON.
const maxSchemaBytes = 64 << 10

// outputSchema is a resolved output schema and the JSON it was given as.
type outputSchema struct {
	raw      []byte
	resolved *jsonschema.Resolved
}

// compileSchema checks and resolves the schema a spawn gave.
func compileSchema(s *jsonschema.Schema) (*outputSchema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("workers: the output schema cannot be written as JSON: %w", err)
	}
	if len(raw) > maxSchemaBytes {
		return nil, fmt.Errorf("workers: the output schema is %d bytes of JSON, over the %d limit: describe the result with a smaller schema", len(raw), maxSchemaBytes)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("workers: the output schema is not a usable JSON Schema (draft 2020-12 or draft-07): %w", err)
	}
	return &outputSchema{raw: raw, resolved: rs}, nil
}

// instruction is what the brief gains so that the worker knows the shape
// its result must have.
func (o *outputSchema) instruction() string {
	return "\n\nReply on stdout with one JSON value and nothing else (a ```json fenced block is accepted too); " +
		"it must conform to this JSON Schema:\n" + string(o.raw) + "\n"
}

// fenced finds ```json blocks (the last one is taken).
var fenced = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```(?:json)?[ \t]*\n(.*?)\n[ \t]*```") })

// check validates a result: the whole stdout as JSON, or else the last
// fenced JSON block in it. It returns "" when the result conforms, else
// why not.
func (o *outputSchema) check(result string, truncated bool) string {
	if truncated {
		return fmt.Sprintf("the result was cut at %d bytes, so it cannot be checked against the output schema", MaxResultBytes)
	}
	text := bytes.TrimSpace([]byte(result))
	if len(text) == 0 {
		return "the worker wrote nothing on stdout; the output schema wants one JSON value"
	}
	var v any
	err := json.Unmarshal(text, &v)
	if err != nil {
		ms := fenced().FindAllSubmatch(text, -1)
		if len(ms) == 0 {
			return fmt.Sprintf("the result is not JSON (%v) and holds no ```json block", err)
		}
		if err2 := json.Unmarshal(ms[len(ms)-1][1], &v); err2 != nil {
			return fmt.Sprintf("the result's last ```json block is not JSON: %v", err2)
		}
	}
	if err := o.resolved.Validate(v); err != nil {
		return err.Error()
	}
	return ""
}
