// Command inplace is a peer that confines itself in place (the proc
// package's init does it before main, when started as proc.Sandbox asks):
// it reports, on many threads, what the confinement leaves it.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	_ "github.com/tetherhq/tether/internal/proc" // confines this process in place
)

// main prints its arguments, then one line per thread that tried to read
// os.Args[1] ("read ok" or "read denied"), then each thread's capability
// and no_new_privs lines from /proc/self/task.
func main() {
	fmt.Printf("args %q\n", os.Args)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A thread of its own for each: new ones, and the ones the
			// runtime had before main.
			runtime.LockOSThread()
			_, err := os.ReadFile(os.Args[1])
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				fmt.Println("read ok")
			} else {
				fmt.Println("read denied")
			}
		}()
	}
	wg.Wait()
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil || len(b) == 0 {
			// a thread that ended after the listing (a goroutine that
			// exits locked to its thread ends the thread)
			continue
		}
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Cap") || strings.HasPrefix(l, "NoNewPrivs") {
				keep = append(keep, strings.Join(strings.Fields(l), " "))
			}
		}
		fmt.Printf("thread %s\n", strings.Join(keep, "; "))
	}
}
