package store_test

import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/search/store"

// TestOutlineIndexServesNewProcess: an outline noted in one store is found
// by a new store on the same disk tier; one too large for a shard's record
// is kept in memory only; a key never noted has none.
func TestOutlineIndexServesNewProcess(t *testing.T) {
	d, err := store.OpenDiskCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := store.NewCache(0)
	c.SetDisk(d)
	small, large := store.Key{1, 2}, store.Key{3, 4}
	c.NoteOutline(small, "defs and names")
	c.NoteOutline(large, strings.Repeat("x", 4<<20))
	if o, ok := c.Outline(small); !ok || o != "defs and names" {
		t.Fatalf("same store: %q, %v", o, ok)
	}
	d.Settle(time.Minute)
	fresh := store.NewCache(0)
	fresh.SetDisk(d)
	if o, ok := fresh.Outline(small); !ok || o != "defs and names" {
		t.Errorf("new store: %q, %v, want the outline from the disk tier", o, ok)
	}
	if _, ok := fresh.Outline(large); ok {
		t.Errorf("new store: an outline over a shard's record size came from disk")
	}
	if _, ok := c.Outline(large); !ok {
		t.Errorf("same store: the large outline is not kept in memory")
	}
	if _, ok := fresh.Outline(store.Key{5}); ok {
		t.Errorf("a key never noted has an outline")
	}
	if st := fresh.Stats(); st.Outlines != 1 || st.OutlineBytes == 0 {
		t.Errorf("new store's stats: %d outlines (%d bytes), want 1", st.Outlines, st.OutlineBytes)
	}
}
