// Reading, pinning and writing grammars/manifest.json.

package main

import "bytes"
import "encoding/json"
import "errors"
import "fmt"
import "os/exec"
import "strings"

import "github.com/tetherhq/tether/grammars"

// splitSpec splits "name@version" (name may be scoped: "@scope/name") and
// requires an exact version.
func splitSpec(spec string) (name, version string, err error) {
	i := strings.LastIndex(spec, "@")
	if i <= 0 || i == len(spec)-1 {
		return "", "", fmt.Errorf("grammars: -set %q: want PACKAGE@VERSION (tree-sitter-go@0.25.1)", spec)
	}
	name, version = spec[:i], spec[i+1:]
	if strings.ContainsAny(version, "^~*xX<>=| ") || strings.Count(version, ".") < 2 {
		return "", "", fmt.Errorf("grammars: -set %q: the version must be exact (1.2.3), not a range", spec)
	}
	return name, version, nil
}

// npmIntegrity asks the registry (npm view) for the package's tarball
// integrity; the tarball is checked against it when it is fetched.
func npmIntegrity(npm, name, version string) (string, error) {
	cmd := exec.Command(npm, "view", "--silent", name+"@"+version, "dist.integrity")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	integrity := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(integrity, "sha512-") {
		return "", fmt.Errorf("grammars: npm view %s@%s dist.integrity: %v %s%s: is the version published? (npm view %s versions)",
			name, version, err, strings.TrimSpace(stderr.String()), integrity, name)
	}
	return integrity, nil
}

// pin sets the version and integrity of every language (and the runtime)
// built from package name and returns how many it changed (their module
// records are rewritten by the update that follows).
func pin(m *grammars.Manifest, name, version, integrity string) (int, error) {
	found, changed := false, 0
	set := func(v, i *string) {
		found = true
		if *v != version || *i != integrity {
			*v, *i = version, integrity
			changed++
		}
	}
	if m.Runtime.Package == name {
		set(&m.Runtime.Version, &m.Runtime.Integrity)
	}
	for i := range m.Languages {
		if l := &m.Languages[i]; l.Package == name {
			set(&l.Version, &l.Integrity)
		}
	}
	if !found {
		return 0, fmt.Errorf("grammars: -set: no grammar is built from %s (see grammars/manifest.json)", name)
	}
	return changed, nil
}

// newEncoder is the committed files' codec: zstd at its best level on one

func equalBuild(a, b *grammars.Build) bool {
	return a.Toolchain == b.Toolchain && a.Codec == b.Codec &&
		strings.Join(a.CFlags, "\x00") == strings.Join(b.CFlags, "\x00") &&
		strings.Join(a.LDFlags, "\x00") == strings.Join(b.LDFlags, "\x00") &&
		strings.Join(a.CXXFlags, "\x00") == strings.Join(b.CXXFlags, "\x00") &&
		strings.Join(a.CXXLibs, "\x00") == strings.Join(b.CXXLibs, "\x00")
}

// formatManifest writes the manifest as it is kept by hand: one line per
// package and per language, so a grammar update is a one-line diff.
func formatManifest(m *grammars.Manifest) []byte {
	var buf bytes.Buffer
	buf.WriteString("{\n")
	if len(m.Comment) > 0 {
		buf.WriteString("  \"comment\": [\n")
		writeItems(&buf, m.Comment)
		buf.WriteString("  ],\n")
	}
	buf.WriteString("  \"runtime\": " + oneLine(m.Runtime) + ",\n")
	if m.Build != nil {
		buf.WriteString("  \"build\": {\n")
		buf.WriteString("    \"toolchain\": " + oneLine(m.Build.Toolchain) + ",\n")
		buf.WriteString("    \"cflags\": " + oneLine(m.Build.CFlags) + ",\n")
		buf.WriteString("    \"ldflags\": " + oneLine(m.Build.LDFlags) + ",\n")
		if len(m.Build.CXXFlags) > 0 || len(m.Build.CXXLibs) > 0 {
			buf.WriteString("    \"cxxflags\": " + oneLine(m.Build.CXXFlags) + ",\n")
			buf.WriteString("    \"cxxlibs\": " + oneLine(m.Build.CXXLibs) + ",\n")
		}
		buf.WriteString("    \"codec\": " + oneLine(m.Build.Codec) + "\n")
		buf.WriteString("  },\n")
	}
	if m.Host != nil {
		buf.WriteString("  \"host\": " + oneLine(m.Host) + ",\n")
	}
	buf.WriteString("  \"languages\": [\n")
	writeItems(&buf, m.Languages)
	buf.WriteString("  ]\n}\n")
	return buf.Bytes()
}

// writeItems writes a list's items one a line, indented in the list, with
// a comma after each but the last.
func writeItems[T any](buf *bytes.Buffer, items []T) {
	for i, v := range items {
		buf.WriteString("    " + oneLine(v))
		if i < len(items)-1 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
	}
}

// oneLine is v as JSON on one line, with a space after each colon and comma
// outside strings.
func oneLine(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only manifest types, which always encode
	}
	var out strings.Builder
	in, esc := false, false
	for _, c := range strings.TrimSpace(buf.String()) {
		out.WriteRune(c)
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case !in && (c == ':' || c == ','):
			out.WriteByte(' ')
		}
	}
	return out.String()
}

// applySet pins the packages -set names (PACKAGE@VERSION,...) in m with the
// registry's integrity and returns how many records it changed.
func applySet(o *options, m *grammars.Manifest) (int, error) {
	if o.set == "" {
		return 0, nil
	}
	if !o.update {
		return 0, errors.New("grammars: -set changes the pinned packages: use it with -update")
	}
	pinned := 0
	for _, spec := range strings.Split(o.set, ",") {
		name, version, err := splitSpec(strings.TrimSpace(spec))
		if err != nil {
			return 0, err
		}
		integrity, err := npmIntegrity(o.npm, name, version)
		if err != nil {
			return 0, err
		}
		n, err := pin(m, name, version, integrity)
		if err != nil {
			return 0, err
		}
		o.logf("pinned %s@%s (%s): %d changed", name, version, integrity, n)
		pinned += n
	}
	if _, err := grammars.ParseManifest(formatManifest(m)); err != nil {
		return 0, err
	}
	return pinned, nil
}
