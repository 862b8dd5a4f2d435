package main

import "context"
import "crypto/sha256"
import "encoding/hex"
import "encoding/json"
import "fmt"
import "io/fs"
import "os"
import "os/exec"
import "path/filepath"
import "sort"
import "strings"

// project is a copy of a real project (or a small test project) the
// harness changes: dir is the working copy, pristine an untouched one.
type project struct {
	name, lang string
	dir        string
	pristine   string
	// src is the subtree whose files changes are made in (""= all);
	// tsconfig the TypeScript configuration tsc checks.
	src      string
	tsconfig string
	exts     []string
}

func (p *project) rel(file string) string {
	if !filepath.IsAbs(file) {
		file = filepath.Join(p.dir, file)
	}
	if r, err := filepath.Rel(p.dir, file); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(file)
}

// sources lists the project's source files, workspace-relative, sorted.
func (p *project) sources() ([]string, error) {
	var out []string
	err := filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != p.dir {
			return filepath.SkipDir
		}
		for _, e := range p.exts {
			if !d.IsDir() && strings.HasSuffix(path, e) && !strings.HasSuffix(path, ".d.ts") {
				out = append(out, p.rel(path))
				break
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// pin is where a real project comes from: its version and the checksum the
// fetched archive must have.
type pin struct {
	name, lang string
	// how: "gomod" (module@version, sum is go.sum's h1:), "deb"
	// (package=version, sum the .deb's sha256), "npm" (name@version, sum
	// the packed tarball's sha256).
	how, what, sum string
	src            string // the subtree changed (and for Python, checked)
	exts           []string
}

// pins are the real projects of the full run.
var pins = []pin{
	{name: "go-sdk", lang: "go", how: "gomod", what: "github.com/modelcontextprotocol/go-sdk@v1.8.0",
		sum: "h1:KIvahhYqwtbeniWVPs3TcXEA7b8jEtwfBpOTAI+Urx4=", src: "mcp", exts: []string{".go"}},
	{name: "pyparsing", lang: "python", how: "deb", what: "python3-pyparsing=3.0.9-1",
		sum: "sha256:891dcf12a125dcadbae7166ad8e9d1fd22a6f1bf431ca4bce9f810da30dcd472", src: "pyparsing", exts: []string{".py"}},
	{name: "query-core", lang: "typescript", how: "npm", what: "@tanstack/query-core@5.59.0",
		sum: "sha256:2586579316ffc0957be3c4c33e2f9dfa7732b55c15013b7139244d2ab60d27fc", src: "src", exts: []string{".ts"}},
	{name: "zstd", lang: "c", how: "gomod", what: "github.com/DataDog/zstd@v1.5.7",
		sum: "h1:ybO8RBeh29qrxIhCA9E8gKY6xfONU9T6G6aP9DTKfLE=", src: "", exts: []string{".c", ".h"}},
}

// fetch gets p's archive into cache (once), checks its checksum, and
// unpacks it into a new working copy under work.
func fetch(ctx context.Context, p pin, cache, work string) (*project, error) {
	dst := filepath.Join(work, p.name)
	if err := os.RemoveAll(dst); err != nil {
		return nil, err
	}
	switch p.how {
	case "gomod":
		out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", p.what).Output()
		if err != nil {
			return nil, fmt.Errorf("go mod download %s: %v", p.what, err)
		}
		var m struct{ Dir, Sum string }
		if err := json.Unmarshal(out, &m); err != nil {
			return nil, err
		}
		if p.sum != "" && m.Sum != p.sum {
			return nil, fmt.Errorf("%s: checksum %s, pinned %s", p.what, m.Sum, p.sum)
		}
		if err := copyTree(m.Dir, dst); err != nil {
			return nil, err
		}
	case "deb":
		name, _, _ := strings.Cut(p.what, "=")
		deb, err := cached(ctx, cache, p, runIn(ctx, "apt-get download "+p.what, "apt-get", "download", p.what))
		if err != nil {
			return nil, err
		}
		tmp := dst + ".x"
		os.RemoveAll(tmp)
		if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("dpkg-deb -x %s: %v: %s", deb, err, out)
		}
		pkgs, _ := filepath.Glob(filepath.Join(tmp, "usr/lib/python3/dist-packages", p.src))
		if len(pkgs) != 1 {
			return nil, fmt.Errorf("%s: no %s package inside", name, p.src)
		}
		if err := copyTree(pkgs[0], filepath.Join(dst, p.src)); err != nil {
			return nil, err
		}
		os.RemoveAll(tmp)
	case "npm":
		tgz, err := cached(ctx, cache, p, runIn(ctx, "npm pack "+p.what, "npm", "pack", "--silent", p.what))
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return nil, err
		}
		if out, err := exec.CommandContext(ctx, "tar", "-xzf", tgz, "-C", dst, "--strip-components=1").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("tar %s: %v: %s", tgz, err, out)
		}
	}
	pr := &project{name: p.name, lang: p.lang, dir: dst, src: p.src, exts: p.exts}
	if err := setUp(pr); err != nil {
		return nil, err
	}
	return pr, nil
}

