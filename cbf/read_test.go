package cbf

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
)

func TestReadAll(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "all.cbf"))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Problem
	if f.NumScalarVars != 4 || p.NumVars() != 7 || p.NumRows() != 21 || f.Maximize || f.Version != 3 {
		t.Fatalf("sizes: scalar %d, n %d, m %d, max %v, ver %d", f.NumScalarVars, p.NumVars(), p.NumRows(), f.Maximize, f.Version)
	}
	if len(f.PSDVars) != 1 || f.PSDVars[0] != (PSDVar{Order: 2, Col: 4}) {
		t.Errorf("PSDVars %+v", f.PSDVars)
	}
	wantCones := []cone.Cone{cone.NewNonnegative(1), cone.NewExponential(), cone.NewExponential(),
		cone.NewPower(0.25), cone.NewPower(0.5), cone.NewPSD(2), cone.NewNonnegative(2), cone.NewPSD(2)}
	if len(p.Cones) != len(wantCones) {
		t.Fatalf("cones %v, want %v", p.Cones, wantCones)
	}
	for i := range wantCones {
		if p.Cones[i] != wantCones[i] {
			t.Errorf("cone %d: %v, want %v", i, p.Cones[i], wantCones[i])
		}
	}
	e, s2 := math.E, math.Sqrt2
	type ij struct{ i, j int }
	wantA := map[ij]float64{
		{0, 0}: -1, {0, 5}: -s2 * 4, // L+ row with FCOORD on X(1,0)
		{3, 0}: -2, {2, 0}: -3, {1, 0}: -4, // EXP reversed
		{6, 0}: -e * 5, {4, 0}: 6, {5, 0}: 7, // EXP*: (−g1, −g2, e·g0)
		{7, 0}: -8, {8, 0}: -9, {9, 0}: -10, // POW
		{10, 0}: -2 * 11, {11, 0}: -2 * 12, {12, 0}: -13, // POW*, α = 1/2
		{14, 1}: -s2 * 2, {13, 1}: -1, // HCOORD
		{16, 2}: 1, {17, 3}: 1, // VAR L-
		{18, 4}: -1, {19, 5}: -1, {20, 6}: -1, // PSDVAR
	}
	wantB := map[int]float64{0: 100, 3: 101, 2: 102, 1: 103, 6: e * 104, 4: -105, 5: -106,
		7: 107, 8: 108, 9: 109, 10: 220, 11: 222, 12: 112, 15: 3, 14: s2 * 0.5}
	D := p.A.Dense()
	for i := 0; i < p.NumRows(); i++ {
		for j := 0; j < p.NumVars(); j++ {
			if got, want := D[i][j], wantA[ij{i, j}]; math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
				t.Errorf("A[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
		if got, want := p.B[i], wantB[i]; math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("b[%d] = %v, want %v", i, got, want)
		}
	}
	wantQ := []float64{0, 0, -1.5, 0, 0, 0, 5}
	for j, w := range wantQ {
		if p.Q[j] != w {
			t.Errorf("q[%d] = %v, want %v", j, p.Q[j], w)
		}
	}
	if p.R != 7 {
		t.Errorf("r = %v, want 7", p.R)
	}
	if f.ConRows[13] != -1 || f.ConRows[1] != 3 || f.PSDConRows[0] != 13 {
		t.Errorf("ConRows %v, PSDConRows %v", f.ConRows, f.PSDConRows)
	}
}

