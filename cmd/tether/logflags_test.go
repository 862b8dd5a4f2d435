package main

import "bufio"
import "bytes"
import "encoding/json"
import "io"
import "os/exec"
import "strings"
import "testing"

// TestLogFlags: --log-level and --log-format choose what tether logs on
// stderr (log/slog), and a bad value is refused at start saying what to give.
func TestLogFlags(t *testing.T) {
	bin := tetherBin(t)
	dir := workdir(t, map[string]string{"a.txt": "a\n"})
	for _, bad := range [][]string{{"--log-level", "verbose"}, {"--log-format", "xml"}} {
		cmd := exec.Command(bin, append(append([]string{"call", "--workdir", dir}, bad...), "read", `{"path":"a.txt"}`)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "give one of") {
			t.Errorf("%v: %v, stderr %q", bad, err, stderr.String())
		}
	}

	// At debug level in JSON, serve logs the session's start and end as JSON
	// lines; at the default level (warn), nothing.
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--log-level", "debug", "--log-format", "json"}, "server session connected"},
		{nil, ""},
	} {
		cmd, stdin, stdout, stderr := startServe(t, append([]string{"--workdir", dir}, tc.flags...)...)
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"id":1`) {
			t.Fatalf("ping: %v %q", err, line)
		}
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("serve %v: %v\n%s", tc.flags, err, stderr.String())
		}
		if tc.want == "" {
			if stderr.Len() != 0 {
				t.Errorf("serve logged at the default level:\n%s", stderr.String())
			}
			continue
		}
		var msgs []string
		for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			var m struct {
				Level, Msg string
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("stderr line is not JSON: %q", l)
			}
			msgs = append(msgs, m.Msg)
		}
		if !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("serve %v logged %q, want %q", tc.flags, msgs, tc.want)
		}
	}
}
