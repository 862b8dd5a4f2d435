package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tetherhq/tether/bridges/dap"
)

func init() {
	addFamily(family{
		name: "debug",
		// SPEC.md: registered when the run has a debug-session supervisor, a
		// working dir and a conversation id. Whether an adapter can start is
		// checked per call (op adapters says why not).
		wired: func(cfg *Config) bool {
			return cfg.Debug != nil && cfg.WorkDir != "" && cfg.ConversationID != ""
		},
		register: func(r *Run) (func() error, error) {
			sv, conv := r.cfg.Debug, r.cfg.ConversationID
			if err := r.Registry().Register(DebugTool(sv, r.WorkDir(), conv)); err != nil {
				return nil, err
			}
			// Run.Close ends the conversation's session: adapter and program tree.
			return func() error { sv.Terminate(conv); return nil }, nil
		},
	})
}

// debugSchema is the debug tool's input schema: op plus the arguments SPEC.md
// lists for the ops.
var debugSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "op": {"type": "string", "enum": ` + mustJSON(dap.Ops) + `,
      "description": "the operation"},
    "file": {"type": "string", "description": "breakpoints: source file, relative to the working dir"},
    "lines": {"type": "array", "items": {"type": "integer", "minimum": 1},
      "description": "breakpoints: 1-based lines; empty clears the file"},
    "program": {"type": "string", "description": "launch: a .py or .go file, a Go package dir, or a native executable built with debug info"},
    "args": {"type": "array", "items": {"type": "string"}, "description": "launch: the program's arguments"},
    "port": {"type": "integer", "minimum": 1, "maximum": 65535, "description": "attach: the port the program's debug server listens on"},
    "thread_id": {"type": "integer", "description": "continue, pause, step_*, stack: thread (default: the last stopped one)"},
    "frame_id": {"type": "integer", "description": "scopes, evaluate: frame id from stack (default: the top frame)"},
    "reference": {"type": "integer", "minimum": 1, "description": "variables: a scope's or variable's reference"},
    "start": {"type": "integer", "minimum": 0, "description": "variables: first child to list (0-based), to page through a container longer than 50; stack: first frame to list (0 is the top), to page through a stack deeper than 30"},
    "expression": {"type": "string", "description": "evaluate: expression in the program's language"},
    "adapter": {"type": "string", "description": "launch, attach: adapter id (delve, debugpy, lldb, dart) when it cannot be inferred"}
  },
  "required": ["op"],
  "additionalProperties": false
}`)

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// DebugTool returns the debug tool bound to a supervisor, a working dir and a
// conversation (SPEC.md, "debug: drive a debugger"). It is exec tier and
// Serial: the session is state across calls.
func DebugTool(sv *dap.Supervisor, workDir, conversationID string) Tool {
	return Tool{
		Name: "debug",
		Tier: TierExec,
		Description: "Drive a debugger (delve for Go, debugpy for Python, lldb-dap for C/C++/Rust executables) over the Debug Adapter Protocol. " +
			"One session per conversation, ended after 30 minutes; a second launch is refused until you terminate the first. " +
			"Typical use: breakpoints (file, lines) -> launch (program, args) -> stack / scopes / variables / evaluate -> step_over / continue -> output -> terminate. " +
			"Every op that stops the program returns where it stopped, the source line and the top frames; an uncaught exception, a panic or a signal stops it there and names it. " +
			"variables lists 50 children and stack 30 frames at a time: pass start to page through a longer container or a deeper stack. " +
			"ops: " + strings.Join(dap.Ops, ", ") + ". Use adapters to see which debuggers can start here and why not.",
		InputSchema: debugSchema,
		Serial:      true,
		Handler: func(ctx context.Context, call *Call) (*Result, error) {
			var req dap.Request
			if err := call.Decode(&req); err != nil {
				return nil, err
			}
			rep, err := sv.Do(ctx, conversationID, workDir, req)
			if err != nil {
				return nil, err
			}
			return &Result{Content: []Content{{Type: TextContent, Text: rep.Text}}, Structured: rep}, nil
		},
	}
}
