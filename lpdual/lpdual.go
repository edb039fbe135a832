// Package lpdual computes rigorous bounds on the optimal value of a linear
// program from a dual (or primal) vector alone, with no LP solver, in one
// pass over the rows the vector touches: the check an independent program
// runs on a certificate whose dual vectors a solver produced.
//
// The program is
//
//	maximize cᵀx  subject to  RowLo ≤ A x ≤ RowHi,  Lo ≤ x ≤ Hi,
//
// with A stored by rows (the layout a checker builds row by row). For any
// multipliers y (of either sign; no feasibility is required of them), every
// feasible x satisfies
//
//	cᵀx = yᵀAx + rᵀx ≤ Σᵢ max(yᵢ RowLoᵢ, yᵢ RowHiᵢ) + Σⱼ max(rⱼ Loⱼ, rⱼ Hiⱼ),  r = c − Aᵀy,
//
// the safe bound of Neumaier and Shcherbina ("Safe bounds in linear and
// mixed-integer programming", Math. Program. 99, 2004, §2; Jansson, "Rigorous
// lower and upper bounds in linear programming", SIAM J. Optim. 14, 2004):
// when y is an (approximately) optimal dual the bound is within the dual's
// residuals times the boxes of the optimum. MaxBound evaluates it in float64
// with outward rounding (every sum and product rounded to the next float
// towards +∞ for the bound, both ways for the reduced costs), so the value
// returned is ≥ the exact one; an infinite side met by a nonzero multiplier
// or reduced cost gives +Inf.
//
// MinUpperBound is the same bound applied to the dual program: an upper bound
// on a minimum from a primal point x̂ (not necessarily feasible) and boxes
// known to contain an optimal dual.
package lpdual

import (
	"fmt"
	"math"
)

// LP is a linear program with ranged rows and boxed columns, A by rows
// (compressed sparse rows: the entries of row i are Col[RowPtr[i]:RowPtr[i+1]]
// and Val[…]). Infinite entries of Lo, Hi, RowLo, RowHi mean no bound.
type LP struct {
	Lo, Hi       []float64 // per column
	RowLo, RowHi []float64 // per row
	RowPtr       []int     // len(RowLo)+1
	Col          []int
	Val          []float64
}

// NumRows returns the number of rows.
func (lp *LP) NumRows() int { return len(lp.RowLo) }

// NumCols returns the number of columns.
func (lp *LP) NumCols() int { return len(lp.Lo) }

// AddRow appends the row lo ≤ Σ val_k x_{col_k} ≤ hi and returns its index.
func (lp *LP) AddRow(lo, hi float64, col []int, val []float64) int {
	if len(lp.RowPtr) == 0 {
		lp.RowPtr = []int{0}
	}
	for k, j := range col {
		if val[k] != 0 {
			lp.Col, lp.Val = append(lp.Col, j), append(lp.Val, val[k])
		}
	}
	lp.RowLo, lp.RowHi = append(lp.RowLo, lo), append(lp.RowHi, hi)
	lp.RowPtr = append(lp.RowPtr, len(lp.Col))
	return len(lp.RowLo) - 1
}

// Validate checks the shapes and that every index is in range.
func (lp *LP) Validate() error {
	nr, nc := len(lp.RowLo), len(lp.Lo)
	if len(lp.Hi) != nc || len(lp.RowHi) != nr || len(lp.RowPtr) != nr+1 || len(lp.Col) != len(lp.Val) {
		return fmt.Errorf("lpdual: inconsistent shapes (%d columns, %d/%d column bounds, %d/%d row bounds, %d row pointers, %d/%d entries)",
			nc, len(lp.Lo), len(lp.Hi), len(lp.RowLo), len(lp.RowHi), len(lp.RowPtr), len(lp.Col), len(lp.Val))
	}
	for i := 0; i < nr; i++ {
		if lp.RowPtr[i] > lp.RowPtr[i+1] || lp.RowPtr[i+1] > len(lp.Col) {
			return fmt.Errorf("lpdual: row pointer %d (%d) out of order", i+1, lp.RowPtr[i+1])
		}
	}
	for k, j := range lp.Col {
		if j < 0 || j >= nc {
			return fmt.Errorf("lpdual: entry %d has column %d, not in [0, %d)", k, j, nc)
		}
	}
	return nil
}

// Sparse is a sparse vector: Val[k] at index Idx[k] (indices may repeat:
// their values add).
type Sparse struct {
	Idx []int     `json:"i"`
	Val []float64 `json:"v"`
}

// FromDense returns the sparse form of the nonzero entries of v.
func FromDense(v []float64) Sparse {
	var s Sparse
	for i, x := range v {
		if x != 0 {
			s.Idx, s.Val = append(s.Idx, i), append(s.Val, x)
		}
	}
	return s
}

