package lsp

import "os"
import "os/exec"
import "path/filepath"

import "github.com/tetherhq/tether/internal/proc"

// sandboxed confines cmd (a server, its probe or a checker of spec) to the
// workspace, a scratch directory of its own and what its toolchain needs
// (internal/proc's Table), with no network unless the operator allowed the
// lsp family. The returned func removes the scratch directory; call it once
// the process has ended.
func sandboxed(cmd *exec.Cmd, spec Server, binary, workdir string) (func(), error) {
	tc := proc.Toolchain(spec.Toolchain)
	if tc == "" {
		tc = proc.Native
	}
	ro, rw := proc.Table(tc, binary, cmd.Env)
	ro = append(ro, argFiles(spec)...)
	scratch, err := os.MkdirTemp("", "tether-lsp-")
	if err != nil {
		return func() {}, err
	}
	done := func() { _ = os.RemoveAll(scratch) }
	for _, k := range spec.ScratchEnv {
		cmd.Env = append(cmd.Env, k+"="+scratch)
	}
	for name, content := range spec.ScratchFiles {
		p := filepath.Join(scratch, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			done()
			return func() {}, err
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			done()
			return func() {}, err
		}
	}
	p := proc.Policy{Peer: spec.Name, Family: proc.Servers, RO: ro, RW: append(rw, workdir), Scratch: scratch, Caches: proc.TableCaches(tc, cmd.Env, workdir)}
	if err := proc.Sandbox(cmd, p); err != nil {
		done()
		return func() {}, err
	}
	return done, nil
}

// argFiles are the existing regular files the server's configuration names
// by absolute path in its arguments or its checker's ("python3
// /opt/lint/server.py"): the script is the server's own, so it may read
// it. Only whole arguments count, only files (never a directory), and only
// what the operator configured (Server comes from tether's table or
// WithServers, never from the workspace).
func argFiles(spec Server) []string {
	var out []string
	words := append([]string(nil), spec.Args...)
	if len(spec.Checker) > 1 {
		words = append(words, spec.Checker[1:]...)
	}
	for _, w := range words {
		if !filepath.IsAbs(w) {
			continue
		}
		if fi, err := os.Stat(w); err == nil && fi.Mode().IsRegular() {
			out = append(out, filepath.Clean(w))
		}
	}
	return out
}
