package nodeadapter

import "bytes"
import "context"
import "encoding/json"
import "errors"
import "fmt"
import "os"
import "os/exec"
import "path/filepath"
import "strings"
import "syscall"
import "time"

import "github.com/tetherhq/tether/internal/proc"
import "github.com/tetherhq/tether/internal/textcut"

// tscTimeout bounds one TypeScript compile.
const tscTimeout = 2 * time.Minute

// compileTS compiles a TypeScript program with source maps into the
// session's scratch dir (the project is never written) and returns the
// JavaScript file node runs. The project's tsconfig.json is used when
// the program lies under one; else the file alone is compiled to CommonJS
// (ES modules when its package.json says "type": "module").
func (a *adapter) compileTS(program string) (string, error) {
	tsc := a.lookPath("node_modules/.bin/tsc")
	if tsc == "" {
		tsc = a.lookPath("tsc")
	}
	if tsc == "" {
		return "", fmt.Errorf("%s is TypeScript and no tsc was found (node_modules/.bin/tsc or PATH): npm install typescript (scripts/install-deps.sh installs it), or compile with sourceMap on and launch the JavaScript", filepath.Base(program))
	}
	out := filepath.Join(a.cfg.Scratch, "tsc-out")
	args := []string{"--outDir", out, "--sourceMap", "true", "--inlineSourceMap", "false", "--noEmit", "false",
		"--declaration", "false", "--composite", "false", "--incremental", "false", "--noEmitOnError", "false"}
	esm := packageType(filepath.Dir(program), a.cfg.Root) == "module"
	if cfg := findUp(filepath.Dir(program), a.cfg.Root, "tsconfig.json"); cfg != "" {
		args = append([]string{"-p", cfg}, args...)
	} else {
		module := "commonjs"
		if esm || filepath.Ext(program) == ".mts" {
			module = "nodenext"
		}
		args = append(args, "--module", module, "--target", "es2022", "--moduleResolution", map[string]string{"commonjs": "node10", "nodenext": "nodenext"}[module],
			"--esModuleInterop", "--skipLibCheck", "--rootDir", filepath.Dir(program), program)
	}
	ctx, cancel := context.WithTimeout(context.Background(), tscTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tsc, args...)
	cmd.Dir = filepath.Dir(program)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := a.sandbox(cmd, "tsc", tsc); err != nil {
		return "", err
	}
	err := proc.Run(cmd)
	if ctx.Err() != nil {
		return "", fmt.Errorf("tsc did not finish within %s", tscTimeout)
	}
	js := a.compiledFor(out, program)
	if js == "" {
		msg := strings.TrimSpace(buf.String())
		msg, _ = textcut.Chars(textcut.LastLines(msg, 20), 4000)
		if err == nil {
			err = errors.New("no output")
		}
		return "", fmt.Errorf("tsc did not compile %s (%v): %s; fix the errors, or check that tsconfig.json includes it", filepath.Base(program), err, msg)
	}
	// Type errors do not stop a debug session: tsc still emits JavaScript.
	if esm {
		_ = os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o600)
	}
	return js, nil
}

// compiledFor finds the JavaScript tsc wrote for program under out: the
// file whose source map names it.
func (a *adapter) compiledFor(out, program string) string {
	for _, p := range findMapFiles(out) {
		gen := strings.TrimSuffix(p, ".map")
		if m := a.readMapFile(p, gen); m != nil && m.HasSource(program) >= 0 {
			return gen
		}
	}
	return ""
}

// findUp returns the nearest file called name in dir or a parent of it,
// no higher than root.
func findUp(dir, root, name string) string {
	for {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
		if dir == root || !inTree(root, dir) {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// packageType is the "type" of the nearest package.json ("module" or "").
func packageType(dir, root string) string {
	p := findUp(dir, root, "package.json")
	if p == "" {
		return ""
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	var pkg struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(data, &pkg)
	return pkg.Type
}

// packageScript resolves a package.json script to the node command it
// runs: args[0] names the script, the rest are passed on. Only a script
// that runs node on a file is launched (node [flags] file [args]); npm
// itself is not run, so nothing but the program is debugged.
func packageScript(pkgPath string, args []string) (program string, nodeArgs, rest []string, err error) {
	data, err := os.ReadFile(pkgPath)
	if err != nil {
		return "", nil, nil, err
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", nil, nil, fmt.Errorf("package.json does not parse: %w", err)
	}
	var names []string
	for n := range pkg.Scripts {
		names = append(names, n)
	}
	if len(args) == 0 {
		return "", nil, nil, fmt.Errorf("launching package.json runs one of its scripts: pass its name as the first of args (scripts: %s)", strings.Join(sortedStrings(names), ", "))
	}
	script, ok := pkg.Scripts[args[0]]
	if !ok {
		return "", nil, nil, fmt.Errorf("package.json has no script %q; scripts: %s", args[0], strings.Join(sortedStrings(names), ", "))
	}
	words := strings.Fields(script)
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
		words = words[1:] // VAR=value before the command
	}
	if len(words) < 2 || words[0] != "node" || strings.ContainsAny(script, "|&;<>$`\"'") {
		return "", nil, nil, fmt.Errorf("script %q runs %q: only a script of the form `node [flags] file [args]` is launched; launch the file it runs instead", args[0], script)
	}
	dir := filepath.Dir(pkgPath)
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--test":
			return "", nil, nil, fmt.Errorf("script %q runs node --test, which runs each test file in a child process; launch the test file itself (node:test runs its tests in the one process)", args[0])
		case nodeFlagValue[w] && i+1 < len(words):
			nodeArgs = append(nodeArgs, w, words[i+1])
			i++
			continue
		case strings.HasPrefix(w, "-"):
			nodeArgs = append(nodeArgs, w)
			continue
		}
		file := w
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		rest = append(append([]string(nil), words[i+1:]...), args[1:]...)
		return file, nodeArgs, rest, nil
	}
	return "", nil, nil, fmt.Errorf("script %q runs node without a file; launch the file instead", args[0])
}

// nodeFlagValue are node's flags whose value is the next word.
var nodeFlagValue = map[string]bool{"-r": true, "--require": true, "--import": true, "--loader": true,
	"--experimental-loader": true, "--env-file": true, "--conditions": true, "-C": true, "--title": true}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// IsTestFile reports whether a file name is one node --test picks by
// default (x.test.js, x-test.js, x_test.js, test-x.js, test.js), or its
// TypeScript source.
func IsTestFile(base string) bool {
	ext := filepath.Ext(base)
	if !jsExt(base) && !isTypeScript(base) {
		return false
	}
	stem := strings.TrimSuffix(base, ext)
	return stem == "test" || strings.HasPrefix(stem, "test-") || strings.HasSuffix(stem, ".test") ||
		strings.HasSuffix(stem, "-test") || strings.HasSuffix(stem, "_test") || strings.HasSuffix(stem, ".spec")
}

// TestNamePattern is the node flag that selects tests by name; a test
// launch (launch argument "test": true) passes it first among the
// program's arguments, and the adapter gives it to node.
const TestNamePattern = "--test-name-pattern="
