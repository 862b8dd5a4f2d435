// Package fsutil confines file access to a workspace root and writes files
// atomically, alone or as an all-or-nothing set of changes.
//
// Resolve checks a path; Open, ReadFile and Apply then reach the file through
// the root directory opened as an os.Root, so a symbolic link swapped in after
// the check cannot lead the access out. Writes replace files by rename, so
// they never write through a hard link either. A change of several files is
// journaled before it is made, so that Recover can undo it when a crash cuts
// it short.
//
// It is shared by the file tools, the structural rewrite's resolve and the
// language-server rename, so it imports nothing of tether's: bridges may use it
// without importing tools.
package fsutil
