package server

import "crypto/rand"
import "net/http"

// AffinityHeader is the request header a proxy in front of several hosts
// sets on an initialize (which has no Mcp-Session-Id yet) to the key it
// hashed that request on. The host starts the session's id with the key
// and a dot, so the proxy can hash the session's later requests on the same
// key (the part of Mcp-Session-Id before the first dot) and reach the same
// host; DEPLOY.md has the proxy's configuration.
const AffinityHeader = "Tether-Affinity"

// maxAffinity bounds an affinity key's length.
const maxAffinity = 64

// newSessionID returns a new session's id: 130 random bits, after r's
// affinity key and a dot when r carries a valid one. The key is routing
// only; the random part is what a client cannot guess.
func newSessionID(r *http.Request) string {
	id := rand.Text()
	if a := r.Header.Get(AffinityHeader); validAffinity(a) {
		return a + "." + id
	}
	return id
}

// validAffinity reports whether a is 1 to maxAffinity characters of
// A-Z a-z 0-9 - _ (what the proxy's $request_id or a hash gives).
func validAffinity(a string) bool {
	if a == "" || len(a) > maxAffinity {
		return false
	}
	for _, c := range a {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// sessionNotFound answers a request naming a session the host does not
// hold: 404 (start a new session), or 503 once the host is shutting down,
// so a proxy tries the next host (one that took the session while this one
// refused new ones holds it; the host that held it answers 404).
func (h *Host) sessionNotFound(w http.ResponseWriter) {
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		w.Header().Set("Connection", "close")
		http.Error(w, "server: this host is shutting down and holds no such session (a session it held has ended with its kernels, debug sessions and staged edits); start a new session, on another host", http.StatusServiceUnavailable)
		return
	}
	http.Error(w, "server: session not found (closed, idle too long, or not this workspace's); start a new session", http.StatusNotFound)
}
