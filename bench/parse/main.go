package main

import "context"
import "flag"
import "fmt"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "runtime"
import "sort"
import "strconv"
import "strings"
import "sync"
import "sync/atomic"
import "syscall"
import "time"

import "github.com/tetherhq/tether/engine"
import "github.com/tetherhq/tether/grammars"

func main() {
	root := flag.String("root", "", "corpus directory (default $(go env GOROOT)/src)")
	native := flag.String("native", "bench/.out/tsnative-go", "native binary built by bench/native/build.sh")
	maxMB := flag.Float64("mb", 0, "use only about this many MB of the corpus (0: all)")
	reps := flag.Int("reps", 1, "passes over the corpus per measurement")
	hard := flag.Bool("hard-cancel", false, "measure with wazero's close-on-context-done enabled")
	flag.Parse()
	if err := run(*root, *native, *maxMB, *reps, *hard); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type corpus struct {
	paths []string
	srcs  [][]byte
	bytes int64
}

func load(root string, maxMB float64) (*corpus, error) {
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOROOT: %w", err)
		}
		root = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	c := &corpus{}
	step := 1
	if maxMB > 0 {
		// Spread the subset over the whole tree: every step-th file.
		var total int64
		for _, p := range paths {
			if fi, err := os.Stat(p); err == nil {
				total += fi.Size()
			}
		}
		if want := int64(maxMB * 1e6); want < total {
			step = int(total / want)
		}
	}
	for i := 0; i < len(paths); i += step {
		b, err := os.ReadFile(paths[i])
		if err != nil {
			return nil, err
		}
		c.paths = append(c.paths, paths[i])
		c.srcs = append(c.srcs, b)
		c.bytes += int64(len(b))
	}
	return c, nil
}

func mbps(bytes int64, d time.Duration) float64 { return float64(bytes) / 1e6 / d.Seconds() }

func run(root, native string, maxMB float64, reps int, hard bool) error {
	c, err := load(root, maxMB)
	if err != nil {
		return err
	}
	fmt.Printf("corpus: %d Go files, %.1f MB; %d pass(es); GOMAXPROCS %d\n", len(c.paths), float64(c.bytes)/1e6, reps, runtime.GOMAXPROCS(0))

	// Native, one core.
	list, err := os.CreateTemp("", "tether-bench-*.txt")
	if err != nil {
		return err
	}
	defer os.Remove(list.Name())
	fmt.Fprintln(list, strings.Join(c.paths, "\n"))
	list.Close()
	out, err := exec.Command(native, list.Name(), strconv.Itoa(reps)).Output()
	if err != nil {
		return fmt.Errorf("%s: %v (build it with bench/native/build.sh go)", native, err)
	}
	var nb, nn int64
	var ns, ncpu float64
	if _, err := fmt.Sscan(string(out), &nb, &nn, &ns, &ncpu); err != nil {
		return fmt.Errorf("native output %q: %v", out, err)
	}
	nativeMBps := float64(nb) / 1e6 / ns
	nativeCPU := float64(nb) / 1e6 / ncpu

	ctx := context.Background()
	e, err := engine.New(ctx, engine.NewConfig().WithHardCancel(hard))
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	goLang, _ := grammars.Lookup("go")
	// Warm up: compile (or load from the cache) and size the instances.
	warm := e.NewParser(engine.Limits{})
	if _, err := warm.Parse(ctx, goLang, c.srcs[0]); err != nil {
		return err
	}
	warm.Close(ctx)

	// measure returns MB/s by wall clock and by the process's CPU time (user +
	// system, all threads): on a shared machine the CPU figure is the fairer.
	measure := func(workers int) (float64, float64, int64, error) {
		p := e.NewParser(engine.Limits{Instances: workers})
		defer p.Close(ctx)
		start, cpu0 := time.Now(), cpuTime()
		nodes, err := parseAll(ctx, p, goLang, c.srcs, int64(len(c.srcs)*reps), workers, false)
		wall, cpu := time.Since(start), cpuTime()-cpu0
		return mbps(c.bytes*int64(reps), wall), mbps(c.bytes*int64(reps), cpu), nodes, err
	}
	one, oneCPU, nodes1, err := measure(1)
	if err != nil {
		return err
	}
	if nodes1 != nn {
		return fmt.Errorf("node counts differ: wasm %d, native %d", nodes1, nn)
	}
	all, _, _, err := measure(runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	fmt.Printf("nodes: %d (wasm and native agree)\n", nn)
	fmt.Printf("                                 wall MB/s   CPU-time MB/s\n")
	fmt.Printf("native (gcc -O3, 1 core)         %9.2f   %13.2f\n", nativeMBps, nativeCPU)
	fmt.Printf("wasm   (wazero, 1 core)          %9.2f   %13.2f\n", one, oneCPU)
	fmt.Printf("wasm   (wazero, %d cores)         %9.2f\n", runtime.GOMAXPROCS(0), all)
	fmt.Printf("ratio native/wasm (1 core)       %9.2f   %13.2f\n", nativeMBps/one, nativeCPU/oneCPU)
	return nil
}

// parseAll parses n sources, source i being srcs[i%len(srcs)], on workers
// goroutines sharing p, and returns how many nodes their trees hold. A
// worker stops at a parse error, or, with strict, at a tree that holds a
// syntax error; the first such error is returned.
func parseAll(ctx context.Context, p *engine.Parser, lang *grammars.Language, srcs [][]byte, n int64, workers int, strict bool) (int64, error) {
	var next, nodes atomic.Int64
	var firstErr error
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				t, err := p.Parse(ctx, lang, srcs[i%int64(len(srcs))])
				if err != nil {
					fail(err)
					return
				}
				if strict && t.HasError() {
					fail(fmt.Errorf("source %d parses with errors", i%int64(len(srcs))))
					return
				}
				nodes.Add(int64(t.Len()))
			}
		})
	}
	wg.Wait()
	return nodes.Load(), firstErr
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
