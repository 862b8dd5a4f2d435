//go:build !unix

package search

const openNonblock = 0
