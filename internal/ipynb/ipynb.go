package ipynb

import "bytes"
import "crypto/rand"
import "encoding/hex"
import "encoding/json"
import "errors"
import "fmt"
import "strings"

// ErrNotNotebook is wrapped by Parse for text that is not an nbformat 4
// notebook.
var ErrNotNotebook = errors.New("ipynb: not an nbformat 4 notebook")

// Notebook is a parsed notebook: its cells, and where they are in its text.
type Notebook struct {
	// Major and Minor are nbformat and nbformat_minor.
	Major, Minor int
	// Cells are the notebook's cells in order.
	Cells []Cell
	// Language is the kernel's language (metadata.kernelspec.language or
	// metadata.language_info.name), "" when the notebook names none.
	Language string

	data       []byte
	arrStart   int    // the cells array's '['
	arrEnd     int    // just past its ']'
	unit       string // one level of indentation; "" for compact JSON
	elemIndent string // what a cell's line starts with
}

// Cell is one cell as the notebook holds it.
type Cell struct {
	// ID is the nbformat 4.5 cell id, "" before 4.5.
	ID string
	// Type is code, markdown or raw.
	Type string
	// Source is the cell's text, its lines joined.
	Source string
	// ExecutionCount is a code cell's execution_count, nil when null.
	ExecutionCount *int
	// Outputs are a code cell's outputs.
	Outputs []Output

	start, end int // the cell's object in the notebook's text
}

// Output is one output of a code cell.
type Output struct {
	// Type is stream, display_data, execute_result or error.
	Type string `json:"output_type"`
	// Name is a stream's name (stdout, stderr).
	Name string `json:"name,omitempty"`
	// Text is a stream's text.
	Text Multiline `json:"text,omitempty"`
	// Data is a display's MIME bundle: each type's text (base64 for images).
	Data map[string]Multiline `json:"data,omitempty"`
	// EName, EValue and Traceback describe an error.
	EName     string   `json:"ename,omitempty"`
	EValue    string   `json:"evalue,omitempty"`
	Traceback []string `json:"traceback,omitempty"`
}

// Multiline is nbformat's multiline string: one string, or a list of lines
// joined.
type Multiline string

// UnmarshalJSON accepts a string or a list of strings.
func (m *Multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = Multiline(s)
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return fmt.Errorf("a multiline string must be a string or a list of strings: %w", err)
	}
	*m = Multiline(strings.Join(ss, ""))
	return nil
}

