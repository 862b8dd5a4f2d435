package server_test

import "context"
import "encoding/json"
import "log/slog"
import "net/http"
import "strings"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/internal/logging"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"

// lateStream is a client whose standalone event stream (its GET) reaches
// the host a while after its initialize was answered, as on a slow link:
// a notification sent before then has no stream to go on.
type lateStream struct{ token string }

func (l lateStream) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		time.Sleep(200 * time.Millisecond)
	}
	return testenv.Bearer(l.token).RoundTrip(r)
}

// TestHostNormalSessionIsQuiet: sessions that open, call tools and close
// log nothing at warn (tether's default level), and at info only the host's
// own lines: the go-sdk's session chatter is debug, and the tools the host
// adds while answering initialize send no list_changed to a client that has
// no stream yet (the go-sdk warned "stream not connected" for it).
func TestHostNormalSessionIsQuiet(t *testing.T) {
	logs := make(records, 1000)
	logger, err := logging.New(logs, "info", "json")
	if err != nil {
		t.Fatal(err)
	}
	th := newTestHost(t, server.HostOptions{Server: server.Options{Logger: logger}})
	for _, c := range []struct{ ws, token string }{{"alpha", tokAlpha}, {"beta", tokOps}, {"alpha", tokOps}} {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: th.url + "/mcp/" + c.ws, HTTPClient: &http.Client{Transport: lateStream{c.token}}, MaxRetries: -1,
		}, sessionful)
		if err != nil {
			t.Fatal(err)
		}
		if _, isErr := callText(t, cs, "read", map[string]any{"path": "own.txt"}); isErr {
			t.Errorf("%s: read failed", c.ws)
		}
		callText(t, cs, "read", map[string]any{"path": "missing.txt"}) // a tool error is the client's
		if _, isErr := callText(t, cs, "write", map[string]any{"path": "w.txt", "content": "w\n"}); isErr {
			t.Errorf("%s: write failed", c.ws)
		}
		if err := cs.Close(); err != nil {
			t.Error(err)
		}
		<-th.closed
	}
	if err := th.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var opened int
	for len(logs) > 0 {
		line := <-logs
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON record: %q", line)
		}
		switch {
		case rec.Level != slog.LevelInfo.String():
			t.Errorf("a normal session logged at %s: %s", rec.Level, line)
		case !strings.HasPrefix(rec.Msg, "server: "):
			t.Errorf("not the host's own line at info: %s", line)
		case rec.Msg == "server: session opened":
			opened++
		}
	}
	if opened != 3 {
		t.Errorf("%d session opened lines, want 3", opened)
	}
}
