package search

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// BenchmarkKindIndexFirstLookup is what a new process pays for its first
// kind-set lookup with a disk tier whose index holds n sets: the index is
// read and decoded whole, so this grows with the tier (up to the index's
// cap, 16 MiB).
func BenchmarkKindIndexFirstLookup(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("sets=%d", n), func(b *testing.B) {
			d, err := OpenDiskCache(b.TempDir(), 0)
			if err != nil {
				b.Fatal(err)
			}
			raw := make([]byte, 40) // about a Go file's
			for i := range raw {
				raw[i] = byte(i*37) | 1
			}
			set := kindSet(raw)
			recs := make([]kindRecord, n)
			for i := range recs {
				binary.LittleEndian.PutUint64(recs[i].key[:], uint64(i+1))
				recs[i].set = set
			}
			size := d.rewriteKindIndex(recs)
			b.ReportMetric(float64(size), "index-bytes")
			for b.Loop() {
				c := NewCache(0)
				c.SetDisk(d)
				if _, ok := c.kindsOf(recs[n-1].key); !ok {
					b.Fatal("the last set is not found")
				}
			}
		})
	}
}
