package nodeadapter

import "net/url"
import "os"
import "path/filepath"
import "regexp"
import "strings"

// Scripts of a page served over http(s) are named by URL, not by path:
// a breakpoint of a project file binds to the script whose URL path is a
// trailing part of the file's path in the project (web/js/app.js is
// /web/js/app.js, /js/app.js or /app.js of any host), and a script's URL
// leads back to that file.

// byURL is the Debugger.setBreakpointByUrl parameters for line of file:
// node's scripts and a page's file: scripts by the file's URL; in a
// browser, http(s) scripts too by a URL regex (pageURLRegex).
func (a *adapter) byURL(file string, line int, cond string) breakpointByURLParams {
	if !a.browser {
		return breakpointByURLParams{URL: fileURL(file), LineNumber: line, Condition: cond}
	}
	return breakpointByURLParams{URLRegex: pageURLRegex(a.cfg.Root, file), LineNumber: line, Condition: cond}
}

// pageURLRegex matches the URLs a page may load file of root by: its file:
// URL, or an http(s) URL whose path is a trailing part of its path in
// root, with any query or fragment.
func pageURLRegex(root, file string) string {
	alts := []string{regexp.QuoteMeta(fileURL(file))}
	if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
		segs := strings.Split(filepath.ToSlash(rel), "/")
		var tails []string
		for i := range segs {
			esc := make([]string, 0, len(segs)-i)
			for _, s := range segs[i:] {
				esc = append(esc, regexp.QuoteMeta(url.PathEscape(s)))
			}
			tails = append(tails, strings.Join(esc, "/"))
		}
		alts = append(alts, `https?://[^/?#]+/(?:`+strings.Join(tails, "|")+`)`)
	}
	return `^(?:` + strings.Join(alts, "|") + `)(?:[?#].*)?$`
}

// scriptFile is the local file of a script's URL: a file: URL's path; in
// a browser, an http(s) URL's path under the project root, else the
// project file with breakpoints whose path ends with it; "" for none.
func (a *adapter) scriptFile(u string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.scriptFileLocked(u)
}

// scriptFileLocked is scriptFile with a.mu held.
func (a *adapter) scriptFileLocked(u string) string {
	if p := urlPath(u); p != "" || !a.browser {
		return p
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Path == "" || pu.Path == "/" {
		return ""
	}
	rel := filepath.FromSlash(strings.TrimPrefix(pu.Path, "/"))
	if p := filepath.Join(a.cfg.Root, rel); inTree(a.cfg.Root, p) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	suffix := string(filepath.Separator) + rel
	for file := range a.bps {
		if strings.HasSuffix(file, suffix) {
			return file
		}
	}
	return ""
}
