package tools

import "context"

// Elicitor asks the user of a connected client to fill in a form: MCP
// elicitation in `tether serve`. The operator family's ask_user can use it as
// a question port, and the serve command's approver is built on it.
//
// Elicit sends message and a JSON Schema (an object schema of flat, primitive
// properties; nil for a plain confirmation) and returns the user's action
// ("accept", "decline" or "cancel") and, on accept, the content they entered.
// When no client that can elicit is connected it returns at once with an error
// wrapping ErrNoApprover, so callers fail closed instead of blocking.
type Elicitor interface {
	Elicit(ctx context.Context, message string, schema any) (action string, content map[string]any, err error)
}
