package grid

import (
	"errors"
	"fmt"
	"math"
)

// ErrFormat is wrapped by every error that reports malformed or inconsistent case
// data (a parse error, a bad reference, a negative limit, a non-convex cost). Use
// errors.Is(err, grid.ErrFormat) to tell data errors from I/O errors; errors.As
// with *FormatError gives the matrix and row.
var ErrFormat = errors.New("grid: malformed case")

// FormatError locates a data error: Matrix is the MATPOWER field ("bus", "gen",
// "branch", "gencost", "baseMVA", …), Row the 1-based row inside that matrix (0 when
// the error concerns the whole matrix) and Line the 1-based line of the source file
// (0 when unknown).
type FormatError struct {
	Matrix string
	Row    int
	Line   int
	Msg    string
}

// Error formats "grid: MATRIX row R (line L): message".
func (e *FormatError) Error() string {
	s := "grid: "
	if e.Matrix != "" {
		s += e.Matrix
		if e.Row > 0 {
			s += fmt.Sprintf(" row %d", e.Row)
		}
		if e.Line > 0 {
			s += fmt.Sprintf(" (line %d)", e.Line)
		}
		s += ": "
	} else if e.Line > 0 {
		s += fmt.Sprintf("line %d: ", e.Line)
	}
	return s + e.Msg
}

// Unwrap makes errors.Is(err, ErrFormat) true.
func (e *FormatError) Unwrap() error { return ErrFormat }

