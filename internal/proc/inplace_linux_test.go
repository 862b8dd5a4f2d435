package proc

import "bytes"
import "os"
import "os/exec"
import "path/filepath"
import "regexp"
import "slices"
import "strings"
import "testing"

// buildInPlacePeer builds testdata/inplace cgo-free (as tether is built), so
// that it can set every thread's state.
func buildInPlacePeer(t *testing.T, cgo string) string {
	t.Helper()
	// Deep enough that what its table grants (the binary's directory and
	// the one above) holds nothing else of the test's.
	bin := filepath.Join(t.TempDir(), "prefix", "bin", "inplace")
	build := exec.Command("go", "build", "-o", bin, "./testdata/inplace")
	build.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
	var out bytes.Buffer
	build.Stdout, build.Stderr = &out, &out
	if err := Run(build); err != nil {
		t.Fatalf("go build ./testdata/inplace: %v\n%s", err, out.Bytes())
	}
	return bin
}

// inPlaceAs has inPlaceFor take bin as this binary for the test's length
// (a test binary is a cgo build and another file than the peer).
func inPlaceAs(t *testing.T, bin string) {
	old := inPlaceFor
	inPlaceFor = func(path string) bool { return path == bin }
	t.Cleanup(func() { inPlaceFor = old })
}

// TestSandboxInPlace: a peer that is the binary itself, with Policy.InPlace,
// is started once (no launcher execs it) with its own arguments, and is as
// confined as a launched one on every thread, the runtime's from before
// main included: a file outside its table is refused, and no thread holds
// a capability or may gain one (no_new_privs).
func TestSandboxInPlace(t *testing.T) {
	if !SandboxStatus().Files() {
		t.Skipf("no sandbox here: %s", SandboxStatus())
	}
	bin := buildInPlacePeer(t, "0")
	inPlaceAs(t, bin)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro, _ := Table(Native, bin, nil)
	for _, inPlace := range []bool{true, false} {
		cmd := exec.Command(bin, secret)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := Sandbox(cmd, Policy{Peer: "in place", Family: Kernels, RO: ro, NoInit: true, InPlace: inPlace}); err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(cmd.Args, inPlaceArg); got != inPlace {
			t.Fatalf("InPlace %v: started as %q", inPlace, cmd.Args)
		}
		if err := Run(cmd); err != nil {
			t.Fatalf("InPlace %v: %v\n%s", inPlace, err, out.Bytes())
		}
		o := out.String()
		if !strings.Contains(o, `args ["`+bin+`" "`+secret+`"]`) {
			t.Errorf("InPlace %v: the peer's arguments are not its own:\n%s", inPlace, o)
		}
		if strings.Contains(o, "read ok") || strings.Count(o, "read denied") != 8 {
			t.Errorf("InPlace %v: a thread read the file outside the table:\n%s", inPlace, o)
		}
		if !inPlace {
			continue
		}
		threads := regexp.MustCompile(`(?m)^thread .*$`).FindAllString(o, -1)
		if len(threads) < 2 {
			t.Fatalf("%d threads reported:\n%s", len(threads), o)
		}
		for _, th := range threads {
			for _, want := range []string{"CapInh: 0000000000000000", "CapPrm: 0000000000000000", "CapEff: 0000000000000000", "CapAmb: 0000000000000000", "NoNewPrivs: 1"} {
				if !strings.Contains(th, want) {
					t.Errorf("a thread of the peer confined in place: %s; want %s", th, want)
				}
			}
		}
	}
}

// TestSandboxInPlaceRefusesCgo: a cgo build asked to confine itself in place
// cannot reach every thread, so it exits with the launcher's failure status
// and says why, before it runs any of its own code.
func TestSandboxInPlaceRefusesCgo(t *testing.T) {
	if !SandboxStatus().Files() {
		t.Skipf("no sandbox here: %s", SandboxStatus())
	}
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler here for a cgo build")
	}
	bin := buildInPlacePeer(t, "1")
	inPlaceAs(t, bin)
	cmd := exec.Command(bin, "/etc/hostname")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ro, _ := Table(Native, bin, nil)
	if err := Sandbox(cmd, Policy{Peer: "in place", Family: Kernels, RO: ro, NoInit: true, InPlace: true}); err != nil {
		t.Fatal(err)
	}
	err := Run(cmd)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != launchFailed {
		t.Fatalf("a cgo build confined in place: %v, want exit %d\n%s", err, launchFailed, out.Bytes())
	}
	if o := out.String(); !strings.Contains(o, "cgo build cannot confine itself in place") || strings.Contains(o, "args") {
		t.Errorf("output:\n%s", o)
	}
}
