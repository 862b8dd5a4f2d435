//go:build !linux

package proc

import "os/exec"

// Spawn starts cmd here (there is no spawner off Linux).
func Spawn(cmd *exec.Cmd) (*Process, error) { return startHere(cmd) }
