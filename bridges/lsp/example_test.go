package lsp_test

import "fmt"
import "os"
import "path/filepath"

import "github.com/tetherhq/tether/bridges/lsp"

// Status says why a server is not running without starting anything: here a
// root marker with no binary, and a binary with no root marker. The table is
// data, so a user's own servers are reported the same way.
func ExampleSupervisor_Status() {
	dir, _ := os.MkdirTemp("", "tether-lsp-example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "pubspec.yaml"), []byte("name: x\n"), 0o644)
	s, err := lsp.New(dir, lsp.WithOnlyServers(
		lsp.Server{Name: "dart-ls", Language: "dart", Binaries: []string{"dart-ls-not-installed"},
			Extensions: []string{".dart"}, RootMarkers: []string{"pubspec.yaml"}},
		lsp.Server{Name: "sh-ls", Language: "shell", Binaries: []string{"sh"},
			Extensions: []string{".sh"}, RootMarkers: []string{".shellrc"}},
	))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for _, row := range s.Status() {
		fmt.Println(row)
	}
	// Output:
	// dart-ls (dart): not running: pubspec.yaml found, dart-ls-not-installed not on PATH
	// sh-ls (shell): not running: no root marker for shell (none of .shellrc in the workspace root; a subdirectory with one still works)
}