// Len returns the number of stored entries.
func (s Sparse) Len() int { return len(s.Idx) }

func (s Sparse) check(n int, what string) error {
	if len(s.Idx) != len(s.Val) {
		return fmt.Errorf("lpdual: %s has %d indices and %d values", what, len(s.Idx), len(s.Val))
	}
	for k, i := range s.Idx {
		if i < 0 || i >= n {
			return fmt.Errorf("lpdual: %s index %d is %d, not in [0, %d)", what, k, i, n)
		}
		if math.IsNaN(s.Val[k]) || math.IsInf(s.Val[k], 0) {
			return fmt.Errorf("lpdual: %s value %d is %v", what, k, s.Val[k])
		}
	}
	return nil
}

// Directed rounding from round-to-nearest: the error of a product (FMA) or
// a sum (Knuth's TwoSum) is computed exactly, and the result moved to the
// next float when the exact value lies beyond it. Near underflow, where the
// error terms are not exact, the result is moved unconditionally.
const tiny = 0x1p-960

func up(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
func dn(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }

// twoSum returns fl(a+b) and the exact error a + b − fl(a+b).
func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func addUp(a, b float64) float64 {
	s, e := twoSum(a, b)
	if math.IsInf(s, 0) || math.IsNaN(e) {
		return s
	}
	if e > 0 {
		return up(s)
	}
	return s
}

func addDn(a, b float64) float64 {
	s, e := twoSum(a, b)
	if math.IsInf(s, 0) || math.IsNaN(e) {
		return s
	}
	if e < 0 {
		return dn(s)
	}
	return s
}

// mulUp returns a value ≥ a·b (0 when either is 0, also for an infinite other).
func mulUp(a, b float64) float64 {
	if a == 0 || b == 0 {
		return 0
	}
	p := a * b
	if math.IsInf(p, 0) {
		return p
	}
	if math.Abs(p) < tiny {
		return up(p)
	}
	if math.FMA(a, b, -p) > 0 {
		return up(p)
	}
	return p
}

// mulDn returns a value ≤ a·b: −mulUp(−a, b), negation being exact.
func mulDn(a, b float64) float64 { return -mulUp(-a, b) }

// supLinear returns an upper bound on sup{r·x : r ∈ [rdn, rup], x ∈ [lo, hi]}
// (the supremum of a convex function of r is at an end of its interval).
func supLinear(rdn, rup, lo, hi float64) float64 {
	f := func(r float64) float64 {
		switch {
		case r > 0:
			return mulUp(r, hi)
		case r < 0:
			return mulUp(r, lo)
		}
		return 0
	}
	return math.Max(f(rdn), f(rup))
}

// Workspace holds the buffers of repeated bound evaluations on programs of
// up to a given number of columns (one per goroutine).
type Workspace struct {
	sup, sdn []float64
	seen     []bool
	touched  []int
}

func (w *Workspace) grow(n int) {
	if len(w.sup) < n {
		w.sup, w.sdn, w.seen = make([]float64, n), make([]float64, n), make([]bool, n)
	}
}

// MaxBound returns a rigorous upper bound on max cᵀx over lp from the row
// multipliers y (see the package comment). A multiplier whose sign meets an
// infinite side of its row is taken as 0 (the bound holds for every y; a
// solver's dual carries such entries of order 10⁻¹⁴ in rows it treats as
// inactive). The bound is +Inf when a reduced cost meets an infinite column
// bound. Its cost is linear in the entries of the rows y touches plus the
// entries of c.
func MaxBound(lp *LP, c, y Sparse, ws *Workspace) (float64, error) {
	nr, nc := lp.NumRows(), lp.NumCols()
	if err := c.check(nc, "objective"); err != nil {
		return 0, err
	}
	if err := y.check(nr, "dual"); err != nil {
		return 0, err
	}
	if ws == nil {
		ws = &Workspace{}
	}
	ws.grow(nc)
	ws.touched = ws.touched[:0]
	touch := func(j int) {
		if !ws.seen[j] {
			ws.seen[j] = true
			ws.sup[j], ws.sdn[j] = 0, 0
			ws.touched = append(ws.touched, j)
		}
	}
	defer func() {
		for _, j := range ws.touched {
			ws.seen[j] = false
		}
	}()
	total := 0.0
	// Σᵢ max(yᵢ RowLoᵢ, yᵢ RowHiᵢ), and s = Aᵀy enclosed in [sdn, sup].
	for k, i := range y.Idx {
		yi := y.Val[k]
		if yi == 0 {
			continue
		}
		b := lp.RowHi[i]
		if yi < 0 {
			b = lp.RowLo[i]
		}
		if math.IsInf(b, 0) {
			continue // treated as 0: any y gives a bound (solvers leave ±1e-14 there)
		}
		total = addUp(total, mulUp(yi, b))
		for t := lp.RowPtr[i]; t < lp.RowPtr[i+1]; t++ {
			j := lp.Col[t]
			touch(j)
			ws.sup[j] = addUp(ws.sup[j], mulUp(lp.Val[t], yi))
			ws.sdn[j] = addDn(ws.sdn[j], mulDn(lp.Val[t], yi))
		}
	}
	// Objective entries: c_j − s_j.
	cj := make(map[int]float64, len(c.Idx))
	for k, j := range c.Idx {
		touch(j)
		cj[j] += c.Val[k]
	}
	for _, j := range ws.touched {
		cv := cj[j]
		rup, rdn := cv, cv // exact when no row touches the column
		if ws.sup[j] != 0 || ws.sdn[j] != 0 {
			rup, rdn = addUp(cv, -ws.sdn[j]), addDn(cv, -ws.sup[j])
		}
		term := supLinear(rdn, rup, lp.Lo[j], lp.Hi[j])
		if math.IsInf(term, 1) {
			return term, nil
		}
		total = addUp(total, term)
	}
	return total, nil
}

// MinUpperBound returns a rigorous upper bound on min cᵀx over lp from a
// point x (any point: it is clipped into the column box) and boxes
// [yLo_i, yHi_i] known to contain the row multipliers of some optimal dual
// (the sensitivity convention yᵢ = ∂ min / ∂ RowHiᵢ at an active upper side).
// With the optimal dual y*, min cᵀx = g(y*) ≤ cᵀx̂ + Σᵢ y*ᵢ (ŝᵢ − aᵢx̂) for
// every ŝ in the row ranges (weak duality of the Lagrangian g), so the bound
// is cᵀx̂ plus, per row whose activity leaves its range, the largest such
// residual term over the box. Rows whose activity is provably inside their
// range contribute 0; yLo, yHi may be nil when no row needs them.
func MinUpperBound(lp *LP, c []float64, x Sparse, yLo, yHi []float64) (float64, error) {
	nr, nc := lp.NumRows(), lp.NumCols()
	if len(c) != nc {
		return 0, fmt.Errorf("lpdual: objective has %d entries, the program %d columns", len(c), nc)
	}
	if err := x.check(nc, "point"); err != nil {
		return 0, err
	}
	xh := make([]float64, nc)
	for k, j := range x.Idx {
		xh[j] += x.Val[k]
	}
	total := 0.0
	for j := range xh {
		xh[j] = math.Min(lp.Hi[j], math.Max(lp.Lo[j], xh[j]))
		if math.IsInf(xh[j], 0) {
			return 0, fmt.Errorf("lpdual: column %d has no finite point in its box", j)
		}
		total = addUp(total, mulUp(c[j], xh[j]))
	}
	for i := 0; i < nr; i++ {
		var aup, adn float64
		for t := lp.RowPtr[i]; t < lp.RowPtr[i+1]; t++ {
			j := lp.Col[t]
			aup = addUp(aup, mulUp(lp.Val[t], xh[j]))
			adn = addDn(adn, mulDn(lp.Val[t], xh[j]))
		}
		if adn >= lp.RowLo[i] && aup <= lp.RowHi[i] {
			continue // the exact activity is a feasible ŝ: residual 0
		}
		s := math.Min(lp.RowHi[i], math.Max(lp.RowLo[i], (aup+adn)/2))
		rdn, rup := addDn(s, -aup), addUp(s, -adn)
		if yLo == nil || yHi == nil {
			return math.Inf(1), nil
		}
		if math.IsInf(yLo[i], 0) || math.IsInf(yHi[i], 0) {
			return math.Inf(1), nil
		}
		term := math.Max(math.Max(mulUp(yLo[i], rdn), mulUp(yLo[i], rup)), math.Max(mulUp(yHi[i], rdn), mulUp(yHi[i], rup)))
		total = addUp(total, term)
	}
	return total, nil
}

// AddUp returns a value ≥ a + b: the rounded sum, moved up one float when
// the exact sum lies above it (directed rounding from round-to-nearest, as
// MaxBound uses).
func AddUp(a, b float64) float64 { return addUp(a, b) }

// AddDn returns a value ≤ a + b.
func AddDn(a, b float64) float64 { return addDn(a, b) }

// MulUp returns a value ≥ a·b (exactly 0 when either is 0).
func MulUp(a, b float64) float64 { return mulUp(a, b) }

// MulDn returns a value ≤ a·b (exactly 0 when either is 0).
func MulDn(a, b float64) float64 { return mulDn(a, b) }
