package dap

import "io"

// WithConnector returns cfg with adapter start-up replaced by connect, which
// returns one end of a pipe whose other end a fake adapter serves.
func WithConnector(cfg Config, connect func() io.ReadWriteCloser) Config {
	cfg.connector = connect
	return cfg
}

// Busy reports whether an op holds the conversation (a launch or continue
// waiting for the program).
func (sv *Supervisor) Busy(conversationID string) bool {
	c, err := sv.conv(conversationID)
	if err != nil {
		return false
	}
	if c.mu.TryLock() {
		c.mu.Unlock()
		return false
	}
	return true
}
