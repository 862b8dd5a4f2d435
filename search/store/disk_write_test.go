package store

import "bytes"
import "context"
import "os"
import "runtime"
import "testing"
import "time"

import "github.com/tetherhq/tether/engine/enginetest"

// TestDiskEntryBuiltInPlace: the disk tier queues a tree, not a buffer: the
// writer encodes it in place in its batch (the header, then the tree's
// binary form), which reads back as the tree's binary form, queued and from
// its pack; a cold search writes thousands, and an entry buffer of each
// one's own made new memory for every tree.
func TestDiskEntryBuiltInPlace(t *testing.T) {
	ctx := context.Background()
	e := enginetest.Engine(t)
	src, err := os.ReadFile("../search.go")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := e.Parse(ctx, enginetest.Language(t, "go"), src)
	if err != nil {
		t.Fatal(err)
	}
	want, err := tree.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != encodedSize(tree) {
		t.Fatalf("encodedSize %d, the binary form is %d bytes", encodedSize(tree), len(want))
	}
	d, err := OpenDiskCache(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	k := KeyOf("", enginetest.Language(t, "go"), src)
	d.storeTree(k, tree)
	got, ok := d.load(k)
	if !ok || !bytes.Equal(got, want) {
		t.Fatalf("entry read back: ok %v, %d bytes, equal to the tree's binary form: %v", ok, len(got), bytes.Equal(got, want))
	}
	// queueing a tree allocates next to nothing (the least of several)
	least := ^uint64(0)
	for i := 0; i < 8; i++ {
		d.Settle(time.Minute)
		k[0]++
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		d.storeTree(k, tree)
		runtime.ReadMemStats(&b)
		least = min(least, b.TotalAlloc-a.TotalAlloc)
	}
	d.Settle(time.Minute)
	if got, ok := d.load(k); !ok || !bytes.Equal(got, want) {
		t.Errorf("entry read back from its pack: ok %v, equal to the tree's binary form: %v", ok, bytes.Equal(got, want))
	}
	if least > uint64(len(want))/4 {
		t.Errorf("queueing a %d-byte entry allocated at least %d bytes; want it encoded by the writer", len(want), least)
	}
}
