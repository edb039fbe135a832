package cvxoptjson

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// TestWriteTextLayout: the text form lists, token by token, the name, the
// sizes, q, r, A in compressed columns, b, the cones and P, every number
// round-tripping exactly.
func TestWriteTextLayout(t *testing.T) {
	A := sparse.NewTriplets(3, 2, 3)
	A.Append(0, 0, 1.0/3)
	A.Append(2, 0, -2)
	A.Append(1, 1, 1e-300)
	P := sparse.NewTriplets(2, 2, 2)
	P.Append(0, 0, 2)
	P.Append(0, 1, 0.1)
	p := &solver.Problem{Q: []float64{-1, 0.7}, R: 4, A: A.ToCSC(), B: []float64{1, 2, 3},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewSecondOrder(2)}, P: P.ToCSC()}
	path := filepath.Join(t.TempDir(), "x")
	if err := WriteText(path, "demo", p); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(raw))
	want := []string{"demo", "2", "3", "-1", "0.7", "4", "3", "0", "2", "3", "0", "2", "1",
		strconv.FormatFloat(1.0/3, 'g', -1, 64), "-2", "1e-300", "1", "2", "3",
		"2", "zero", "1", "second-order", "2", "2", "0", "1", "2", "0", "0", "2", "0.1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("tokens\n%v\nwant\n%v", got, want)
	}
	if v, _ := strconv.ParseFloat(got[13], 64); v != 1.0/3 {
		t.Errorf("1/3 written as %s", got[13])
	}
	if err := WriteText(path, "two words", p); err == nil {
		t.Error("a name with white space accepted")
	}
}
