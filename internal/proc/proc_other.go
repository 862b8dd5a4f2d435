//go:build !linux

package proc

import "os/exec"

// Start starts cmd.
func Start(cmd *exec.Cmd) error { return cmd.Start() }

// Main does nothing here: subreapers and parent-death signals are Linux's.
func Main() {}

// Private does nothing here.
func Private() {}

// WatchCgroup does nothing here.
func WatchCgroup(dir string) {}

// UnwatchCgroup does nothing here.
func UnwatchCgroup(dir string) {}
