// Package searchtest holds the checks that the tests of search and of
// search/store both make: a search through a store against a fresh parse,
// and a search with kind sets against one without.
//
// It is for tests only: no production package imports it. It imports
// search, search/store and engine/enginetest, nothing above them.
package searchtest
