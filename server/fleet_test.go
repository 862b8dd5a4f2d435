package server_test

import "context"
import "net/http"
import "strings"
import "testing"

import "github.com/tetherhq/tether/server"

// TestHostAffinity: an initialize carrying the proxy's affinity key gets a
// session id starting with the key and a dot (what the proxy hashes later
// requests on); a key that is not one gets a plain id.
func TestHostAffinity(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	for _, c := range []struct{ affinity, prefix string }{
		{"0f3a9c2e7b1d4a5f8e6c3b2a1d0e9f8c", "0f3a9c2e7b1d4a5f8e6c3b2a1d0e9f8c."},
		{"bad.key", ""},
		{strings.Repeat("a", 65), ""},
		{"", ""},
	} {
		id := th.initWith(t, map[string]string{server.AffinityHeader: c.affinity})
		before, rest, dotted := strings.Cut(id, ".")
		switch {
		case c.prefix != "" && !strings.HasPrefix(id, c.prefix):
			t.Errorf("affinity %q: session id %q, want it to start with %q", c.affinity, id, c.prefix)
		case c.prefix == "" && dotted:
			t.Errorf("affinity %q: session id %q has a prefix %q", c.affinity, id, before)
		case len(rest) < 26 && dotted:
			t.Errorf("affinity %q: session id %q has too short a random part", c.affinity, id)
		}
	}
}

// TestHostDrainSendsUnknownSessionsOn: once the host is shutting down, a
// session id it does not hold is answered 503 (a proxy then tries the next
// replica, which may hold it), not 404.
func TestHostDrainSendsUnknownSessionsOn(t *testing.T) {
	th := newTestHost(t, server.HostOptions{})
	if got := th.status(t, "/mcp/alpha", tokOps, "elsewhere.NOTASESSION"); got != http.StatusNotFound {
		t.Errorf("an unknown session while serving: %d, want 404", got)
	}
	if err := th.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := th.status(t, "/mcp/alpha", tokOps, "elsewhere.NOTASESSION"); got != http.StatusServiceUnavailable {
		t.Errorf("an unknown session while shutting down: %d, want 503", got)
	}
}

// initWith posts an initialize to workspace alpha with extra headers and
// returns the session id of the answer.
func (th *testHost) initWith(t *testing.T, headers map[string]string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", th.url+"/mcp/alpha", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
	req.Header.Set("Authorization", "Bearer "+tokOps)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	return id
}
