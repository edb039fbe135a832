package noise

import (
	"math"
	"math/big"
	"sort"

	"github.com/ALTree/bigfloat"
)

// Certificate is the result of Certify: the exact maximal privacy shortfall
//
//	M = max_{|φ| ≤ Δ} max_A P[X ∈ A] − e^ε·P[X + φ ∈ A] − δ
//
// of a piecewise-constant distribution; the mechanism f(D) + X is (ε,δ)-DP for
// sensitivity Δ iff M ≤ 0.
type Certificate struct {
	Params        Params  // the guarantee checked
	MaxShortfall  float64 // M, rounded up to float64 (an upper bound on the exact M)
	WorstShift    float64 // a shift φ attaining M (rounded to float64)
	Certified     bool    // M ≤ 0, decided in big-float arithmetic with upward rounding
	ShiftsChecked int     // candidate shifts screened in float64
	ExactShifts   int     // shifts re-evaluated in big-float arithmetic
}

// certPrec is the big.Float precision of Certify. Sums and differences of the
// float64 edges, shifts and cell widths are exact at this precision whenever
// their binary exponents span fewer than ~260 binades.
const certPrec = 320

// Certify decides exactly whether d is (ε,δ)-DP for sensitivity Δ as additive
// noise, independently of how d was computed.
//
// Method. For a fixed shift φ the worst event is A*(φ) = {x : f(x) > e^ε f(x−φ)}
// and V(φ) = ∫(f(x) − e^ε f(x−φ))⁺dx is affine in φ between consecutive points
// where an edge of f meets an edge of f(·−φ) (Selvi, Liu & Wiesemann, Lemma
// C.16), so max_{|φ|≤Δ} V is attained at φ ∈ {e_j − e_i} ∩ [−Δ, Δ] ∪ {±Δ}
// (for grid-based distributions: the multiples of the grid unit). Every
// candidate is first evaluated in float64 with a rigorous error bound (segment
// lengths within 3 ulps of the largest coordinate, values and the N-term sum
// within (N+16)·2⁻⁵³ relative, both doubled); the candidates whose upper bound
// reaches the best lower bound are then recomputed in big-float arithmetic
// (precision 320) with every rounding directed upwards and e^ε rounded
// downwards, so the reported shortfall is an upper bound on the exact one and
// Certified is never wrongly true. The distribution is the stored weights
// divided by their exact sum.
func Certify(d *PiecewiseConstant, p Params) (*Certificate, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n := d.Len()
	e := math.Exp(p.Epsilon)
	view := &cellsView{edges: d.edges, dens: make([]float64, n)}
	for j := range d.probs {
		view.dens[j] = d.probs[j] / (d.edges[j+1] - d.edges[j])
	}
	lo, hi := d.Support()

	type cand struct {
		phi    float64
		m      int // grid multiple, or pair (i, j) for general edges
		i, j   int
		kind   int // 0 grid, 1 pair, 2 ±Δ
		sign   float64
		v, err float64
	}
	var cands []cand
	if d.unit > 0 {
		span := d.index[len(d.index)-1] - d.index[0]
		M := min(int(p.Sensitivity/d.unit)+1, span)
		for M > 0 && exactGrid(d.unit, M).Cmp(bigOf(p.Sensitivity)) > 0 {
			M--
		}
		for m := -M; m <= M; m++ {
			cands = append(cands, cand{phi: float64(m) * d.unit, m: m, kind: 0})
		}
	} else {
		for i := 0; i <= n; i++ {
			for j := 0; j <= n; j++ {
				if i != j && math.Abs(d.edges[j]-d.edges[i]) <= p.Sensitivity*(1+1e-12) {
					cands = append(cands, cand{phi: d.edges[j] - d.edges[i], i: i, j: j, kind: 1})
				}
			}
		}
	}
	cands = append(cands, cand{phi: p.Sensitivity, kind: 2, sign: 1}, cand{phi: -p.Sensitivity, kind: 2, sign: -1})

	X := math.Max(math.Abs(lo), math.Abs(hi)) + p.Sensitivity
	ulp := math.Nextafter(X, math.Inf(1)) - X
	bestLower := math.Inf(-1)
	for c := range cands {
		v, a1, a2 := view.shortfall(lo, hi, cands[c].phi, e, nil)
		cands[c].v = v
		cands[c].err = 2 * (3*ulp*a1 + float64(n+16)*0x1p-53*a2)
		bestLower = math.Max(bestLower, v-cands[c].err)
	}
	sort.Slice(cands, func(a, b int) bool { return cands[a].v+cands[a].err > cands[b].v+cands[b].err })

	ex := newExactCells(d)
	eLow := expDown(p.Epsilon)
	best := new(big.Float).SetPrec(certPrec).SetInf(true)
	bestPhi := 0.0
	cert := &Certificate{Params: p, ShiftsChecked: len(cands)}
	for _, c := range cands {
		if c.v+c.err < bestLower {
			break
		}
		var phi *big.Float
		switch c.kind {
		case 0:
			phi = exactGrid(d.unit, c.m)
		case 1:
			phi = new(big.Float).SetPrec(certPrec).Sub(ex.edges[c.j], ex.edges[c.i])
		default:
			phi = new(big.Float).SetPrec(certPrec).SetFloat64(c.sign * p.Sensitivity)
		}
		v := ex.shortfallUp(phi, eLow)
		cert.ExactShifts++
		if best.IsInf() || v.Cmp(best) > 0 {
			best, bestPhi = v, c.phi
		}
	}
	m := new(big.Float).SetPrec(certPrec).SetMode(big.AwayFromZero).Sub(best, bigOf(p.Delta))
	cert.Certified = m.Sign() <= 0
	mf, acc := m.Float64()
	if acc == big.Below {
		mf = math.Nextafter(mf, math.Inf(1))
	}
	cert.MaxShortfall, cert.WorstShift = mf, bestPhi
	return cert, nil
}

