package grid

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Minimum column counts accepted per matrix (MATPOWER caseformat, version 2). The
// branch angle-limit columns 12–13 are optional (absent means unlimited, as in
// MATPOWER's ext2int of older cases); further columns (solution data) are ignored.
const (
	busCols     = 13
	genCols     = 10
	branchCols  = 11
	gencostCols = 4
)

// rawMatrix is a numeric matrix as written in the file: one token slice per row
// and the source line of each row.
type rawMatrix struct {
	name  string
	line  int // line of "mpc.name = ["
	rows  [][]string
	lines []int
}

// ReadCase reads a case file by its extension: ".json" a PowerModels JSON
// network (ParsePMJSON, errors prefixed with the path), ".raw" a PSS/E RAW file
// (ParseRAW, likewise), anything else a MATPOWER case (see ParseMATPOWER). The
// case is named after the "function mpc = NAME" line (MATPOWER), the "name"
// field (JSON), or the file name without extension.
func ReadCase(path string) (*Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	defer f.Close()
	parse, named := ParseMATPOWER, false
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		parse, named = ParsePMJSON, true
	case ".raw":
		parse, named = ParseRAW, true
	}
	c, err := parse(f)
	if err != nil {
		if named {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return c, nil
}

// ParseMATPOWER parses a MATPOWER case in format version 2 (the "mpc.field = …"
// m-file syntax used by MATPOWER and PGLib-OPF): the scalar mpc.baseMVA and the
// matrices mpc.bus, mpc.gen, mpc.branch and mpc.gencost. It accepts "%" comments
// (whole lines or trailing), rows separated by ";" and/or newlines, elements by
// blanks or commas, "..." continuations, Inf/NaN literals, and skips any other
// field (areas, gentype cell arrays, …). Indexed assignments
// "mpc.FIELD(i, j) = number;" (i may be ":") are applied in file order; any
// other statement than these, function, end, endfunction and return is an
// error (never skipped). The result is validated with Case.Validate; errors
// name the matrix, row and line.
func ParseMATPOWER(r io.Reader) (*Case, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	mats := map[string]*rawMatrix{}
	scalars := map[string]string{}
	scalarLines := map[string]int{}
	var name string
	var cur *rawMatrix // non-nil while inside "[ … ]"
	var row []string
	var inCell bool
	lineNo := 0
	endRow := func() {
		if len(row) > 0 {
			cur.rows = append(cur.rows, row)
			cur.lines = append(cur.lines, lineNo)
			row = nil
		}
	}
	for sc.Scan() {
		lineNo++
		line := stripComment(sc.Text())
		if inCell {
			if strings.Contains(line, "}") {
				inCell = false
			}
			continue
		}
		if cur == nil {
			t := strings.TrimSpace(line)
			if t == "" {
				continue
			}
			if strings.HasPrefix(t, "function") {
				if i := strings.Index(t, "="); i >= 0 {
					name = strings.TrimSpace(t[i+1:])
				} else {
					name = strings.TrimSpace(strings.TrimPrefix(t, "function"))
				}
				continue
			}
			if ix, ok, err := parseIndexed(t, lineNo); ok {
				if err != nil {
					return nil, err
				}
				if mats[ix.field] == nil && (ix.field == "bus" || ix.field == "gen" || ix.field == "branch" || ix.field == "gencost") {
					return nil, formatErr(ix.field, 0, lineNo, "indexed assignment %q before the matrix is defined", t)
				}
				if m := mats[ix.field]; m != nil {
					if err := m.assign(ix); err != nil {
						return nil, err
					}
				}
				continue
			}
			field, rest, ok := splitAssignment(t)
			if !ok {
				if knownStatement(t) {
					continue
				}
				return nil, formatErr("", 0, lineNo, "statement %q is not understood (the parser reads mpc.FIELD = value, mpc.FIELD = [ … ], mpc.FIELD(i, j) = number, function, end and return)", t)
			}
			switch {
			case strings.HasPrefix(rest, "["):
				cur = &rawMatrix{name: field, line: lineNo}
				line = rest[1:]
			case strings.HasPrefix(rest, "{"):
				if !strings.Contains(rest, "}") {
					inCell = true
				}
				continue
			default:
				scalars[field] = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), ";"))
				scalarLines[field] = lineNo
				continue
			}
		}
		// Inside a matrix: consume up to "]" if present.
		closed := false
		if i := strings.Index(line, "]"); i >= 0 {
			line = line[:i]
			closed = true
		}
		cont := false
		if i := strings.Index(line, "..."); i >= 0 {
			line = line[:i]
			cont = true
		}
		parts := strings.Split(line, ";")
		for k, p := range parts {
			row = append(row, strings.FieldsFunc(p, func(r rune) bool {
				return r == ' ' || r == '\t' || r == ',' || r == '\r'
			})...)
			if k < len(parts)-1 {
				endRow()
			}
		}
		if !cont || closed {
			endRow()
		}
		if closed {
			mats[cur.name] = cur
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("grid: reading case: %w", err)
	}
	if cur != nil {
		return nil, formatErr(cur.name, 0, cur.line, "matrix opened here is never closed with ']'")
	}

	c := &Case{Name: name}
	if v, ok := scalars["version"]; ok {
		if s := strings.Trim(v, "'\""); s != "2" {
			return nil, formatErr("version", 0, scalarLines["version"], "MATPOWER case format version %q is not supported, need '2'", s)
		}
	}
	bv, ok := scalars["baseMVA"]
	if !ok {
		return nil, formatErr("baseMVA", 0, 0, "missing (need mpc.baseMVA = …)")
	}
	base, err := strconv.ParseFloat(bv, 64)
	if err != nil {
		return nil, formatErr("baseMVA", 0, scalarLines["baseMVA"], "%q is not a number", bv)
	}
	c.BaseMVA = base
	for _, need := range []string{"bus", "gen", "branch", "gencost"} {
		if _, ok := mats[need]; !ok {
			return nil, formatErr(need, 0, 0, "matrix missing (need mpc.%s = [ … ];)", need)
		}
	}
	if c.Buses, err = parseBuses(mats["bus"]); err != nil {
		return nil, err
	}
	if c.Gens, err = parseGens(mats["gen"]); err != nil {
		return nil, err
	}
	if c.Branches, err = parseBranches(mats["branch"]); err != nil {
		return nil, err
	}
	if c.Costs, err = parseCosts(mats["gencost"], len(c.Gens)); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// knownStatement reports whether t is one of the non-assignment statements a
