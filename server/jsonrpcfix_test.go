package server_test

import "context"
import "encoding/json"
import "io"
import "net/http"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/server"

// post sends one JSON-RPC body to the host and returns the HTTP status and
// the JSON-RPC replies (from a JSON body or an event stream).
func post(t *testing.T, url, token, session, body string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var out []map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil {
					out = append(out, m)
				}
			}
		}
	} else {
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			out = append(out, m)
		}
	}
	if session == "" {
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			out = append(out, map[string]any{"session": id})
		}
	}
	return resp.StatusCode, out
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`

// errCode returns the code of the JSON-RPC error in replies and its id.
func errCode(t *testing.T, replies []map[string]any) (float64, any) {
	t.Helper()
	for _, r := range replies {
		if e, ok := r["error"].(map[string]any); ok {
			code, _ := e["code"].(float64)
			return code, r["id"]
		}
	}
	t.Fatalf("no JSON-RPC error in %v", replies)
	return 0, nil
}

// TestHostRefusesFractionalIDs: over HTTP as over stdio, a request whose id
// is not a string or an integer is refused as invalid (id null), not
// answered as another id (the go-sdk read 1.5 as 1).
func TestHostRefusesFractionalIDs(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	url := th.url + "/mcp/alpha"
	for _, body := range []string{
		strings.Replace(initBody, `"id":1`, `"id":1.5`, 1),
		strings.Replace(initBody, `"id":1`, `"id":1e0`, 1),
		"[" + strings.Replace(initBody, `"id":1`, `"id":2.5`, 1) + "]",
	} {
		status, replies := post(t, url, tokAlpha, "", body)
		code, id := errCode(t, replies)
		if status != http.StatusBadRequest || code != -32600 || id != nil {
			t.Errorf("%.60s: %d %v", body, status, replies)
		}
	}
	if status, replies := post(t, url, tokAlpha, "", initBody); status != http.StatusOK || len(replies) == 0 || replies[0]["id"] != float64(1) {
		t.Errorf("an initialize with id 1: %d %v", status, replies)
	}
}

// initialized starts a host, initializes a session of workspace alpha over
// raw HTTP and returns the workspace's URL and the session's id.
func initialized(t *testing.T) (url, session string) {
	t.Helper()
	th := newTestHost(t, server.HostOptions{})
	url = th.url + "/mcp/alpha"
	_, replies := post(t, url, tokAlpha, "", initBody)
	session, _ = replies[len(replies)-1]["session"].(string)
	if session == "" {
		t.Fatalf("no session: %v", replies)
	}
	return url, session
}

// TestHostErrorsHaveCodes: errors the go-sdk raises as plain Go errors (a
// second initialize, an initialize whose params do not decode or are null)
// reach the client with a JSON-RPC code, not 0.
func TestHostErrorsHaveCodes(t *testing.T) {
	url, session := initialized(t)
	for _, c := range []struct {
		name, session, body string
		want                float64
	}{
		{"a second initialize", session, strings.Replace(initBody, `"id":1`, `"id":3`, 1), -32600},
		{"params that do not decode", "", `{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"capabilities":5}}`, -32602},
		{"params null", "", `{"jsonrpc":"2.0","id":5,"method":"initialize","params":null}`, -32602},
	} {
		_, replies := post(t, url, tokAlpha, c.session, c.body)
		if code, _ := errCode(t, replies); code != c.want {
			t.Errorf("%s: code %v, want %v: %v", c.name, code, c.want, replies)
		}
	}
}

// TestTransportErrorsHaveCodes: over stdio too, an error the go-sdk raises
// as a plain Go error reaches the client with a JSON-RPC code.
func TestTransportErrorsHaveCodes(t *testing.T) {
	c := serveRaw(t, &server.Transport{})
	c.send(initBody)
	if r := c.next(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	c.send(strings.Replace(initBody, `"id":1`, `"id":2`, 1))
	r := c.next()
	e, _ := r["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32600) {
		t.Errorf("a second initialize: %v", r)
	}
}

// TestUnknownMethodIsMethodNotFound: a call of a method no MCP server
// answers gets JSON-RPC's method-not-found error (-32601) with its id,
// over HTTP (in a session and before one) as over stdio, never a
// plain-text 400; a notification of one is accepted and not answered.
func TestUnknownMethodIsMethodNotFound(t *testing.T) {
	url, session := initialized(t)
	post(t, url, tokAlpha, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	long := strings.Repeat("m", 1<<20)
	for _, c := range []struct {
		name, session, body string
		id                  any
	}{
		{"in a session", session, `{"jsonrpc":"2.0","id":7,"method":"tools/destroy","params":{}}`, float64(7)},
		{"a string id", session, `{"jsonrpc":"2.0","id":"x-1","method":"nope"}`, "x-1"},
		{"before a session", "", `{"jsonrpc":"2.0","id":8,"method":"nope","params":{}}`, float64(8)},
		{"a megabyte name", session, `{"jsonrpc":"2.0","id":9,"method":"` + long + `"}`, float64(9)},
	} {
		status, replies := post(t, url, tokAlpha, c.session, c.body)
		if len(replies) == 0 {
			t.Errorf("%s: status %d and no JSON-RPC reply", c.name, status)
			continue
		}
		code, id := errCode(t, replies)
		msg, _ := replies[0]["error"].(map[string]any)["message"].(string)
		if code != -32601 || id != c.id || status != http.StatusOK {
			t.Errorf("%s: status %d code %v id %v, want 200, -32601, %v: %v", c.name, status, code, id, c.id, replies)
		}
		if len(msg) > 512 || !strings.Contains(msg, "method not found") {
			t.Errorf("%s: message (%d bytes) %.200q", c.name, len(msg), msg)
		}
	}
	if status, replies := post(t, url, tokAlpha, session, `{"jsonrpc":"2.0","method":"notifications/nope"}`); status != http.StatusAccepted || len(replies) != 0 {
		t.Errorf("an unknown notification: %d %v", status, replies)
	}
	if status, replies := post(t, url, tokAlpha, session, `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{}}`); status != http.StatusOK || len(replies) == 0 || replies[0]["result"] == nil {
		t.Errorf("tools/list after them: %d %v", status, replies)
	}

	c := serveRaw(t, &server.Transport{})
	c.send(initBody)
	if r := c.next(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/destroy","params":{}}`)
	r := c.next()
	if e, _ := r["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Errorf("stdio: %v", r)
	}
}