// Parse reads a notebook's text.
func Parse(data []byte) (*Notebook, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fmt.Errorf("%w: its JSON does not parse: %v", ErrNotNotebook, err)
	}
	var head struct {
		Major    *int `json:"nbformat"`
		Minor    int  `json:"nbformat_minor"`
		Metadata struct {
			Kernelspec struct {
				Language string `json:"language"`
			} `json:"kernelspec"`
			LanguageInfo struct {
				Name string `json:"name"`
			} `json:"language_info"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotNotebook, err)
	}
	if head.Major == nil || *head.Major != 4 {
		return nil, fmt.Errorf("%w: nbformat is not 4 (open and save it in a current Jupyter to upgrade it)", ErrNotNotebook)
	}
	nb := &Notebook{Major: 4, Minor: head.Minor, data: data, Language: head.Metadata.Kernelspec.Language}
	if nb.Language == "" {
		nb.Language = head.Metadata.LanguageInfo.Name
	}
	top := skipSpace(data, 0)
	if top >= len(data) || data[top] != '{' {
		return nil, fmt.Errorf("%w: the top level is not an object", ErrNotNotebook)
	}
	members := objectMembers(data, top)
	if len(members) > 0 {
		nb.unit = lineIndent(data, members[0].keyStart)
	}
	for _, m := range members {
		if m.key != "cells" {
			continue
		}
		if data[m.valStart] != '[' {
			return nil, fmt.Errorf("%w: cells is not a list", ErrNotNotebook)
		}
		nb.arrStart, nb.arrEnd = m.valStart, m.valEnd
		nb.elemIndent = lineIndent(data, m.keyStart) + nb.unit
		for i, el := range arrayElements(data, m.valStart) {
			c, err := parseCell(data, el)
			if err != nil {
				return nil, fmt.Errorf("%w: cell %d: %v", ErrNotNotebook, i, err)
			}
			nb.Cells = append(nb.Cells, c)
		}
		if len(nb.Cells) > 0 {
			nb.elemIndent = lineIndent(data, nb.Cells[0].start)
		}
		return nb, nil
	}
	return nil, fmt.Errorf("%w: it has no cells list", ErrNotNotebook)
}

func parseCell(data []byte, sp span) (Cell, error) {
	var raw struct {
		ID             string    `json:"id"`
		Type           string    `json:"cell_type"`
		Source         Multiline `json:"source"`
		ExecutionCount *int      `json:"execution_count"`
		Outputs        []Output  `json:"outputs"`
	}
	if err := json.Unmarshal(data[sp.start:sp.end], &raw); err != nil {
		return Cell{}, err
	}
	switch raw.Type {
	case "code", "markdown", "raw":
	default:
		return Cell{}, fmt.Errorf("cell_type %q is not code, markdown or raw", raw.Type)
	}
	return Cell{ID: raw.ID, Type: raw.Type, Source: string(raw.Source), ExecutionCount: raw.ExecutionCount,
		Outputs: raw.Outputs, start: sp.start, end: sp.end}, nil
}

// Text is the notebook's text as it was parsed.
func (nb *Notebook) Text() []byte { return nb.data }

// Raw is cell i's JSON text as the notebook holds it.
func (nb *Notebook) Raw(i int) []byte {
	c := nb.Cells[i]
	return nb.data[c.start:c.end]
}

// WithCells returns the notebook's text with its cells array holding cells
// (each a cell's JSON text, as Raw, SetSource, SetOutputs or NewCell give
// it), one per line at the notebook's indentation; the rest of the text is
// kept byte for byte.
func (nb *Notebook) WithCells(cells [][]byte) []byte {
	var b bytes.Buffer
	b.Write(nb.data[:nb.arrStart])
	switch {
	case len(cells) == 0:
		b.WriteString("[]")
	case nb.unit == "":
		b.WriteString("[")
		b.Write(bytes.Join(cells, []byte(",")))
		b.WriteString("]")
	default:
		b.WriteString("[\n" + nb.elemIndent)
		b.Write(bytes.Join(cells, []byte(",\n"+nb.elemIndent)))
		b.WriteString("\n" + strings.TrimSuffix(nb.elemIndent, nb.unit) + "]")
	}
	b.Write(nb.data[nb.arrEnd:])
	return b.Bytes()
}

// SetSource is cell i's JSON text with its source replaced by src, in the
// form the cell held it (a list of lines, or one string).
func (nb *Notebook) SetSource(i int, src string) ([]byte, error) {
	c := nb.Cells[i]
	m, ok := nb.member(c, "source")
	if !ok {
		return nil, fmt.Errorf("ipynb: cell %d has no source", i)
	}
	var v any = Lines(src)
	if nb.data[m.valStart] == '"' {
		v = src
	}
	return nb.replace(c, []member{m}, []any{v}), nil
}

// SetOutputs is code cell i's JSON text with its outputs and
// execution_count replaced (count nil writes null).
func (nb *Notebook) SetOutputs(i int, outputs []map[string]any, count *int) ([]byte, error) {
	c := nb.Cells[i]
	if c.Type != "code" {
		return nil, fmt.Errorf("ipynb: cell %d is a %s cell, not code", i, c.Type)
	}
	mo, ok1 := nb.member(c, "outputs")
	me, ok2 := nb.member(c, "execution_count")
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("ipynb: code cell %d lacks outputs or execution_count", i)
	}
	if outputs == nil {
		outputs = []map[string]any{}
	}
	var cv any
	if count != nil {
		cv = *count
	}
	if mo.valStart < me.valStart {
		return nb.replace(c, []member{mo, me}, []any{outputs, cv}), nil
	}
	return nb.replace(c, []member{me, mo}, []any{cv, outputs}), nil
}

// NewID is a new cell id (8 hex digits, as nbformat makes them) that is
// not in ids, and adds it there; "" when the notebook's nbformat is before
// 4.5, which has no cell ids.
func (nb *Notebook) NewID(ids map[string]bool) string {
	if nb.Minor < 5 {
		return ""
	}
	id := ""
	for id == "" || ids[id] {
		var r [4]byte
		rand.Read(r[:])
		id = hex.EncodeToString(r[:])
	}
	ids[id] = true
	return id
}

// NewCell is the JSON text of a new cell of type typ holding src, with id
// when it is not "" (NewID), as Jupyter writes it at the notebook's
// indentation.
func (nb *Notebook) NewCell(typ, src, id string) ([]byte, error) {
	cell := map[string]any{"cell_type": typ, "metadata": map[string]any{}, "source": Lines(src)}
	switch typ {
	case "code":
		cell["execution_count"] = nil
		cell["outputs"] = []any{}
	case "markdown", "raw":
	default:
		return nil, fmt.Errorf("ipynb: cell_type %q is not code, markdown or raw", typ)
	}
	if id != "" {
		cell["id"] = id
	}
	return nb.encode(cell, nb.elemIndent), nil
}

// replace is c's text with each member's value replaced by the matching
// value, encoded at the member's indentation; ms are in text order.
func (nb *Notebook) replace(c Cell, ms []member, vs []any) []byte {
	var b bytes.Buffer
	at := c.start
	for k, m := range ms {
		b.Write(nb.data[at:m.valStart])
		b.Write(nb.encode(vs[k], lineIndent(nb.data, m.keyStart)))
		at = m.valEnd
	}
	b.Write(nb.data[at:c.end])
	return b.Bytes()
}

// encode is v as Jupyter writes it (sorted keys, no HTML escaping) at
// indentation prefix, in the notebook's indent unit.
func (nb *Notebook) encode(v any, prefix string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if nb.unit != "" {
		enc.SetIndent(prefix, nb.unit)
	}
	if err := enc.Encode(v); err != nil {
		// Only maps, lists, strings, numbers and nil are encoded here.
		panic("ipynb: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func (nb *Notebook) member(c Cell, key string) (member, bool) {
	for _, m := range objectMembers(nb.data, c.start) {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// Lines splits s into lines that keep their "\n", as nbformat stores a
// multiline string; "" is no lines.
func Lines(s string) []string {
	lines := []string{}
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}
