package server

import "errors"
import "net/http"
import "strings"

import "github.com/tetherhq/tether/tools"

// principalOf authenticates r's bearer token: an entry of the tokens file
// (compared first, in constant time), else, with HostOptions.OAuth, a JWT
// it verifies. It answers 401 and returns false for a missing or refused
// token, with the WWW-Authenticate the MCP authorization spec asks for
// when OAuth is on (the metadata's URL, and invalid_token with why for a
// token sent but refused).
func (h *Host) principalOf(w http.ResponseWriter, r *http.Request) (principal, bool) {
	token, ok := bearerToken(r.Header.Get("Authorization"))
	globs, key, known := h.tokens.Load().lookup(token)
	if ok && known {
		return principal{key: key, globs: globs, tier: tools.TierExec}, true
	}
	o := h.opts.OAuth
	ws := workspaceOf(r)
	var refused *authError
	if ok && token != "" && o != nil {
		p, err := o.verify(token, ws)
		if err == nil {
			return p, true
		}
		if !errors.As(err, &refused) {
			refused = &authError{desc: "bearer token refused"}
		}
	}
	// Its body is not read: the connection is not kept for another.
	w.Header().Set("Connection", "close")
	switch {
	case o == nil:
		w.Header().Set("WWW-Authenticate", `Bearer realm="tether"`)
		http.Error(w, "server: missing or unknown bearer token: send Authorization: Bearer <token> with a token from the host's tokens file", http.StatusUnauthorized)
	case refused != nil:
		w.Header().Set("WWW-Authenticate", o.challenge(ws, "invalid_token", refused.desc))
		http.Error(w, "server: "+refused.desc, http.StatusUnauthorized)
	default:
		w.Header().Set("WWW-Authenticate", o.challenge(ws, "", ""))
		http.Error(w, "server: missing or unknown bearer token: send Authorization: Bearer <token>, an access token from the authorization server the resource metadata names ("+o.metadataURL(ws)+")", http.StatusUnauthorized)
	}
	return principal{}, false
}

// forbid answers 403 for workspace ws: a principal without the workspace or
// the tier asked for. With OAuth on, its WWW-Authenticate says
// insufficient_scope (RFC 6750 3.1), as the MCP authorization spec asks.
func (h *Host) forbid(w http.ResponseWriter, ws, msg string) {
	if o := h.opts.OAuth; o != nil {
		w.Header().Set("WWW-Authenticate", o.challenge(ws, "insufficient_scope", strings.TrimPrefix(msg, "server: ")))
	}
	http.Error(w, msg, http.StatusForbidden)
}

// workspaceOf returns the workspace r's path names (/mcp/NAME), or "".
func workspaceOf(r *http.Request) string {
	ws, ok := strings.CutPrefix(r.URL.Path, "/mcp/")
	if !ok || !validWorkspace(ws) || strings.Contains(r.URL.EscapedPath(), "%") {
		return ""
	}
	return ws
}
