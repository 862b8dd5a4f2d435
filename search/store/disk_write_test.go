package store

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/tetherhq/tether/engine"
	"github.com/tetherhq/tether/engine/enginetest"
)

// TestDiskEntryBuiltInPlace: the disk tier writes an entry from one pooled
// buffer (the header, then the tree appended in place), which reads back as
// the tree's binary form; a cold search writes thousands, and growing each
// by appending, then copying it behind its header, made several times its
// size in garbage.
func TestDiskEntryBuiltInPlace(t *testing.T) {
	ctx := context.Background()
	e, err := engine.New(ctx, engine.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
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
	// the next writes take the buffer from the pool (the race detector's
	// pool drops some at random: the least of several)
	least := ^uint64(0)
	for i := 0; i < 8; i++ {
		k[0]++
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		d.storeTree(k, tree)
		runtime.ReadMemStats(&b)
		least = min(least, b.TotalAlloc-a.TotalAlloc)
	}
	if least > uint64(len(want))/4 {
		t.Errorf("writing a %d-byte entry allocated at least %d bytes; want it built in a pooled buffer", len(want), least)
	}
}
