//go:build !unix

package matcher

const openNonblock = 0
