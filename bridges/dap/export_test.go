package dap

import "io"

// WithConnector returns cfg with adapter start-up replaced by connect, which
// returns one end of a pipe whose other end a fake adapter serves.
func WithConnector(cfg Config, connect func() io.ReadWriteCloser) Config {
	cfg.connector = connect
	return cfg
}
