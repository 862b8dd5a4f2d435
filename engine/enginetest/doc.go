// Package enginetest gives tests one shared Engine over the embedded grammar
// modules, and fails a test when a grammar is not embedded (the modules are
// committed, so that is a defect of the commit, never a reason to skip).
//
// It is for tests only: no production package imports it. It imports engine
// and grammars, nothing above them.
package enginetest
