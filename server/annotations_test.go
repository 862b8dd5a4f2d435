package server_test

import "context"
import "testing"

import "github.com/modelcontextprotocol/go-sdk/mcp"

import "github.com/tetherhq/tether/tools"
import "github.com/tetherhq/tether/workers"

// TestAnnotationsTellTheTruth: a read-tier tool that starts or stops
// processes (vibe_spawn, vibe_send, vibe_kill) is listed with readOnlyHint
// false, whatever its tier; vibe_list and vibe_wait, which change nothing,
// and read stay read-only.
func TestAnnotationsTellTheTruth(t *testing.T) {
	ws, err := workers.New(workers.Config{Commands: map[string]string{workers.Fast: "true"}, Surface: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	_, cs := connect(t, tools.Config{WorkDir: t.TempDir(), Surface: tools.SurfacePlan, Vibe: tools.VibeConfig{On: true, Workers: ws}}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*mcp.ToolAnnotations{}
	for _, tl := range res.Tools {
		listed[tl.Name] = tl.Annotations
	}
	want := map[string]bool{"read": true, "vibe_list": true, "vibe_wait": true, "vibe_spawn": false, "vibe_send": false, "vibe_kill": false}
	for name, readOnly := range want {
		ann, ok := listed[name]
		if !ok || ann == nil {
			t.Errorf("%s: not listed with annotations (listed: %v)", name, listed)
			continue
		}
		if ann.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint %v, want %v", name, ann.ReadOnlyHint, readOnly)
		}
	}
}
