package server_test

import "encoding/json"
import "fmt"
import "io"
import "log/slog"
import "net/http"
import "net/http/httptest"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/server"

// metricsStatus GETs url (a /metrics) with token ("" none) and returns the
// status, failing the test when a 200 lacks the host's series.
func metricsStatus(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK && !strings.Contains(string(b), "tether_sessions_open") {
		t.Errorf("%s answered 200 without the host's metrics:\n%s", url, b)
	}
	if resp.StatusCode != http.StatusOK && strings.Contains(string(b), "tether_") {
		t.Errorf("%s answered %d with metrics", url, resp.StatusCode)
	}
	return resp.StatusCode
}

func metricsTokenFile(t *testing.T, content string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "metrics-token")
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestHostMetricsToken: with a metrics token, /metrics answers 401 without
// it or with another (a session token too) and 200 with it; without one it
// is open.
func TestHostMetricsToken(t *testing.T) {
	mt, err := server.LoadMetricsToken(metricsTokenFile(t, "  m-scrape-0123456789\n"))
	if err != nil {
		t.Fatal(err)
	}
	th := newTestHost(t, server.HostOptions{MetricsToken: mt})
	for _, c := range []struct {
		token string
		want  int
	}{
		{"", http.StatusUnauthorized},
		{"m-scrape-012345678", http.StatusUnauthorized},
		{tokOps, http.StatusUnauthorized},
		{"m-scrape-0123456789", http.StatusOK},
	} {
		if got := metricsStatus(t, th.url+"/metrics", c.token); got != c.want {
			t.Errorf("/metrics with %q: %d, want %d", c.token, got, c.want)
		}
	}
	th.SetMetricsToken(nil)
	if got := metricsStatus(t, th.url+"/metrics", ""); got != http.StatusOK {
		t.Errorf("/metrics with no token set: %d", got)
	}
	for _, bad := range []string{"", " \n", "two words"} {
		// The error says what to do and never holds the token.
		if _, err := server.LoadMetricsToken(metricsTokenFile(t, bad)); err == nil || strings.Contains(err.Error(), "two words") {
			t.Errorf("LoadMetricsToken(%q): %v", bad, err)
		}
	}
}

// TestHostMetricsApart: with MetricsApart, /metrics is not on the host's
// handler (404) and is on Host.Metrics, which answers nothing else.
func TestHostMetricsApart(t *testing.T) {
	th := newTestHost(t, server.HostOptions{MetricsApart: true})
	if got := metricsStatus(t, th.url+"/metrics", ""); got != http.StatusNotFound {
		t.Errorf("/metrics on the host's port: %d, want 404", got)
	}
	ms := httptest.NewServer(th.Metrics())
	defer ms.Close()
	if got := metricsStatus(t, ms.URL+"/metrics", ""); got != http.StatusOK {
		t.Errorf("/metrics on its own port: %d", got)
	}
	for _, path := range []string{"/mcp/alpha", "/healthz", "/"} {
		if got := metricsStatus(t, ms.URL+path, tokOps); got != http.StatusNotFound {
			t.Errorf("%s on the metrics port: %d, want 404", path, got)
		}
	}
}

// TestHostUnknownToolNamesAreBounded: calls of tools no run has, each with
// a made-up name of 1 MB, add no label per name to /metrics (they count
// under tool="unknown") and each logs a line of bounded length.
func TestHostUnknownToolNamesAreBounded(t *testing.T) {
	logs := make(records, 1000)
	th := newTestHost(t, server.HostOptions{Server: server.Options{Logger: slog.New(slog.NewJSONHandler(logs, nil))}})
	a := th.mustOpen(t, "alpha", tokAlpha, nil)
	callText(t, a, "read", map[string]any{"path": "own.txt"})
	const calls, size = 8, 1 << 20
	for i := range calls {
		name := fmt.Sprintf("x%d-%s", i, strings.Repeat("n", size))
		if _, isErr := callText(t, a, name, nil); !isErr {
			t.Fatalf("a call of an unknown tool succeeded")
		}
	}
	_, body := testenv.Get(t, th.url+"/metrics")
	if len(body) > 64<<10 {
		t.Errorf("/metrics is %d bytes after %d calls with made-up names of %d bytes", len(body), calls, size)
	}
	testenv.WantAll(t, "/metrics", string(body),
		fmt.Sprintf(`tether_tool_calls_total{outcome="error",tool="unknown"} %d`, calls),
		fmt.Sprintf(`tether_tool_call_seconds_count{tool="unknown"} %d`, calls),
		`tether_tool_calls_total{outcome="ok",tool="read"} 1`,
	)
	unknown := 0
	for len(logs) > 0 {
		line := <-logs
		if len(line) > 2048 {
			t.Errorf("a log line of %d bytes: %.300s", len(line), line)
		}
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "server: call" && rec["tool"] == "unknown" {
			unknown++
			if name, _ := rec["name"].(string); !strings.HasPrefix(name, "x") || !strings.Contains(name, fmt.Sprintf("of %d bytes", size+3)) {
				t.Errorf("the line does not say which name, cut: %.300s", line)
			}
		}
	}
	if unknown != calls {
		t.Errorf("%d call lines for unknown tools, want %d", unknown, calls)
	}
}
