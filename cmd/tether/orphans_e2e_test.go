//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tetherhq/tether/internal/testenv"
)

// TestSIGKILLLeavesNoOrphans: after `tether serve` is killed with SIGKILL,
// nothing it started keeps running: not a vibe worker, not the Python
// kernel, and not their children, those in a session of their own included.
func TestSIGKILLLeavesNoOrphans(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "worker-pids")
	worker := `fast=sleep 1000 & echo $! >> "$PIDFILE"; setsid sleep 1000 & echo $! >> "$PIDFILE"; echo $$ >> "$PIDFILE"; wait`
	cmd := exec.Command(tetherBin(t), "serve", "--workdir", workdir(t, nil), "--approve", "allow",
		"--vibe", "--worker", worker)
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
			"print('pids', os.getpid(), a.pid, b.pid)",
		"description": "start two sleeping child processes",
	})
	m := regexp.MustCompile(`pids (\d+) (\d+) (\d+)`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("eval: error %v\n%s", isErr, text)
	}
	var pids []int
	for _, s := range m[1:] {
		pid, _ := strconv.Atoi(s)
		pids = append(pids, pid)
	}
	if text, isErr := callText(t, cs, "vibe_spawn", map[string]any{"brief": "sleep", "label": "sleeper"}); isErr {
		t.Fatalf("vibe_spawn: %s", text)
	}
	// The worker writes its children's pids and its own: wait for all three.
	var wpids []int
	for i := 0; i < 2400 && len(wpids) < 3; i++ {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(pidfile)
		wpids = wpids[:0]
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				wpids = append(wpids, pid)
			}
		}
	}
	if len(wpids) < 3 {
		t.Fatalf("the worker did not report its pids (got %v)", wpids)
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
