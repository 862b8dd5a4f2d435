package lsp

import "encoding/json"

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
		Only        []string      `json:"only,omitempty"`
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
	Data        json.RawMessage `json:"data,omitempty"`
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
