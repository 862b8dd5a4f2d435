// Package chromium starts the real headless Chromium that browser tests drive
// with chromedp. The browser gets a fresh profile, no network services of its
// own, and is meant for loopback pages only.
//
// It is for tests only. It imports no tether package outside internal/ (the
// standard library and the few third-party modules internal/layout_test.go
// allows it), so that every layer may use it.
package chromium