// case file may contain and the parser may skip: end, return, endfunction.
func knownStatement(t string) bool {
	switch strings.TrimSuffix(strings.TrimSpace(t), ";") {
	case "end", "return", "endfunction":
		return true
	}
	return false
}

// indexed is an indexed assignment "mpc.FIELD(i, j) = v;" (1-based; i may be
// ":" for every row).
type indexed struct {
	field    string
	row, col int // row 0: every row
	value    string
	line     int
}

// parseIndexed recognizes "mpc.FIELD(i, j) = number;". ok reports that t has
// the shape "X.FIELD(…) = …"; err is set when the indices or the value are
// not understood (an assignment is applied or rejected, never skipped).
func parseIndexed(t string, line int) (ix indexed, ok bool, err error) {
	eq := strings.Index(t, "=")
	if eq < 0 {
		return ix, false, nil
	}
	lhs := strings.TrimSpace(t[:eq])
	open := strings.Index(lhs, "(")
	dot := strings.Index(lhs, ".")
	if open < 0 || dot < 0 || dot > open || !strings.HasSuffix(lhs, ")") {
		return ix, false, nil
	}
	ix.field, ix.line = strings.TrimSpace(lhs[dot+1:open]), line
	bad := func(why string) (indexed, bool, error) {
		return ix, true, formatErr(ix.field, 0, line, "indexed assignment %q: %s", t, why)
	}
	args := strings.Split(lhs[open+1:len(lhs)-1], ",")
	if len(args) != 2 {
		return bad("need two indices (row, column)")
	}
	r, c := strings.TrimSpace(args[0]), strings.TrimSpace(args[1])
	if r != ":" {
		v, e := strconv.Atoi(r)
		if e != nil || v < 1 {
			return bad(fmt.Sprintf("row index %q must be a positive integer or ':'", r))
		}
		ix.row = v
	}
	v, e := strconv.Atoi(c)
	if e != nil || v < 1 || v > 1000 {
		return bad(fmt.Sprintf("column index %q must be an integer in [1, 1000]", c))
	}
	ix.col = v
	val := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t[eq+1:]), ";"))
	if _, e := strconv.ParseFloat(val, 64); e != nil {
		return bad(fmt.Sprintf("value %q must be a number", val))
	}
	ix.value = val
	return ix, true, nil
}

// assign applies an indexed assignment; a column beyond a row's end extends
// the row with zeros (MATLAB's semantics), a row beyond the matrix is an error.
func (m *rawMatrix) assign(ix indexed) error {
	if ix.row > len(m.rows) {
		return formatErr(m.name, ix.row, ix.line, "indexed assignment to row %d, but the matrix has %d rows", ix.row, len(m.rows))
	}
	lo, hi := 0, len(m.rows)
	if ix.row > 0 {
		lo, hi = ix.row-1, ix.row
	}
	for i := lo; i < hi; i++ {
		for len(m.rows[i]) < ix.col {
			m.rows[i] = append(m.rows[i], "0")
		}
		m.rows[i][ix.col-1] = ix.value
	}
	return nil
}

// stripComment removes a "%" comment, ignoring "%" inside single-quoted strings.
func stripComment(s string) string {
	inStr := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\'':
			inStr = !inStr
		case '%':
			if !inStr {
				return s[:i]
			}
		}
	}
	return s
}

// splitAssignment recognises "struct.field = rest" and returns field and rest.
func splitAssignment(t string) (field, rest string, ok bool) {
	eq := strings.Index(t, "=")
	if eq < 0 {
		return "", "", false
	}
	lhs := strings.TrimSpace(t[:eq])
	dot := strings.Index(lhs, ".")
	if dot < 0 || strings.ContainsAny(lhs, " \t()") {
		return "", "", false
	}
	return lhs[dot+1:], strings.TrimSpace(t[eq+1:]), true
}

