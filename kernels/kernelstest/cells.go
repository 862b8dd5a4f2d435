package kernelstest

import "context"
import "errors"
import "testing"

import "github.com/tetherhq/tether/kernels"

// CellError is a cell that must fail with the error Name, pointing at line
// Line of the cell.
type CellError struct {
	Code, Name string
	Line       int
}

// RequireErrors runs each cell of cases as one cell of k and requires its
// error to be the one named, on the line given; check, when not nil, is
// what else each such error must hold (its traceback, say).
func RequireErrors(t testing.TB, k kernels.Kernel, cases []CellError, check func(c CellError, e *kernels.Error) error) {
	t.Helper()
	for _, c := range cases {
		r := Run(t, k, c.Code)
		switch {
		case r.Error == nil:
			t.Errorf("%q: no error, want %s at line %d", c.Code, c.Name, c.Line)
		case r.Error.Name != c.Name || r.Error.Line != c.Line:
			t.Errorf("%q: error %s at line %d (%s), want %s at line %d\n%s", c.Code, r.Error.Name, r.Error.Line, r.Error.Message, c.Name, c.Line, r.Error.Traceback)
		case check != nil:
			if err := check(c, r.Error); err != nil {
				t.Errorf("%q: %v", c.Code, err)
			}
		}
	}
}

// Hammer runs workers goroutines on k at once, each executing cells cells
// one after another: cell(w, i) is the code of worker w's cell i and what
// its result must hold besides not failing (nil: nothing). It fails t with
// the first error once every worker has stopped.
func Hammer(t testing.TB, k kernels.Kernel, workers, cells int, cell func(w, i int) (string, func(*kernels.Result) error)) {
	t.Helper()
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for i := 0; i < cells; i++ {
				code, check := cell(w, i)
				r, err := k.Execute(context.Background(), kernels.Cell{Code: code})
				if err == nil && r.Error != nil {
					err = errors.New(r.Error.Message)
				}
				if err == nil && check != nil {
					err = check(r)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		t.Fatal(first)
	}
}
