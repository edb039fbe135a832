package mathprog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/sparse"
)

// Limits bound what a reader accepts; a file that exceeds one fails with
// ErrTooLarge before anything of that size is allocated. Zero fields mean the
// defaults of DefaultLimits.
type Limits struct {
	MaxRows, MaxCols int // rows and columns
	MaxNonzeros      int // entries of A plus entries of H
	MaxLineBytes     int // length of one line
}

// DefaultLimits are the limits used for zero fields: 50 million rows,
// columns and nonzeros (a few GB of memory), lines of 1 MiB.
func DefaultLimits() Limits {
	return Limits{MaxRows: 50_000_000, MaxCols: 50_000_000, MaxNonzeros: 50_000_000, MaxLineBytes: 1 << 20}
}

func (l Limits) filled() Limits {
	d := DefaultLimits()
	if l.MaxRows <= 0 {
		l.MaxRows = d.MaxRows
	}
	if l.MaxCols <= 0 {
		l.MaxCols = d.MaxCols
	}
	if l.MaxNonzeros <= 0 {
		l.MaxNonzeros = d.MaxNonzeros
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = d.MaxLineBytes
	}
	return l
}

// ReadMPS reads an MPS file, free or fixed format (detected line by line:
// a line is split at white space, and at the fixed columns 2–3, 5–12, 15–22,
// 25–36, 40–47, 50–61 when that fails, so fixed-format names may contain
// blanks), with the extensions of QPS and of CPLEX:
//
//   - NAME, ROWS (N, E, L, G), COLUMNS, RHS, RANGES, BOUNDS, ENDATA;
//   - OBJSENSE (MAX/MAXIMIZE/MIN/MINIMIZE on the next line or the same line),
//     OBJNAME (which N row is the objective; default the first);
//   - QUADOBJ (one triangle of H, objective ½xᵀHx) and QMATRIX (all of H);
//   - RHS, RANGES and BOUNDS vectors may carry a set name (the line then has
//     an odd number of fields); only the first set of each section is used,
//     as CPLEX does — a set may have any name, "1" included;
//   - an RHS entry on the objective row is minus the objective constant;
//   - ranges R on row bounds: E → [rhs, rhs+|R|] for R ≥ 0, [rhs+R, rhs] for
//     R < 0; L → [rhs−|R|, rhs]; G → [rhs, rhs+|R|];
//   - bound types UP, LO, FX, FR, MI, PL; a negative UP bound on a column
//     whose lower bound was not set makes the lower bound −∞ (the MPS
//     convention that CPLEX and HiGHS follow, with a warning);
//   - integer markers (MARKER lines) and integer bound types (BV, LI, UI, SC)
//     fail with ErrInteger; sections such as QCMATRIX, SOS, INDICATORS fail
//     with ErrUnsupported.
//
// Columns default to [0, +∞). Free rows other than the objective are dropped.
func ReadMPS(r io.Reader, lim Limits) (*Model, error) {
	p := &mpsParser{lim: lim.filled(), rowIdx: map[string]int{}, colIdx: map[string]int{}, objRow: -1}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), p.lim.MaxLineBytes)
	for sc.Scan() {
		p.line++
		if err := p.handle(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return nil, err
		}
		if p.done {
			break
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &SyntaxError{"MPS", p.line + 1, fmt.Sprintf("line longer than %d bytes", p.lim.MaxLineBytes), ErrTooLarge}
		}
		return nil, fmt.Errorf("mathprog: reading MPS: %w", err)
	}
	return p.model()
}

type mpsParser struct {
	lim     Limits
	line    int
	section string
	done    bool

	name       string
	maximize   bool
	objName    string
	objRow     int // index in rowKinds of the objective, -1 before it is known
	rowNames   []string
	rowKinds   []byte // 'N', 'E', 'L', 'G'
	rowIdx     map[string]int
	colNames   []string
	colIdx     map[string]int
	ai, aj     []int
	av         []float64
	cost       []float64
	objConst   float64
	rhs        []float64
	rng        []float64
	hasRange   []bool
	colLo      []float64
	colUp      []float64
	loSet      []bool
	hi, hj     []int
	hv         []float64
	setRHS     *string
	setRanges  *string
	setBounds  *string
	sawColumns bool
}

