package mathprog

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privopt/privopt/solver"
)

// TestReadAllMaros reads every Maros–Mészáros file of the shared data and
// checks the standard form is valid.
func TestReadAllMaros(t *testing.T) {
	for _, f := range marosFiles(t) {
		m, err := ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if _, err := m.Standard(); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
	}
}

func readMPS(t *testing.T, text string) *Model {
	t.Helper()
	m, err := ReadMPS(strings.NewReader(text), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMPSRHSSetNamedOne is the regression for DPKLO1: its RHS vector is named
// "1", which a reader that takes a numeric first field for a value drops.
func TestMPSRHSSetNamedOne(t *testing.T) {
	m := readMPS(t, `NAME one
ROWS
 N obj
 G r1
 E r2
COLUMNS
    x obj 1 r1 1
    x r2 1
    y obj 2 r1 1
RHS
    1 r1 0.5 r2 0.25
    1 obj -3
    2 r1 9
RANGES
    1 r2 1
BOUNDS
 UP 1 y 4
 UP 2 y 8
ENDATA
`)
	if m.RowLo[0] != 0.5 || m.RowLo[1] != 0.25 || m.RowUp[1] != 1.25 {
		t.Errorf("row bounds %v %v, want [0.5 0.25] [+Inf 1.25]", m.RowLo, m.RowUp)
	}
	if m.ObjConstant != 3 {
		t.Errorf("objective constant %v, want 3 (minus the RHS of the objective row)", m.ObjConstant)
	}
	if m.ColUp[1] != 4 {
		t.Errorf("upper bound of y %v, want 4 (first BOUNDS set only)", m.ColUp[1])
	}
}

func TestMPSBoundsAndSense(t *testing.T) {
	m := readMPS(t, `NAME b
OBJSENSE
    MAX
ROWS
 N obj
 L c
COLUMNS
    a obj 1 c 1
    b obj 1 c 1
    c obj 1 c 1
    d obj 1 c 1
RHS
    rhs c 10
BOUNDS
 UP bnd a -2
 LO bnd b -1
 UP bnd b -0.5
 MI bnd c
 FX bnd d 3
ENDATA
`)
	if !m.Maximize {
		t.Error("OBJSENSE MAX not read")
	}
	want := [][2]float64{{math.Inf(-1), -2}, {-1, -0.5}, {math.Inf(-1), math.Inf(1)}, {3, 3}}
	for j, w := range want {
		if m.ColLo[j] != w[0] || m.ColUp[j] != w[1] {
			t.Errorf("column %s bounds [%v, %v], want %v", m.ColNames[j], m.ColLo[j], m.ColUp[j], w)
		}
	}
	m2 := readMPS(t, "NAME s\nOBJSENSE MAXIMIZE\nROWS\n N obj\nCOLUMNS\n    x obj 1\nENDATA\n")
	if !m2.Maximize {
		t.Error("one-line OBJSENSE MAXIMIZE not read")
	}
}

func TestMPSQuadraticSections(t *testing.T) {
	// QUADOBJ lists one triangle, QMATRIX both: the same H = [[2, 1], [1, 4]].
	head := "NAME q\nROWS\n N obj\nCOLUMNS\n    x obj 1\n    y obj 1\n"
	a := readMPS(t, head+"QUADOBJ\n    x x 2\n    y x 1\n    y y 4\nENDATA\n")
	b := readMPS(t, head+"QMATRIX\n    x x 2\n    x y 1\n    y x 1\n    y y 4\nENDATA\n")
	for _, m := range []*Model{a, b} {
		if m.H.At(0, 0) != 2 || m.H.At(0, 1) != 1 || m.H.At(1, 1) != 4 || m.H.At(1, 0) != 0 {
			t.Errorf("H = %v, want upper triangle of [[2 1] [1 4]]", m.H.Dense())
		}
	}
}

// fixedLine lays fields out in the fixed MPS columns 2–3, 5–12, 15–22,
// 25–36, 40–47, 50–61.
func fixedLine(f ...string) string {
	b := []byte(strings.Repeat(" ", 61))
	at := []int{1, 4, 14, 24, 39, 49}
	for k, s := range f {
		copy(b[at[k]:], s)
	}
	return strings.TrimRight(string(b), " ") + "\n"
}

func TestMPSFixedFormatNamesWithBlanks(t *testing.T) {
	text := "NAME          FIXED\nROWS\n" + fixedLine("N", "COST") + fixedLine("L", "LIM 1") +
		"COLUMNS\n" + fixedLine("", "MY VAR", "COST", "1.0", "LIM 1", "2.0") +
		"RHS\n" + fixedLine("", "RHS", "LIM 1", "4.0") +
		"BOUNDS\n" + fixedLine("UP", "BND", "MY VAR", "1.5") + "ENDATA\n"
	m := readMPS(t, text)
	if len(m.ColNames) != 1 || m.ColNames[0] != "MY VAR" || m.RowNames[0] != "LIM 1" {
		t.Fatalf("names %q %q", m.ColNames, m.RowNames)
	}
	if m.A.At(0, 0) != 2 || m.RowUp[0] != 4 || m.ColUp[0] != 1.5 || m.Cost[0] != 1 {
		t.Errorf("A = %v, rhs %v, bound %v, cost %v", m.A.Dense(), m.RowUp, m.ColUp, m.Cost)
	}
}

func TestMPSRejects(t *testing.T) {
	cases := []struct {
		name, text string
		want       error
	}{
		{"marker", "NAME m\nROWS\n N obj\nCOLUMNS\n    MARKER 'MARKER' 'INTORG'\n    x obj 1\nENDATA\n", ErrInteger},
		{"binary bound", "NAME m\nROWS\n N obj\nCOLUMNS\n    x obj 1\nBOUNDS\n BV b x\nENDATA\n", ErrInteger},
		{"unknown row", "NAME m\nROWS\n N obj\nCOLUMNS\n    x zzz 1\nENDATA\n", ErrSyntax},
		{"no endata", "NAME m\nROWS\n N obj\n", ErrSyntax},
		{"qcmatrix", "NAME m\nROWS\n N obj\nQCMATRIX c\n", ErrUnsupported},
		{"bad number", "NAME m\nROWS\n N obj\nCOLUMNS\n    x obj 1..2\nENDATA\n", ErrSyntax},
	}
	for _, c := range cases {
		_, err := ReadMPS(strings.NewReader(c.text), Limits{})
		var se *SyntaxError
		if !errors.Is(err, c.want) || !errors.As(err, &se) || se.Line == 0 {
			t.Errorf("%s: error %v, want %v with a line number", c.name, err, c.want)
		}
	}
	_, err := ReadMPS(strings.NewReader("NAME m\nROWS\n N obj\n L a\n L b\n"), Limits{MaxRows: 2})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("row limit: %v, want ErrTooLarge", err)
	}
}

func TestLPReader(t *testing.T) {
	m, err := ReadLP(strings.NewReader(`\ a small QP
Maximize
 obj: 3 x + 2 y - 0.5 z + 4
   - [ x ^ 2 + 2 x * y + 4 y ^ 2 ] / 2
Subject To
 c1: x + y + z <= 4
 c2: -2 <= x - y <= 3
 x + 2 z >= 1
 c4: 2 x - y + 3 = 5
Bounds
 0 <= x <= 4
 y >= -1
 z free
 -inf <= w <= 2
End
`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Maximize || m.ObjName != "obj" || m.ObjConstant != 4 {
		t.Errorf("sense %v name %q constant %v", m.Maximize, m.ObjName, m.ObjConstant)
	}
	wantCost := []float64{3, 2, -0.5, 0}
	for j, c := range wantCost {
		if m.Cost[j] != c {
			t.Errorf("cost %v, want %v", m.Cost, wantCost)
			break
		}
	}
	// −[x² + 2xy + 4y²]/2 = −½(x² + 2xy + 4y²): H = −[[1 1] [1 4]]
	if m.H.At(0, 0) != -1 || m.H.At(0, 1) != -1 || m.H.At(1, 1) != -4 {
		t.Errorf("H = %v", m.H.Dense())
	}
	rows := []struct {
		name   string
		lo, up float64
		coef   []float64
	}{
		{"c1", math.Inf(-1), 4, []float64{1, 1, 1, 0}},
		{"c2", -2, 3, []float64{1, -1, 0, 0}},
		{"R3", 1, math.Inf(1), []float64{1, 0, 2, 0}},
		{"c4", 2, 2, []float64{2, -1, 0, 0}},
	}
	if len(m.RowNames) != len(rows) {
		t.Fatalf("rows %q", m.RowNames)
	}
	A := m.A.Dense()
	for i, r := range rows {
		if m.RowNames[i] != r.name || m.RowLo[i] != r.lo || m.RowUp[i] != r.up {
			t.Errorf("row %d: %q [%v, %v], want %q [%v, %v]", i, m.RowNames[i], m.RowLo[i], m.RowUp[i], r.name, r.lo, r.up)
		}
		for j, v := range r.coef {
			if A[i][j] != v {
				t.Errorf("row %s: coefficients %v, want %v", r.name, A[i], r.coef)
				break
			}
		}
	}
	wantB := [][2]float64{{0, 4}, {-1, math.Inf(1)}, {math.Inf(-1), math.Inf(1)}, {math.Inf(-1), 2}}
	for j, w := range wantB {
		if m.ColLo[j] != w[0] || m.ColUp[j] != w[1] {
			t.Errorf("bounds of %s [%v, %v], want %v", m.ColNames[j], m.ColLo[j], m.ColUp[j], w)
		}
	}
	for _, c := range []struct {
		name, text string
		want       error
	}{
		{"general", "min\n x\nst\n x >= 1\ngeneral\n x\nend\n", ErrInteger},
		{"quadratic constraint", "min\n x\nst\n [ x ^ 2 ] <= 1\nend\n", ErrUnsupported},
		{"no rhs", "min\n x\nst\n c: x + y\nend\n", ErrSyntax},
	} {
		if _, err := ReadLP(strings.NewReader(c.text), Limits{}); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestWriteMPSRoundTrip writes models with every bound and row kind and reads
// them back; the standard forms must be identical.
func TestWriteMPSRoundTrip(t *testing.T) {
	src := []string{
		"max\n obj: 3 x + 2 y - z + 7 - [ x ^ 2 + x * y + 3 z ^ 2 ] / 2\nst\n a: x + y + z <= 4\n b: -2 <= x - y <= 3\n c: x + z >= 1\n d: x + y = 2\nbounds\n x <= -1\n -3 <= y <= 5\n z free\nend\n",
		"min\n x + y\nst\n x - y >= -1\nend\n",
	}
	for k, text := range src {
		m, err := ReadLP(strings.NewReader(text), Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if err := WriteMPS(&sb, m); err != nil {
			t.Fatal(err)
		}
		back, err := ReadMPS(strings.NewReader(sb.String()), Limits{})
		if err != nil {
			t.Fatalf("model %d: %v\n%s", k, err, sb.String())
		}
		s1, err1 := m.Standard()
		s2, err2 := back.Standard()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if d := problemDiff(s1.Problem, s2.Problem); d != "" || s1.Maximize != s2.Maximize {
			t.Errorf("model %d: round trip differs: %s\n%s", k, d, sb.String())
		}
	}
}

// TestFromProblemRoundTrip: a standard-form LP written as MPS and read back
// has the same optimal value (HiGHS on both).
func TestFromProblemRoundTrip(t *testing.T) {
	m, err := ReadLP(strings.NewReader("min\n -x - 2 y\nst\n x + y <= 3\n x - y = 1\nbounds\n x <= 10\nend\n"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := m.Standard()
	md, err := FromProblem(s.Problem)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := WriteMPS(&sb, md); err != nil {
		t.Fatal(err)
	}
	back, err := ReadMPS(strings.NewReader(sb.String()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := back.Standard()
	// x = 2, y = 1: objective −4 in both
	for _, p := range []*solver.Problem{s.Problem, s2.Problem} {
		if v := lpValue(t, p); math.Abs(v+4) > 1e-7 {
			t.Errorf("optimal value %v, want −4", v)
		}
	}
}
