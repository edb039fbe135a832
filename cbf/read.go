package cbf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/internal/fileio"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// ErrSyntax is wrapped by every error about the content of a CBF file; the
// error is a *SyntaxError carrying the line number.
var ErrSyntax = errors.New("cbf: invalid file")

// ErrUnsupported is wrapped by errors for valid CBF features privopt cannot
// represent (integer variables, power cones other than the 3-dimensional one).
var ErrUnsupported = errors.New("cbf: unsupported feature")

// SyntaxError reports a problem at a line of a CBF file.
type SyntaxError struct {
	Line int    // 1-based line number (0: end of file)
	Msg  string // what is wrong
	kind error  // ErrSyntax or ErrUnsupported
}

// Error returns "cbf: line N: message" (or "cbf: end of file: message").
func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return "cbf: end of file: " + e.Msg
	}
	return fmt.Sprintf("cbf: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns ErrSyntax or ErrUnsupported.
func (e *SyntaxError) Unwrap() error { return e.kind }

// MaxDimension bounds the number of scalar variables, of constraint rows and
// of PSD matrix entries a file may declare, so that a corrupt count cannot
// exhaust memory.
const MaxDimension = 1 << 26

// Size limits relative to the input: the standard form a file builds has at
// most max(FreeDimension, DimensionPerByte·B) columns plus rows, B the bytes
// read. A declared size is free to write ("VAR 67108864 1" is 20 bytes) but
// costs memory to build, so sizes that no content of the file could
// reasonably use are rejected before anything of that size is allocated. A
// real problem mentions its variables and rows in coordinate lines of at
// least 6 bytes each, far inside the ratio.
const (
	FreeDimension    = 1 << 20
	DimensionPerByte = 64
)

// PSDVar describes a CBF matrix variable (PSDVAR) X of order Order: its svec
// coordinates (see package cone) are the columns Col … Col+Order(Order+1)/2−1.
type PSDVar struct {
	Order int
	Col   int
}

// File is a CBF instance converted to the standard form.
type File struct {
	// Problem is the instance as a minimization in standard form.
	Problem *solver.Problem
	// NumScalarVars is the number of CBF scalar variables; they are the first
	// NumScalarVars columns of Problem, in order.
	NumScalarVars int
	// PSDVars are the matrix variables, whose svec coordinates follow the scalar ones.
	PSDVars []PSDVar
	// Maximize reports OBJSENSE MAX: Problem minimizes the negated objective,
	// so the file's optimal value is −(Problem's optimal value).
	Maximize bool
	// ConRows maps CBF scalar constraint i to its row of Problem (−1 for rows
	// in the free cone F, which impose nothing). Within an EXP or EXP* cone the
	// rows are permuted and scaled (see the package documentation).
	ConRows []int
	// PSDConRows[i] is the first row of PSD constraint i (its svec block).
	PSDConRows []int
	// Version is the file's VER.
	Version int
}

// ReadFile reads the CBF file at path, decompressing it when it is gzipped
// (recognized by its magic bytes, so both x.cbf and x.cbf.gz work).
func ReadFile(path string) (*File, error) {
	f, err := fileio.Open(path) // gzip-compressed files are decompressed
	if err != nil {
		return nil, fmt.Errorf("cbf: %w", err)
	}
	defer f.Close()
	return Read(f)
}

// Read parses a CBF file (versions 1–4; see the package documentation for the
// mapping to the standard form).
func Read(r io.Reader) (*File, error) {
	cr := &countingReader{r: r}
	p := &parser{sc: bufio.NewScanner(cr), input: cr}
	p.sc.Buffer(make([]byte, 0, 4096), 1<<20)
	f, err := p.parse()
	if err != nil {
		return nil, err
	}
	return f, nil
}

// coneDecl is one cone of a VAR, CON or PSD declaration, as written.
type coneDecl struct {
	name  string
	dim   int
	pow   int // index into the power-cone table for @k:POW and @k:POW*
	dual  bool
	line  int
	alpha float64
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	k, err := c.r.Read(b)
	c.n += int64(k)
	return k, err
}

type parser struct {
	sc    *bufio.Scanner
	input *countingReader
	line  int

	version   int
	maximize  bool
	seen      map[string]int
	pow, dpow [][]float64 // POWCONES, POW*CONES: the α vectors

	nvar, ncon int
	varCones   []coneDecl
	conCones   []coneDecl
	psdVar     []int // orders
	psdCon     []int

	objA []entry
	objB float64
	objF []entry4
	a    []entry
	b    []entry
	f    []entry4 // FCOORD: i, j (psdvar), k, l
	h    []entry4 // HCOORD: i (psdcon), j (var), k, l
	d    []entry4 // DCOORD: i (psdcon), k, l (j unused)
}

type entry struct {
	i, j int
	v    float64
}

type entry4 struct {
	i, j, k, l int
	v          float64
}

func (p *parser) errf(format string, args ...any) error {
	return &SyntaxError{Line: p.line, Msg: fmt.Sprintf(format, args...), kind: ErrSyntax}
}

func (p *parser) unsupported(format string, args ...any) error {
	return &SyntaxError{Line: p.line, Msg: fmt.Sprintf(format, args...), kind: ErrUnsupported}
}

// next returns the fields of the next non-blank, non-comment line, or nil at
// the end of the input.
func (p *parser) next() ([]string, error) {
	for p.sc.Scan() {
		p.line++
		s := strings.TrimSpace(p.sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		return strings.Fields(s), nil
	}
	if err := p.sc.Err(); err != nil {
		p.line++
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, p.errf("line longer than 1 MiB")
		}
		return nil, fmt.Errorf("cbf: reading line %d: %w", p.line, err)
	}
	return nil, nil
}

// need returns the next data line of section sec, which must have n fields.
func (p *parser) need(sec string, n int) ([]string, error) {
	f, err := p.next()
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, &SyntaxError{Msg: fmt.Sprintf("%s: file truncated (expected %d more value(s))", sec, n), kind: ErrSyntax}
	}
	if len(f) != n {
		return nil, p.errf("%s: expected %d value(s), found %d (%q)", sec, n, len(f), strings.Join(f, " "))
	}
	return f, nil
}

