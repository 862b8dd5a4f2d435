package proc_test

import "bytes"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/proc"

// secretCanaries are variables of tether's environment that must never
// reach a process it starts, with made-up values.
var secretCanaries = map[string]string{
	"TETHER_TEST_SECRET_CANARY": "canary-7f3a",
	"OPS_DB_PASSWORD":           "hunter2-canary",
	"AWS_SECRET_ACCESS_KEY":     "aws-canary",
	"SSH_AUTH_SOCK":             "/tmp/ssh-canary/agent.1",
	"GITHUB_TOKEN":              "ghp_canary",
}

// childEnviron runs a real process under p (tether's sandbox options o) and
// returns the environment it sees, read from its /proc/self/environ.
func childEnviron(t *testing.T, p proc.Policy, o proc.Options, extra ...string) map[string]string {
	t.Helper()
	defer proc.Configure(proc.Options{})
	proc.Configure(o)
	cmd := exec.Command("/bin/cat", "/proc/self/environ")
	if len(extra) > 0 {
		cmd.Env = append(os.Environ(), extra...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := proc.Sandbox(cmd, p); err != nil {
		t.Fatal(err)
	}
	if err := proc.Run(cmd); err != nil {
		t.Fatalf("cat /proc/self/environ: %v: %s", err, errb.String())
	}
	env := map[string]string{}
	for _, kv := range strings.Split(out.String(), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestChildEnvAllowlist: a process tether starts, sandboxed or with the
// sandbox off, sees none of tether's secrets; it gets PATH, the locale, the
// toolchain's variables, what its launch site set, the variables the
// operator named (--env, Policy.PassEnv), a HOME of its own, and Go's
// directories where the real home put them.
func TestChildEnvAllowlist(t *testing.T) {
	for k, v := range secretCanaries {
		t.Setenv(k, v)
	}
	t.Setenv("LANG", "C.UTF-8")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("OPERATOR_NAMED", "passed")
	t.Setenv("WORKER_KEY", "worker-passed")
	t.Setenv("GOPATH", "")
	t.Setenv("GOCACHE", "")
	realHome := proc.Home()
	scratch := filepath.Join(t.TempDir(), "scratch")
	for _, off := range []bool{false, true} {
		name := "sandbox on"
		if off {
			name = "sandbox off"
		}
		t.Run(name, func(t *testing.T) {
			p := proc.Policy{Peer: "env test", Family: proc.Kernels, Scratch: scratch, PassEnv: []string{"WORKER_KEY"}}
			env := childEnviron(t, p, proc.Options{Off: off, Env: []string{"OPERATOR_NAMED"}}, "EXPLICIT_SETTING=by-the-launch-site")
			for k := range secretCanaries {
				if v, ok := env[k]; ok {
					t.Errorf("%s reached the child (%q)", k, v)
				}
			}
			want := map[string]string{
				"PATH":             os.Getenv("PATH"),
				"LANG":             "C.UTF-8",
				"GOFLAGS":          "-mod=mod",
				"OPERATOR_NAMED":   "passed",
				"WORKER_KEY":       "worker-passed",
				"EXPLICIT_SETTING": "by-the-launch-site",
				"HOME":             scratch,
			}
			if realHome != "" {
				want["GOPATH"] = filepath.Join(realHome, "go")
				want["GOMODCACHE"] = filepath.Join(realHome, "go", "pkg", "mod")
			}
			for k, v := range want {
				if env[k] != v {
					t.Errorf("%s = %q, want %q", k, env[k], v)
				}
			}
			if env["GOCACHE"] == "" || strings.HasPrefix(env["GOCACHE"], scratch) {
				t.Errorf("GOCACHE = %q: want the cache the Go table computed, not one under the new HOME", env["GOCACHE"])
			}
		})
	}
}

// TestChildEnvHome: without a scratch directory HOME is a path that does
// not exist (never the operator's), Policy.Home wins over the scratch
// directory, and an operator who names HOME keeps the real one.
func TestChildEnvHome(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	cases := []struct {
		name string
		p    proc.Policy
		o    proc.Options
		want string
	}{
		{"none", proc.Policy{}, proc.Options{}, "/nonexistent"},
		{"scratch", proc.Policy{Scratch: "/s"}, proc.Options{}, "/s"},
		{"home", proc.Policy{Scratch: "/s", Home: "/h"}, proc.Options{}, "/h"},
		{"operator", proc.Policy{Scratch: "/s"}, proc.Options{Env: []string{"HOME"}}, os.Getenv("HOME")},
		{"worker", proc.Policy{Scratch: "/s", PassEnv: []string{"HOME"}}, proc.Options{}, os.Getenv("HOME")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			for _, kv := range proc.ChildEnv(nil, c.p, c.o) {
				if v, ok := strings.CutPrefix(kv, "HOME="); ok {
					got = v
				}
			}
			if got != c.want {
				t.Errorf("HOME = %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseEnvName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{{"GITHUB_TOKEN", "GITHUB_TOKEN", true}, {" X ", "X", true}, {"A=b", "", false}, {"", "", false}} {
		got, err := proc.ParseEnvName(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseEnvName(%q) = %q, %v", c.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "name") {
			t.Errorf("ParseEnvName(%q): error does not say what to give: %v", c.in, err)
		}
	}
}
