// Package kernelstest helps test kernels: a clock the test moves by hand, so
// that whether a cell went idle is decided by the test, never by machine load,
// and the checks every kernel's tests make alike (cells that must fail on a
// given line, many callers on one kernel at once).
//
// It is for tests only: no production package imports it. It imports kernels
// only.
package kernelstest