func (p *parser) atoi(sec, what, s string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, p.errf("%s: %s %q is not an integer", sec, what, s)
	}
	if v < lo || v > hi {
		return 0, p.errf("%s: %s is %d, must be in [%d, %d]", sec, what, v, lo, hi)
	}
	return v, nil
}

func (p *parser) atof(sec, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, p.errf("%s: %q is not a number", sec, s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p.errf("%s: value %q is not finite", sec, s)
	}
	return v, nil
}

var keywords = map[string]bool{
	"VER": true, "OBJSENSE": true, "POWCONES": true, "POW*CONES": true, "VAR": true, "INT": true,
	"PSDVAR": true, "CON": true, "PSDCON": true, "OBJFCOORD": true, "OBJACOORD": true,
	"OBJBCOORD": true, "FCOORD": true, "ACOORD": true, "BCOORD": true, "HCOORD": true, "DCOORD": true,
}

func (p *parser) parse() (*File, error) {
	p.seen = map[string]int{}
	for {
		f, err := p.next()
		if err != nil {
			return nil, err
		}
		if f == nil {
			break
		}
		kw := f[0]
		if len(f) != 1 || !keywords[kw] {
			if p.version == 0 {
				return nil, p.errf("expected the keyword VER first, found %q", strings.Join(f, " "))
			}
			return nil, p.errf("unknown keyword %q", strings.Join(f, " "))
		}
		if at, dup := p.seen[kw]; dup {
			return nil, p.errf("keyword %s appears twice (first at line %d)", kw, at)
		}
		if p.version == 0 && kw != "VER" {
			return nil, p.errf("expected the keyword VER first, found %s", kw)
		}
		p.seen[kw] = p.line
		if err := p.section(kw); err != nil {
			return nil, err
		}
	}
	if p.version == 0 {
		return nil, &SyntaxError{Msg: "empty file (no VER)", kind: ErrSyntax}
	}
	return p.build()
}