// TestReadSVECPSD: a version-4 SVECPSD cone is privopt's PSD cone in the same
// svec coordinates (rows taken as they are).
func TestReadSVECPSD(t *testing.T) {
	src := "VER\n4\nVAR\n3 1\nF 3\nCON\n3 1\nSVECPSD 3\nACOORD\n3\n0 0 1\n1 1 1\n2 2 1\n"
	f, err := Read(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Problem
	if len(p.Cones) != 1 || p.Cones[0] != cone.NewPSD(2) {
		t.Fatalf("cones %v, want [psd(3)]", p.Cones)
	}
	for i := 0; i < 3; i++ {
		if p.A.At(i, i) != -1 {
			t.Errorf("A[%d,%d] = %v, want −1", i, i, p.A.At(i, i))
		}
	}
	if _, err := Read(strings.NewReader("VER\n4\nVAR\n2 1\nSVECPSD 2\n")); err == nil {
		t.Error("SVECPSD of dimension 2 accepted")
	}
}

func TestReadErrors(t *testing.T) {
	head := "VER\n3\n"
	cases := []struct {
		name, text, want string
		unsupported      bool
	}{
		{"empty", "", "empty file", false},
		{"no VER", "OBJSENSE\nMIN\n", "line 1: expected the keyword VER first", false},
		{"bad version", "VER\nthree\n", `line 2: VER: version "three" is not an integer`, false},
		{"future version", "VER\n9\n", "line 2: VER: version 9 is newer", true},
		{"unknown keyword", head + "FOO\n", `line 3: unknown keyword "FOO"`, false},
		{"duplicate", head + "OBJSENSE\nMIN\nOBJSENSE\nMAX\n", "line 5: keyword OBJSENSE appears twice (first at line 3)", false},
		{"objsense", head + "OBJSENSE\nUP\n", `line 4: OBJSENSE: "UP", must be MIN or MAX`, false},
		{"unknown cone", head + "VAR\n2 1\nZ 2\n", `line 5: VAR: unknown cone "Z"`, false},
		{"zero dim", head + "VAR\n0 0\nCON\n1 1\nQ 0\n", "line 7: CON: cone Q has dimension 0, must be ≥ 1", false},
		{"exp dim", head + "VAR\n2 1\nEXP 2\n", "line 5: VAR: cone EXP has dimension 2, must be 3", false},
		{"count mismatch", head + "VAR\n3 1\nF 2\n", "line 5: VAR: cones cover 2 coordinates, header declares 3", false},
		{"too many cones", head + "VAR\n3 2\nF 3\nF 1\n", "line 6: VAR: cones cover more than the 3 declared", false},
		{"truncated cones", head + "VAR\n3 2\nF 2\n", "end of file: VAR: file truncated", false},
		{"truncated coords", head + "VAR\n1 1\nF 1\nOBJACOORD\n3\n0 1\n", "end of file: OBJACOORD: file truncated after 1 of 3 entries", false},
		{"keyword inside coords", head + "VAR\n1 1\nF 1\nOBJACOORD\n2\n0 1\nOBJBCOORD\n1\n", "line 9: OBJACOORD: keyword OBJBCOORD after 1 of 2 entries", false},
		{"index range", head + "VAR\n1 1\nF 1\nCON\n1 1\nL+ 1\nACOORD\n1\n0 1 2.0\n", "line 11: ACOORD: variable index 1 out of range [0, 1)", false},
		{"negative index", head + "VAR\n1 1\nF 1\nCON\n1 1\nL+ 1\nBCOORD\n1\n-1 2.0\n", "line 11: BCOORD: constraint index -1 out of range", false},
		{"NaN", head + "VAR\n1 1\nF 1\nOBJACOORD\n1\n0 NaN\n", `line 8: OBJACOORD: value "NaN" is not finite`, false},
		{"Inf", head + "OBJBCOORD\n+Inf\n", `line 4: OBJBCOORD: value "+Inf" is not finite`, false},
		{"overflow", head + "OBJBCOORD\n1e999\n", `line 4: OBJBCOORD: value "1e999" is not finite`, false},
		{"not a number", head + "OBJBCOORD\nabc\n", `line 4: OBJBCOORD: "abc" is not a number`, false},
		{"order", head + "ACOORD\n0\n", "line 3: ACOORD must come after VAR", false},
		{"integer", head + "VAR\n1 1\nF 1\nINT\n1\n0\n", "line 7: INT: 1 integer variable(s)", true},
		{"pow undeclared", head + "VAR\n3 1\n@0:POW 3\n", "line 5: VAR: cone @0:POW refers to power cone 0, but 0 are declared", false},
		{"pow params", head + "POWCONES\n1 3\n3\n1\n1\n1\nVAR\n3 1\n@0:POW 3\n", "line 11: VAR: cone @0:POW has dimension 3 and 3 parameters", true},
		{"pow bad alpha", head + "POWCONES\n1 2\n2\n1\n-1\n", "line 7: POWCONES: parameter -1, must be > 0", false},
		{"psd upper", head + "VAR\n1 1\nF 1\nPSDCON\n1\n2\nHCOORD\n1\n0 0 0 1 1.0\n", "line 11: HCOORD: entry (0, 1) is above the diagonal", false},
		{"psd range", head + "VAR\n1 1\nF 1\nPSDCON\n1\n2\nDCOORD\n1\n0 2 0 1.0\n", "line 11: DCOORD: entry (2, 0) outside the 2×2 matrix", false},
		{"extra field", head + "VAR\n1 1\nF 1 2\n", "line 5: VAR: expected 2 value(s), found 3", false},
		{"huge", head + "VAR\n999999999999 1\nF 1\n", "line 4: VAR: number of variables is 999999999999, must be in [0, 67108864]", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.text))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *SyntaxError", err)
			}
			if c.unsupported != errors.Is(err, ErrUnsupported) || c.unsupported == errors.Is(err, ErrSyntax) {
				t.Errorf("error %q: Is(ErrUnsupported) = %v, want %v", err, errors.Is(err, ErrUnsupported), c.unsupported)
			}
		})
	}
	if _, err := ReadFile(filepath.Join("testdata", "does-not-exist.cbf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
