package workers_test

import "context"
import "fmt"

import "github.com/tetherhq/tether/workers"

// A worker gets its brief on stdin and its label and tier in the environment;
// its stdout is the result.
func ExampleRoster() {
	r, err := workers.New(workers.Config{Commands: map[string]string{
		workers.Fast: `echo "$TETHER_WORKER_LABEL ($TETHER_WORKER_TIER):"; tr a-z A-Z`,
	}})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	id, err := r.Spawn("shout this", "shouter", workers.Fast)
	if err != nil {
		panic(err)
	}
	rep, err := r.Wait(context.Background(), id, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Status)
	fmt.Print(rep.Result)
	// Output:
	// done
	// shouter (fast):
	// SHOUT THIS
}