// requires reports an error if a keyword that must precede kw is missing.
func (p *parser) requires(kw string, before ...string) error {
	for _, b := range before {
		if _, ok := p.seen[b]; !ok {
			return p.errf("%s must come after %s", kw, b)
		}
	}
	return nil
}

// forbidsAfter reports an error if kw comes after one of the keywords that
// consume the information it declares.
func (p *parser) forbidsAfter(kw string, after ...string) error {
	for _, a := range after {
		if at, ok := p.seen[a]; ok {
			return p.errf("%s must come before %s (line %d)", kw, a, at)
		}
	}
	return nil
}

func (p *parser) section(kw string) error {
	switch kw {
	case "VER":
		f, err := p.need(kw, 1)
		if err != nil {
			return err
		}
		v, err := p.atoi(kw, "version", f[0], 1, math.MaxInt32)
		if err != nil {
			return err
		}
		if v > 4 {
			return p.unsupported("VER: version %d is newer than the supported versions 1–4", v)
		}
		p.version = v
	case "OBJSENSE":
		f, err := p.need(kw, 1)
		if err != nil {
			return err
		}
		switch f[0] {
		case "MIN":
		case "MAX":
			p.maximize = true
		default:
			return p.errf("OBJSENSE: %q, must be MIN or MAX", f[0])
		}
	case "POWCONES", "POW*CONES":
		if err := p.forbidsAfter(kw, "VAR", "CON"); err != nil {
			return err
		}
		tab, err := p.powTable(kw)
		if err != nil {
			return err
		}
		if kw == "POWCONES" {
			p.pow = tab
		} else {
			p.dpow = tab
		}
	case "VAR":
		f, err := p.need(kw, 2)
		if err != nil {
			return err
		}
		n, err := p.atoi(kw, "number of variables", f[0], 0, MaxDimension)
		if err != nil {
			return err
		}
		cs, err := p.cones(kw, f[1], n, false)
		if err != nil {
			return err
		}
		p.nvar, p.varCones = n, cs
	case "INT":
		f, err := p.need(kw, 1)
		if err != nil {
			return err
		}
		k, err := p.atoi(kw, "count", f[0], 0, MaxDimension)
		if err != nil {
			return err
		}
		if k > 0 {
			return p.unsupported("INT: %d integer variable(s); privopt solves continuous problems only", k)
		}
	case "PSDVAR", "PSDCON":
		f, err := p.need(kw, 1)
		if err != nil {
			return err
		}
		k, err := p.atoi(kw, "count", f[0], 0, MaxDimension)
		if err != nil {
			return err
		}
		total := 0
		orders := make([]int, 0, min(k, 1024))
		for range k {
			g, err := p.need(kw, 1)
			if err != nil {
				return err
			}
			n, err := p.atoi(kw, "matrix order", g[0], 1, 1<<13)
			if err != nil {
				return err
			}
			total += n * (n + 1) / 2
			if total > MaxDimension {
				return p.errf("%s: more than %d matrix entries in total", kw, MaxDimension)
			}
			orders = append(orders, n)
		}
		if kw == "PSDVAR" {
			p.psdVar = orders
		} else {
			p.psdCon = orders
		}
	case "CON":
		f, err := p.need(kw, 2)
		if err != nil {
			return err
		}
		m, err := p.atoi(kw, "number of constraints", f[0], 0, MaxDimension)
		if err != nil {
			return err
		}
		cs, err := p.cones(kw, f[1], m, true)
		if err != nil {
			return err
		}
		p.ncon, p.conCones = m, cs
	case "OBJFCOORD":
		if err := p.requires(kw, "PSDVAR"); err != nil {
			return err
		}
		return p.coords(kw, 4, func(v []int, x float64) error {
			if err := p.psdIndex(kw, "PSD variable", v[0], v[1], v[2], p.psdVar); err != nil {
				return err
			}
			p.objF = append(p.objF, entry4{j: v[0], k: v[1], l: v[2], v: x})
			return nil
		})
	case "OBJACOORD":
		if err := p.requires(kw, "VAR"); err != nil {
			return err
		}
		return p.coords(kw, 2, func(v []int, x float64) error {
			if v[0] < 0 || v[0] >= p.nvar {
				return p.errf("%s: variable index %d out of range [0, %d)", kw, v[0], p.nvar)
			}
			p.objA = append(p.objA, entry{j: v[0], v: x})
			return nil
		})
	case "OBJBCOORD":
		f, err := p.need(kw, 1)
		if err != nil {
			return err
		}
		v, err := p.atof(kw, f[0])
		if err != nil {
			return err
		}
		p.objB = v
	case "FCOORD":
		if err := p.requires(kw, "PSDVAR", "CON"); err != nil {
			return err
		}
		return p.coords(kw, 5, func(v []int, x float64) error {
			if v[0] < 0 || v[0] >= p.ncon {
				return p.errf("%s: constraint index %d out of range [0, %d)", kw, v[0], p.ncon)
			}
			if err := p.psdIndex(kw, "PSD variable", v[1], v[2], v[3], p.psdVar); err != nil {
				return err
			}
			p.f = append(p.f, entry4{i: v[0], j: v[1], k: v[2], l: v[3], v: x})
			return nil
		})
	case "ACOORD":
		if err := p.requires(kw, "VAR", "CON"); err != nil {
			return err
		}
		return p.coords(kw, 3, func(v []int, x float64) error {
			if v[0] < 0 || v[0] >= p.ncon {
				return p.errf("%s: constraint index %d out of range [0, %d)", kw, v[0], p.ncon)
			}
			if v[1] < 0 || v[1] >= p.nvar {
				return p.errf("%s: variable index %d out of range [0, %d)", kw, v[1], p.nvar)
			}
			p.a = append(p.a, entry{i: v[0], j: v[1], v: x})
			return nil
		})
	case "BCOORD":
		if err := p.requires(kw, "CON"); err != nil {
			return err
		}
		return p.coords(kw, 2, func(v []int, x float64) error {
			if v[0] < 0 || v[0] >= p.ncon {
				return p.errf("%s: constraint index %d out of range [0, %d)", kw, v[0], p.ncon)
			}
			p.b = append(p.b, entry{i: v[0], v: x})
			return nil
		})
	case "HCOORD":
		if err := p.requires(kw, "VAR", "PSDCON"); err != nil {
			return err
		}
		return p.coords(kw, 5, func(v []int, x float64) error {
			if v[1] < 0 || v[1] >= p.nvar {
				return p.errf("%s: variable index %d out of range [0, %d)", kw, v[1], p.nvar)
			}
			if err := p.psdIndex(kw, "PSD constraint", v[0], v[2], v[3], p.psdCon); err != nil {
				return err
			}
			p.h = append(p.h, entry4{i: v[0], j: v[1], k: v[2], l: v[3], v: x})
			return nil
		})
	case "DCOORD":
		if err := p.requires(kw, "PSDCON"); err != nil {
			return err
		}
		return p.coords(kw, 4, func(v []int, x float64) error {
			if err := p.psdIndex(kw, "PSD constraint", v[0], v[1], v[2], p.psdCon); err != nil {
				return err
			}
			p.d = append(p.d, entry4{i: v[0], k: v[1], l: v[2], v: x})
			return nil
		})
	}
	return nil
}

