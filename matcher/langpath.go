package matcher

import (
	"path/filepath"
	"strings"
)

// extLang maps file extensions to language ids. It stands in for the grammars
// table's ForPath until that lands; the ids are the table's.
var extLang = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python",
	".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
	".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
	".rs": "rust", ".c": "c", ".h": "c",
	".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
	".java": "java", ".dart": "dart", ".rb": "ruby", ".sh": "bash", ".bash": "bash",
	".json": "json", ".cs": "c_sharp", ".php": "php", ".kt": "kotlin", ".kts": "kotlin",
	".swift": "swift", ".scala": "scala", ".lua": "lua", ".yaml": "yaml", ".yml": "yaml",
	".css": "css", ".html": "html", ".htm": "html",
}

// langForPath returns the language id of a file by its extension, "" if none.
func langForPath(path string) string {
	return extLang[strings.ToLower(filepath.Ext(path))]
}
