//go:build linux

package main

import "context"
import "flag"
import "io"
import "regexp"
import "strconv"
import "strings"
import "testing"

import "github.com/tetherhq/tether/internal/testenv"
import "github.com/tetherhq/tether/tools"

// storeCounts reads the tree store's hits and misses from url's /metrics.
func storeCounts(t *testing.T, url string) (hits, misses int) {
	t.Helper()
	_, body := testenv.Get(t, url+"/metrics")
	read := func(name string) int {
		m := regexp.MustCompile(`(?m)^` + name + ` (\d+)`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("/metrics lacks %s:\n%s", name, body)
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return read("tether_tree_store_hits_total"), read("tether_tree_store_misses_total")
}

// TestHostTreeStoreIsPerPrincipal: sessions on two workspaces holding the
// same file. A session of another token does not get the tree the first
// parsed (it parses its own copy: misses grow), so the store's counters and
// a search's speed do not tell one tenant what another parsed; a session of
// the same token, which may open both workspaces anyway, takes it from the
// store (hits grow, misses do not), and so does every session with
// --share-trees.
func TestHostTreeStoreIsPerPrincipal(t *testing.T) {
	for _, c := range []struct {
		name   string
		share  bool
		token  string // beta's session's
		shared bool
	}{
		{"another token", false, "t-beta-0123456789", false},
		{"the same token", false, "t-ops-0123456789", true},
		{"another token, --share-trees", true, "t-beta-0123456789", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := []string{"--no-cache"}
			if c.share {
				args = append(args, "--share-trees")
			}
			hp := startHostProc(t, t.TempDir(), args...)
			search := func(ws, token string) {
				t.Helper()
				cs := openHostSessionAs(t, hp.url, ws, token, -1)
				defer cs.Close()
				if text, isErr := callText(t, cs, "ast_grep", map[string]any{"pattern": "old($A)", "language": "go"}); isErr || !strings.Contains(text, "a.go") {
					t.Fatalf("%s's ast_grep: error %v\n%s", ws, isErr, text)
				}
			}
			search("alpha", "t-ops-0123456789")
			h1, m1 := storeCounts(t, hp.url)
			if m1 == 0 {
				t.Fatalf("alpha's search parsed nothing (misses %d)", m1)
			}
			search("beta", c.token)
			h2, m2 := storeCounts(t, hp.url)
			switch {
			case c.shared && (m2 != m1 || h2 <= h1):
				t.Errorf("beta's search of the same content: hits %d -> %d, misses %d -> %d; want more hits and no new miss", h1, h2, m1, m2)
			case !c.shared && m2 <= m1:
				t.Errorf("beta's search of the same content: hits %d -> %d, misses %d -> %d; want beta to parse its own copy", h1, h2, m1, m2)
			}
		})
	}
}

// TestHostSessionsShareOneEngine: the structural family wires every run of
// the host (wireEnv.Host, as serve --http starts them) with one engine,
// while runs of separate processes' kind (stdio serve, call) each get their
// own.
func TestHostSessionsShareOneEngine(t *testing.T) {
	var w *familyWiring
	for i := range wirings {
		if wirings[i].name == "astgrep" {
			w = &wirings[i]
		}
	}
	if w == nil {
		t.Fatal("no astgrep wiring")
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	w.flags(fs)
	if err := fs.Parse([]string{"--no-cache"}); err != nil {
		t.Fatal(err)
	}
	wire := func(host bool) tools.Config {
		t.Helper()
		var cfg tools.Config
		cleanup, err := w.wire(context.Background(), &cfg, wireEnv{Serve: true, Host: host, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if cleanup != nil {
			t.Cleanup(cleanup)
		}
		if cfg.Search.Parser == nil {
			t.Fatal("no parser wired")
		}
		return cfg
	}
	a, b := wire(true), wire(true)
	if a.Search.Parser != b.Search.Parser {
		t.Error("two host sessions got two engines")
	}
	if !a.Search.WarmUp {
		t.Error("a host session does not warm the shared store up")
	}
	if c := wire(false); c.Search.Parser == a.Search.Parser {
		t.Error("a stdio run got the host's shared engine")
	}
}
