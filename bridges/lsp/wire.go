package lsp

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The typed protocol layer: only the LSP structures tether sends or reads.
// Union-typed results (Location | Location[] | LocationLink[], MarkupContent |
// MarkedString[], DocumentSymbol[] | SymbolInformation[]) are decoded from raw
// JSON by the facade, since servers differ in which arm they answer with.

type wPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type wRange struct {
	Start wPosition `json:"start"`
	End   wPosition `json:"end"`
}

type wLocation struct {
	URI   string `json:"uri"`
	Range wRange `json:"range"`
}

type wLocationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetRange          wRange `json:"targetRange"`
	TargetSelectionRange wRange `json:"targetSelectionRange"`
}

type wTextDocumentIdentifier struct {
	URI string `json:"uri"`
}

type wVersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type wTextDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type wDidOpenParams struct {
	TextDocument wTextDocumentItem `json:"textDocument"`
}

type wContentChange struct {
	Text string `json:"text"`
}

type wDidChangeParams struct {
	TextDocument   wVersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []wContentChange                 `json:"contentChanges"`
}

type wDidSaveParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
	Text         *string                 `json:"text,omitempty"`
}

type wDidCloseParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
}

type wPositionParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
	Position     wPosition               `json:"position"`
}

type wReferenceParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
	Position     wPosition               `json:"position"`
	Context      struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type wRenameParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
	Position     wPosition               `json:"position"`
	NewName      string                  `json:"newName"`
}

type wDocumentSymbolParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
}

type wWorkspaceSymbolParams struct {
	Query string `json:"query"`
}

type wCodeActionParams struct {
	TextDocument wTextDocumentIdentifier `json:"textDocument"`
	Range        wRange                  `json:"range"`
	Context      struct {
		Diagnostics []wDiagnostic `json:"diagnostics"`
	} `json:"context"`
}

type wDiagnostic struct {
	Range    wRange          `json:"range"`
	Severity int             `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type wPublishDiagnostics struct {
	URI         string        `json:"uri"`
	Version     *int          `json:"version,omitempty"`
	Diagnostics []wDiagnostic `json:"diagnostics"`
}

type wProgressParams struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Message string `json:"message"`
	} `json:"value"`
}

type wTextEdit struct {
	Range   wRange `json:"range"`
	NewText string `json:"newText"`
}

type wTextDocumentEdit struct {
	TextDocument wVersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []wTextEdit                      `json:"edits"`
}

type wWorkspaceEdit struct {
	Changes         map[string][]wTextEdit `json:"changes,omitempty"`
	DocumentChanges []json.RawMessage      `json:"documentChanges,omitempty"`
}

type wDocumentSymbol struct {
	Name           string            `json:"name"`
	Detail         string            `json:"detail,omitempty"`
	Kind           int               `json:"kind"`
	Range          wRange            `json:"range"`
	SelectionRange wRange            `json:"selectionRange"`
	Children       []wDocumentSymbol `json:"children,omitempty"`
	// SymbolInformation arm.
	Location      *wLocation `json:"location,omitempty"`
	ContainerName string     `json:"containerName,omitempty"`
}

type wWorkspaceSymbol struct {
	Name          string          `json:"name"`
	Kind          int             `json:"kind"`
	ContainerName string          `json:"containerName,omitempty"`
	Location      json.RawMessage `json:"location"`
}

type wCodeAction struct {
	Title       string          `json:"title"`
	Kind        string          `json:"kind,omitempty"`
	IsPreferred bool            `json:"isPreferred,omitempty"`
	Edit        *wWorkspaceEdit `json:"edit,omitempty"`
	Command     json.RawMessage `json:"command,omitempty"`
}

// symbolKinds names LSP SymbolKind values (1-based).
var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method",
	"property", "field", "constructor", "enum", "interface", "function", "variable",
	"constant", "string", "number", "boolean", "array", "object", "key", "null",
	"enum member", "struct", "event", "operator", "type parameter"}

func symbolKindName(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}

// pathToURI turns an absolute path into a file:// URI.
func pathToURI(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String()
}

// uriToPath turns a file:// URI into a path ("" when it is not a file URI).
func uriToPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// lineStarts returns the byte offset where each line of text begins.
func lineStarts(text []byte) []int {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineText returns line i (0-based) of text without its newline.
func lineText(text []byte, starts []int, i int) string {
	if i < 0 || i >= len(starts) {
		return ""
	}
	end := len(text)
	if i+1 < len(starts) {
		end = starts[i+1]
	}
	return strings.TrimRight(string(text[starts[i]:end]), "\r\n")
}

// utf16Col converts a byte offset within line into a UTF-16 code unit count.
func utf16Col(line string, byteCol int) int {
	n := 0
	for i, r := range line {
		if i >= byteCol {
			break
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// byteCol converts a UTF-16 column within line into a byte offset (clamped).
func byteCol(line string, u16 int) int {
	n := 0
	for i, r := range line {
		if n >= u16 {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(line)
}

// runeCol1 converts a byte offset within line into a 1-based character column.
func runeCol1(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	return utf8.RuneCountInString(line[:b]) + 1
}

// offsetOf converts an LSP position into a byte offset in text (clamped).
func offsetOf(text []byte, starts []int, p wPosition, enc encoding) int {
	if p.Line >= len(starts) {
		return len(text)
	}
	if p.Line < 0 {
		return 0
	}
	l := lineText(text, starts, p.Line)
	return starts[p.Line] + enc.byteOf(l, p.Character)
}

// encoding is what a server's columns count (LSP 3.17 PositionEncodingKind).
type encoding int

const (
	encUTF16 encoding = iota // UTF-16 code units, the protocol's default
	encUTF8                  // bytes
	encUTF32                 // code points
)

func parseEncoding(s string) (encoding, bool) {
	switch strings.ToLower(s) {
	case "utf-16", "":
		return encUTF16, true
	case "utf-8":
		return encUTF8, true
	case "utf-32":
		return encUTF32, true
	}
	return encUTF16, false
}

// col converts a byte offset within line into a column counted in e.
func (e encoding) col(line string, b int) int {
	if b > len(line) {
		b = len(line)
	}
	switch e {
	case encUTF8:
		return b
	case encUTF32:
		return utf8.RuneCountInString(line[:b])
	}
	return utf16Col(line, b)
}

// byteOf converts a column counted in e within line into a byte offset
// (clamped, at the start of a character).
func (e encoding) byteOf(line string, c int) int {
	switch e {
	case encUTF8:
		if c <= 0 {
			return 0
		}
		if c >= len(line) {
			return len(line)
		}
		for c > 0 && !utf8.RuneStart(line[c]) {
			c--
		}
		return c
	case encUTF32:
		n := 0
		for i := range line {
			if n >= c {
				return i
			}
			n++
		}
		return len(line)
	}
	return byteCol(line, c)
}
