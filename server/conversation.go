package server

import "fmt"
import "net/http"

// A conversation is how a client of MCP 2026-07-28, which has no session,
// reaches one run (its kernels, debug session, staged edits and workers)
// across calls: it chooses a key, a random string, and sends it with every
// request of the conversation, in the ConversationHeader header (what a
// proxy in front of several hosts hashes on) or in the request's _meta under
// ConversationMetaKey, or both (then they must be equal).
//
// The first request with a key the host does not hold for this principal
// and workspace starts the conversation's run; later ones reach it. A
// conversation belongs to the principal (the token) that started it: the
// same key sent with another token names another conversation, so it
// reaches nothing of the first and learns nothing of it.
const (
	// ConversationHeader is the HTTP header carrying a conversation key.
	ConversationHeader = "Tether-Conversation"
	// ConversationMetaKey is the request _meta entry carrying a
	// conversation key; results of a conversation carry it back.
	ConversationMetaKey = "tether/conversation"
	// ConversationNewMetaKey is set (true) in the _meta of the result of
	// the request that started a conversation's run: a client that sees it
	// on a later call knows its earlier state is gone (the run ended, idle
	// or on a host that shut down) and must set it up again.
	ConversationNewMetaKey = "tether/conversationNew"
	// MinConversationKey and MaxConversationKey bound a key's length.
	MinConversationKey = 16
	MaxConversationKey = 128
)

// checkConversationKey reports whether key is a valid conversation key:
// MinConversationKey to MaxConversationKey characters of A-Z, a-z, 0-9, '-'
// and '_' (a UUID, or 16 random bytes in URL-safe base64, fit).
func checkConversationKey(key string) error {
	if len(key) < MinConversationKey || len(key) > MaxConversationKey {
		return fmt.Errorf("server: a conversation key is %d to %d characters (a UUID, or 16 random bytes in URL-safe base64); this one has %d", MinConversationKey, MaxConversationKey, len(key))
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("server: a conversation key holds only A-Z, a-z, 0-9, '-' and '_'; this one has %q at byte %d", c, i)
		}
	}
	return nil
}

// conversationKey returns the conversation key a request names in its
// header and its _meta (meta may be nil): "" when it names none, and an
// error when the two differ or the key is not valid.
func conversationKey(h http.Header, meta map[string]any) (string, error) {
	hk := h.Get(ConversationHeader)
	var mk string
	if v, ok := meta[ConversationMetaKey]; ok {
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("server: _meta %q must be a string, the conversation key", ConversationMetaKey)
		}
		mk = s
	}
	key := hk
	switch {
	case hk != "" && mk != "" && hk != mk:
		return "", fmt.Errorf("server: the %s header and _meta %q name different conversations; send the same key in both, or one of them", ConversationHeader, ConversationMetaKey)
	case hk == "":
		key = mk
	}
	if key == "" {
		return "", nil
	}
	return key, checkConversationKey(key)
}
