package server

import "bytes"
import "encoding/json"
import "errors"
import "fmt"
import "net/http"
import "strings"

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"

import "github.com/tetherhq/tether/internal/textcut"

// checkBody validates a POST body as the stdio transport validates a line
// (check), so that the go-sdk never answers a request whose id it read
// wrongly ("id": 1.5 as 1); a batch, which the go-sdk takes for protocol
// versions before 2025-06-18, has each of its messages checked. It reports
// false when it answered the request.
func checkBody(w http.ResponseWriter, body []byte) bool {
	b := bytes.TrimSpace(body)
	var ref *refusal
	if len(b) > 0 && b[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(b, &elems) == nil {
			for _, e := range elems {
				if e = bytes.TrimSpace(e); len(e) > 0 && e[0] == '{' {
					if _, ref = checkObject(e); ref != nil {
						break
					}
				}
			}
		}
	} else if len(b) > 0 {
		_, ref = check(b)
	}
	if ref == nil {
		return true
	}
	data, _ := json.Marshal(errorReply(ref.id, ref.code, ref.message))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write(data)
	return false
}

// codeWriter gives every JSON-RPC error the go-sdk writes a code: some of
// its errors (a request before initialized, a second initialize, an
// initialize whose params do not decode) are plain Go errors, which it
// sends with code 0, a code JSON-RPC does not define. Each of its writes is
// one event of an event stream or one JSON reply.
type codeWriter struct{ http.ResponseWriter }

func (c codeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c codeWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, []byte(`"code":0`)) {
		return c.ResponseWriter.Write(p)
	}
	var out []byte
	if strings.HasPrefix(c.Header().Get("Content-Type"), "text/event-stream") {
		lines := bytes.SplitAfter(p, []byte{'\n'})
		for i, line := range lines {
			if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				nl := bytes.HasSuffix(data, []byte{'\n'})
				data = fixCodes(bytes.TrimSuffix(data, []byte{'\n'}))
				if nl {
					data = append(data, '\n')
				}
				lines[i] = append([]byte("data: "), data...)
			}
		}
		out = bytes.Join(lines, nil)
	} else {
		out = fixCodes(p)
	}
	if _, err := c.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// fixCodes returns a JSON-RPC response (or an array of them) with each
// error of code 0 given one (codeFor); anything else is returned as it is.
func fixCodes(data []byte) []byte {
	var one map[string]json.RawMessage
	if json.Unmarshal(data, &one) == nil {
		if fixed, ok := fixCode(one); ok {
			if out, err := json.Marshal(fixed); err == nil {
				return out
			}
		}
		return data
	}
	var many []map[string]json.RawMessage
	if json.Unmarshal(data, &many) != nil {
		return data
	}
	changed := false
	for i, m := range many {
		if fixed, ok := fixCode(m); ok {
			many[i], changed = fixed, true
		}
	}
	if out, err := json.Marshal(many); changed && err == nil {
		return out
	}
	return data
}

func fixCode(msg map[string]json.RawMessage) (map[string]json.RawMessage, bool) {
	raw, ok := msg["error"]
	if !ok {
		return nil, false
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(raw, &e) != nil || string(e["code"]) != "0" {
		return nil, false
	}
	var text string
	json.Unmarshal(e["message"], &text)
	e["code"] = json.RawMessage(fmt.Sprint(codeFor(text)))
	b, err := json.Marshal(e)
	if err != nil {
		return nil, false
	}
	msg["error"] = b
	return msg, true
}

// codeFor is the JSON-RPC code of an error the go-sdk sent without one,
// from what its message says: a request out of place (before initialized,
// a second initialize) is an invalid request, params that do not decode
// are invalid params, anything else an internal error.
func codeFor(message string) int64 {
	switch {
	case strings.Contains(message, "during session initialization"), strings.Contains(message, "duplicate"):
		return jsonrpc.CodeInvalidRequest
	case strings.Contains(message, "unmarshaling"), strings.Contains(message, `missing required "params"`):
		return jsonrpc.CodeInvalidParams
	}
	return jsonrpc.CodeInternalError
}

// withCode returns err as a JSON-RPC error with a code (codeFor) when it
// has none.
func withCode(err error) error {
	var we *jsonrpc.Error
	if err == nil || errors.As(err, &we) && we.Code != 0 {
		return err
	}
	return &jsonrpc.Error{Code: codeFor(err.Error()), Message: err.Error()}
}

// notHandledWriter answers, with a JSON-RPC method-not-found error (-32601)
// in a JSON reply, a call the go-sdk refuses with a plain-text 400 because
// it does not know the method (it does so for revisions before
// 2026-07-28; over stdio the same call gets -32601). Every other write
// passes through as it is.
type notHandledWriter struct {
	http.ResponseWriter
	body   []byte // the POST body: the call whose method is unknown
	held   bool   // a plain-text 400 is held until its body shows why
	status int
}

// sdkNotHandled starts the go-sdk's message for a method it does not know.
const sdkNotHandled = "JSON RPC not handled"

func (n *notHandledWriter) Unwrap() http.ResponseWriter { return n.ResponseWriter }

func (n *notHandledWriter) WriteHeader(status int) {
	if status == http.StatusBadRequest && strings.HasPrefix(n.Header().Get("Content-Type"), "text/plain") && !n.held {
		n.held, n.status = true, status
		return
	}
	n.ResponseWriter.WriteHeader(status)
}

func (n *notHandledWriter) Write(p []byte) (int, error) {
	if !n.held {
		return n.ResponseWriter.Write(p)
	}
	n.held = false
	if !bytes.HasPrefix(p, []byte(sdkNotHandled)) {
		n.ResponseWriter.WriteHeader(n.status)
		return n.ResponseWriter.Write(p)
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(n.body, &req)
	h := n.Header()
	h.Del("X-Content-Type-Options")
	if len(req.ID) == 0 || string(req.ID) == "null" {
		// A notification is not answered, whatever its method.
		h.Del("Content-Type")
		n.ResponseWriter.WriteHeader(http.StatusAccepted)
		return len(p), nil
	}
	shown := fmt.Sprintf("%q", req.Method)
	if cut := textcut.Prefix(req.Method, 64); len(cut) < len(req.Method) {
		shown = fmt.Sprintf("%q... (the first %d of %d bytes)", cut, len(cut), len(req.Method))
	}
	data, _ := json.Marshal(errorReply(idIn(n.body), jsonrpc.CodeMethodNotFound,
		fmt.Sprintf("server: method not found: %s is not a method this MCP server answers (it answers initialize, ping, tools/list, tools/call, resources/list, resources/read, prompts/list and the like)", shown)))
	h.Set("Content-Type", "application/json")
	n.ResponseWriter.WriteHeader(http.StatusOK)
	if _, err := n.ResponseWriter.Write(data); err != nil {
		return 0, err
	}
	return len(p), nil
}