func formatErr(matrix string, row, line int, format string, args ...any) error {
	return &FormatError{Matrix: matrix, Row: row, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// BusType is MATPOWER's bus type code (BUS_TYPE column).
type BusType int

// Bus types as defined by MATPOWER (caseformat).
const (
	PQ       BusType = 1 // load bus
	PV       BusType = 2 // generator bus
	Ref      BusType = 3 // reference (slack) bus
	Isolated BusType = 4 // isolated bus: removed with everything attached to it
)

// Bus is one row of mpc.bus. Powers are in MW / MVAr as in the file; Gs is the
// shunt conductance expressed as MW consumed at a voltage of 1 p.u.
type Bus struct {
	ID         int // BUS_I, positive, need not be contiguous
	Type       BusType
	Pd, Qd     float64 // demand, MW and MVAr
	Gs, Bs     float64 // shunt conductance (MW at V = 1 p.u.) and susceptance (MVAr)
	Area       int
	Vm, Va     float64 // voltage magnitude (p.u.) and angle (degrees)
	BaseKV     float64
	Zone       int
	Vmax, Vmin float64
	Line       int // source line of the row, 0 if not parsed from a file
}

// Gen is one row of mpc.gen (the first ten columns; further columns are ignored).
type Gen struct {
	Bus        int // bus ID
	Pg, Qg     float64
	Qmax, Qmin float64
	Vg, MBase  float64
	InService  bool    // GEN_STATUS > 0
	Pmax, Pmin float64 // MW
	Line       int
}

// Branch is one row of mpc.branch (the first thirteen columns). Ratio = 0 means a
// line (tap 1); Angle is the phase shift in degrees; RateA = 0 means unlimited;
// AngMin/AngMax are in degrees (MATPOWER: both 0, or beyond ±360, means unlimited).
type Branch struct {
	From, To            int // bus IDs
	R, X, B             float64
	RateA, RateB, RateC float64 // MVA
	Ratio, Angle        float64
	InService           bool
	AngMin, AngMax      float64
	Line                int
}

// Tap returns the off-nominal turns ratio τ, 1 for a line (Ratio = 0).
func (b *Branch) Tap() float64 {
	if b.Ratio == 0 {
		return 1
	}
	return b.Ratio
}

// CostModel is the MATPOWER gencost MODEL column.
type CostModel int

// Cost models (MATPOWER caseformat).
const (
	PiecewiseLinear CostModel = 1
	Polynomial      CostModel = 2
)

// GenCost is one row of mpc.gencost for active power.
//
// Polynomial (model 2): cost(p) = Σ_k Coeffs[k]·p^(n−1−k) in $/h with p in MW,
// highest degree first as in the file. After parsing, leading zero coefficients
// beyond degree 2 are dropped, so len(Coeffs) ≤ 3.
//
// Piecewise linear (model 1): the points (X[k], Y[k]) with X increasing; the cost
// is the linear interpolation, represented in an OPF as the epigraph
// t ≥ Y[k] + s_k (p − X[k]) for every segment k with slope s_k. Parsing checks
// that the slopes are non-decreasing (convexity).
type GenCost struct {
	Model             CostModel
	Startup, Shutdown float64
	Coeffs            []float64 // polynomial coefficients, highest degree first
	X, Y              []float64 // piecewise-linear breakpoints (MW, $/h)
	Line              int
}

// Quadratic returns (c2, c1, c0) with cost(p) = c2 p² + c1 p + c0 for a polynomial
// cost; ok is false for a piecewise-linear cost.
func (c *GenCost) Quadratic() (c2, c1, c0 float64, ok bool) {
	if c.Model != Polynomial {
		return 0, 0, 0, false
	}
	n := len(c.Coeffs)
	at := func(deg int) float64 {
		if deg < n {
			return c.Coeffs[n-1-deg]
		}
		return 0
	}
	return at(2), at(1), at(0), true
}

// Eval returns the cost of producing p MW. For a piecewise-linear cost, p outside
// [X[0], X[last]] is extrapolated along the first or last segment (the epigraph's
// value).
func (c *GenCost) Eval(p float64) float64 {
	if c.Model == Polynomial {
		var v float64
		for _, a := range c.Coeffs {
			v = v*p + a
		}
		return v
	}
	best := math.Inf(-1)
	for k := 0; k+1 < len(c.X); k++ {
		s := (c.Y[k+1] - c.Y[k]) / (c.X[k+1] - c.X[k])
		best = math.Max(best, c.Y[k]+s*(p-c.X[k]))
	}
	return best
}

// MarginalMax returns the largest marginal cost of the generator over [pmin, pmax]:
// max(c1 + 2c2·pmin, c1 + 2c2·pmax) for a polynomial cost, and for a piecewise-linear
// cost the largest slope of the segments that meet [pmin, pmax] (the first or last
// segment when the range lies outside the breakpoints).
func (c *GenCost) MarginalMax(pmin, pmax float64) float64 {
	if c2, c1, _, ok := c.Quadratic(); ok {
		return math.Max(c1+2*c2*pmax, c1+2*c2*pmin)
	}
	n := len(c.X)
	slope := func(k int) float64 { return (c.Y[k+1] - c.Y[k]) / (c.X[k+1] - c.X[k]) }
	best := math.Inf(-1)
	for k := 0; k+1 < n; k++ {
		if c.X[k] < pmax && c.X[k+1] > pmin {
			best = math.Max(best, slope(k))
		}
	}
	if math.IsInf(best, -1) {
		if pmax <= c.X[0] {
			return slope(0)
		}
		return slope(n - 2)
	}
	return best
}

// Case is a MATPOWER case (format version 2) in the file's units: MW, MVAr,
// degrees, per-unit impedances on BaseMVA. Costs has one entry per generator (the
// reactive-power cost rows that may follow are dropped).
type Case struct {
	Name     string
	BaseMVA  float64
	Buses    []Bus
	Gens     []Gen
	Branches []Branch
	Costs    []GenCost
}

// BusIndex returns a map from bus ID to the index in c.Buses.
func (c *Case) BusIndex() map[int]int {
	idx := make(map[int]int, len(c.Buses))
	for i, b := range c.Buses {
		idx[b.ID] = i
	}
	return idx
}

// TotalLoad returns Σ Pd over buses that are not isolated, in MW.
func (c *Case) TotalLoad() float64 {
	var s float64
	for _, b := range c.Buses {
		if b.Type != Isolated {
			s += b.Pd
		}
	}
	return s
}

// Validate checks the case for the errors a DC model cannot live with: a positive
// base MVA, unique positive bus IDs, valid bus types, references to existing buses,
// finite numbers, Pmin ≤ Pmax, non-negative ratings, non-zero reactance on
// in-service branches, and one cost per generator with a supported, convex model.
// Every error is a *FormatError naming the matrix and row.
func (c *Case) Validate() error {
	if !(c.BaseMVA > 0) || math.IsInf(c.BaseMVA, 0) {
		return formatErr("baseMVA", 0, 0, "is %v, must be > 0 and finite", c.BaseMVA)
	}
	if len(c.Buses) == 0 {
		return formatErr("bus", 0, 0, "no buses")
	}
	idx := make(map[int]int, len(c.Buses))
	nref := 0
	for i, b := range c.Buses {
		row := i + 1
		if b.ID <= 0 {
			return formatErr("bus", row, b.Line, "bus number is %d, must be a positive integer", b.ID)
		}
		if j, dup := idx[b.ID]; dup {
			return formatErr("bus", row, b.Line, "bus number %d already used by row %d", b.ID, j+1)
		}
		idx[b.ID] = i
		if b.Type < PQ || b.Type > Isolated {
			return formatErr("bus", row, b.Line, "bus type is %d, must be 1 (PQ), 2 (PV), 3 (ref) or 4 (isolated)", b.Type)
		}
		if b.Type == Ref {
			nref++
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"Pd", b.Pd}, {"Qd", b.Qd}, {"Gs", b.Gs}, {"Bs", b.Bs}, {"Vm", b.Vm}, {"Va", b.Va}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return formatErr("bus", row, b.Line, "%s is %v, must be finite", f.name, f.v)
			}
		}
	}
	for i, g := range c.Gens {
		row := i + 1
		if _, ok := idx[g.Bus]; !ok {
			return formatErr("gen", row, g.Line, "bus %d does not exist", g.Bus)
		}
		if math.IsNaN(g.Pmin) || math.IsNaN(g.Pmax) || math.IsInf(g.Pmin, 0) || math.IsInf(g.Pmax, 0) {
			return formatErr("gen", row, g.Line, "Pmin = %v, Pmax = %v, must be finite", g.Pmin, g.Pmax)
		}
		if g.Pmax < g.Pmin {
			return formatErr("gen", row, g.Line, "Pmax = %v is below Pmin = %v", g.Pmax, g.Pmin)
		}
	}
	for i, br := range c.Branches {
		row := i + 1
		if _, ok := idx[br.From]; !ok {
			return formatErr("branch", row, br.Line, "from bus %d does not exist", br.From)
		}
		if _, ok := idx[br.To]; !ok {
			return formatErr("branch", row, br.Line, "to bus %d does not exist", br.To)
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"r", br.R}, {"x", br.X}, {"b", br.B}, {"rateA", br.RateA}, {"ratio", br.Ratio}, {"angle", br.Angle}, {"angmin", br.AngMin}, {"angmax", br.AngMax}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return formatErr("branch", row, br.Line, "%s is %v, must be finite", f.name, f.v)
			}
		}
		if br.RateA < 0 {
			return formatErr("branch", row, br.Line, "rateA is %v, must be ≥ 0 (0 means unlimited)", br.RateA)
		}
		if br.Ratio < 0 {
			return formatErr("branch", row, br.Line, "tap ratio is %v, must be ≥ 0 (0 means 1)", br.Ratio)
		}
		if br.InService && br.X == 0 {
			return formatErr("branch", row, br.Line, "reactance x is 0; a DC model needs x ≠ 0")
		}
		if br.AngMin > br.AngMax {
			return formatErr("branch", row, br.Line, "angmin = %v exceeds angmax = %v", br.AngMin, br.AngMax)
		}
	}
	if len(c.Costs) < len(c.Gens) {
		return formatErr("gencost", 0, 0, "has %d rows, need one per generator (%d)", len(c.Costs), len(c.Gens))
	}
	for i := range c.Gens {
		if err := c.Costs[i].validate(i + 1); err != nil {
			return err
		}
	}
	return nil
}

