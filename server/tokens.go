package server

import "bytes"
import "crypto/sha256"
import "crypto/subtle"
import "encoding/json"
import "errors"
import "fmt"
import "io"
import "os"
import "path"
import "sort"
import "strings"

// Tokens maps bearer tokens to the workspaces each may open (names or
// path.Match globs: {"t-alpha": ["alpha"], "t-ops": ["*"]}). Only each
// token's sha256 is kept, and a lookup compares it with every entry in
// constant time, so neither the time taken nor a log line says which token
// came close.
type Tokens struct {
	entries []tokenEntry
}

type tokenEntry struct {
	sum   [sha256.Size]byte
	globs []string
}

// ParseTokens reads a tokens file's content: a JSON object of token to a list
// of workspace names or globs. A token given twice is refused (a JSON object
// read into a map keeps the last, so one of the two lines would be silently
// ignored).
func ParseTokens(data []byte) (*Tokens, error) {
	m, err := decodeTokens(data)
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, errors.New("server: tokens file has no tokens, so no one could connect; add at least one token")
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t := &Tokens{}
	for _, tok := range keys {
		// An error never names the token itself: it is a secret.
		for _, g := range m[tok] {
			if _, err := path.Match(g, ""); err != nil || g == "" || strings.ContainsAny(g, `/\`) {
				return nil, fmt.Errorf("server: tokens file: workspace pattern %q is not a name or glob of one directory under the root", g)
			}
		}
		t.entries = append(t.entries, tokenEntry{sum: sha256.Sum256([]byte(tok)), globs: m[tok]})
	}
	return t, nil
}

const tokensShape = `want a JSON object of token to workspaces, such as {"t-alpha": ["alpha"], "t-ops": ["*"]}`

// decodeTokens reads the tokens file's object member by member, so that a
// token given twice is seen; the error says where each is (entry and line),
// never the token.
func decodeTokens(data []byte) (map[string][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		if err == nil {
			err = fmt.Errorf("it starts with %v", t)
		}
		return nil, fmt.Errorf("server: tokens file: %w (%s)", err, tokensShape)
	}
	type seen struct{ entry, line int }
	where := map[string]seen{}
	m := map[string][]string{}
	for n := 1; dec.More(); n++ {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("server: tokens file: %w (%s)", err, tokensShape)
		}
		// the key's line: where it ends
		line := 1 + bytes.Count(data[:dec.InputOffset()], []byte{'\n'})
		tok := t.(string) // an object's key
		var globs []string
		if err := dec.Decode(&globs); err != nil {
			return nil, fmt.Errorf("server: tokens file: entry %d (line %d): %w (%s)", n, line, err, tokensShape)
		}
		if first, dup := where[tok]; dup {
			return nil, fmt.Errorf("server: tokens file: entries %d (line %d) and %d (line %d) are the same token; give each token once, with all its workspaces in one list", first.entry, first.line, n, line)
		}
		where[tok] = seen{n, line}
		m[tok] = globs
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("server: tokens file: %w (%s)", err, tokensShape)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("server: tokens file: more after the object (%s)", tokensShape)
	}
	return m, nil
}

// LoadTokens reads and parses the tokens file at name.
func LoadTokens(name string) (*Tokens, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("server: tokens file: %w", err)
	}
	return ParseTokens(data)
}

// lookup returns the globs of token and its key (an id of the token that is
// not the token), or ok false when no entry has it. Every entry is compared.
func (t *Tokens) lookup(token string) (globs []string, key string, ok bool) {
	if t == nil || token == "" {
		return nil, "", false
	}
	sum := sha256.Sum256([]byte(token))
	for _, e := range t.entries {
		if subtle.ConstantTimeCompare(sum[:], e.sum[:]) == 1 {
			globs, ok = e.globs, true
		}
	}
	return globs, fmt.Sprintf("%x", sum[:8]), ok
}

// covers reports whether one of globs matches the workspace name.
func covers(globs []string, workspace string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, workspace); ok {
			return true
		}
	}
	return false
}

// MetricsToken is the bearer token /metrics requires: only its sha256 is
// kept, compared in constant time.
type MetricsToken struct{ sum [sha256.Size]byte }

// LoadMetricsToken reads the token /metrics requires from the file at name:
// the token alone in plain text, as Prometheus's scrape config reads it
// (authorization: {type: Bearer, credentials_file: FILE}); surrounding
// white space is ignored.
func LoadMetricsToken(name string) (*MetricsToken, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("server: metrics token file: %w", err)
	}
	tok := strings.TrimSpace(string(data))
	switch {
	case tok == "":
		return nil, fmt.Errorf("server: metrics token file %s is empty; write the token Prometheus sends (its credentials_file) in it", name)
	case strings.ContainsAny(tok, " \t\r\n"):
		return nil, fmt.Errorf("server: metrics token file %s holds more than one word; write the token alone in it", name)
	}
	return &MetricsToken{sum: sha256.Sum256([]byte(tok))}, nil
}

// allows reports whether the request carries the token.
func (m *MetricsToken) allows(authorization string) bool {
	token, ok := bearerToken(authorization)
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], m.sum[:]) == 1 && ok
}

// bearerToken returns the token of an Authorization header of the Bearer
// scheme, whose name is matched without regard to case (RFC 7235 2.1:
// "bearer" and "BEARER" are the same scheme), and false for any other.
func bearerToken(authorization string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(authorization), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}