// numbers converts the tokens of row i of m, checking the column count.
func (m *rawMatrix) numbers(i, need int) ([]float64, error) {
	toks := m.rows[i]
	if len(toks) < need {
		return nil, formatErr(m.name, i+1, m.lines[i], "has %d columns, need at least %d", len(toks), need)
	}
	v := make([]float64, len(toks))
	for k, s := range toks {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, formatErr(m.name, i+1, m.lines[i], "column %d: %q is not a number", k+1, s)
		}
		v[k] = f
	}
	return v, nil
}

func (m *rawMatrix) integer(i, col int, v float64) (int, error) {
	if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
		return 0, formatErr(m.name, i+1, m.lines[i], "column %d is %v, must be an integer", col, v)
	}
	return int(v), nil
}

func parseBuses(m *rawMatrix) ([]Bus, error) {
	out := make([]Bus, len(m.rows))
	for i := range m.rows {
		v, err := m.numbers(i, busCols)
		if err != nil {
			return nil, err
		}
		id, err := m.integer(i, 1, v[0])
		if err != nil {
			return nil, err
		}
		typ, err := m.integer(i, 2, v[1])
		if err != nil {
			return nil, err
		}
		out[i] = Bus{ID: id, Type: BusType(typ), Pd: v[2], Qd: v[3], Gs: v[4], Bs: v[5], Area: int(v[6]),
			Vm: v[7], Va: v[8], BaseKV: v[9], Zone: int(v[10]), Vmax: v[11], Vmin: v[12], Line: m.lines[i]}
	}
	return out, nil
}

func parseGens(m *rawMatrix) ([]Gen, error) {
	out := make([]Gen, len(m.rows))
	for i := range m.rows {
		v, err := m.numbers(i, genCols)
		if err != nil {
			return nil, err
		}
		bus, err := m.integer(i, 1, v[0])
		if err != nil {
			return nil, err
		}
		out[i] = Gen{Bus: bus, Pg: v[1], Qg: v[2], Qmax: v[3], Qmin: v[4], Vg: v[5], MBase: v[6],
			InService: v[7] > 0, Pmax: v[8], Pmin: v[9], Line: m.lines[i]}
	}
	return out, nil
}

func parseBranches(m *rawMatrix) ([]Branch, error) {
	out := make([]Branch, len(m.rows))
	for i := range m.rows {
		v, err := m.numbers(i, branchCols)
		if err != nil {
			return nil, err
		}
		from, err := m.integer(i, 1, v[0])
		if err != nil {
			return nil, err
		}
		to, err := m.integer(i, 2, v[1])
		if err != nil {
			return nil, err
		}
		br := Branch{From: from, To: to, R: v[2], X: v[3], B: v[4], RateA: v[5], RateB: v[6], RateC: v[7],
			Ratio: v[8], Angle: v[9], InService: v[10] > 0, AngMin: -360, AngMax: 360, Line: m.lines[i]}
		if len(v) >= 13 {
			br.AngMin, br.AngMax = v[11], v[12]
		}
		out[i] = br
	}
	return out, nil
}

// parseCosts reads the first ngen rows of gencost (active power); further rows
// (reactive power costs) are checked for shape only and dropped.
func parseCosts(m *rawMatrix, ngen int) ([]GenCost, error) {
	out := make([]GenCost, 0, min(len(m.rows), ngen))
	for i := range m.rows {
		v, err := m.numbers(i, gencostCols)
		if err != nil {
			return nil, err
		}
		model, err := m.integer(i, 1, v[0])
		if err != nil {
			return nil, err
		}
		n, err := m.integer(i, 4, v[3])
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, formatErr(m.name, i+1, m.lines[i], "NCOST is %d, must be ≥ 0", n)
		}
		gc := GenCost{Model: CostModel(model), Startup: v[1], Shutdown: v[2], Line: m.lines[i]}
		switch gc.Model {
		case Polynomial:
			if len(v) < 4+n {
				return nil, formatErr(m.name, i+1, m.lines[i], "has %d columns, need at least %d for %d polynomial coefficients", len(v), 4+n, n)
			}
			cf := append([]float64(nil), v[4:4+n]...)
			for len(cf) > 3 && cf[0] == 0 {
				cf = cf[1:]
			}
			gc.Coeffs = cf
		case PiecewiseLinear:
			if len(v) < 4+2*n {
				return nil, formatErr(m.name, i+1, m.lines[i], "has %d columns, need at least %d for %d piecewise-linear points", len(v), 4+2*n, n)
			}
			for k := 0; k < n; k++ {
				gc.X = append(gc.X, v[4+2*k])
				gc.Y = append(gc.Y, v[5+2*k])
			}
		default:
			return nil, formatErr(m.name, i+1, m.lines[i], "cost model is %d, must be 1 (piecewise linear) or 2 (polynomial)", model)
		}
		if i < ngen {
			out = append(out, gc)
		}
	}
	return out, nil
}
