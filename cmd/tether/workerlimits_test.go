package main

import "io"
import "testing"

import "github.com/tetherhq/tether/internal/logging"
import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/workers"

// TestWorkerLimits: a tether started as a vibe worker never runs on a wider
// surface or a looser policy than the run that started it passed, whatever
// its own flags say; stricter flags of its own stand.
func TestWorkerLimits(t *testing.T) {
	tests := []struct {
		name                   string
		envSurface, envApprove string
		flagSurface, flagPol   string
		wantSurface, wantPol   string
	}{
		{"no limits passed", "", "", "default", "allow", "default", "*=allow"},
		{"surface narrowed", "plan", "", "default", "allow", "plan", "*=allow"},
		{"narrower flag stands", "default", "", "readonly", "allow", "readonly", "*=allow"},
		{"looser policy replaced", "", "deny", "default", "allow", "default", "*=deny"},
		{"looser for one tool", "", "ask", "default", "*=ask,eval=allow", "default", "*=ask"},
		{"looser for one tier", "", "write=deny,exec=ask", "default", "ask", "default", "*=ask,write=deny,exec=ask"},
		{"stricter flag stands", "", "ask", "default", "deny", "default", "*=deny"},
		{"stricter for one tool stands", "", "allow", "default", "*=allow,debug=deny", "default", "*=allow,debug=deny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(workers.EnvSurface, tc.envSurface)
			t.Setenv(workers.EnvApprove, tc.envApprove)
			cfg, err := limitFlags(t, tc.flagSurface, tc.flagPol).config()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Surface.String() != tc.wantSurface || cfg.Policy.String() != tc.wantPol {
				t.Errorf("surface %s policy %s, want %s and %s", cfg.Surface, cfg.Policy, tc.wantSurface, tc.wantPol)
			}
		})
	}
	t.Setenv(workers.EnvSurface, "everything")
	if _, err := limitFlags(t, "default", "ask").config(); err == nil {
		t.Error("a bad " + workers.EnvSurface + " was accepted")
	}
}

func limitFlags(t *testing.T, surface, approve string) *runFlags {
	// The sandbox flags at their defaults: config refuses an unset --sandbox.
	return &runFlags{workdir: t.TempDir(), surface: surface, approve: onceFlag{value: approve},
		logLevel: logging.DefaultLevel, logFormat: "text", logTo: io.Discard,
		sandbox: "on", sandboxNet: proc.FormatNet(proc.DefaultNet())}
}
