//go:build linux

package main

import "fmt"
import "net"
import "os"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"

// TestHostCellIsConfined: on a host with exec allowed, a tenant's Python
// cell reads and writes its own workspace, and cannot reach the host's
// tokens file, another tenant's workspace, or tether's /proc entries that
// hold its secrets (environment, memory, where its open files point,
// working and root directories): a permission error, or, in a filesystem
// view that grants none of them, not found.
func TestHostCellIsConfined(t *testing.T) {
	if st := proc.SandboxStatus(); !st.Files() {
		t.Skipf("no sandbox here: %s", st)
	}
	base := t.TempDir()
	hp := startHostProc(t, base)
	cs := openHostSession(t, hp.url, "alpha")
	defer cs.Close()
	tether := fmt.Sprint(hp.cmd.Process.Pid)
	beta := filepath.Join(base, "root", "beta")
	probes := []struct{ name, path, how string }{
		{"tokens", hp.tokens, "read"},
		{"beta-dir", beta, "list"},
		{"beta-file", filepath.Join(beta, "a.go"), "read"},
		{"environ", "/proc/" + tether + "/environ", "read"},
		{"mem", "/proc/" + tether + "/mem", "read"},
		{"fd", "/proc/" + tether + "/fd/2", "link"},
		{"cwd", "/proc/" + tether + "/cwd/", "list"},
		{"root", "/proc/" + tether + "/root/etc/hostname", "read"},
		{"cmdline", "/proc/" + tether + "/cmdline", "read"},
	}
	// Nor what lies outside its view: a unix socket another process listens
	// on (an ssh-agent's or a container runtime's, in the host's /tmp), a
	// terminal, or the operator's Go build cache (shared, it let one
	// tenant's program poison another's builds).
	sock := filepath.Join(base, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	cacheDir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	gocache := filepath.Join(cacheDir, "go-build")
	if err := os.MkdirAll(gocache, 0o755); err != nil {
		t.Fatal(err)
	}
	unreached := []struct{ name, path, how string }{
		{"socket", sock, "connect"},
		{"tty", "/dev/tty", "read"},
		{"gocache", gocache, "write"},
	}
	var code strings.Builder
	code.WriteString(`import os, socket
def probe(p, how):
    try:
        if how == "read":
            with open(p, "rb") as f:
                f.read(64)
        elif how == "link":
            os.readlink(p)
        elif how == "connect":
            s = socket.socket(socket.AF_UNIX)
            s.connect(p)
            s.close()
        elif how == "write":
            q = os.path.join(p, "tether-probe-%d" % os.getpid())
            open(q, "w").write("x")
            os.remove(q)
        else:
            os.listdir(p)
        return "READ"
    except OSError as e:
        return "denied" if e.errno in (1, 13) else "absent" if e.errno in (2, 3) else "error-%d" % e.errno
open("own.txt", "w").write("mine")
print("own", open("own.txt").read())
seen = []
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            seen.append(open("/proc/%s/cmdline" % d, "rb").read().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            pass
print("others", [c for c in seen if " serve" in c or "TETHER" in c])
`)
	for _, p := range append(probes, unreached...) {
		fmt.Fprintf(&code, "print(%q, probe(%q, %q))\n", p.name, p.path, p.how)
	}
	text, isErr := evalIn(t, cs, "python", code.String())
	if isErr {
		t.Fatalf("cell failed: %s", text)
	}
	if !strings.Contains(text, "own mine") {
		t.Errorf("the cell could not use its own workspace:\n%s", text)
	}
	view := proc.SandboxStatus().View
	for _, p := range probes {
		// Denied; or not there at all: tether's /proc entries in the
		// kernel's own PID namespace, and, in a filesystem view, every
		// path its policy does not grant.
		absent := (view || strings.HasPrefix(p.path, "/proc/")) && strings.Contains(text, p.name+" absent")
		if !strings.Contains(text, p.name+" denied") && !absent {
			t.Errorf("%s (%s): want a permission error or, in a view, not found:\n%s", p.name, p.path, text)
		}
	}
	for _, p := range unreached {
		if strings.Contains(text, p.name+" READ") || !strings.Contains(text, p.name+" ") {
			t.Errorf("%s (%s): the cell reached it:\n%s", p.name, p.path, text)
		}
	}
	if proc.SandboxStatus().Namespaces && !strings.Contains(text, "others []") {
		t.Errorf("the cell saw tether's command line in /proc:\n%s", text)
	}
	if !strings.Contains(text, "sandbox:") {
		t.Errorf("the first result does not say what confines the kernel:\n%s", text)
	}
}

// TestHostRefusesExecWithoutSandbox: a host whose exec tools would run
// unsandboxed does not start unless the operator says so.
func TestHostRefusesExecWithoutSandbox(t *testing.T) {
	base := t.TempDir()
	root, tokens := hostRoot(t, base)
	var out, errs strings.Builder
	code := dispatch([]string{"serve", "--http", "127.0.0.1:0", "--root", root, "--tokens", tokens, "--approve", "allow", "--sandbox", "off"}, &out, &errs)
	if code != 2 || !strings.Contains(errs.String(), "--exec-without-sandbox") {
		t.Fatalf("exit %d, stderr:\n%s", code, errs.String())
	}
	// With exec denied there is nothing to confine: it starts (and is
	// stopped by the test once it listens).
	hp := startHostProc(t, base, "--sandbox", "off", "--approve", "exec=deny")
	if hp.url == "" {
		t.Fatal("the host with exec denied did not start")
	}
	hp = startHostProc(t, base, "--sandbox", "off", "--exec-without-sandbox")
	if hp.url == "" {
		t.Fatal("the host with --exec-without-sandbox did not start")
	}
}
