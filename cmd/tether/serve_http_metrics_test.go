//go:build linux

package main

import "net/http"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "syscall"
import "testing"
import "time"

// getStatus GETs url with a bearer token ("" none) and returns the status.
func getStatus(t *testing.T, url, token string) int {
	t.Helper()
	return httpStatus(t, "GET", url, token, "")
}

// TestHostMetricsAddrAndToken: with --metrics-addr, /metrics is served on
// that address and not on --http's; with --metrics-token it needs the
// file's token (a session token is not it), and SIGHUP reloads the file.
func TestHostMetricsAddrAndToken(t *testing.T) {
	base := t.TempDir()
	mtok := filepath.Join(base, "metrics-token")
	os.WriteFile(mtok, []byte("m-scrape-0123456789\n"), 0o600)
	hp := startHostProc(t, base, "--metrics-addr", "127.0.0.1:0", "--metrics-token", mtok)
	if hp.metrics == "" {
		t.Fatal("no metrics address logged")
	}
	for _, c := range []struct {
		url, token string
		want       int
	}{
		{hp.url + "/metrics", "m-scrape-0123456789", http.StatusNotFound},
		{hp.url + "/healthz", "", http.StatusOK},
		{hp.metrics + "/metrics", "", http.StatusUnauthorized},
		{hp.metrics + "/metrics", "t-ops-0123456789", http.StatusUnauthorized},
		{hp.metrics + "/metrics", "m-scrape-0123456789", http.StatusOK},
		{hp.metrics + "/mcp/alpha", "t-ops-0123456789", http.StatusNotFound},
	} {
		if got := getStatus(t, c.url, c.token); got != c.want {
			t.Errorf("GET %s with %q: %d, want %d", c.url, c.token, got, c.want)
		}
	}
	os.WriteFile(mtok, []byte("m-rotated-0123456789"), 0o600)
	hp.cmd.Process.Signal(syscall.SIGHUP)
	// The bound only turns a missed reload into a failure instead of a hang.
	for end := time.Now().Add(time.Minute); getStatus(t, hp.metrics+"/metrics", "m-rotated-0123456789") != http.StatusOK; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the rotated metrics token was never accepted after SIGHUP")
		}
	}
	if got := getStatus(t, hp.metrics+"/metrics", "m-scrape-0123456789"); got != http.StatusUnauthorized {
		t.Errorf("the old metrics token after SIGHUP: %d, want 401", got)
	}
}

// TestHostMetricsTokenOnMainPort: --metrics-token alone guards /metrics on
// --http's address; a bad token file stops the start with exit 2.
func TestHostMetricsTokenOnMainPort(t *testing.T) {
	base := t.TempDir()
	mtok := filepath.Join(base, "metrics-token")
	os.WriteFile(mtok, []byte("m-scrape-0123456789"), 0o600)
	hp := startHostProc(t, base, "--metrics-token", mtok)
	if got := getStatus(t, hp.url+"/metrics", ""); got != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d, want 401", got)
	}
	if got := getStatus(t, hp.url+"/metrics", "m-scrape-0123456789"); got != http.StatusOK {
		t.Errorf("/metrics with the token: %d, want 200", got)
	}
	empty := filepath.Join(base, "empty")
	os.WriteFile(empty, nil, 0o600)
	out, err := exec.Command(tetherBin(t), "serve", "--http", "127.0.0.1:0", "--root", base, "--tokens", hp.tokens, "--metrics-token", empty).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "is empty") {
		t.Errorf("an empty metrics token file: %v\n%s", err, out)
	}
}
