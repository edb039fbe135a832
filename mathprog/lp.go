package mathprog

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/sparse"
)

// ReadLP reads the CPLEX LP format subset that LP and convex QP users write
// (the subset HiGHS, Gurobi and CPLEX all read):
//
//	\ comment
//	Minimize (or Maximize; also min, max, minimise, …)
//	  obj: 3 x + 2 y - z + 4 + [ x ^ 2 + 2 x * y + y ^ 2 ] / 2
//	Subject To (or such that, st, s.t.)
//	  c1: x + y <= 4
//	  c2: -2 <= x - y <= 3        (a ranged row)
//	  x + z >= 1                  (unnamed: R1, R2, … by position)
//	Bounds
//	  0 <= x <= 4
//	  y >= -1
//	  z free
//	End
//
// The quadratic part sits in brackets; "[ … ] / 2" is ½ of the bracket,
// so the objective is cᵀx + c₀ + ½xᵀHx with H_ii = 2a for a term a x^2 of a
// bare bracket and a for a bracket divided by 2 (off-diagonal a x*y: H_ij = a,
// resp. a/2). Constants on either side of a constraint are moved to its
// right-hand side. Variables are numbered by first appearance and default to
// [0, +∞); "-inf"/"inf"/"infinity" are infinite bounds (a negative upper bound
// keeps the lower bound 0, as CPLEX's LP reader does). General, binary and
// semi-continuous sections fail with ErrInteger; SOS sections and quadratic
// constraints with ErrUnsupported.
func ReadLP(r io.Reader, lim Limits) (*Model, error) {
	p := &lpParser{lim: lim.filled(), colIdx: map[string]int{}, rowSet: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), p.lim.MaxLineBytes)
	for sc.Scan() {
		p.line++
		if err := p.scanLine(sc.Text()); err != nil {
			return nil, err
		}
		if p.ended {
			break
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &SyntaxError{"LP", p.line + 1, fmt.Sprintf("line longer than %d bytes", p.lim.MaxLineBytes), ErrTooLarge}
		}
		return nil, fmt.Errorf("mathprog: reading LP: %w", err)
	}
	if err := p.flush(); err != nil {
		return nil, err
	}
	return p.model()
}

type tokKind int

const (
	tNum tokKind = iota
	tName
	tOp // <=, >=, =
	tPlus
	tMinus
	tColon
	tLBrack
	tRBrack
	tStar
	tCaret
	tSlash
)

type token struct {
	kind tokKind
	text string
	num  float64
	line int
}

type lpParser struct {
	lim     Limits
	line    int
	section string // "obj", "st", "bounds"
	ended   bool
	toks    []token
	sawSect bool

	maximize bool
	objName  string
	colNames []string
	colIdx   map[string]int
	cost     []float64
	objConst float64
	colLo    []float64
	colUp    []float64
	rowNames []string
	rowSet   map[string]bool
	rowLo    []float64
	rowUp    []float64
	ai, aj   []int
	av       []float64
	hi, hj   []int
	hv       []float64
}