func bigOf(x float64) *big.Float { return new(big.Float).SetPrec(certPrec).SetFloat64(x) }

// exactGrid returns unit·m exactly.
func exactGrid(unit float64, m int) *big.Float {
	return new(big.Float).SetPrec(certPrec).Mul(bigOf(unit), new(big.Float).SetPrec(certPrec).SetInt64(int64(m)))
}

// expDown returns a lower bound on e^ε: bigfloat.Exp at 64 extra bits, then
// decreased by 2⁻³⁰⁰ relative.
func expDown(eps float64) *big.Float {
	z := new(big.Float).SetPrec(certPrec + 64).SetFloat64(eps)
	v := bigfloat.Exp(z)
	dv := new(big.Float).SetPrec(certPrec+64).SetMantExp(v, -300)
	v.Sub(v, dv)
	return new(big.Float).SetPrec(certPrec).SetMode(big.ToZero).Set(v)
}

type exactCells struct {
	edges   []*big.Float
	densUp  []*big.Float // density rounded up
	densLow []*big.Float // density rounded down
}

func newExactCells(d *PiecewiseConstant) *exactCells {
	n := d.Len()
	ex := &exactCells{edges: make([]*big.Float, n+1), densUp: make([]*big.Float, n), densLow: make([]*big.Float, n)}
	for i := range ex.edges {
		if d.unit > 0 {
			ex.edges[i] = exactGrid(d.unit, d.index[i])
		} else {
			ex.edges[i] = bigOf(d.edges[i])
		}
	}
	sum := new(big.Float).SetPrec(certPrec)
	for _, w := range d.w {
		sum.Add(sum, bigOf(w))
	}
	for j := 0; j < n; j++ {
		width := new(big.Float).SetPrec(certPrec).Sub(ex.edges[j+1], ex.edges[j])
		den := new(big.Float).SetPrec(certPrec).Mul(width, sum)
		ex.densUp[j] = new(big.Float).SetPrec(certPrec).SetMode(big.AwayFromZero).Quo(bigOf(d.w[j]), den)
		ex.densLow[j] = new(big.Float).SetPrec(certPrec).SetMode(big.ToZero).Quo(bigOf(d.w[j]), den)
	}
	return ex
}

// shortfallUp returns an upper bound on ∫(f(x) − e·f(x−φ))⁺dx with e ≥ eLow:
// the same merge as cellsView.shortfall with upward-rounded arithmetic.
func (ex *exactCells) shortfallUp(phi, eLow *big.Float) *big.Float {
	return ex.shortfallUpPair(ex, phi, eLow)
}

// shortfallUpPair bounds ∫(f(x) − e·g(x−φ))⁺dx from above, f = ex and g = gx
// on the same edges.
func (ex *exactCells) shortfallUpPair(gx *exactCells, phi, eLow *big.Float) *big.Float {
	a := ex.edges
	n := len(a) - 1
	up := func() *big.Float { return new(big.Float).SetPrec(certPrec).SetMode(big.AwayFromZero) }
	shifted := make([]*big.Float, n+1)
	for j := range a {
		shifted[j] = new(big.Float).SetPrec(certPrec).Add(a[j], phi) // exact
	}
	lo, hi := a[0], a[n]
	x := lo
	i := 0
	k := sort.Search(n+1, func(j int) bool { return shifted[j].Cmp(x) > 0 }) - 1
	v := up()
	neg := up()
	seg := up()
	term := up()
	for x.Cmp(hi) < 0 {
		var na, nb *big.Float
		if i+1 <= n {
			na = a[i+1]
		}
		if k+1 <= n {
			nb = shifted[k+1]
		}
		y := hi
		if na != nil && na.Cmp(y) < 0 {
			y = na
		}
		if nb != nil && nb.Cmp(y) < 0 {
			y = nb
		}
		if y.Cmp(x) > 0 && i >= 0 && i < n && ex.densUp[i].Sign() > 0 {
			// t = dens_i − e·dens_k rounded up.
			term.Set(ex.densUp[i])
			if k >= 0 && k < n {
				neg.SetMode(big.ToZero).Mul(eLow, gx.densLow[k])
				term.Sub(term, neg)
			}
			if term.Sign() > 0 {
				seg.Sub(y, x)
				seg.Mul(seg, term)
				v.Add(v, seg)
			}
		}
		if y == hi {
			break
		}
		x = y
		if na != nil && y.Cmp(na) == 0 {
			i++
		}
		if nb != nil && y.Cmp(nb) == 0 {
			k++
		}
	}
	return v
}
