package ipynb_test

import "bytes"
import "errors"
import "os"
import "testing"

import "github.com/tetherhq/tether/internal/ipynb"

func TestRoundTripAndSpans(t *testing.T) {
	for _, name := range []string{"operations-in-pandas.ipynb", "empty.ipynb"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile("../../testdata/notebook/" + name)
			if err != nil {
				t.Fatal(err)
			}
			nb, err := ipynb.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			var cells [][]byte
			for i := range nb.Cells {
				cells = append(cells, nb.Raw(i))
			}
			if got := nb.WithCells(cells); !bytes.Equal(got, data) {
				t.Fatalf("the cells written back unchanged differ from the file:\n%s", got)
			}
			src, err := nb.SetSource(0, "x = 1\ny = 2\n")
			if err != nil {
				t.Fatal(err)
			}
			cells[0] = src
			again, err := ipynb.Parse(nb.WithCells(cells))
			if err != nil {
				t.Fatal(err)
			}
			if again.Cells[0].Source != "x = 1\ny = 2\n" {
				t.Errorf("source after SetSource = %q", again.Cells[0].Source)
			}
			for i := 1; i < len(nb.Cells); i++ {
				if !bytes.Equal(again.Raw(i), nb.Raw(i)) {
					t.Errorf("untouched cell %d changed", i)
				}
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"not json", "{"},
		{"nbformat 3", `{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}`},
		{"no cells", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}`},
		{"bad cell type", `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "x", "source": ""}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ipynb.Parse([]byte(tc.text)); !errors.Is(err, ipynb.ErrNotNotebook) {
				t.Errorf("Parse = %v, want ErrNotNotebook", err)
			}
		})
	}
}

func TestNewCellIDsFromMinor5(t *testing.T) {
	for _, tc := range []struct {
		text   string
		wantID bool
	}{
		{`{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`, true},
		{`{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}`, false},
	} {
		nb, err := ipynb.Parse([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		id := nb.NewID(map[string]bool{})
		raw, err := nb.NewCell("code", "print(1)\n", id)
		if err != nil {
			t.Fatal(err)
		}
		if (id != "") != tc.wantID || bytes.Contains(raw, []byte(`"id"`)) != tc.wantID {
			t.Errorf("minor %d: id %q in %s", nb.Minor, id, raw)
		}
		out, err := ipynb.Parse(nb.WithCells([][]byte{raw}))
		if err != nil || len(out.Cells) != 1 || out.Cells[0].Source != "print(1)\n" {
			t.Errorf("new cell reads back as %+v, %v", out, err)
		}
	}
}

// TestCompactAndStringSource: a notebook saved without indentation, whose
// source is one string, keeps both forms when a cell is edited and one is
// added.
func TestCompactAndStringSource(t *testing.T) {
	text := `{"cells":[{"cell_type":"code","execution_count":3,"metadata":{},"outputs":[{"name":"stdout","output_type":"stream","text":"hi\n"}],"source":"print('hi')"},{"cell_type":"markdown","metadata":{},"source":"# Title"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`
	nb, err := ipynb.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	edited, err := nb.SetSource(0, "print('bye')\n")
	if err != nil {
		t.Fatal(err)
	}
	count := 4
	outs, err := nb.SetOutputs(0, nil, &count)
	if err != nil {
		t.Fatal(err)
	}
	added, err := nb.NewCell("raw", "raw text", "")
	if err != nil {
		t.Fatal(err)
	}
	got := string(nb.WithCells([][]byte{edited, nb.Raw(1), added}))
	want := `{"cells":[{"cell_type":"code","execution_count":3,"metadata":{},"outputs":[{"name":"stdout","output_type":"stream","text":"hi\n"}],"source":"print('bye')\n"},{"cell_type":"markdown","metadata":{},"source":"# Title"},{"cell_type":"raw","metadata":{},"source":["raw text"]}],"metadata":{},"nbformat":4,"nbformat_minor":4}`
	if got != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", got, want)
	}
	if want := `{"cell_type":"code","execution_count":4,"metadata":{},"outputs":[],"source":"print('hi')"}`; string(outs) != want {
		t.Errorf("SetOutputs:\n%s\nwant:\n%s", outs, want)
	}
	if _, err := nb.SetOutputs(1, nil, nil); err == nil {
		t.Error("SetOutputs on a markdown cell did not fail")
	}
}