func (p *lpParser) errf(line int, sentinel error, format string, args ...any) error {
	return &SyntaxError{Format: "LP", Line: line, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// sectionOf recognizes a section keyword at the start of a line and returns
// the section and the rest of the line.
func sectionOf(line string) (string, string, bool) {
	t := strings.TrimSpace(line)
	low := strings.ToLower(t)
	for _, k := range []struct{ word, sect string }{
		{"subject to", "st"}, {"such that", "st"}, {"s.t.", "st"}, {"st.", "st"}, {"st", "st"},
		{"minimize", "min"}, {"minimise", "min"}, {"minimum", "min"}, {"min", "min"},
		{"maximize", "max"}, {"maximise", "max"}, {"maximum", "max"}, {"max", "max"},
		{"bounds", "bounds"}, {"bound", "bounds"},
		{"generals", "int"}, {"general", "int"}, {"gen", "int"}, {"integers", "int"}, {"integer", "int"},
		{"binaries", "int"}, {"binary", "int"}, {"bin", "int"},
		{"semi-continuous", "int"}, {"semis", "int"}, {"semi", "int"},
		{"sos", "sos"}, {"end", "end"},
	} {
		if strings.HasPrefix(low, k.word) {
			rest := t[len(k.word):]
			if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
				return k.sect, rest, true
			}
		}
	}
	return "", "", false
}

func (p *lpParser) scanLine(line string) error {
	if i := strings.IndexByte(line, '\\'); i >= 0 {
		line = line[:i]
	}
	if s, rest, ok := sectionOf(line); ok {
		if err := p.flush(); err != nil {
			return err
		}
		switch s {
		case "min", "max":
			if p.sawSect {
				return p.errf(p.line, ErrSyntax, "objective section after other sections")
			}
			p.maximize = s == "max"
			p.section = "obj"
		case "st", "bounds":
			p.section = s
		case "int":
			return p.errf(p.line, ErrInteger, "section %q declares integer, binary or semi-continuous variables: privopt solves continuous problems only", strings.TrimSpace(line))
		case "sos":
			return p.errf(p.line, ErrUnsupported, "SOS constraints are not supported")
		case "end":
			p.ended = true
			return nil
		}
		p.sawSect = true
		line = rest
	}
	if strings.TrimSpace(line) == "" {
		return nil
	}
	if p.section == "" {
		return p.errf(p.line, ErrSyntax, "text before the objective section (Minimize or Maximize)")
	}
	toks, err := p.tokenize(line)
	if err != nil {
		return err
	}
	if p.section == "bounds" {
		// one bound per line
		return p.bound(toks)
	}
	p.toks = append(p.toks, toks...)
	return nil
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || strings.IndexByte("!\"#$%&(),;?@`'{}|~", c) >= 0
}

func isNameChar(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '.' || c == '/'
}

// punctuation lists the one-character tokens; punctuationKinds their kinds.
const punctuation = "+-:[]*^/"

var punctuationKinds = [...]tokKind{tPlus, tMinus, tColon, tLBrack, tRBrack, tStar, tCaret, tSlash}

func (p *lpParser) tokenize(line string) ([]token, error) {
	var out []token
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '<' || c == '>' || c == '=':
			j := i + 1
			if j < len(line) && (line[j] == '=' || line[j] == '<' || line[j] == '>') {
				j++
			}
			op := line[i:j]
			switch op {
			case "<", "<=", "=<":
				op = "<="
			case ">", ">=", "=>":
				op = ">="
			case "=", "==":
				op = "="
			default:
				return nil, p.errf(p.line, ErrSyntax, "operator %q", op)
			}
			out = append(out, token{kind: tOp, text: op, line: p.line})
			i = j
		case strings.IndexByte(punctuation, c) >= 0:
			out = append(out, token{kind: punctuationKinds[strings.IndexByte(punctuation, c)], line: p.line})
			i++
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == '.') {
				j++
			}
			if j < len(line) && (line[j] == 'e' || line[j] == 'E') {
				k := j + 1
				if k < len(line) && (line[k] == '+' || line[k] == '-') {
					k++
				}
				if k < len(line) && line[k] >= '0' && line[k] <= '9' {
					for k < len(line) && line[k] >= '0' && line[k] <= '9' {
						k++
					}
					j = k
				}
			}
			v, err := strconv.ParseFloat(line[i:j], 64)
			if err != nil {
				return nil, p.errf(p.line, ErrSyntax, "%q is not a number", line[i:j])
			}
			out = append(out, token{kind: tNum, num: v, text: line[i:j], line: p.line})
			i = j
		case isNameStart(c):
			j := i + 1
			for j < len(line) && isNameChar(line[j]) {
				j++
			}
			name := line[i:j]
			switch strings.ToLower(name) {
			case "inf", "infinity":
				out = append(out, token{kind: tNum, num: math.Inf(1), text: name, line: p.line})
			default:
				out = append(out, token{kind: tName, text: name, line: p.line})
			}
			i = j
		default:
			return nil, p.errf(p.line, ErrSyntax, "unexpected character %q", c)
		}
	}
	return out, nil
}

func (p *lpParser) col(name string, line int) (int, error) {
	if j, ok := p.colIdx[name]; ok {
		return j, nil
	}
	if len(p.colNames) >= p.lim.MaxCols {
		return 0, p.errf(line, ErrTooLarge, "more than %d columns", p.lim.MaxCols)
	}
	j := len(p.colNames)
	p.colIdx[name] = j
	p.colNames = append(p.colNames, name)
	p.cost = append(p.cost, 0)
	p.colLo = append(p.colLo, 0)
	p.colUp = append(p.colUp, math.Inf(1))
	return j, nil
}

