package dap_test

import "context"
import "fmt"
import "os"
import "path/filepath"
import "strings"

import "github.com/tetherhq/tether/bridges/dap"

// Example asks which adapters can start for a Dart checkout: the root marker
// is there, the dart binary is not, and the reason says so.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "pubspec.yaml"), []byte("name: app\n"), 0o644)

	sv := dap.NewSupervisor(dap.Config{})
	defer sv.Close()
	ctx := context.Background()
	for _, a := range sv.Adapters(ctx, dir) {
		if a.ID == "dart" {
			fmt.Println(a.ID, "usable:", a.Usable, "marker:", a.Marker)
			fmt.Println(strings.SplitN(a.Reason, ";", 2)[0])
		}
	}
	_, err := sv.Stack(ctx, "conv-1", 0, 0)
	fmt.Println(err)
	// Output:
	// dart usable: false marker: pubspec.yaml
	// binary missing: none of dart found
	// debug: no debug session is running; start one with op launch or attach
}
