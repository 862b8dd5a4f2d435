package store

import "encoding/binary"
import "fmt"
import "testing"

// BenchmarkKindIndexFirstLookup is what a new process pays for its first
// kind-set lookup with a disk tier whose index holds n sets: only the shard
// of the looked-up key is read (1/256 of the index, at most twice a shard's
// cap), so this stays small however large the tier.
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
			var shards [kindShards][]kindRecord
			for _, r := range recs {
				shards[kindShardOf(r.key)] = append(shards[kindShardOf(r.key)], r)
			}
			var size int64
			for sh, rs := range shards {
				size += d.rewriteKindShard(byte(sh), rs)
			}
			var c *Cache
			for b.Loop() {
				c = NewCache(0)
				c.SetDisk(d)
				if _, ok := c.kindsOf(recs[n-1].key); !ok {
					b.Fatal("the last set is not found")
				}
			}
			b.ReportMetric(float64(size), "index-bytes")
			b.ReportMetric(float64(c.kinds.readBytes), "read-bytes")
		})
	}
}
