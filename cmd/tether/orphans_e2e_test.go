//go:build linux

package main

import "context"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "slices"
import "strconv"
import "strings"
import "syscall"
import "testing"
import "time"

import "github.com/modelcontextprotocol/go-sdk/mcp"
import "github.com/tetherhq/tether/internal/testenv"

// TestSIGKILLLeavesNoOrphans: after `tether serve` is killed with SIGKILL,
// nothing it started keeps running: not a vibe worker, not the Python
// kernel, and not their children, those in a session of their own included.
func TestSIGKILLLeavesNoOrphans(t *testing.T) {
	piddir := t.TempDir()
	pidfile := filepath.Join(piddir, "worker-pids")
	// Each process names its PID namespace (the sandbox's): its pids are
	// that namespace's.
	worker := `fast=readlink /proc/self/ns/pid >> "$PIDFILE"; sleep 1000 & echo $! >> "$PIDFILE"; setsid sleep 1000 & echo $! >> "$PIDFILE"; echo $$ >> "$PIDFILE"; wait`
	// The sandbox lets the worker write its pid file only when granted.
	cmd := exec.Command(tetherBin(t), "serve", "--workdir", workdir(t, nil), "--approve", "allow",
		"--vibe", "--worker", worker, "--worker-write", piddir, "--worker-env", "PIDFILE")
	// tether passes PIDFILE to its workers only because --worker-env names it.
	cmd.Env = append(os.Environ(), "PIDFILE="+pidfile)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close() // the transport waits for the process; a second Wait here races with it

	// A Python cell starting one child in the kernel's group and one in a
	// session of its own.
	text, isErr := callText(t, cs, "eval", map[string]any{
		"code": "import os, subprocess\n" +
			"a = subprocess.Popen(['sleep', '1000'])\n" +
			"b = subprocess.Popen(['sleep', '1000'], start_new_session=True)\n" +
			"print('pids', os.getpid(), a.pid, b.pid, os.readlink('/proc/self/ns/pid'))",
		"description": "start two sleeping child processes",
	})
	m := regexp.MustCompile(`pids (\d+) (\d+) (\d+) (\S+)`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("eval: error %v\n%s", isErr, text)
	}
	var pids []int
	for _, s := range m[1:4] {
		pid, _ := strconv.Atoi(s)
		if pid = testenv.HostPidInNS(m[4], pid); pid == 0 {
			t.Fatalf("pid %s of the cell is not found in its namespace %s", s, m[4])
		}
		pids = append(pids, pid)
	}
	if text, isErr := callText(t, cs, "vibe_spawn", map[string]any{"brief": "sleep", "label": "sleeper"}); isErr {
		t.Fatalf("vibe_spawn: %s", text)
	}
	// The worker writes its children's pids and its own: wait for all three.
	var wpids []int
	ns := ""
	for i := 0; i < 2400 && len(wpids) < 3; i++ {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(pidfile)
		wpids = wpids[:0]
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				wpids = append(wpids, pid)
			} else {
				ns = f
			}
		}
	}
	if len(wpids) < 3 || ns == "" {
		t.Fatalf("the worker did not report its pids (got %v in %q)", wpids, ns)
	}
	for i, p := range wpids {
		if wpids[i] = testenv.HostPidInNS(ns, p); wpids[i] == 0 {
			t.Fatalf("pid %d of the worker is not found in its namespace %s", p, ns)
		}
	}
	pids = append(pids, wpids...)
	for _, pid := range pids {
		if !testenv.Alive(pid) {
			t.Fatalf("process %d is not running before the kill", pid)
		}
	}
	t.Cleanup(func() { // never leave them behind, whatever the outcome
		for _, pid := range pids {
			if testenv.Alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Bounded poll: how fast they go is not asserted, only that they go.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if testenv.Alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				t.Errorf("process %d (%s) outlived tether's SIGKILL", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSIGKILLEmptiesTheKernelsCgroup: a child of a Python cell that clears
// its environment (env -i), out of reach of the sentinel's EnvOwners, still
// ends when tether is killed with SIGKILL: the sentinel kills what is left
// in the kernel's pids cgroup and removes it. A new kernel removes the
// cgroups a dead tether left behind.
func TestSIGKILLEmptiesTheKernelsCgroup(t *testing.T) {
	cmd := exec.Command(tetherBin(t), "serve", "--workdir", workdir(t, nil), "--approve", "allow")
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cell := func(code string, reset bool) string {
		t.Helper()
		text, isErr := callText(t, cs, "eval", map[string]any{"code": code, "description": "start a child that clears its environment", "reset": reset})
		if isErr {
			t.Fatalf("eval: %s", text)
		}
		return text
	}
	text := cell("import os\nprint('kernel', os.getpid(), os.readlink('/proc/self/ns/pid'))", false)
	if !strings.Contains(text, "pids.max") {
		t.Skipf("no pids cgroup for the kernel here: %s", text)
	}
	km := regexp.MustCompile(`kernel (\d+) (\S+)`).FindStringSubmatch(text)
	kernel, _ := strconv.Atoi(km[1])
	if kernel = testenv.HostPidInNS(km[2], kernel); kernel == 0 {
		t.Fatalf("the kernel's pid is not found in its namespace: %s", text)
	}
	dir := pidsCgroupOf(t, kernel)
	if !strings.HasPrefix(filepath.Base(dir), "tether-python-") {
		t.Fatalf("the kernel is in cgroup %s", dir)
	}

	// A cgroup left by a tether that is no longer running (a pid that was
	// and ended) goes when the next kernel starts.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(filepath.Dir(dir), "tether-python-"+strconv.Itoa(dead.Process.Pid)+"-7")
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(stale) })

	text = cell("import subprocess, os\np = subprocess.Popen(['env', '-i', 'sleep', '600'], start_new_session=True)\nprint('child', p.pid, os.readlink('/proc/self/ns/pid'))", true)
	cm := regexp.MustCompile(`child (\d+) (\S+)`).FindStringSubmatch(text)
	child, _ := strconv.Atoi(cm[1])
	if child = testenv.HostPidInNS(cm[2], child); child == 0 {
		t.Fatalf("the child's pid is not found in its namespace: %s", text)
	}
	t.Cleanup(func() {
		if testenv.Alive(child) {
			syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a new kernel left the stale cgroup %s (%v)", stale, err)
	}
	// env execs sleep with no environment; until then the child shows
	// the cell's (bounded poll).
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/cmdline"); strings.HasPrefix(string(cmdline), "sleep\x00") || time.Now().After(end) {
			break
		}
	}
	dir = pidsCgroupOf(t, child)
	if env, _ := os.ReadFile("/proc/" + strconv.Itoa(child) + "/environ"); len(env) != 0 {
		t.Fatalf("the child has an environment: %q", env)
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Bounded poll: how fast it goes is not asserted, only that it goes.
	for end := time.Now().Add(60 * time.Second); testenv.Alive(child) || exists(dir); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after tether's SIGKILL: child %d alive %v, its cgroup %s still there %v", child, testenv.Alive(child), dir, exists(dir))
		}
	}
}

func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// pidsCgroupOf returns the directory of pid's cgroup in the pids hierarchy
// (cgroup v1's pids mount, else cgroup v2's).
func pidsCgroupOf(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	var v1, v2 string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		switch {
		case len(parts) != 3:
		case parts[1] == "pids":
			v1 = parts[2]
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		}
	}
	mounts, _ := os.ReadFile("/proc/self/mountinfo")
	for _, line := range strings.Split(string(mounts), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(tail) < 3 {
			continue
		}
		if v1 != "" && tail[0] == "cgroup" && slices.Contains(strings.Split(tail[2], ","), "pids") {
			return filepath.Join(f[4], v1)
		}
		if v1 == "" && tail[0] == "cgroup2" {
			return filepath.Join(f[4], v2)
		}
	}
	t.Fatalf("no pids cgroup mount for %s", b)
	return ""
}