// psdIndex checks that (k, l) is a lower-triangle entry of matrix idx in orders.
func (p *parser) psdIndex(sec, what string, idx, k, l int, orders []int) error {
	if idx < 0 || idx >= len(orders) {
		return p.errf("%s: %s index %d out of range [0, %d)", sec, what, idx, len(orders))
	}
	n := orders[idx]
	if k < 0 || k >= n || l < 0 || l >= n {
		return p.errf("%s: entry (%d, %d) outside the %d×%d matrix of %s %d", sec, k, l, n, n, what, idx)
	}
	if k < l {
		return p.errf("%s: entry (%d, %d) is above the diagonal; CBF lists the lower triangle (row ≥ column)", sec, k, l)
	}
	return nil
}

// coords reads a count and that many lines of nIdx−1 integers and one value
// (OBJBCOORD excepted, every coordinate section has this shape).
func (p *parser) coords(sec string, nf int, add func(idx []int, v float64) error) error {
	f, err := p.need(sec, 1)
	if err != nil {
		return err
	}
	cnt, err := p.atoi(sec, "number of entries", f[0], 0, math.MaxInt32)
	if err != nil {
		return err
	}
	idx := make([]int, nf-1)
	for e := 0; e < cnt; e++ {
		g, err := p.next()
		if err != nil {
			return err
		}
		if g == nil {
			return &SyntaxError{Msg: fmt.Sprintf("%s: file truncated after %d of %d entries", sec, e, cnt), kind: ErrSyntax}
		}
		if len(g) != nf {
			if len(g) == 1 && keywords[g[0]] {
				return p.errf("%s: keyword %s after %d of %d entries", sec, g[0], e, cnt)
			}
			return p.errf("%s: expected %d values per entry, found %d", sec, nf, len(g))
		}
		for t := 0; t < nf-1; t++ {
			v, err := strconv.Atoi(g[t])
			if err != nil {
				return p.errf("%s: index %q is not an integer", sec, g[t])
			}
			idx[t] = v
		}
		v, err := p.atof(sec, g[nf-1])
		if err != nil {
			return err
		}
		if err := add(idx, v); err != nil {
			return err
		}
	}
	return nil
}

