package mathprog

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadMPS: the MPS reader never panics, and what it accepts converts to
// a valid standard form (or a named error) and survives a write/read round trip.
func FuzzReadMPS(f *testing.F) {
	f.Add("NAME a\nROWS\n N obj\n L c\nCOLUMNS\n    x obj 1 c 1\nRHS\n    1 c 4\nRANGES\n    r c 2\nBOUNDS\n UP b x -1\nQUADOBJ\n    x x 2\nENDATA\n")
	f.Add("NAME b\nOBJSENSE MAX\nROWS\n N obj\n E e\nCOLUMNS\n    x e 1\nBOUNDS\n FR b x\nENDATA\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ReadMPS(strings.NewReader(text), Limits{MaxRows: 1000, MaxCols: 1000, MaxNonzeros: 10000})
		if err != nil {
			return
		}
		if _, err := m.Standard(); err != nil {
			return
		}
		var buf bytes.Buffer
		if WriteMPS(&buf, m) == nil {
			if _, err := ReadMPS(&buf, Limits{}); err != nil {
				t.Fatalf("written model does not read back: %v\n%s", err, buf.String())
			}
		}
	})
}

// FuzzReadLP: the LP reader never panics on any input.
func FuzzReadLP(f *testing.F) {
	f.Add("max\n obj: 3 x + 2 y + [ x ^ 2 + x * y ] / 2\nst\n c: -1 <= x - y <= 2\nbounds\n y free\nend\n")
	f.Add("min\n x\nst\n x >= 1\nend\n")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := ReadLP(strings.NewReader(text), Limits{MaxRows: 1000, MaxCols: 1000, MaxNonzeros: 10000})
		if err != nil {
			return
		}
		_, _ = m.Standard()
	})
}
