package dap

// Choosing the adapter of a launch or attach: named, inferred from the
// program, from the attached process, or from the root markers.

import "context"
import "debug/buildinfo"
import "fmt"
import "os"
import "path/filepath"
import "regexp"
import "strconv"
import "strings"
import "sync"

// pickAdapter chooses the adapter for a launch or attach (byPID: by pid)
// and says why it is that one. An attach needs no root marker: the
// program runs already, built or started wherever it was.
func (sv *Supervisor) pickAdapter(ctx context.Context, root, op, adapterID, program string, pid int) (*resolved, string, error) {
	table := sv.cfg.Adapters
	byPID := pid != 0
	var chosen Adapter
	var why string
	switch {
	case adapterID != "":
		a, ok := findAdapter(table, adapterID)
		if !ok {
			return nil, "", fmt.Errorf("debug: unknown adapter %q; use one of %s", adapterID, strings.Join(AdapterIDs(table), ", "))
		}
		chosen, why = a, "named by the adapter argument"
	case op == "launch":
		a, err := adapterForProgram(table, program)
		if err != nil {
			return nil, "", err
		}
		chosen, why = a, "inferred from the program "+filepath.Base(program)
	case byPID:
		a, reason, err := pidAdapter(table, pid)
		if err != nil {
			return nil, "", err
		}
		chosen, why = a, reason
	default: // attach by port: the first adapter whose marker is in root and that can attach
		var tried []string
		for _, a := range table {
			if a.Attach == nil {
				continue
			}
			if m := findMarker(a.Markers, root); m != "" {
				chosen, why = a, "the working dir's root marker "+m+" names it"
				break
			}
			tried = append(tried, a.ID)
		}
		if chosen.ID == "" {
			return nil, "", fmt.Errorf("debug: attach: no root marker in %s names the adapter (tried %s); pass adapter", root, strings.Join(tried, ", "))
		}
	}
	switch {
	case op == "attach" && byPID && chosen.AttachPID == nil:
		how := "it cannot attach at all; launch the program instead"
		if chosen.Attach != nil {
			how = "it attaches by port: start the program with its debug server listening and pass port"
		}
		return nil, "", fmt.Errorf("debug: the %s adapter (%s) cannot attach by pid; %s", chosen.ID, why, how)
	case op == "attach" && !byPID && chosen.Attach == nil:
		how := "it cannot attach at all; launch the program instead"
		if chosen.AttachPID != nil {
			how = "it attaches by pid: pass pid"
		}
		return nil, "", fmt.Errorf("debug: the %s adapter cannot attach by port; %s", chosen.ID, how)
	}
	if op == "launch" && !isPageURL(program) {
		root = projectDir(chosen, root, program)
	} else {
		// The attached program, or a page served from its URL, needs no
		// project: only the adapter's binary must be found.
		chosen.Markers = nil
	}
	st, r := checkAdapter(ctx, chosen, root)
	if r == nil {
		return nil, "", fmt.Errorf("debug: the %s adapter cannot start here (%s): %s; %s", chosen.ID, why, st.Reason, startHint(st.Reason))
	}
	return r, why, nil
}

func findAdapter(table []Adapter, id string) (Adapter, bool) {
	for _, a := range table {
		if a.ID == id {
			return a, true
		}
	}
	return Adapter{}, false
}

// startHint says what to do about an adapter that cannot start.
func startHint(reason string) string {
	if strings.Contains(reason, "marker missing") {
		return "a session starts in a project root: launch a program that lives under a directory with the marker, use that directory as the working directory, or create the marker; see op adapters"
	}
	if strings.Contains(reason, "install") {
		return "see op adapters"
	}
	return "install the adapter or put it on PATH, and see op adapters"
}

// interpreterName matches the executable names of python and node
// interpreters ("python3.12", "node", "nodejs").
var interpreterName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(python|pypy)[0-9.]*(?:-dbg|d|m|u)?|(node|nodejs)[0-9]*)$`)
})

// pidAdapter infers the adapter that attaches to process pid from what the
// process runs: a Go binary (its build info) goes to the table's Go
// adapter, a python interpreter to the python one, node to the node one,
// and any other native executable to the native one. It says why.
func pidAdapter(table []Adapter, pid int) (Adapter, string, error) {
	exe := "/proc/" + strconv.Itoa(pid) + "/exe"
	target, err := os.Readlink(exe)
	if err != nil {
		return Adapter{}, "", fmt.Errorf("debug: attach: cannot tell what process %d runs (%v): it may belong to another user or have ended; pass adapter (%s)", pid, err, strings.Join(AdapterIDs(table), ", "))
	}
	target = strings.TrimSuffix(target, " (deleted)")
	name := filepath.Base(target)
	pick := func(what string, match func(Adapter) bool) (Adapter, string, error) {
		for _, a := range table {
			if match(a) {
				return a, fmt.Sprintf("inferred from process %d: %s", pid, what), nil
			}
		}
		return Adapter{}, "", fmt.Errorf("debug: attach: process %d: %s, and no adapter of the table debugs it; pass adapter (%s)", pid, what, strings.Join(AdapterIDs(table), ", "))
	}
	if bi, ok := goBuildInfo(exe); ok {
		what := fmt.Sprintf("%s is a Go binary (its build info: %s, built with %s)", target, bi.Path, bi.GoVersion)
		return pick(what, func(a Adapter) bool { return a.GoExecutables })
	}
	if m := interpreterName().FindStringSubmatch(name); m != nil {
		toolchain := "python"
		if m[2] != "" {
			toolchain = "node"
		}
		what := fmt.Sprintf("%s is a %s interpreter", target, toolchain)
		return pick(what, func(a Adapter) bool { return a.Toolchain == toolchain })
	}
	what := target + " is a native executable (not Go, python or node)"
	return pick(what, func(a Adapter) bool { return a.Executables })
}

// goBuildInfo reads the Go build info of the executable at p (a process's
// /proc exe link, followed).
func goBuildInfo(p string) (*buildinfo.BuildInfo, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	bi, err := buildinfo.Read(f)
	return bi, err == nil
}
