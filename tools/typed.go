package tools

import "context"
import "reflect"

import "github.com/google/jsonschema-go/jsonschema"

// HandlerFor performs one call of a tool whose arguments decode into an In
// and whose structured output is an Out (as go-sdk's ToolHandlerFor). The
// Result carries what the model reads; Typed makes out its Structured part.
// A nil out (pointer, slice, map or interface) leaves Structured unset. A
// non-nil error yields an error result, and out is dropped.
type HandlerFor[In, Out any] func(ctx context.Context, call *Call, in In) (*Result, Out, error)

// Typed returns t with its input schema derived from In (SchemaFor) and a
// Handler that decodes a call's arguments into an In, calls h, and sets the
// result's Structured to h's Out: the schema the model sees, the struct h
// reads and the output it returns are one type each. t's InputSchema and
// Handler are replaced. When In has a method exactText(), its string
// arguments are checked to be exact Unicode text before decoding (see
// checkText): tools that write text refuse what JSON would garble.
func Typed[In, Out any](t Tool, h HandlerFor[In, Out]) Tool {
	return typedTuned(t, nil, h)
}

// typedTuned is Typed with tune applied last to the input schema, for what
// only the run knows (schemaForRun); tune may be nil.
func typedTuned[In, Out any](t Tool, tune func(s *jsonschema.Schema), h HandlerFor[In, Out]) Tool {
	t.InputSchema = schemaForRun[In](tune)
	t.Handler = func(ctx context.Context, call *Call) (*Result, error) {
		in, err := decodeArgs[In](call)
		if err != nil {
			return nil, err
		}
		res, out, err := h(ctx, call, in)
		if err != nil {
			return res, err
		}
		s := structuredOf(out)
		if s == nil {
			if res != nil {
				res.Structured = nil
			}
			return res, nil
		}
		if res == nil {
			res = Text("(no output)")
		}
		res.Structured = s
		return res, nil
	}
	return t
}

// decodeArgs decodes call's arguments into an In, after checking that
// their strings are exact text when In asks for it (exactTextArgs).
func decodeArgs[In any](call *Call) (In, error) {
	var in In
	if _, exact := any(in).(exactTextArgs); exact {
		if err := checkText(call.Name, call.Args); err != nil {
			return in, err
		}
	}
	err := call.Decode(&in)
	return in, err
}

// previewFor is a Tool.Preview that decodes the call's arguments into an
// In for p.
func previewFor[In any](p func(ctx context.Context, in In) (string, error)) func(context.Context, *Call) (string, error) {
	return func(ctx context.Context, call *Call) (string, error) {
		in, err := decodeArgs[In](call)
		if err != nil {
			return "", err
		}
		return p(ctx, in)
	}
}

// writesFor is a Tool.Writes that decodes the call's arguments into an In
// for w; arguments that do not decode declare no file.
func writesFor[In any](w func(in In) []string) func(*Call) []string {
	return func(call *Call) []string {
		var in In
		if call.Decode(&in) != nil {
			return nil
		}
		return w(in)
	}
}

// exactTextArgs marks the arguments of a tool that writes the text it is
// given (the file tools, ast_edit, lsp_rename): Typed refuses text that
// does not decode exactly.
type exactTextArgs interface{ exactText() }

// structuredOf is out as a Result's Structured part: nil for a nil out.
func structuredOf(out any) any {
	if out == nil {
		return nil
	}
	switch v := reflect.ValueOf(out); v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		if v.IsNil() {
			return nil
		}
	}
	return out
}

// noOutput is the Out of a tool without a structured part: its handler
// returns nil.
type noOutput = *struct{}
