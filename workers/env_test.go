package workers_test

import "strings"
import "testing"

import "github.com/tetherhq/tether/workers"

// TestWorkerGetsNoHostEnvironment: a worker's command sees none of tether's
// environment variables but the ones the operator passes by name
// (Config.PassEnv, --worker-env) and its own (Config.Env, TETHER_WORKER_*),
// and its HOME is its state directory, not the operator's.
func TestWorkerGetsNoHostEnvironment(t *testing.T) {
	secrets := map[string]string{
		"TETHER_TEST_SECRET_CANARY": "canary-worker-5d1e",
		"OPS_DB_PASSWORD":           "hunter2-worker-canary",
		"AWS_SECRET_ACCESS_KEY":     "aws-worker-canary",
		"GITHUB_TOKEN":              "ghp_worker_canary",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("AGENT_API_KEY", "agent-key-passed")
	r := newRoster(t, workers.Config{
		Commands: map[string]string{workers.Fast: `tr '\0' '\n' < /proc/self/environ; echo "home=$HOME"`},
		Dir:      t.TempDir(),
		Env:      []string{"WORKER_SETTING=explicit"},
		PassEnv:  []string{"AGENT_API_KEY"},
	})
	id := spawn(t, r, "print the environment", "env", "")
	rep := wait(t, r, id)
	if rep.Status != workers.Done {
		t.Fatalf("status %s: %s", rep.Status, rep.LogTail)
	}
	for k, v := range secrets {
		if strings.Contains(rep.Result, v) {
			t.Errorf("the worker saw tether's %s:\n%s", k, rep.Result)
		}
	}
	for _, want := range []string{"AGENT_API_KEY=agent-key-passed", "WORKER_SETTING=explicit", "TETHER_WORKER_ID=" + id, workers.EnvState + "="} {
		if !strings.Contains(rep.Result, want) {
			t.Errorf("the worker's environment lacks %s:\n%s", want, rep.Result)
		}
	}
	var state, home string
	for _, line := range strings.Split(rep.Result, "\n") {
		if v, ok := strings.CutPrefix(line, workers.EnvState+"="); ok {
			state = v
		}
		if v, ok := strings.CutPrefix(line, "home="); ok {
			home = v
		}
	}
	if home == "" || home != state {
		t.Errorf("HOME = %q, want the worker's state directory %q", home, state)
	}
}
