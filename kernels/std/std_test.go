package std_test

import "context"
import "os"
import "testing"

import "github.com/tetherhq/tether/kernels"
import "github.com/tetherhq/tether/kernels/js"
import "github.com/tetherhq/tether/kernels/jsproc"
import "github.com/tetherhq/tether/kernels/std"

// TestMain makes this test binary a JavaScript kernel child when started
// with jsproc.Subcommand, as tether's main does.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == jsproc.Subcommand {
		os.Exit(jsproc.Main())
	}
	os.Exit(m.Run())
}

// TestFactoryChoosesTheJavaScriptKernel checks the one choice std makes:
// with a child command JavaScript runs in a child process (kernels/jsproc),
// without one in this process (kernels/js), and a cell runs either way.
func TestFactoryChoosesTheJavaScriptKernel(t *testing.T) {
	for _, c := range []struct {
		name    string
		child   []string
		inChild bool
	}{
		{"child process", []string{os.Args[0], jsproc.Subcommand}, true},
		{"in process", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := std.NewFactory(kernels.Config{}, c.child).New(kernels.JavaScript, t.TempDir(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			_, isChild := k.(*jsproc.Kernel)
			_, isLocal := k.(*js.Kernel)
			if isChild != c.inChild || isLocal == c.inChild {
				t.Fatalf("kernel is %T; want a child process: %v", k, c.inChild)
			}
			r, err := k.Execute(context.Background(), kernels.Cell{Code: "[1, 2, 3].map(x => x * 2)", Label: "double three numbers"})
			if err != nil || r.Value == nil || r.Value.Text != "[ 2, 4, 6 ]" {
				t.Fatalf("cell: %+v %v", r, err)
			}
		})
	}
}

// TestSelfJSChild: the command line names this binary and the subcommand.
func TestSelfJSChild(t *testing.T) {
	argv, err := std.SelfJSChild()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if len(argv) != 2 || argv[0] != exe || argv[1] != jsproc.Subcommand {
		t.Errorf("SelfJSChild() = %q, want [%s %s]", argv, exe, jsproc.Subcommand)
	}
}
