// Fetching and verifying the pinned npm packages.

package main

import "archive/tar"
import "bytes"
import "compress/gzip"
import "crypto/sha512"
import "encoding/base64"
import "errors"
import "fmt"
import "io"
import "maps"
import "os"
import "os/exec"
import "path/filepath"
import "slices"
import "strings"

import "github.com/tetherhq/tether/grammars"

// fetchAll makes sure every package is in the cache, verified and extracted,
// and returns spec -> extracted package directory.
func fetchAll(o *options, pkgs map[string]grammars.Package) (map[string]string, error) {
	specs := slices.Sorted(maps.Keys(pkgs))
	dirs := make([]string, len(specs))
	err := parallel(4, len(specs), func(i int) error {
		d, err := fetch(o, pkgs[specs[i]])
		dirs[i] = d
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, s := range specs {
		out[s] = dirs[i]
	}
	return out, nil
}

func safeName(spec string) string {
	return strings.NewReplacer("@", "", "/", "-").Replace(spec)
}

func fetch(o *options, p grammars.Package) (string, error) {
	base := safeName(p.Package) + "-" + p.Version
	dir := filepath.Join(o.cache, "src", base+"-"+hashOf(p.Integrity)[:12])
	if exists(filepath.Join(dir, ".ok")) {
		return filepath.Join(dir, "package"), nil
	}
	tgz := filepath.Join(o.cache, "npm", base+".tgz")
	b, err := os.ReadFile(tgz)
	if err != nil || checkIntegrity(b, p.Integrity) != nil {
		tmp, err := os.MkdirTemp(filepath.Join(o.cache, "npm"), "pack-")
		if err != nil {
			return "", fmt.Errorf("grammars: %w", err)
		}
		defer os.RemoveAll(tmp)
		if _, err := exec.LookPath(o.npm); err != nil {
			return "", fmt.Errorf("grammars: %s not found (%v): the grammar sources are fetched with `npm pack`; install Node.js with npm, or pass -npm", o.npm, err)
		}
		o.logf("npm pack %s", p.Spec())
		cmd := exec.Command(o.npm, "pack", "--silent", "--pack-destination", tmp, p.Spec())
		cmd.Dir = tmp
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("grammars: npm pack %s: %v: %s", p.Spec(), err, strings.TrimSpace(stderr.String()))
		}
		name := strings.TrimSpace(string(out))
		if i := strings.LastIndex(name, "\n"); i >= 0 {
			name = name[i+1:]
		}
		if b, err = os.ReadFile(filepath.Join(tmp, filepath.Base(name))); err != nil {
			return "", fmt.Errorf("grammars: npm pack %s wrote no tarball: %w", p.Spec(), err)
		}
		if err := checkIntegrity(b, p.Integrity); err != nil {
			return "", fmt.Errorf("grammars: %s: %w; the registry served different bytes than the manifest pins, refusing to build", p.Spec(), err)
		}
		if err := writeAtomic(tgz, b); err != nil {
			return "", err
		}
	}
	os.RemoveAll(dir)
	if err := untar(b, dir); err != nil {
		return "", fmt.Errorf("grammars: extract %s: %w", p.Spec(), err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ok"), nil, 0o644); err != nil {
		return "", fmt.Errorf("grammars: %w", err)
	}
	return filepath.Join(dir, "package"), nil
}

func checkIntegrity(b []byte, want string) error {
	sum := sha512.Sum512(b)
	got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if got != want {
		return fmt.Errorf("integrity mismatch: got %s, want %s", got, want)
	}
	return nil
}

func untar(b []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("unsafe path %q in tarball", h.Name)
		}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}