// powTable reads a POWCONES or POW*CONES table: "K L" then K blocks of
// "n" followed by n values α (all > 0), L values in total.
func (p *parser) powTable(sec string) ([][]float64, error) {
	f, err := p.need(sec, 2)
	if err != nil {
		return nil, err
	}
	k, err := p.atoi(sec, "number of cones", f[0], 0, MaxDimension)
	if err != nil {
		return nil, err
	}
	total, err := p.atoi(sec, "number of parameters", f[1], 0, MaxDimension)
	if err != nil {
		return nil, err
	}
	tab := make([][]float64, 0, min(k, 1024))
	seen := 0
	for range k {
		g, err := p.need(sec, 1)
		if err != nil {
			return nil, err
		}
		n, err := p.atoi(sec, "number of parameters of a cone", g[0], 1, total-seen)
		if err != nil {
			return nil, err
		}
		alpha := make([]float64, n)
		for t := range alpha {
			h, err := p.need(sec, 1)
			if err != nil {
				return nil, err
			}
			if alpha[t], err = p.atof(sec, h[0]); err != nil {
				return nil, err
			}
			if alpha[t] <= 0 {
				return nil, p.errf("%s: parameter %v, must be > 0", sec, alpha[t])
			}
		}
		seen += n
		tab = append(tab, alpha)
	}
	if seen != total {
		return nil, p.errf("%s: header announces %d parameters, found %d", sec, total, seen)
	}
	return tab, nil
}