func (c *GenCost) validate(row int) error {
	switch c.Model {
	case Polynomial:
		if len(c.Coeffs) > 3 {
			return formatErr("gencost", row, c.Line, "polynomial of degree %d with non-zero leading coefficient %v; only degree ≤ 2 is supported", len(c.Coeffs)-1, c.Coeffs[0])
		}
		if c2, _, _, _ := c.Quadratic(); c2 < 0 {
			return formatErr("gencost", row, c.Line, "quadratic coefficient is %v, must be ≥ 0 (convex cost)", c2)
		}
		for _, a := range c.Coeffs {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return formatErr("gencost", row, c.Line, "coefficient %v must be finite", a)
			}
		}
	case PiecewiseLinear:
		if len(c.X) < 2 {
			return formatErr("gencost", row, c.Line, "piecewise-linear cost needs at least 2 points, has %d", len(c.X))
		}
		for k := range c.X {
			if math.IsNaN(c.X[k]) || math.IsInf(c.X[k], 0) || math.IsNaN(c.Y[k]) || math.IsInf(c.Y[k], 0) {
				return formatErr("gencost", row, c.Line, "piecewise-linear point %d is (%v, %v), must be finite", k+1, c.X[k], c.Y[k])
			}
		}
		prev := math.Inf(-1)
		for k := 0; k+1 < len(c.X); k++ {
			if !(c.X[k+1] > c.X[k]) {
				return formatErr("gencost", row, c.Line, "piecewise-linear breakpoints must increase, x%d = %v, x%d = %v", k+1, c.X[k], k+2, c.X[k+1])
			}
			s := (c.Y[k+1] - c.Y[k]) / (c.X[k+1] - c.X[k])
			if s < prev-1e-12*math.Max(1, math.Abs(prev)) {
				return formatErr("gencost", row, c.Line, "piecewise-linear cost is not convex: slope of segment %d is %v, below %v of segment %d", k+1, s, prev, k)
			}
			prev = s
		}
	default:
		return formatErr("gencost", row, c.Line, "cost model is %d, must be 1 (piecewise linear) or 2 (polynomial)", c.Model)
	}
	return nil
}
