package phpadapter_test

import "bufio"
import "net"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"
import "time"

import godap "github.com/google/go-dap"
import "github.com/tetherhq/tether/bridges/dap/internal/phpadapter"
import "github.com/tetherhq/tether/internal/testenv"

// TestLaunchWithoutXdebug: a php that does not load Xdebug (its ini scan
// directory empty) runs the program, whose output still arrives, and the
// launch fails at once saying what to install, not after the connect
// timeout.
func TestLaunchWithoutXdebug(t *testing.T) {
	php := testenv.RequireBinary(t, "php")
	t.Setenv("PHP_INI_SCAN_DIR", t.TempDir())
	dir := t.TempDir()
	prog := filepath.Join(dir, "hi.php")
	if err := os.WriteFile(prog, []byte("<?php echo \"hi from php\\n\";\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	theirs := serve(t, php, dir, t.TempDir())
	send(theirs, 1, "launch", `{"program": "`+prog+`"}`)
	start := time.Now()
	r := bufio.NewReader(theirs)
	var out strings.Builder
	for {
		m, err := godap.ReadProtocolMessage(r)
		if err != nil {
			t.Fatalf("the connection ended before launch was answered: %v", err)
		}
		switch m := m.(type) {
		case *godap.OutputEvent:
			out.WriteString(m.Body.Output)
			continue
		case *godap.ErrorResponse:
			if !strings.Contains(m.Message, "php-xdebug") || time.Since(start) > 20*time.Second {
				t.Fatalf("launch should fail at once saying to install php-xdebug: %q after %s", m.Message, time.Since(start))
			}
		case godap.ResponseMessage:
			t.Fatalf("launch without Xdebug should fail: %#v", m)
		default:
			continue
		}
		break
	}
	if !strings.Contains(out.String(), "hi from php") {
		t.Fatalf("the program's output should arrive: %q", out.String())
	}
}

// serve starts the adapter on one end of a pipe and returns the other.
func serve(t *testing.T, php, root, scratch string) net.Conn {
	ours, theirs := net.Pipe()
	t.Cleanup(func() { _ = theirs.Close() })
	go phpadapter.Serve(ours, phpadapter.Config{PHP: php, Root: root, Scratch: scratch})
	return theirs
}

// send writes a request without waiting for the adapter to read it.
func send(c net.Conn, seq int, command, args string) {
	req := godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: seq, Type: "request"}, Command: command}
	var m godap.Message = &req
	if args != "" {
		m = &godap.LaunchRequest{Request: req, Arguments: []byte(args)}
	}
	go func() { _ = godap.WriteProtocolMessage(c, m) }()
}

// TestLaunchOverLoopback: where the scratch dir's path is too long for a
// unix socket, Xdebug connects to a loopback port instead, and the
// program runs to its end with its output and exit code.
func TestLaunchOverLoopback(t *testing.T) {
	php := needXdebug(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "end.php")
	if err := os.WriteFile(prog, []byte("<?php echo \"done\\n\";\nexit(3);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(t.TempDir(), strings.Repeat("s", 100))
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	c := serve(t, php, dir, scratch)
	send(c, 1, "launch", `{"program": "`+prog+`"}`)
	r := bufio.NewReader(c)
	var out strings.Builder
	deadline := time.Now().Add(time.Minute)
	_ = c.SetReadDeadline(deadline)
	for {
		m, err := godap.ReadProtocolMessage(r)
		if err != nil {
			t.Fatalf("the session ended before the program did: %v (output %q)", err, out.String())
		}
		switch m := m.(type) {
		case *godap.ErrorResponse:
			t.Fatalf("%s: %s", m.Command, m.Message)
		case *godap.InitializedEvent:
			send(c, 2, "configurationDone", "")
		case *godap.OutputEvent:
			out.WriteString(m.Body.Output)
		case *godap.ExitedEvent:
			if m.Body.ExitCode != 3 || !strings.Contains(out.String(), "done") {
				t.Fatalf("want exit code 3 after the output \"done\": %d, %q", m.Body.ExitCode, out.String())
			}
			send(c, 3, "disconnect", "")
			return
		}
	}
}

// TestOutputBeforeStop: what the program printed before it stopped, on
// stdout and on stderr, arrives before the stopped event, every time, not
// whenever the pipe's reader gets to it.
func TestOutputBeforeStop(t *testing.T) {
	php := needXdebug(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "late.php")
	src := `<?php
echo str_repeat("x", 100000), "\n";
fwrite(STDERR, "to stderr\n");
echo "last words\n";
throw new RuntimeException("stop here");
`
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		c := serve(t, php, dir, t.TempDir())
		send(c, 1, "launch", `{"program": "`+prog+`"}`)
		r := bufio.NewReader(c)
		_ = c.SetReadDeadline(time.Now().Add(time.Minute))
		var stdout, stderr strings.Builder
	read:
		for {
			m, err := godap.ReadProtocolMessage(r)
			if err != nil {
				t.Fatalf("run %d: the session ended before the program stopped: %v", i, err)
			}
			switch m := m.(type) {
			case *godap.ErrorResponse:
				t.Fatalf("run %d: %s: %s", i, m.Command, m.Message)
			case *godap.InitializedEvent:
				exc := &godap.SetExceptionBreakpointsRequest{Request: godap.Request{ProtocolMessage: godap.ProtocolMessage{Seq: 2, Type: "request"}, Command: "setExceptionBreakpoints"},
					Arguments: godap.SetExceptionBreakpointsArguments{Filters: []string{"uncaught"}}}
				go func() { _ = godap.WriteProtocolMessage(c, exc) }()
			case *godap.SetExceptionBreakpointsResponse:
				send(c, 3, "configurationDone", "")
			case *godap.ExitedEvent:
				t.Fatalf("run %d: the program ended without stopping at its exception (output %q)", i, stderr.String())
			case *godap.OutputEvent:
				if m.Body.Category == "stderr" {
					stderr.WriteString(m.Body.Output)
				} else {
					stdout.WriteString(m.Body.Output)
				}
			case *godap.StoppedEvent:
				if m.Body.Reason != "exception" {
					t.Fatalf("run %d: want a stop on the exception: %+v", i, m.Body)
				}
				if n := strings.Count(stdout.String(), "x"); n != 100000 || !strings.HasSuffix(stdout.String(), "last words\n") {
					t.Fatalf("run %d: stdout before the stop: %d x's, ends %q", i, n, stdout.String()[max(0, stdout.Len()-20):])
				}
				if stderr.String() != "to stderr\n" {
					t.Fatalf("run %d: stderr before the stop: %q", i, stderr.String())
				}
				break read
			}
		}
		send(c, 4, "disconnect", "")
	}
}

// needXdebug returns a php that loads Xdebug, or fails/skips the test.
func needXdebug(t *testing.T) string {
	t.Helper()
	php := testenv.RequireBinary(t, "php")
	if out, err := exec.Command(php, "-m").Output(); err != nil || !strings.Contains(string(out), "Xdebug") {
		testenv.Missing(t, "php-xdebug (php -m lists no Xdebug)")
	}
	return php
}
