package mathprog

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteMPS writes m in free MPS format (QUADOBJ for H, OBJSENSE MAX for a
// maximization, RANGES for rows with two finite bounds, RHS on the objective
// row for −ObjConstant), so that ReadMPS returns the same model. Names, the
// objective's included, must be non-empty and free of blanks (free MPS
// separates fields by blanks).
func WriteMPS(w io.Writer, m *Model) error {
	if err := m.Validate(); err != nil {
		return err
	}
	obj := m.ObjName
	if obj == "" {
		obj = "OBJ"
	}
	// The objective's name too: a fixed-format file may name it "00 0".
	names := append(append([]string{obj}, m.ColNames...), m.RowNames...)
	for _, s := range names {
		if s == "" || strings.ContainsAny(s, " \t\r\n") || s[0] == '*' {
			return fmt.Errorf("mathprog: cannot write name %q in free MPS (empty, a blank, or a leading *)", s)
		}
	}
	for _, s := range m.RowNames {
		if s == obj {
			return fmt.Errorf("mathprog: a constraint row is named like the objective %q", obj)
		}
	}
	bw := bufio.NewWriter(w)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	name := m.Name
	if name == "" || strings.ContainsAny(name, " \t") {
		name = "privopt"
	}
	fmt.Fprintf(bw, "NAME %s\n", name)
	if m.Maximize {
		fmt.Fprintf(bw, "OBJSENSE\n    MAX\n")
	}
	fmt.Fprintf(bw, "ROWS\n N  %s\n", obj)
	for i, r := range m.RowNames {
		lo, up := m.RowLo[i], m.RowUp[i]
		t := "L"
		switch {
		case lo == up:
			t = "E"
		case math.IsInf(lo, -1) && math.IsInf(up, 1):
			t = "N"
		case math.IsInf(up, 1):
			t = "G"
		}
		fmt.Fprintf(bw, " %s  %s\n", t, r)
	}
	fmt.Fprintf(bw, "COLUMNS\n")
	AT := m.A // CSC: columns
	for j, c := range m.ColNames {
		// A column without cost and matrix entries is still declared (an
		// explicit zero cost): BOUNDS and QUADOBJ may only name declared
		// columns, and the column order must survive a round trip.
		if m.Cost[j] != 0 || AT.ColPtr[j] == AT.ColPtr[j+1] {
			fmt.Fprintf(bw, "    %s %s %s\n", c, obj, num(m.Cost[j]))
		}
		for k := AT.ColPtr[j]; k < AT.ColPtr[j+1]; k++ {
			fmt.Fprintf(bw, "    %s %s %s\n", c, m.RowNames[AT.RowIdx[k]], num(AT.Val[k]))
		}
	}
	fmt.Fprintf(bw, "RHS\n")
	if m.ObjConstant != 0 {
		fmt.Fprintf(bw, "    RHS %s %s\n", obj, num(-m.ObjConstant))
	}
	var ranged []int
	for i, r := range m.RowNames {
		lo, up := m.RowLo[i], m.RowUp[i]
		var rhs float64
		switch {
		case lo == up || math.IsInf(lo, -1) && !math.IsInf(up, 1):
			rhs = up
		case math.IsInf(up, 1) && !math.IsInf(lo, -1):
			rhs = lo
		case !math.IsInf(lo, -1) && !math.IsInf(up, 1):
			rhs = up // L row with range up − lo
			ranged = append(ranged, i)
		}
		if rhs != 0 {
			fmt.Fprintf(bw, "    RHS %s %s\n", r, num(rhs))
		}
	}
	if len(ranged) > 0 {
		fmt.Fprintf(bw, "RANGES\n")
		for _, i := range ranged {
			fmt.Fprintf(bw, "    RNG %s %s\n", m.RowNames[i], num(m.RowUp[i]-m.RowLo[i]))
		}
	}
	fmt.Fprintf(bw, "BOUNDS\n")
	for j, c := range m.ColNames {
		lo, up := m.ColLo[j], m.ColUp[j]
		switch {
		case lo == up:
			fmt.Fprintf(bw, " FX BND %s %s\n", c, num(lo))
			continue
		case math.IsInf(lo, -1) && math.IsInf(up, 1):
			fmt.Fprintf(bw, " FR BND %s\n", c)
			continue
		case math.IsInf(lo, -1):
			fmt.Fprintf(bw, " MI BND %s\n", c)
		case lo != 0 || up < 0:
			// an explicit lower bound also keeps a negative upper bound from
			// freeing the column (the MPS convention for UP < 0)
			fmt.Fprintf(bw, " LO BND %s %s\n", c, num(lo))
		}
		if !math.IsInf(up, 1) {
			fmt.Fprintf(bw, " UP BND %s %s\n", c, num(up))
		}
	}
	if m.H != nil && m.H.Nnz() > 0 {
		fmt.Fprintf(bw, "QUADOBJ\n")
		for j := 0; j < m.H.Cols; j++ {
			for k := m.H.ColPtr[j]; k < m.H.ColPtr[j+1]; k++ {
				fmt.Fprintf(bw, "    %s %s %s\n", m.ColNames[m.H.RowIdx[k]], m.ColNames[j], num(m.H.Val[k]))
			}
		}
	}
	fmt.Fprintf(bw, "ENDATA\n")
	return bw.Flush()
}