// cones reads the cone list of VAR or CON: kstr cones covering n coordinates.
func (p *parser) cones(sec, kstr string, n int, con bool) ([]coneDecl, error) {
	k, err := p.atoi(sec, "number of cones", kstr, 0, MaxDimension)
	if err != nil {
		return nil, err
	}
	if k > n {
		return nil, p.errf("%s: %d cones for %d coordinates", sec, k, n)
	}
	cs := make([]coneDecl, 0, min(k, 1024)) // k is untrusted: grow as lines arrive
	total := 0
	for range k {
		g, err := p.need(sec, 2)
		if err != nil {
			return nil, err
		}
		d, err := p.atoi(sec, "cone dimension", g[1], math.MinInt32, MaxDimension)
		if err != nil {
			return nil, err
		}
		c, err := p.cone(sec, g[0], d)
		if err != nil {
			return nil, err
		}
		total += d
		if total > n {
			return nil, p.errf("%s: cones cover more than the %d declared coordinates", sec, n)
		}
		cs = append(cs, c)
	}
	if total != n {
		return nil, p.errf("%s: cones cover %d coordinates, header declares %d", sec, total, n)
	}
	return cs, nil
}

// cone validates one cone declaration.
func (p *parser) cone(sec, name string, d int) (coneDecl, error) {
	c := coneDecl{name: name, dim: d, line: p.line}
	if d < 1 {
		return c, p.errf("%s: cone %s has dimension %d, must be ≥ 1", sec, name, d)
	}
	switch name {
	case "F", "L+", "L-", "L=", "Q":
	case "QR":
		if d < 2 {
			return c, p.errf("%s: cone QR has dimension %d, must be ≥ 2", sec, d)
		}
	case "EXP", "EXP*":
		if d != 3 {
			return c, p.errf("%s: cone %s has dimension %d, must be 3", sec, name, d)
		}
		c.dual = name == "EXP*"
	case "SVECPSD":
		if cone.PSDOrder(d) < 1 {
			return c, p.errf("%s: cone SVECPSD has dimension %d, must be n(n+1)/2", sec, d)
		}
	default:
		var idx int
		var kind string
		if _, err := fmt.Sscanf(name, "@%d:%s", &idx, &kind); err != nil || (kind != "POW" && kind != "POW*") || name != fmt.Sprintf("@%d:%s", idx, kind) {
			return c, p.errf("%s: unknown cone %q", sec, name)
		}
		tab := p.pow
		if kind == "POW*" {
			tab = p.dpow
			c.dual = true
		}
		if idx < 0 || idx >= len(tab) {
			return c, p.errf("%s: cone %s refers to power cone %d, but %d are declared", sec, name, idx, len(tab))
		}
		alpha := tab[idx]
		if len(alpha) != 2 || d != 3 {
			return c, p.unsupported("%s: cone %s has dimension %d and %d parameters; only 3-dimensional power cones with 2 parameters are supported", sec, name, d, len(alpha))
		}
		c.name = kind
		c.pow = idx
		c.alpha = alpha[0] / (alpha[0] + alpha[1])
		if !(c.alpha > 0 && c.alpha < 1) {
			return c, p.errf("%s: cone %s has exponent %v, must be in (0, 1)", sec, name, c.alpha)
		}
	}
	return c, nil
}