func (p *mpsParser) errf(sentinel error, format string, args ...any) error {
	return &SyntaxError{Format: "MPS", Line: p.line, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

func (p *mpsParser) handle(line string) error {
	if len(strings.TrimSpace(line)) == 0 || line[0] == '*' {
		return nil
	}
	if line[0] != ' ' && line[0] != '\t' {
		return p.header(line)
	}
	if p.section == "" {
		return p.errf(ErrSyntax, "data line before any section")
	}
	err := p.data(strings.Fields(line))
	if err != nil && errors.Is(err, ErrSyntax) && len(line) > 4 {
		// Fixed format: names may contain blanks; retry with the fixed fields.
		if err2 := p.data(fixedFields(line, p.section == "ROWS" || p.section == "BOUNDS")); err2 == nil {
			return nil
		}
	}
	return err
}

// fixedFields splits a fixed-format MPS line at columns 2–3, 5–12, 15–22,
// 25–36, 40–47, 50–61 (1-based), dropping empty fields.
func fixedFields(line string, typed bool) []string {
	spans := [][2]int{{1, 3}, {4, 12}, {14, 22}, {24, 36}, {39, 47}, {49, 61}}
	var out []string
	for k, s := range spans {
		if k == 0 && !typed {
			continue
		}
		if s[0] >= len(line) {
			break
		}
		f := strings.TrimSpace(line[s[0]:min(s[1], len(line))])
		if k == len(spans)-1 && len(line) > s[1] {
			f = strings.TrimSpace(line[s[0]:])
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func (p *mpsParser) header(line string) error {
	f := strings.Fields(line)
	key := strings.ToUpper(f[0])
	switch key {
	case "NAME":
		if len(f) > 1 {
			p.name = strings.TrimSpace(line[4:])
		}
	case "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS", "QUADOBJ", "QMATRIX":
		if key == "COLUMNS" {
			p.sawColumns = true
		}
		if len(f) > 1 {
			return p.errf(ErrSyntax, "unexpected text %q after section %s", strings.Join(f[1:], " "), key)
		}
	case "OBJSENSE", "OBJSENSE:":
		key = "OBJSENSE"
		if len(f) > 1 {
			if err := p.sense(f[1]); err != nil {
				return err
			}
		}
	case "OBJNAME", "OBJNAME:":
		key = "OBJNAME"
		if len(f) > 1 {
			p.objName = f[1]
		}
	case "ENDATA":
		p.done = true
	case "MARKER":
		return p.errf(ErrInteger, "integer MARKER line: privopt solves continuous problems only")
	case "QSECTION", "QCMATRIX", "SOS", "INDICATORS", "CSECTION", "GENERAL", "GENERALS", "BINARY", "BINARIES", "SEMI-CONTINUOUS", "LAZYCONS", "USERCUTS", "PWLOBJ":
		return p.errf(ErrUnsupported, "section %s is not supported (privopt reads LPs and convex QPs with QUADOBJ or QMATRIX)", key)
	default:
		return p.errf(ErrSyntax, "unknown section %q", f[0])
	}
	p.section = key
	return nil
}

func (p *mpsParser) sense(s string) error {
	switch strings.ToUpper(s) {
	case "MAX", "MAXIMIZE", "MAXIMISE":
		p.maximize = true
	case "MIN", "MINIMIZE", "MINIMISE":
		p.maximize = false
	default:
		return p.errf(ErrSyntax, "OBJSENSE is %q, want MAX or MIN", s)
	}
	return nil
}

func (p *mpsParser) number(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		u := strings.ToUpper(strings.TrimLeft(s, "+-"))
		if u == "INF" || u == "INFINITY" || u == "1E+30" {
			if strings.HasPrefix(s, "-") {
				return math.Inf(-1), nil
			}
			return math.Inf(1), nil
		}
		return 0, p.errf(ErrSyntax, "%q is not a number", s)
	}
	if math.IsNaN(v) {
		return 0, p.errf(ErrSyntax, "%q is not a number", s)
	}
	// CPLEX and HiGHS treat |v| ≥ 1e30 as infinite.
	if v >= 1e30 {
		return math.Inf(1), nil
	}
	if v <= -1e30 {
		return math.Inf(-1), nil
	}
	return v, nil
}

func (p *mpsParser) data(f []string) error {
	switch p.section {
	case "NAME":
		return nil
	case "OBJSENSE":
		if len(f) != 1 {
			return p.errf(ErrSyntax, "OBJSENSE line has %d fields, want 1 (MAX or MIN)", len(f))
		}
		return p.sense(f[0])
	case "OBJNAME":
		if len(f) != 1 {
			return p.errf(ErrSyntax, "OBJNAME line has %d fields, want 1", len(f))
		}
		p.objName = f[0]
		return nil
	case "ROWS":
		return p.row(f)
	case "COLUMNS":
		return p.column(f)
	case "RHS", "RANGES":
		return p.rhsLine(f)
	case "BOUNDS":
		return p.bound(f)
	case "QUADOBJ", "QMATRIX":
		return p.quad(f)
	}
	return p.errf(ErrSyntax, "data line in section %s", p.section)
}

func (p *mpsParser) row(f []string) error {
	if len(f) != 2 {
		return p.errf(ErrSyntax, "ROWS line has %d fields, want 2 (type, name)", len(f))
	}
	t := strings.ToUpper(f[0])
	if len(t) != 1 || !strings.Contains("NELG", t) {
		return p.errf(ErrSyntax, "row type %q, want N, E, L or G", f[0])
	}
	if _, dup := p.rowIdx[f[1]]; dup {
		return p.errf(ErrSyntax, "row %q declared twice", f[1])
	}
	if len(p.rowNames) >= p.lim.MaxRows {
		return p.errf(ErrTooLarge, "more than %d rows", p.lim.MaxRows)
	}
	p.rowIdx[f[1]] = len(p.rowNames)
	p.rowNames = append(p.rowNames, f[1])
	p.rowKinds = append(p.rowKinds, t[0])
	if t == "N" && p.objRow < 0 && (p.objName == "" || p.objName == f[1]) {
		p.objRow = len(p.rowNames) - 1
	}
	return nil
}

func (p *mpsParser) col(name string, create bool) (int, error) {
	if j, ok := p.colIdx[name]; ok {
		return j, nil
	}
	if !create {
		return 0, p.errf(ErrSyntax, "unknown column %q", name)
	}
	if len(p.colNames) >= p.lim.MaxCols {
		return 0, p.errf(ErrTooLarge, "more than %d columns", p.lim.MaxCols)
	}
	j := len(p.colNames)
	p.colIdx[name] = j
	p.colNames = append(p.colNames, name)
	p.cost = append(p.cost, 0)
	p.colLo = append(p.colLo, 0)
	p.colUp = append(p.colUp, math.Inf(1))
	p.loSet = append(p.loSet, false)
	return j, nil
}

func (p *mpsParser) rowOf(name string) (int, error) {
	i, ok := p.rowIdx[name]
	if !ok {
		return 0, p.errf(ErrSyntax, "unknown row %q", name)
	}
	return i, nil
}

func (p *mpsParser) column(f []string) error {
	for _, s := range f {
		if strings.EqualFold(strings.Trim(s, "'"), "MARKER") {
			return p.errf(ErrInteger, "integer MARKER line (%s): privopt solves continuous problems only", strings.Join(f, " "))
		}
	}
	if len(f) != 3 && len(f) != 5 {
		return p.errf(ErrSyntax, "COLUMNS line has %d fields, want 3 or 5 (column, row, value[, row, value])", len(f))
	}
	type entry struct {
		i int
		v float64
	}
	var es []entry
	for k := 1; k+1 < len(f); k += 2 {
		i, err := p.rowOf(f[k])
		if err != nil {
			return err
		}
		v, err := p.number(f[k+1])
		if err != nil {
			return err
		}
		if math.IsInf(v, 0) {
			return p.errf(ErrSyntax, "coefficient %q is infinite", f[k+1])
		}
		es = append(es, entry{i, v})
	}
	j, err := p.col(f[0], true)
	if err != nil {
		return err
	}
	for _, e := range es {
		switch {
		case e.i == p.objRow:
			p.cost[j] += e.v
		case p.rowKinds[e.i] == 'N':
		default:
			if len(p.av) >= p.lim.MaxNonzeros {
				return p.errf(ErrTooLarge, "more than %d nonzeros", p.lim.MaxNonzeros)
			}
			p.ai = append(p.ai, e.i)
			p.aj = append(p.aj, j)
			p.av = append(p.av, e.v)
		}
	}
	return nil
}

// setName splits off the optional set name of an RHS/RANGES line (name, value
// pairs after it).
func setName(f []string) (string, []string) {
	if len(f)%2 == 1 {
		return f[0], f[1:]
	}
	return "", f
}

// firstSet reports whether a line of set name belongs to the first set of its
// section, recording name as the first set if none was seen.
func firstSet(first **string, name string) bool {
	if *first == nil {
		*first = &name
	}
	return **first == name
}

func (p *mpsParser) rhsLine(f []string) error {
	if p.rhs == nil {
		p.rhs = make([]float64, len(p.rowNames))
		p.rng = make([]float64, len(p.rowNames))
		p.hasRange = make([]bool, len(p.rowNames))
	}
	if len(f) < 2 || len(f) > 5 {
		return p.errf(ErrSyntax, "%s line has %d fields, want [set] row value [row value]", p.section, len(f))
	}
	first := &p.setRHS
	if p.section == "RANGES" {
		first = &p.setRanges
	}
	set, pairs := setName(f)
	type entry struct {
		i int
		v float64
	}
	var es []entry
	for k := 0; k+1 < len(pairs); k += 2 {
		i, err := p.rowOf(pairs[k])
		if err != nil {
			return err
		}
		v, err := p.number(pairs[k+1])
		if err != nil {
			return err
		}
		es = append(es, entry{i, v})
	}
	if !firstSet(first, set) {
		return nil
	}
	for _, e := range es {
		switch {
		case p.section == "RHS" && e.i == p.objRow:
			if math.IsInf(e.v, 0) {
				return p.errf(ErrSyntax, "objective constant %v is infinite", e.v)
			}
			p.objConst = -e.v
		case p.rowKinds[e.i] == 'N':
		case p.section == "RHS":
			p.rhs[e.i] = e.v
		default:
			if math.IsInf(e.v, 0) {
				return p.errf(ErrSyntax, "range %v of row %q is infinite", e.v, p.rowNames[e.i])
			}
			p.rng[e.i], p.hasRange[e.i] = e.v, true
		}
	}
	return nil
}

func (p *mpsParser) bound(f []string) error {
	if len(f) < 2 {
		return p.errf(ErrSyntax, "BOUNDS line has %d fields, want type [set] column [value]", len(f))
	}
	t := strings.ToUpper(f[0])
	rest := f[1:]
	valued := true
	switch t {
	case "UP", "LO", "FX":
	case "FR", "MI", "PL":
		valued = false
	case "BV", "LI", "UI", "SC":
		return p.errf(ErrInteger, "bound type %s declares an integer or semi-continuous column: privopt solves continuous problems only", t)
	default:
		return p.errf(ErrSyntax, "bound type %q, want UP, LO, FX, FR, MI or PL", f[0])
	}
	var set, name, val string
	switch {
	case valued && len(rest) == 3:
		set, name, val = rest[0], rest[1], rest[2]
	case valued && len(rest) == 2:
		name, val = rest[0], rest[1]
	case !valued && len(rest) == 1:
		name = rest[0]
	case !valued && len(rest) == 2:
		// [set] column, or column value (a value some writers add to FR/MI/PL).
		if _, ok := p.colIdx[rest[0]]; ok {
			if _, err := strconv.ParseFloat(rest[1], 64); err == nil {
				name = rest[0]
				break
			}
		}
		set, name = rest[0], rest[1]
	case !valued && len(rest) == 3:
		set, name = rest[0], rest[1]
	default:
		return p.errf(ErrSyntax, "BOUNDS line of type %s has %d fields", t, len(f))
	}
	j, err := p.col(name, false)
	if err != nil {
		return err
	}
	var v float64
	if valued {
		if v, err = p.number(val); err != nil {
			return err
		}
	}
	if !firstSet(&p.setBounds, set) {
		return nil
	}
	switch t {
	case "UP":
		p.colUp[j] = v
		if v < 0 && !p.loSet[j] && p.colLo[j] == 0 {
			p.colLo[j] = math.Inf(-1)
		}
	case "LO":
		p.colLo[j], p.loSet[j] = v, true
	case "FX":
		p.colLo[j], p.colUp[j], p.loSet[j] = v, v, true
	case "FR":
		p.colLo[j], p.colUp[j], p.loSet[j] = math.Inf(-1), math.Inf(1), true
	case "MI":
		p.colLo[j], p.loSet[j] = math.Inf(-1), true
	case "PL":
		p.colUp[j] = math.Inf(1)
	}
	return nil
}

func (p *mpsParser) quad(f []string) error {
	if len(f) != 3 {
		return p.errf(ErrSyntax, "%s line has %d fields, want column column value", p.section, len(f))
	}
	i, err := p.col(f[0], false)
	if err != nil {
		return err
	}
	j, err := p.col(f[1], false)
	if err != nil {
		return err
	}
	v, err := p.number(f[2])
	if err != nil {
		return err
	}
	if math.IsInf(v, 0) {
		return p.errf(ErrSyntax, "Hessian entry %q is infinite", f[2])
	}
	if i > j {
		i, j = j, i
	}
	if p.section == "QMATRIX" && i != j {
		v /= 2 // both (i,j) and (j,i) are listed
	}
	if len(p.av)+len(p.hv) >= p.lim.MaxNonzeros {
		return p.errf(ErrTooLarge, "more than %d nonzeros", p.lim.MaxNonzeros)
	}
	p.hi = append(p.hi, i)
	p.hj = append(p.hj, j)
	p.hv = append(p.hv, v)
	return nil
}

func (p *mpsParser) model() (*Model, error) {
	if !p.done {
		return nil, p.errf(ErrSyntax, "missing ENDATA")
	}
	if p.objName != "" && (p.objRow < 0 || p.rowNames[p.objRow] != p.objName) {
		i, ok := p.rowIdx[p.objName]
		if !ok || p.rowKinds[i] != 'N' {
			return nil, p.errf(ErrSyntax, "OBJNAME %q is not an N row", p.objName)
		}
		p.objRow = i
	}
	// keep the constraint rows (not N) in order
	keep := make([]int, len(p.rowNames))
	m := &Model{Name: p.name, Maximize: p.maximize, ColNames: p.colNames, Cost: p.cost,
		ObjConstant: p.objConst, ColLo: p.colLo, ColUp: p.colUp}
	if p.objRow >= 0 {
		m.ObjName = p.rowNames[p.objRow]
	}
	if m.Cost == nil {
		m.Cost, m.ColLo, m.ColUp = []float64{}, []float64{}, []float64{}
	}
	for i, k := range p.rowKinds {
		if k == 'N' {
			keep[i] = -1
			continue
		}
		keep[i] = len(m.RowNames)
		m.RowNames = append(m.RowNames, p.rowNames[i])
		var rhs, r float64
		var ranged bool
		if p.rhs != nil {
			rhs, r, ranged = p.rhs[i], p.rng[i], p.hasRange[i]
		}
		lo, up := rhs, rhs
		switch k {
		case 'L':
			lo = math.Inf(-1)
			if ranged {
				lo = rhs - math.Abs(r)
			}
		case 'G':
			up = math.Inf(1)
			if ranged {
				up = rhs + math.Abs(r)
			}
		case 'E':
			if ranged && r >= 0 {
				up = rhs + r
			} else if ranged {
				lo = rhs + r
			}
		}
		m.RowLo = append(m.RowLo, lo)
		m.RowUp = append(m.RowUp, up)
	}
	n := len(p.colNames)
	t := sparse.NewTriplets(len(m.RowNames), n, len(p.av))
	for k := range p.av {
		t.Append(keep[p.ai[k]], p.aj[k], p.av[k])
	}
	m.A = t.ToCSC()
	if len(p.hv) > 0 {
		h := sparse.NewTriplets(n, n, len(p.hv))
		for k := range p.hv {
			h.Append(p.hi[k], p.hj[k], p.hv[k])
		}
		m.H = h.ToCSC()
	}
	if m.RowLo == nil {
		m.RowLo, m.RowUp = []float64{}, []float64{}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}