// linear is a parsed affine expression Σ coef·x_col + constant (+ quadratic terms).
type linear struct {
	cols     []int
	coefs    []float64
	constant float64
	qi, qj   []int
	qv       []float64 // coefficient of x_i·x_j as written (i ≤ j)
}

// flush parses the tokens gathered for the objective or constraint section.
func (p *lpParser) flush() error {
	toks := p.toks
	p.toks = nil
	if len(toks) == 0 {
		return nil
	}
	switch p.section {
	case "obj":
		if len(toks) >= 2 && toks[0].kind == tName && toks[1].kind == tColon {
			p.objName = toks[0].text
			toks = toks[2:]
		}
		e, rest, err := p.expr(toks, true)
		if err != nil {
			return err
		}
		if len(rest) > 0 {
			return p.errf(rest[0].line, ErrSyntax, "unexpected token after the objective")
		}
		for k, j := range e.cols {
			p.cost[j] += e.coefs[k]
		}
		p.objConst += e.constant
		for k := range e.qv {
			if len(p.av)+len(p.hv) >= p.lim.MaxNonzeros {
				return p.errf(toks[0].line, ErrTooLarge, "more than %d nonzeros", p.lim.MaxNonzeros)
			}
			p.hi = append(p.hi, e.qi[k])
			p.hj = append(p.hj, e.qj[k])
			v := e.qv[k]
			if e.qi[k] == e.qj[k] {
				v *= 2 // a·x² = ½·(2a)·x²
			}
			p.hv = append(p.hv, v)
		}
		return nil
	case "st":
		for len(toks) > 0 {
			var err error
			if toks, err = p.constraint(toks); err != nil {
				return err
			}
		}
	}
	return nil
}

// signedNumber parses [+|-] number at the start of toks.
func signedNumber(toks []token) (float64, int, bool) {
	s, k := 1.0, 0
	for k < len(toks) && (toks[k].kind == tPlus || toks[k].kind == tMinus) {
		if toks[k].kind == tMinus {
			s = -s
		}
		k++
	}
	if k < len(toks) && toks[k].kind == tNum {
		return s * toks[k].num, k + 1, true
	}
	return 0, 0, false
}

func (p *lpParser) constraint(toks []token) ([]token, error) {
	line := toks[0].line
	name := ""
	if len(toks) >= 2 && toks[0].kind == tName && toks[1].kind == tColon {
		name = toks[0].text
		toks = toks[2:]
	}
	lo, up := math.Inf(-1), math.Inf(1)
	// ranged row "l <= expr <= u" (or with >=)
	var leftOp string
	var left float64
	if v, k, ok := signedNumber(toks); ok && k < len(toks) && toks[k].kind == tOp {
		left, leftOp = v, toks[k].text
		toks = toks[k+1:]
	}
	e, rest, err := p.expr(toks, false)
	if err != nil {
		return nil, err
	}
	if len(rest) == 0 || rest[0].kind != tOp {
		return nil, p.errf(line, ErrSyntax, "constraint %q has no <=, >= or =", name)
	}
	op := rest[0].text
	v, k, ok := signedNumber(rest[1:])
	if !ok {
		return nil, p.errf(rest[0].line, ErrSyntax, "constraint %q: the right-hand side must be a number", name)
	}
	rest = rest[1+k:]
	rhs := v - e.constant
	switch op {
	case "<=":
		up = rhs
	case ">=":
		lo = rhs
	case "=":
		lo, up = rhs, rhs
	}
	if leftOp != "" {
		l := left - e.constant
		switch {
		case leftOp == "<=" && op == "<=":
			lo = l
		case leftOp == ">=" && op == ">=":
			up = l
		default:
			return nil, p.errf(line, ErrSyntax, "ranged constraint %q must use the same direction twice (l <= expr <= u)", name)
		}
	}
	if len(e.qv) > 0 {
		return nil, p.errf(line, ErrUnsupported, "constraint %q is quadratic: privopt reads linear constraints only", name)
	}
	i := len(p.rowNames)
	if i >= p.lim.MaxRows {
		return nil, p.errf(line, ErrTooLarge, "more than %d rows", p.lim.MaxRows)
	}
	if name == "" {
		name = fmt.Sprintf("R%d", i+1)
	}
	if p.rowSet[name] {
		return nil, p.errf(line, ErrSyntax, "constraint %q defined twice", name)
	}
	p.rowSet[name] = true
	p.rowNames = append(p.rowNames, name)
	p.rowLo = append(p.rowLo, lo)
	p.rowUp = append(p.rowUp, up)
	for k, j := range e.cols {
		if len(p.av)+len(p.hv) >= p.lim.MaxNonzeros {
			return nil, p.errf(line, ErrTooLarge, "more than %d nonzeros", p.lim.MaxNonzeros)
		}
		p.ai = append(p.ai, i)
		p.aj = append(p.aj, j)
		p.av = append(p.av, e.coefs[k])
	}
	return rest, nil
}

