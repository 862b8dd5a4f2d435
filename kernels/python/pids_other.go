//go:build !linux

package python

import "errors"

type pidsCgroup struct{ dir string }

func newPidsCgroup(limit int) (*pidsCgroup, error) {
	return nil, errors.New("cgroups are Linux's")
}

func (g *pidsCgroup) add(pid int) error { return nil }
func (g *pidsCgroup) killAll()          {}
func (g *pidsCgroup) remove()           {}
func (g *pidsCgroup) describe() string  { return "" }
func (g *pidsCgroup) exists() bool      { return false }