// runIn returns a function, for cached, that runs name with args in the
// directory it is given; label names the command in its error.
func runIn(ctx context.Context, label, name string, args ...string) func(dir string) error {
	return func(dir string) error {
		c := exec.CommandContext(ctx, name, args...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v: %s", label, err, out)
		}
		return nil
	}
}

// cached returns the one file get puts into cache/p.name, getting it when
// missing, after checking its sha256 against the pin (a pin without one
// prints the checksum to record).
func cached(ctx context.Context, cache string, p pin, get func(dir string) error) (string, error) {
	dir := filepath.Join(cache, p.name)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 1 {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := get(dir); err != nil {
			return "", err
		}
		files, _ = filepath.Glob(filepath.Join(dir, "*"))
		if len(files) != 1 {
			return "", fmt.Errorf("%s: fetched %d files, want 1", p.what, len(files))
		}
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	sum := "sha256:" + hex.EncodeToString(h[:])
	if p.sum != "" && sum != p.sum {
		return "", fmt.Errorf("%s: checksum %s, pinned %s: remove %s to fetch again", p.what, sum, p.sum, dir)
	}
	if p.sum == "" {
		fmt.Fprintf(os.Stderr, "diagdiff: %s %s (not pinned yet)\n", p.what, sum)
	}
	return files[0], nil
}

// setUp writes what the checker and the servers need beside the sources:
// a module path for Go's copy, a compile database for C, a tsconfig for
// TypeScript that leaves the tests outside its include (as ky's does).
func setUp(p *project) error {
	switch p.lang {
	case "go":
		// The module cache's copy is read-only.
		return filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chmod(path, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
		})
	case "c":
		filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil {
				os.Chmod(path, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
			}
			return nil
		})
		return compileDB(p, []string{"-DZSTD_LEGACY_SUPPORT=0", "-DZSTD_MULTITHREAD=1"})
	case "python":
		// An installed package has no project file: pyright's root marker.
		return os.WriteFile(filepath.Join(p.dir, "pyproject.toml"), []byte("[project]\nname = \"pyparsing\"\nversion = \"3.0.9\"\n"), 0o644)
	case "typescript":
		p.tsconfig = "tsconfig.json"
		cfg := `{"compilerOptions":{"target":"ES2020","module":"ESNext","moduleResolution":"Bundler","lib":["ES2022","DOM"],"strict":true,"noEmit":true,"skipLibCheck":true},"include":["src"],"exclude":["src/__tests__"]}` + "\n"
		if err := os.WriteFile(filepath.Join(p.dir, "tsconfig.json"), []byte(cfg), 0o644); err != nil {
			return err
		}
		// tsc checks the tests too (tsserver does when they are open).
		all := `{"extends":"./tsconfig.json","include":["src"],"exclude":[]}` + "\n"
		p.tsconfig = "tsconfig.all.json"
		return os.WriteFile(filepath.Join(p.dir, p.tsconfig), []byte(all), 0o644)
	}
	return nil
}

// compileDB writes compile_commands.json for every .c file of p.
func compileDB(p *project, defs []string) error {
	files, err := p.sources()
	if err != nil {
		return err
	}
	type entry struct {
		Directory string   `json:"directory"`
		File      string   `json:"file"`
		Arguments []string `json:"arguments"`
	}
	var db []entry
	for _, f := range files {
		if !strings.HasSuffix(f, ".c") {
			continue
		}
		args := append([]string{"clang", "-c", "-std=gnu11", "-I."}, defs...)
		db = append(db, entry{Directory: p.dir, File: f, Arguments: append(args, f)})
	}
	b, err := json.MarshalIndent(db, "", " ")
	if err != nil {
		return err
	}
	// clangd's own include-cleaner findings ("included header ... is not
	// used directly") have no counterpart in clang's: off, so that the two
	// compile the same diagnostics.
	if err := os.WriteFile(filepath.Join(p.dir, ".clangd"), []byte("Diagnostics:\n  UnusedIncludes: None\n  MissingIncludes: None\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.dir, "compile_commands.json"), b, 0o644)
}

// copyTree copies the regular files under src into dst (made writable).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// snapshot keeps a pristine copy of p, to compare and restore against.
func snapshot(p *project) error {
	dir, err := os.MkdirTemp("", "diagdiff-pristine-")
	if err != nil {
		return err
	}
	p.pristine = dir
	return copyTree(p.dir, p.pristine)
}