// expr parses a sum of terms up to a relational operator, a "name:" label
// or the end of toks. Quadratic brackets are allowed (and later rejected
// outside the objective).
func (p *lpParser) expr(toks []token, objective bool) (*linear, []token, error) {
	e := &linear{}
	k := 0
	for k < len(toks) {
		t := toks[k]
		if t.kind == tOp {
			break
		}
		if t.kind == tName && k+1 < len(toks) && toks[k+1].kind == tColon {
			break // the next constraint's label
		}
		// A new term of a constraint starts after a complete term only with a
		// sign; an unsigned number or name there belongs to the next (unnamed)
		// constraint.
		if k > 0 && t.kind != tPlus && t.kind != tMinus && t.kind != tLBrack {
			break
		}
		s := 1.0
		for k < len(toks) && (toks[k].kind == tPlus || toks[k].kind == tMinus) {
			if toks[k].kind == tMinus {
				s = -s
			}
			k++
		}
		if k >= len(toks) {
			return nil, nil, p.errf(t.line, ErrSyntax, "expression ends with a sign")
		}
		if toks[k].kind == tLBrack {
			n, err := p.bracket(toks[k:], s, e)
			if err != nil {
				return nil, nil, err
			}
			k += n
			continue
		}
		coef := s
		hasNum := false
		if toks[k].kind == tNum {
			coef *= toks[k].num
			hasNum = true
			k++
			if k < len(toks) && toks[k].kind == tStar {
				k++
			}
		}
		if k < len(toks) && toks[k].kind == tName && !(k+1 < len(toks) && toks[k+1].kind == tColon) {
			j, err := p.col(toks[k].text, toks[k].line)
			if err != nil {
				return nil, nil, err
			}
			k++
			if math.IsInf(coef, 0) {
				return nil, nil, p.errf(t.line, ErrSyntax, "infinite coefficient of %q", toks[k-1].text)
			}
			e.cols = append(e.cols, j)
			e.coefs = append(e.coefs, coef)
			continue
		}
		if !hasNum {
			return nil, nil, p.errf(t.line, ErrSyntax, "expected a number or a variable")
		}
		if math.IsInf(coef, 0) {
			return nil, nil, p.errf(t.line, ErrSyntax, "infinite constant")
		}
		e.constant += coef
	}
	return e, toks[k:], nil
}

// bracket parses "[ quadratic terms ]" optionally followed by "/ 2", adding
// s·(terms) (halved after "/ 2") to e; it returns the number of tokens used.
func (p *lpParser) bracket(toks []token, s float64, e *linear) (int, error) {
	line := toks[0].line
	k := 1
	var qi, qj []int
	var qv []float64
	for {
		if k >= len(toks) {
			return 0, p.errf(line, ErrSyntax, "unclosed [")
		}
		if toks[k].kind == tRBrack {
			k++
			break
		}
		sg := 1.0
		for k < len(toks) && (toks[k].kind == tPlus || toks[k].kind == tMinus) {
			if toks[k].kind == tMinus {
				sg = -sg
			}
			k++
		}
		if k < len(toks) && toks[k].kind == tNum {
			sg *= toks[k].num
			k++
			if k < len(toks) && toks[k].kind == tStar {
				k++
			}
		}
		if k >= len(toks) || toks[k].kind != tName {
			return 0, p.errf(line, ErrSyntax, "expected a variable in a quadratic term")
		}
		i, err := p.col(toks[k].text, line)
		if err != nil {
			return 0, err
		}
		k++
		j := i
		switch {
		case k+1 < len(toks) && toks[k].kind == tCaret && toks[k+1].kind == tNum && toks[k+1].num == 2:
			k += 2
		case k+1 < len(toks) && toks[k].kind == tStar && toks[k+1].kind == tName:
			if j, err = p.col(toks[k+1].text, line); err != nil {
				return 0, err
			}
			k += 2
		default:
			return 0, p.errf(line, ErrSyntax, "a quadratic term must be a x ^ 2 or a x * y")
		}
		if i > j {
			i, j = j, i
		}
		qi, qj, qv = append(qi, i), append(qj, j), append(qv, s*sg)
	}
	half := false
	if k+1 < len(toks) && toks[k].kind == tSlash && toks[k+1].kind == tNum {
		if toks[k+1].num != 2 {
			return 0, p.errf(line, ErrSyntax, "a quadratic bracket may only be divided by 2")
		}
		half = true
		k += 2
	}
	for t := range qv {
		v := qv[t]
		if half {
			v /= 2
		}
		e.qi, e.qj, e.qv = append(e.qi, qi[t]), append(e.qj, qj[t]), append(e.qv, v)
	}
	return k, nil
}