// rowMap describes how the coordinates g of one CBF cone become standard-form
// rows: s[off[t]] = coef[t]·g[t].
func rowMap(c coneDecl) (k cone.Cone, off []int, coef []float64, keep bool) {
	d := c.dim
	ident := func() ([]int, []float64) {
		off := make([]int, d)
		coef := make([]float64, d)
		for t := range off {
			off[t], coef[t] = t, 1
		}
		return off, coef
	}
	switch c.name {
	case "F":
		return cone.Cone{}, nil, nil, false
	case "L+", "L-":
		off, coef := ident()
		if c.name == "L-" {
			for t := range coef {
				coef[t] = -1
			}
		}
		return cone.NewNonnegative(d), off, coef, true
	case "L=":
		off, coef := ident()
		return cone.NewZero(d), off, coef, true
	case "Q":
		off, coef := ident()
		return cone.NewSecondOrder(d), off, coef, true
	case "QR":
		off, coef := ident()
		return cone.NewRotatedSecondOrder(d), off, coef, true
	case "SVECPSD":
		off, coef := ident()
		return cone.NewPSD(cone.PSDOrder(d)), off, coef, true
	case "EXP":
		// CBF (g0, g1, g2): g0 ≥ g1·exp(g2/g1); privopt (x, y, z) = (g2, g1, g0).
		return cone.NewExponential(), []int{2, 1, 0}, []float64{1, 1, 1}, true
	case "EXP*":
		// The dual of CBF's EXP is, in privopt order (u, v, w) = (g2, g1, g0), the
		// cone {u < 0, −u·exp(v/u) ≤ e·w} (closure), and (u, v, w) ∈ K_exp* ⇔
		// (−v, −u, e·w) ∈ K_exp: s = (−g1, −g2, e·g0).
		return cone.NewExponential(), []int{2, 0, 1}, []float64{math.E, -1, -1}, true
	case "POW":
		off, coef := ident()
		return cone.NewPower(c.alpha), off, coef, true
	case "POW*":
		// Dual power cone: (u/α)^α (v/(1−α))^(1−α) ≥ |w| ⇔ (u/α, v/(1−α), w) ∈ K_pow(α).
		return cone.NewPower(c.alpha), []int{0, 1, 2}, []float64{1 / c.alpha, 1 / (1 - c.alpha), 1}, true
	}
	panic("cbf: internal error: unmapped cone " + c.name)
}

// svecIndex is the position of entry (k, l), k ≥ l, of an n×n symmetric matrix
// in privopt's column-major lower-triangular svec, and the svec scale of that
// entry (1 on the diagonal, √2 off it).
func svecIndex(n, k, l int) (int, float64) {
	idx := l*n - l*(l-1)/2 + (k - l)
	if k == l {
		return idx, 1
	}
	return idx, math.Sqrt2
}

