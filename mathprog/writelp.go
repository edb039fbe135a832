package mathprog

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// lpTermsPerLine bounds the terms WriteLP puts on one line.
const lpTermsPerLine = 8

// WriteLP writes m in the CPLEX LP format that ReadLP reads, so that
// ReadLP(WriteLP(m)) returns the same model up to names (order of rows and
// columns, bounds, costs, ½xᵀHx and c₀ exactly: numbers are written in the
// shortest form that parses back to the same float64):
//
//	Minimize (or Maximize)
//	 obj: + c₁ x₁ + c₂ x₂ + … + [ H₁₁ x₁ ^ 2 + 2H₁₂ x₁ * x₂ + … ] / 2 + c₀
//	Subject To
//	 r1: + a₁₁ x₁ + … <= u₁      (≥ l, = v, and l <= … <= u for ranged rows)
//	Bounds
//	 l <= x <= u                  (every column whose bounds are not [0, +∞))
//	End
//
// Every column appears in the objective (with a zero cost if need be), so
// that ReadLP, which numbers variables by first appearance, keeps the column
// order; bounds are written with the number first ("-inf <= x <= 4", "3 <= x
// <= 3" for a fixed column), so no line starts with a name that could read
// as a section keyword. The bracket is halved ("/ 2"), so a diagonal entry
// H_jj is written as H_jj x_j ^ 2 and an off-diagonal H_ij (i < j) as
// 2H_ij x_i * x_j (doubling is exact). Names that the LP syntax would read
// differently (MPS names such as "C------1" or "000002") are replaced as
// LPNames says; valid names are kept.
func WriteLP(w io.Writer, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	n := m.NumCols()
	if n == 0 && m.NumRows() > 0 {
		return fmt.Errorf("mathprog: cannot write %d rows without columns in an LP file", m.NumRows())
	}
	cols, rows := LPNames(m)
	obj := m.ObjName
	if !lpName(obj) {
		obj = "obj"
	}
	bw := bufio.NewWriter(w)
	num := func(v float64) string {
		switch {
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	// term writes "+ |v| name" or "- |v| name", breaking lines every few terms.
	terms := 0
	term := func(v float64, name string) {
		if terms > 0 && terms%lpTermsPerLine == 0 {
			bw.WriteString("\n   ")
		}
		terms++
		sign := "+"
		if v < 0 || (v == 0 && math.Signbit(v)) {
			sign, v = "-", -v
		}
		fmt.Fprintf(bw, " %s %s %s", sign, num(v), name)
	}
	fmt.Fprintf(bw, "\\ %s\n", strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, m.Name))
	if m.Maximize {
		bw.WriteString("Maximize\n")
	} else {
		bw.WriteString("Minimize\n")
	}
	fmt.Fprintf(bw, " %s:", obj)
	for j, c := range cols {
		term(m.Cost[j], c)
	}
	if m.H != nil && m.H.Nnz() > 0 {
		bw.WriteString("\n + [")
		terms = 0
		for j := 0; j < m.H.Cols; j++ {
			for k := m.H.ColPtr[j]; k < m.H.ColPtr[j+1]; k++ {
				i := m.H.RowIdx[k]
				if i == j {
					term(m.H.Val[k], cols[j]+" ^ 2")
				} else {
					term(2*m.H.Val[k], cols[i]+" * "+cols[j])
				}
			}
		}
		bw.WriteString(" ] / 2")
	}
	if c := m.ObjConstant; c != 0 {
		if c < 0 {
			fmt.Fprintf(bw, "\n - %s", num(-c))
		} else {
			fmt.Fprintf(bw, "\n + %s", num(c))
		}
	}
	bw.WriteString("\nSubject To\n")
	at := m.A.Transpose() // rows as columns
	for i, r := range rows {
		fmt.Fprintf(bw, " %s:", r)
		lo, up := m.RowLo[i], m.RowUp[i]
		if lo != up && !math.IsInf(lo, -1) && !math.IsInf(up, 1) {
			fmt.Fprintf(bw, " %s <=", num(lo))
		}
		terms = 0
		for k := at.ColPtr[i]; k < at.ColPtr[i+1]; k++ {
			term(at.Val[k], cols[at.RowIdx[k]])
		}
		if terms == 0 {
			term(0, cols[0]) // an empty row
		}
		switch {
		case lo == up:
			fmt.Fprintf(bw, " = %s\n", num(up))
		case math.IsInf(up, 1):
			fmt.Fprintf(bw, " >= %s\n", num(lo))
		default:
			fmt.Fprintf(bw, " <= %s\n", num(up))
		}
	}
	bw.WriteString("Bounds\n")
	for j, c := range cols {
		lo, up := m.ColLo[j], m.ColUp[j]
		if lo == 0 && !math.Signbit(lo) && math.IsInf(up, 1) {
			continue
		}
		fmt.Fprintf(bw, " %s <= %s <= %s\n", num(lo), c, num(up))
	}
	bw.WriteString("End\n")
	return bw.Flush()
}

// LPNames returns the column and row names WriteLP writes for m: a valid LP
// name (not empty, starting with a letter or one of !"#$%&(),;?@_`'{}|~,
// continuing with those, digits, '.' or '/', and none of inf, infinity, free
// in any case) is kept; any other becomes "_" followed by the name with every
// character that may not continue a name replaced by '_' ("C------1" →
// "_C______1", "000002" → "_000002"), with "~2", "~3", … appended when that
// collides with another name of the same kind.
func LPNames(m *Model) (cols, rows []string) {
	return lpNames(m.ColNames), lpNames(m.RowNames)
}

func lpNames(names []string) []string {
	out := make([]string, len(names))
	used := make(map[string]bool, len(names))
	for _, s := range names {
		if lpName(s) {
			used[s] = true
		}
	}
	for i, s := range names {
		if lpName(s) {
			out[i] = s
			continue
		}
		b := []byte("_" + s)
		for k := 1; k < len(b); k++ {
			if !isNameChar(b[k]) {
				b[k] = '_'
			}
		}
		cand := string(b)
		for k := 2; used[cand]; k++ {
			cand = string(b) + "~" + strconv.Itoa(k)
		}
		used[cand] = true
		out[i] = cand
	}
	return out
}

// lpName reports whether s can be written as a name in an LP file that
// ReadLP reads back as the same name.
func lpName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "inf", "infinity", "free":
		return false
	}
	return true
}
