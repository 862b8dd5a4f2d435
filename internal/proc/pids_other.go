//go:build !linux

package proc

import "errors"

// PidsCgroup is Linux's; NewPidsCgroup says so here.
type PidsCgroup struct{}

// NewPidsCgroup fails here: cgroups are Linux's.
func NewPidsCgroup(kind string, limit int) (*PidsCgroup, error) {
	return nil, errors.New("cgroups are Linux's")
}

// Add does nothing here.
func (g *PidsCgroup) Add(pid int) error { return nil }

// KillAll does nothing here.
func (g *PidsCgroup) KillAll() {}

// Remove does nothing here.
func (g *PidsCgroup) Remove() {}

// Describe is empty here.
func (g *PidsCgroup) Describe() string { return "" }

// Dir is empty here.
func (g *PidsCgroup) Dir() string { return "" }

// Max is 0 here.
func (g *PidsCgroup) Max() int { return 0 }

// Exists is false here.
func (g *PidsCgroup) Exists() bool { return false }

// Stop does nothing here.
func (g *PidsCgroup) Stop() {}