func (p *lpParser) bound(toks []token) error {
	line := p.line
	bad := func() error {
		return p.errf(line, ErrSyntax, "bound must be 'x free', 'x op v', 'v op x' or 'l <= x <= u'")
	}
	// x free
	if len(toks) == 2 && toks[0].kind == tName && toks[1].kind == tName && strings.EqualFold(toks[1].text, "free") {
		j, err := p.col(toks[0].text, line)
		if err != nil {
			return err
		}
		p.colLo[j], p.colUp[j] = math.Inf(-1), math.Inf(1)
		return nil
	}
	set := func(j int, op string, v float64, varLeft bool) {
		if !varLeft { // v op x  ⇔  x op' v
			switch op {
			case "<=":
				op = ">="
			case ">=":
				op = "<="
			}
		}
		switch op {
		case "<=":
			p.colUp[j] = v
		case ">=":
			p.colLo[j] = v
		case "=":
			p.colLo[j], p.colUp[j] = v, v
		}
	}
	if v, k, ok := signedNumber(toks); ok {
		// v op x [op u]
		if k+1 >= len(toks) || toks[k].kind != tOp || toks[k+1].kind != tName {
			return bad()
		}
		j, err := p.col(toks[k+1].text, line)
		if err != nil {
			return err
		}
		set(j, toks[k].text, v, false)
		rest := toks[k+2:]
		if len(rest) == 0 {
			return nil
		}
		if rest[0].kind != tOp {
			return bad()
		}
		u, k2, ok := signedNumber(rest[1:])
		if !ok || 1+k2 != len(rest) {
			return bad()
		}
		set(j, rest[0].text, u, true)
		return nil
	}
	if len(toks) >= 3 && toks[0].kind == tName && toks[1].kind == tOp {
		v, k, ok := signedNumber(toks[2:])
		if !ok || 2+k != len(toks) {
			return bad()
		}
		j, err := p.col(toks[0].text, line)
		if err != nil {
			return err
		}
		set(j, toks[1].text, v, true)
		return nil
	}
	return bad()
}

func (p *lpParser) model() (*Model, error) {
	if p.section == "" {
		return nil, p.errf(p.line, ErrSyntax, "no objective section (Minimize or Maximize)")
	}
	n := len(p.colNames)
	m := &Model{Maximize: p.maximize, ObjName: p.objName, ColNames: p.colNames, RowNames: p.rowNames,
		Cost: p.cost, ObjConstant: p.objConst, ColLo: p.colLo, ColUp: p.colUp, RowLo: p.rowLo, RowUp: p.rowUp}
	if m.Cost == nil {
		m.Cost, m.ColLo, m.ColUp = []float64{}, []float64{}, []float64{}
	}
	if m.RowLo == nil {
		m.RowLo, m.RowUp = []float64{}, []float64{}
	}
	t := sparse.NewTriplets(len(p.rowNames), n, len(p.av))
	for k := range p.av {
		t.Append(p.ai[k], p.aj[k], p.av[k])
	}
	m.A = t.ToCSC()
	if len(p.hv) > 0 {
		h := sparse.NewTriplets(n, n, len(p.hv))
		for k := range p.hv {
			h.Append(p.hi[k], p.hj[k], p.hv[k])
		}
		m.H = h.ToCSC()
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}
