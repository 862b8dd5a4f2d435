package proc

import "bytes"
import "os"
import "os/exec"
import "strconv"

// EnvOwners names, in every child's environment, the tether processes that
// own it (a comma-separated list: a worker that is tether itself adds its own).
const EnvOwners = "TETHER_OWNERS"

// Run starts cmd with Start and waits for it.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// ParentPID reads a process's parent from /proc/PID/stat (0 when the
// process is gone or there is no /proc).
func ParentPID(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name is in parentheses and may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(string(f[1]))
	return n
}
