package tools_test

import "bufio"
import "context"
import "encoding/json"
import "fmt"
import "os/exec"
import "strings"
import "syscall"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// TestDebugToolAttachByPID: through the tool, attach by pid with no
// adapter names in its structured result the adapter inferred from the
// process (a node outside the workspace) and why; pause stops it with a
// structured stop, and terminate leaves the process running.
func TestDebugToolAttachByPID(t *testing.T) {
	node := testenv.RequireBinary(t, "node")
	elsewhere := t.TempDir()
	cmd := exec.Command(node, "--inspect-port=0", "-e", `console.log("ready"); setInterval(() => {}, 10);`)
	cmd.Dir = elsewhere
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := testenv.StartReading(t, cmd)
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("node did not start: %q %v", line, err)
	}

	dir := testenv.Workspace(t, map[string]string{"notes.txt": "no project\n"})
	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	run := debugRun(t, dir, "c1", sv, tools.SurfaceDefault)
	call := func(args string) (string, map[string]any) {
		t.Helper()
		res, err := run.Call(context.Background(), "debug", json.RawMessage(args), tools.FromModel)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", args, err, res.AllText())
		}
		var st map[string]any
		data, _ := json.Marshal(res.Structured)
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		return res.AllText(), st
	}
	text, st := call(fmt.Sprintf(`{"op":"attach","pid":%d}`, cmd.Process.Pid))
	reason, _ := st["adapter_reason"].(string)
	if st["adapter"] != "node" || !strings.Contains(reason, "node interpreter") || !strings.Contains(text, "adapter node: "+reason) {
		t.Fatalf("attach should name the inferred adapter and why, in its structured result and its text: %v\n%s", st, text)
	}
	_, st = call(`{"op":"pause"}`)
	if stop, _ := st["stop"].(map[string]any); stop == nil || stop["reason"] != "pause" {
		t.Fatalf("pause should stop the attached node: %v", st)
	}
	call(`{"op":"terminate"}`)
	if err := syscall.Kill(cmd.Process.Pid, 0); err != nil {
		t.Fatalf("the attached node should be alive after terminate: %v", err)
	}
}
