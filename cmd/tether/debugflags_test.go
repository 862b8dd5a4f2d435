package main

import "encoding/json"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"
import "testing"

import "github.com/tetherhq/tether/bridges/dap"
import "github.com/tetherhq/tether/tools"

// TestDebugAdaptersFromTheTable checks that every adapter of the built-in
// table, and only the table, names the adapters in `tether serve --help` and
// in the debug tool's schema, and that an adapter added with
// --debug-adapters reaches the schema too.
func TestDebugAdaptersFromTheTable(t *testing.T) {
	bin := tetherBin(t)
	ids := dap.AdapterIDs(dap.DefaultAdapters())
	if len(ids) == 0 {
		t.Fatal("the built-in adapter table is empty")
	}

	help, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	var debugHelp, adaptersHelp string
	lines := strings.Split(string(help), "\n")
	for i, l := range lines {
		if i+1 >= len(lines) {
			break
		}
		switch strings.TrimSpace(l) {
		case "-debug":
			debugHelp = lines[i+1]
		case "-debug-adapters string":
			adaptersHelp = lines[i+1]
		}
	}
	if debugHelp == "" || adaptersHelp == "" {
		t.Fatalf("serve --help has no -debug or -debug-adapters entry:\n%s", help)
	}
	for _, id := range ids {
		if !strings.Contains(debugHelp, id+" (") {
			t.Errorf("serve --help: -debug does not name adapter %s: %s", id, debugHelp)
		}
		if !strings.Contains(adaptersHelp, id) {
			t.Errorf("serve --help: -debug-adapters does not name adapter %s: %s", id, adaptersHelp)
		}
	}

	extra := filepath.Join(t.TempDir(), "adapters.json")
	if err := os.WriteFile(extra, []byte(`[{"id":"gdb-local","extensions":[".c"],"commands":[["gdb","-i","dap"]]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"built-in", nil, ids},
		{"with --debug-adapters", []string{"--debug-adapters", extra}, append(slices.Clone(ids), "gdb-local")},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"tools", "--workdir", t.TempDir(), "--json"}, c.args...)
			out, err := exec.Command(bin, args...).Output()
			if err != nil {
				t.Fatalf("tether %s: %v", strings.Join(args, " "), err)
			}
			var list []listedTool
			if err := json.Unmarshal(out, &list); err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(list, func(e listedTool) bool {
				return e.Name == "debug"
			})
			if i < 0 {
				t.Fatalf("tools lists no debug tool: %s", out)
			}
			got := list[i].InputSchema.Properties["adapter"].Enum
			if !slices.Equal(got, c.want) {
				t.Errorf("debug schema: adapter enum %v, want %v", got, c.want)
			}
			for _, id := range c.want {
				if !strings.Contains(list[i].Description, id+" (") {
					t.Errorf("debug description does not name adapter %s: %s", id, list[i].Description)
				}
			}
		})
	}
}

// listedTool is what TestDebugAdaptersFromTheTable reads of `tether tools
// --json`: a tool's name, description and its arguments' enums.
type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	} `json:"inputSchema"`
}

// TestDebugHelpAndReadme checks that `tether serve --help` and the README's
// tool table name every debug op and what each built-in adapter supports,
// both made from the same table (tools.DebugOps, dap.DescribeSupport), and
// that the --debug-adapters help names the attach templates.
func TestDebugHelpAndReadme(t *testing.T) {
	ops := "ops " + strings.Join(tools.DebugOps(), ", ")
	support := dap.DescribeSupport(dap.DefaultAdapters())
	if !strings.Contains(support, "attach by pid") {
		t.Fatalf("DescribeSupport should say how adapters attach: %s", support)
	}

	help, _ := exec.Command(tetherBin(t), "serve", "--help").CombinedOutput()
	var debugHelp, adaptersHelp string
	lines := strings.Split(string(help), "\n")
	for i := 0; i+1 < len(lines); i++ {
		switch strings.TrimSpace(lines[i]) {
		case "-debug":
			debugHelp = lines[i+1]
		case "-debug-adapters string":
			adaptersHelp = lines[i+1]
		}
	}
	for _, want := range []string{ops, support} {
		if !strings.Contains(debugHelp, want) {
			t.Errorf("serve --help: -debug does not say %q:\n%s", want, debugHelp)
		}
	}
	for _, want := range []string{"attach_pid", "${pid}", "attach (by host and port"} {
		if !strings.Contains(adaptersHelp, want) {
			t.Errorf("serve --help: -debug-adapters does not name %q:\n%s", want, adaptersHelp)
		}
	}

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| debug |") {
			row = l
		}
	}
	if row == "" {
		t.Fatal("README.md's tool table has no debug row")
	}
	for _, want := range []string{"ops: " + strings.Join(tools.DebugOps(), ", ") + ";", "adapters: " + support + ";", "docs/tools.md"} {
		if !strings.Contains(row, want) {
			t.Errorf("README.md's debug row does not say %q (rewrite it from tools.DebugOps and dap.DescribeSupport):\n%s", want, row)
		}
	}
}