func (p *parser) build() (*File, error) {
	p.line = 0
	// Columns: scalar variables, then the svec coordinates of each PSD variable.
	nScalar := p.nvar
	n := nScalar
	f := &File{NumScalarVars: nScalar, Maximize: p.maximize, Version: p.version}
	for _, order := range p.psdVar {
		f.PSDVars = append(f.PSDVars, PSDVar{Order: order, Col: n})
		n += order * (order + 1) / 2
	}
	if n > MaxDimension {
		return nil, &SyntaxError{Msg: fmt.Sprintf("%d columns in total, more than %d", n, MaxDimension), kind: ErrSyntax}
	}
	// Rows, counted before anything of that size is allocated.
	rows := 0
	for _, decls := range [][]coneDecl{p.conCones, p.varCones} {
		for _, c := range decls {
			if c.name != "F" {
				rows += c.dim
			}
		}
	}
	for _, orders := range [][]int{p.psdCon, p.psdVar} {
		for _, order := range orders {
			rows += order * (order + 1) / 2
		}
	}
	if limit := max(FreeDimension, DimensionPerByte*p.input.n); int64(n)+int64(rows) > limit {
		return nil, &SyntaxError{Msg: fmt.Sprintf("the header declares %d columns and %d rows, more than the %d (max(FreeDimension, DimensionPerByte × %d bytes)) a file of this size can describe", n, rows, limit, p.input.n), kind: ErrSyntax}
	}
	// Rows: CON (F dropped), PSDCON blocks, VAR cones (F dropped), PSDVAR blocks.
	var cones []cone.Cone
	conRow := make([]int, p.ncon)
	conCoef := make([]float64, p.ncon)
	m := 0
	place := func(decls []coneDecl, rowOf []int, coefOf []float64) {
		g := 0
		for _, c := range decls {
			k, off, coef, keep := rowMap(c)
			for t := 0; t < c.dim; t++ {
				if keep {
					rowOf[g+t] = m + off[t]
					coefOf[g+t] = coef[t]
				} else {
					rowOf[g+t] = -1
				}
			}
			if keep {
				cones = append(cones, k)
				m += c.dim
			}
			g += c.dim
		}
	}
	place(p.conCones, conRow, conCoef)
	psdConRow := make([]int, len(p.psdCon))
	for i, order := range p.psdCon {
		psdConRow[i] = m
		cones = append(cones, cone.NewPSD(order))
		m += order * (order + 1) / 2
	}
	varRow := make([]int, p.nvar)
	varCoef := make([]float64, p.nvar)
	place(p.varCones, varRow, varCoef)
	psdVarRow := m
	for _, order := range p.psdVar {
		cones = append(cones, cone.NewPSD(order))
		m += order * (order + 1) / 2
	}
	if m > MaxDimension {
		return nil, &SyntaxError{Msg: fmt.Sprintf("%d rows in total, more than %d", m, MaxDimension), kind: ErrSyntax}
	}

	nnz := len(p.a) + len(p.f) + len(p.h) + p.nvar + (m - psdVarRow)
	t := sparse.NewTriplets(m, n, nnz)
	b := make([]float64, m)
	// CON: s_r = c·(A_cbf x + b_cbf)  ⇒  A[r,·] = −c·A_cbf[i,·], b_r = c·b_cbf_i.
	for _, e := range p.a {
		if r := conRow[e.i]; r >= 0 {
			t.Append(r, e.j, -conCoef[e.i]*e.v)
		}
	}
	for _, e := range p.f {
		if r := conRow[e.i]; r >= 0 {
			pv := f.PSDVars[e.j]
			idx, sc := svecIndex(pv.Order, e.k, e.l)
			t.Append(r, pv.Col+idx, -conCoef[e.i]*sc*e.v)
		}
	}
	for _, e := range p.b {
		if r := conRow[e.i]; r >= 0 {
			b[r] += conCoef[e.i] * e.v
		}
	}
	// PSDCON: svec(G) = svec(D) + Σ x_j svec(H_j) = s  ⇒  A = −svec(H), b = svec(D).
	for _, e := range p.h {
		idx, sc := svecIndex(p.psdCon[e.i], e.k, e.l)
		t.Append(psdConRow[e.i]+idx, e.j, -sc*e.v)
	}
	for _, e := range p.d {
		idx, sc := svecIndex(p.psdCon[e.i], e.k, e.l)
		b[psdConRow[e.i]+idx] += sc * e.v
	}
	// VAR cones: s_r = c·x_j  ⇒  A[r, j] = −c.
	for j, r := range varRow {
		if r >= 0 {
			t.Append(r, j, -varCoef[j])
		}
	}
	// PSDVAR: s = svec(X)  ⇒  A = −I on the svec columns.
	for k := 0; k < m-psdVarRow; k++ {
		t.Append(psdVarRow+k, nScalar+k, -1)
	}
	q := make([]float64, n)
	for _, e := range p.objA {
		q[e.j] += e.v
	}
	for _, e := range p.objF {
		pv := f.PSDVars[e.j]
		idx, sc := svecIndex(pv.Order, e.k, e.l)
		q[pv.Col+idx] += sc * e.v
	}
	r := p.objB
	if p.maximize {
		for j := range q {
			q[j] = -q[j]
		}
		r = -r
	}
	prob := &solver.Problem{Q: q, R: r, A: t.ToCSC(), B: b, Cones: cones}
	if err := prob.Validate(); err != nil {
		// Sums of duplicate entries can overflow to ±Inf.
		return nil, &SyntaxError{Msg: err.Error(), kind: ErrSyntax}
	}
	f.Problem = prob
	f.ConRows = conRow
	f.PSDConRows = psdConRow
	return f, nil
}
