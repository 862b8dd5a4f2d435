//go:build linux

package main

import "bufio"
import "encoding/json"
import "io"
import "os/exec"
import "regexp"
import "strings"
import "syscall"
import "testing"
import "time"

// TestHostLogsNothingAtWarn: a host whose sessions open, run Python and
// JavaScript cells, read, search and close, then drain on SIGTERM, logs
// nothing at warn or above; at info its JSON lines are tether's own, none
// the go-sdk's.
func TestHostLogsNothingAtWarn(t *testing.T) {
	root, tokens := hostRoot(t, t.TempDir())
	pr, pw := io.Pipe()
	lines := make(chan string, 10000)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(pr); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	cmd := exec.Command(tetherBin(t), "serve", "--http", "127.0.0.1:0", "--root", root, "--tokens", tokens,
		"--approve", "allow", "--log-level", "info", "--log-format", "json", "--no-cache")
	cmd.Stderr = pw
	cmd.WaitDelay = time.Minute // bounds a leak; the processes must be gone at exit
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		pw.Close() // the lines end: no address if it exited before listening
		exited <- err
	}()
	var logged []string
	re := regexp.MustCompile(`"addr":"(127\.0\.0\.1:\d+)"`)
	var url string
	for line := range lines {
		logged = append(logged, line)
		if m := re.FindStringSubmatch(line); m != nil {
			url = "http://" + m[1]
			break
		}
	}
	if url == "" {
		t.Fatalf("tether exited before it listened:\n%s", strings.Join(logged, "\n"))
	}
	for _, ws := range []string{"alpha", "beta"} {
		cs := openHostSession(t, url, ws)
		kernelPid(t, cs)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"eval", map[string]any{"code": "[1, 2].map(x => x * 2)", "language": "javascript", "description": "double two numbers in JavaScript"}},
			{"read", map[string]any{"path": "a.go"}},
			{"ast_grep", map[string]any{"pattern": "old($A)", "language": "go"}},
		} {
			if text, isErr := callText(t, cs, c.tool, c.args); isErr {
				t.Fatalf("%s in %s: %s", c.tool, ws, text)
			}
		}
		if ws == "alpha" {
			cs.Close()
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err := <-exited
	for line := range lines {
		logged = append(logged, line)
	}
	if err != nil {
		t.Fatalf("tether after SIGTERM: %v\n%s", err, strings.Join(logged, "\n"))
	}
	for _, line := range logged {
		var rec struct{ Level, Msg, Component string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON record: %q", line)
			continue
		}
		if rec.Level != "INFO" || rec.Component != "" || !strings.HasPrefix(rec.Msg, "tether: ") && !strings.HasPrefix(rec.Msg, "server: ") {
			t.Errorf("a normal host run logged: %s", line)
		}
	}
}

// TestServeSIGTERMLogsNothingAtWarn: stdio serve ended by SIGTERM at the
// default level says nothing (the go-sdk logged its own cancellation,
// "server run cancelled", as an error).
func TestServeSIGTERMLogsNothingAtWarn(t *testing.T) {
	cmd, stdin, stdout, stderr := startServe(t, "--workdir", t.TempDir())
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
		t.Fatalf("ping: %v %q", err, line)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if stderr.Len() != 0 {
		t.Errorf("serve logged on SIGTERM at the default level:\n%s", stderr)
	}
}
