// Package stage holds computed rewrites (search.Plan) as staged edits until
// they are accepted or discarded: ids edit_1, edit_2, ... in staging order,
// at most MaxEdits unresolved edits and MaxBytes of file content (past
// either the oldest are dropped, and resolving a dropped one says so), and
// what became of each resolved id. Accepting one applies its plan
// (search.Plan.Apply: the drift check, then every file or none).
//
// stage imports search and internal packages; it must not import tools,
// server or anything above them.
package stage
