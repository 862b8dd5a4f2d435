package js_test

import "runtime"
import "strings"
import "testing"
import "time"

import "github.com/tetherhq/tether/kernels"

// TestRegexpResultsCountedUpFront: a global regular expression over a large
// string makes one result per match in one native call (match, matchAll
// spread, replace, replaceAll, split), which the heap guard cannot stop
// part way: with a 512 MiB cap s.match(/x/g) peaked at 1.5 to 2.5 GiB. The
// matches are counted first, and a result that would pass the cap is a
// RangeError before it is built: the heap, sampled every millisecond, grows
// by less than the cap.
func TestRegexpResultsCountedUpFront(t *testing.T) {
	const limit = 64 << 20
	k := newKernel(t, kernels.Config{MemoryLimit: limit})
	value(t, run(t, k, "var s = 'x'.repeat(4e6); var u = 'é'.repeat(4e6); var before = 1"))
	for _, code := range []string{
		"s.match(/x/g)",
		"u.match(/é/g)",
		"s.match(/(x)/g)",
		"s.match(/(?:)/g)",
		"[...s.matchAll(/x/g)]",
		"Array.from(s.matchAll(/x/g))",
		"s.replace(/x/g, 'yy')",
		"s.replace(/x/g, () => 'y')",
		"s.replaceAll(/x/g, '$&$&')",
		"s.split(/x/)",
		"s.split(/(x)/)",
		"/x/g[Symbol.match](s)",
		"RegExp.prototype[Symbol.split].call(/x/, s)",
	} {
		t.Run(code, func(t *testing.T) {
			runtime.GC()
			base := heapMetrics("/memory/classes/heap/objects:bytes")[0]
			stop := make(chan struct{})
			peak := make(chan int64)
			go func() {
				top := base
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						peak <- top
						return
					case <-tick.C:
						top = max(top, heapMetrics("/memory/classes/heap/objects:bytes")[0])
					}
				}
			}()
			r := run(t, k, code)
			close(stop)
			grew := <-peak - base
			if r.Error == nil || r.Error.Name != "RangeError" || !strings.Contains(r.Error.Message, "memory cap of 64 MiB") || !strings.Contains(r.Error.Message, "matches") {
				t.Errorf("%q: %+v", code, r.Error)
			}
			if grew > limit {
				t.Errorf("%q: the heap grew %d MiB before it was refused, over the cap of %d MiB", code, grew>>20, limit>>20)
			}
		})
	}
	// What fits still works, and the same as without the guard.
	wantValue(t, k, "JSON.stringify([s.slice(0, 1000).match(/x/g).length, 'a1b22c'.match(/\\d+/g), 'a,b;c'.split(/[,;]/), 'a,b'.split(/(,)/), 'aXbX'.replace(/x/gi, '-'), "+
		"'aXbX'.replaceAll(/X/g, (m, i) => i), [...'a1b2'.matchAll(/\\d/g)].map(m => m[0] + m.index), 'abc'.match(/b/).index, 'x'.match(/y/g), before])",
		`'[1000,["1","22"],["a","b","c"],["a",",","b"],"a-b-","a1b3",["11","23"],1,null,1]'`)
	wantValue(t, k, "const re = /a/g; re.lastIndex = 3; ['aaaa'.match(re).length, re.lastIndex, 'aaaa'.replace(/a/y, 'b'), 'x\\ny'.split(/\\n/).length, s.split(/y/).length, s.slice(0, 3e5).split(/x/).length]",
		"[ 4, 0, 'baaa', 2, 1, 300001 ]")
}
