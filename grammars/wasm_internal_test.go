package grammars

import "reflect"
import "sync"
import "testing"

// TestWasmConcurrentFirstUse: many goroutines asking for modules nobody has
// used yet each get the one decompressed copy (run under -race).
func TestWasmConcurrentFirstUse(t *testing.T) {
	ids := []string{"lua", "css", "html", "yaml"}
	// A fresh table of blobs, so the first use happens here.
	fresh := map[string]*blob{}
	for _, l := range mustTable().Languages {
		fresh[l.ID] = &blob{}
	}
	saved := blobs
	blobs = func() map[string]*blob { return fresh }
	defer func() { blobs = saved }()

	var wg sync.WaitGroup
	got := make([][]*byte, 16)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, id := range ids {
				l, _ := Lookup(id)
				b, err := Wasm(l)
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], &b[0])
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for i := range ids {
			if len(got[g]) != len(ids) || got[g][i] != got[0][i] {
				t.Fatalf("goroutine %d got another copy of %s", g, ids[i])
			}
		}
	}
}

// TestTable: table.go, the manifest as Go data that a process reads, is
// manifest.json as ParseManifest reads and checks it.
func TestTable(t *testing.T) {
	m, err := ParseManifest(ManifestJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*m, shipped) {
		t.Fatal("grammars/table.go does not match grammars/manifest.json: run `go generate ./grammars` and commit table.go")
	}
}
