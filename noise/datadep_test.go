package noise

import (
	"context"
	"errors"
	"math"
	"reflect"
	"sort"
	"testing"
)

// Data-dependent noise (Section 3): certified, its loss is at most the
// data-independent optimum on the same grid (using one density for every
// query interval is feasible), and its lower bound is below its upper bound.
func TestDataDependent(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.2, Sensitivity: 2}
	r, err := OptimizeDataDependent(context.Background(), p, DataDependentOptions{Ranges: 4, Granularity: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Certified || r.MaxShortfall > 0 || len(r.Dists) != 4 {
		t.Fatalf("not certified: %+v", r)
	}
	di := optimizeT(t, p, OptimalOptions{Granularity: 4, SkipLowerBound: true})
	t.Logf("data-dependent UB %.5f LB %.5f, data-independent UB %.5f", r.UpperBound, r.LowerBound, di.UpperBound)
	if r.UpperBound > di.UpperBound*(1+1e-5) {
		t.Errorf("data-dependent loss %v > data-independent %v", r.UpperBound, di.UpperBound)
	}
	if !(r.LowerBound <= r.UpperBound) {
		t.Errorf("LB %v > UB %v", r.LowerBound, r.UpperBound)
	}
	// Each density is certified on its own pair constraints; in particular
	// the pair (i, i) with shifts ±β.
	for i, d := range r.Dists {
		if c, _ := Certify(d, Params{Epsilon: 1, Delta: 0.2, Sensitivity: r.Beta}); !c.Certified {
			t.Errorf("density %d not private for shifts ≤ β: %+v", i, c)
		}
	}
	if _, err := OptimizeDataDependent(context.Background(), p, DataDependentOptions{Ranges: 0}); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("Ranges 0: %v", err)
	}
	if _, err := OptimizeDataDependent(context.Background(), p, DataDependentOptions{Ranges: 2, Weights: []float64{1}}); !errors.Is(err, ErrInvalidParam) {
		t.Errorf("bad weights: %v", err)
	}
}

func ddT(t *testing.T, p Params, o DataDependentOptions) *DataDependentResult {
	t.Helper()
	r, err := OptimizeDataDependent(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Certified || !(r.MaxShortfall <= 0) || len(r.Dists) != len(r.RangeEdges)-1 {
		t.Fatalf("not certified: %+v", r)
	}
	return r
}

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b)) }

// pairShortfall is ∫(f(x − φ) − e·g(x − φ'))⁺dx for piecewise-constant f, g,
// evaluated directly (merged breakpoints, densities at segment midpoints).
func pairShortfall(f, g *PiecewiseConstant, phi, phi2, e float64) float64 {
	var xs []float64
	for _, x := range f.Edges() {
		xs = append(xs, x+phi)
	}
	for _, x := range g.Edges() {
		xs = append(xs, x+phi2)
	}
	sort.Float64s(xs)
	v := 0.0
	for j := 0; j+1 < len(xs); j++ {
		a, b := xs[j], xs[j+1]
		if b <= a {
			continue
		}
		mid := (a + b) / 2
		if t := f.PDF(mid-phi) - e*g.PDF(mid-phi2); t > 0 {
			v += t * (b - a)
		}
	}
	return v
}

// mechanismShortfall checks the mechanism φ ↦ φ + X_{Index(φ)} directly: the
// largest shortfall over query values φ, φ' on a grid of step β/sub in
// [0, λ_M β) with |φ − φ'| ≤ Δ (both orders), independently of the shift
// sets used by the optimizer.
func mechanismShortfall(r *DataDependentResult, p Params, sub int) float64 {
	e := math.Exp(p.Epsilon)
	n := r.RangeEdges[len(r.RangeEdges)-1] * sub
	h := r.Beta / float64(sub)
	worst := math.Inf(-1)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			phi, phi2 := float64(a)*h, float64(b)*h
			if a == b || math.Abs(phi-phi2) > p.Sensitivity*(1+1e-12) {
				continue
			}
			f, g := r.Dists[r.Index(phi)], r.Dists[r.Index(phi2)]
			worst = math.Max(worst, pairShortfall(f, g, phi, phi2, e))
		}
	}
	return worst
}

// RangeEdges 0, 1, …, K is the uniform partition Ranges = K.
func TestDataDependentRangeEdgesUniform(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	a := ddT(t, p, DataDependentOptions{Ranges: 5, Granularity: 4})
	b := ddT(t, p, DataDependentOptions{RangeEdges: []int{0, 1, 2, 3, 4, 5}, Granularity: 4})
	t.Logf("Ranges 5: UB %.9f LB %.9f; RangeEdges: UB %.9f LB %.9f", a.UpperBound, a.LowerBound, b.UpperBound, b.LowerBound)
	if d := relDiff(a.UpperBound, b.UpperBound); !(d <= 1e-9) {
		t.Errorf("UB %v vs %v (rel %g)", a.UpperBound, b.UpperBound, d)
	}
	if d := relDiff(a.LowerBound, b.LowerBound); !(d <= 1e-9) {
		t.Errorf("LB %v vs %v (rel %g)", a.LowerBound, b.LowerBound, d)
	}
	if !reflect.DeepEqual(a.RangeEdges, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("RangeEdges of Ranges 5: %v", a.RangeEdges)
	}
	// The shift sets of the uniform edges are the triples
	// {i'−i−1, i'−i, i'−i+1} ∩ [−k, k] of Section 3 (without (i, i, 0)).
	for _, k := range []int{2, 3} {
		dd := &ddProblem{g: &grid{k: k}, edges: []int{0, 1, 2, 3, 4, 5}}
		var want []ddTriple
		for i := 0; i < 5; i++ {
			for m := 0; m < 5; m++ {
				for _, s := range []int{m - i - 1, m - i, m - i + 1} {
					if s >= -k && s <= k && !(i == m && s == 0) {
						want = append(want, ddTriple{i, m, s})
					}
				}
			}
		}
		if got := dd.triples(); !reflect.DeepEqual(got, want) {
			t.Errorf("k = %d: triples %v, want %v", k, got, want)
		}
	}
	// Grouped edges 0, 3, 5 (groups [0, 3), [3, 5)), k = 3: differences
	// f(D') − f(D) in (λ_{l'} − λ_{l+1}, λ_{l'+1} − λ_l) ∩ [−3, 3].
	for _, c := range []struct{ l, m, lo, hi int }{
		{0, 0, -3, 3}, // (−3, 3)
		{0, 1, 0, 3},  // (3 − 3, 5 − 0) = (0, 5)
		{1, 0, -3, 0}, // (0 − 5, 3 − 3) = (−5, 0)
		{1, 1, -2, 2}, // (3 − 5, 5 − 3)
	} {
		if lo, hi := ddShiftRange([]int{0, 3, 5}, c.l, c.m, 3); lo != c.lo || hi != c.hi {
			t.Errorf("shift range (%d, %d): [%d, %d], want [%d, %d]", c.l, c.m, lo, hi, c.lo, c.hi)
		}
	}
}

// One group spanning at least Δ has every shift −k..k: it is the
// data-independent problem on the same grid.
func TestDataDependentSingleGroup(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	const k = 4
	lam := SupportRule(p)
	r := ddT(t, p, DataDependentOptions{RangeEdges: []int{0, 6}, Granularity: k, SupportMultiple: lam, SkipLowerBound: true})
	di := optimizeT(t, p, OptimalOptions{Granularity: k, SupportMultiple: lam, SkipLowerBound: true})
	t.Logf("single group UB %.9f, data-independent UB %.9f", r.UpperBound, di.UpperBound)
	if d := relDiff(r.UpperBound, di.UpperBound); !(d <= 1e-6) {
		t.Errorf("single-group UB %v vs data-independent %v (rel %g)", r.UpperBound, di.UpperBound, d)
	}
	// The single density is (ε,δ)-DP for sensitivity Δ on its own.
	c, err := Certify(r.Dists[0], p)
	if err != nil || !c.Certified {
		t.Errorf("single-group density not certified by Certify: %+v %v", c, err)
	}
	// Its lower bounds, dithered (two offsets here, one for the
	// data-independent ℓ₁ problem, equal by reflection) and cell infima,
	// equal the data-independent ones.
	for _, paper := range []bool{false, true} {
		r := ddT(t, p, DataDependentOptions{RangeEdges: []int{0, 6}, Granularity: k, SupportMultiple: lam, PaperLowerBound: paper})
		// The same event region Λ_L = Λ (Optimize's default is LowerSupportRule's).
		di := optimizeT(t, p, OptimalOptions{Granularity: k, SupportMultiple: lam, LowerSupportMultiple: lam, PaperLowerBound: paper})
		t.Logf("single group LB %.9f (%s), data-independent LB %.9f (%s)", r.LowerBound, r.LowerMethod, di.LowerBound, di.LowerMethod)
		if d := relDiff(r.LowerBound, di.LowerBound); !(d <= 1e-6) || r.LowerMethod != di.LowerMethod {
			t.Errorf("single-group LB %v (%s) vs data-independent %v (%s)", r.LowerBound, r.LowerMethod, di.LowerBound, di.LowerMethod)
		}
	}
}

// A non-uniform partition: certified (also by a direct check of the mechanism
// at fractional query values), and between the uniform partition (more
// densities, more freedom) and a single group (less), in both bounds.
func TestDataDependentNonUniform(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	edges := []int{0, 3, 4, 5, 8}
	nu := ddT(t, p, DataDependentOptions{RangeEdges: edges, Granularity: 4})
	uni := ddT(t, p, DataDependentOptions{Ranges: 8, Granularity: 4})
	one := ddT(t, p, DataDependentOptions{RangeEdges: []int{0, 8}, Granularity: 4})
	t.Logf("UB/LB: uniform K=8 %.6f/%.6f, edges %v %.6f/%.6f, one group %.6f/%.6f",
		uni.UpperBound, uni.LowerBound, edges, nu.UpperBound, nu.LowerBound, one.UpperBound, one.LowerBound)
	const tol = 1e-7
	if !(uni.UpperBound <= nu.UpperBound*(1+tol) && nu.UpperBound <= one.UpperBound*(1+tol)) {
		t.Errorf("UB order violated: uniform %v, non-uniform %v, one group %v", uni.UpperBound, nu.UpperBound, one.UpperBound)
	}
	if !(uni.LowerBound <= nu.LowerBound*(1+tol) && nu.LowerBound <= one.LowerBound*(1+tol)) {
		t.Errorf("LB order violated: uniform %v, non-uniform %v, one group %v", uni.LowerBound, nu.LowerBound, one.LowerBound)
	}
	// The grouping matters: strictly between the extremes here.
	if !(nu.UpperBound < one.UpperBound*(1-1e-3) && uni.UpperBound < nu.UpperBound*(1-1e-3)) {
		t.Errorf("expected strict UB order: %v < %v < %v", uni.UpperBound, nu.UpperBound, one.UpperBound)
	}
	if !(nu.LowerBound <= nu.UpperBound) {
		t.Errorf("LB %v > UB %v", nu.LowerBound, nu.UpperBound)
	}
	if !reflect.DeepEqual(nu.RangeEdges, edges) || nu.Granularity != 4 || nu.Refinements != 0 {
		t.Errorf("RangeEdges %v, Granularity %d, Refinements %d", nu.RangeEdges, nu.Granularity, nu.Refinements)
	}
	for _, c := range []struct {
		x float64
		l int
	}{{-1, 0}, {0, 0}, {0.74, 0}, {0.75, 1}, {0.99, 1}, {1.0, 2}, {1.25, 3}, {1.99, 3}, {2, 3}, {50, 3}, {math.NaN(), 0}} {
		if l := nu.Index(c.x); l != c.l {
			t.Errorf("Index(%v) = %d, want %d", c.x, l, c.l)
		}
	}
	// Direct check of the mechanism φ + X_{Index(φ)} over query values on a
	// β/4 grid, including non-integer differences.
	if v := mechanismShortfall(nu, p, 4); !(v <= p.Delta+1e-9) {
		t.Errorf("mechanism shortfall %v > δ = %v", v, p.Delta)
	} else {
		t.Logf("direct mechanism shortfall %.9f (δ = %v)", v, p.Delta)
	}
	// The direct check is not vacuous: the uniform K = 8 densities used with
	// this grouping (first density of each group) are not private.
	bad := &DataDependentResult{Dists: []*PiecewiseConstant{uni.Dists[0], uni.Dists[3], uni.Dists[4], uni.Dists[5]}, Beta: nu.Beta, RangeEdges: edges}
	if v := mechanismShortfall(bad, p, 4); !(v > p.Delta+1e-6) {
		t.Errorf("regrouped uniform densities pass the direct check (%v)", v)
	}
}

// The refinement loop: k and the edges double, the UB does not increase
// across levels, the kept bounds are the best ones, and it stops at Gap or at
// MaxRefinements.
func TestDataDependentRefine(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	edges := []int{0, 3, 4, 5, 8}
	r := ddT(t, p, DataDependentOptions{RangeEdges: edges, Granularity: 2, Gap: 1e-9, MaxRefinements: 2})
	if r.Refinements != 2 || len(r.Levels) != 3 {
		t.Fatalf("Refinements %d, levels %d, want 2 and 3", r.Refinements, len(r.Levels))
	}
	bestUB, bestLB := math.Inf(1), math.Inf(-1)
	for i, lv := range r.Levels {
		t.Logf("level %d: k %d UB %.6f LB %.6f gap %.4f", i, lv.Granularity, lv.UpperBound, lv.LowerBound, (lv.UpperBound-lv.LowerBound)/lv.LowerBound)
		if lv.Granularity != 2<<i {
			t.Errorf("level %d: k = %d", i, lv.Granularity)
		}
		if i > 0 && !(lv.UpperBound <= r.Levels[i-1].UpperBound*(1+1e-9)) {
			t.Errorf("UB increased at level %d: %v > %v", i, lv.UpperBound, r.Levels[i-1].UpperBound)
		}
		bestUB, bestLB = math.Min(bestUB, lv.UpperBound), math.Max(bestLB, lv.LowerBound)
	}
	if r.UpperBound != bestUB || r.LowerBound != bestLB || !(r.LowerBound <= r.UpperBound) {
		t.Errorf("kept UB %v LB %v, best %v %v", r.UpperBound, r.LowerBound, bestUB, bestLB)
	}
	gap0 := (r.Levels[0].UpperBound - r.Levels[0].LowerBound) / r.Levels[0].LowerBound
	if !(r.Gap < 0.5*gap0) {
		t.Errorf("gap %v not reduced from %v", r.Gap, gap0)
	}
	// The returned family is on the finest grid with doubled edges and
	// implements the same partition of the query values.
	if r.Granularity != 8 || !reflect.DeepEqual(r.RangeEdges, []int{0, 12, 16, 20, 32}) || r.Beta != p.Sensitivity/8 {
		t.Errorf("Granularity %d, RangeEdges %v, Beta %v", r.Granularity, r.RangeEdges, r.Beta)
	}
	if v := mechanismShortfall(r, p, 2); !(v <= p.Delta+1e-9) {
		t.Errorf("refined mechanism shortfall %v > δ", v)
	}
	// A Gap met after one refinement stops there.
	gap1 := (math.Min(r.Levels[0].UpperBound, r.Levels[1].UpperBound) - math.Max(r.Levels[0].LowerBound, r.Levels[1].LowerBound)) /
		math.Max(r.Levels[0].LowerBound, r.Levels[1].LowerBound)
	s := ddT(t, p, DataDependentOptions{RangeEdges: edges, Granularity: 2, Gap: gap1 * (1 + 1e-6), MaxRefinements: 5})
	if s.Refinements != 1 || len(s.Levels) != 2 || !(s.Gap <= gap1*(1+1e-6)) {
		t.Errorf("Gap %v: Refinements %d, gap %v", gap1, s.Refinements, s.Gap)
	}
	// Gap 0 is a single pass.
	if z := ddT(t, p, DataDependentOptions{RangeEdges: edges, Granularity: 2}); z.Refinements != 0 || len(z.Levels) != 1 {
		t.Errorf("Gap 0: Refinements %d", z.Refinements)
	}
}

func TestDataDependentBadInput(t *testing.T) {
	p := Params{Epsilon: 1, Delta: 0.1, Sensitivity: 1}
	long := make([]int, 30000)
	for i := range long {
		long[i] = i
	}
	for name, o := range map[string]DataDependentOptions{
		"empty edges":      {RangeEdges: []int{}},
		"one edge":         {RangeEdges: []int{0}},
		"first edge not 0": {RangeEdges: []int{1, 2}},
		"repeated edge":    {RangeEdges: []int{0, 2, 2, 3}},
		"decreasing":       {RangeEdges: []int{0, 3, 1}},
		"Ranges mismatch":  {RangeEdges: []int{0, 1, 3}, Ranges: 3},
		"Weights length":   {RangeEdges: []int{0, 1, 3}, Weights: []float64{1, 1, 1}},
		"too many groups":  {RangeEdges: long},
		"last edge huge":   {RangeEdges: []int{0, 1 << 31}},
		"Gap NaN":          {Ranges: 2, Gap: math.NaN()},
		"Gap negative":     {Ranges: 2, Gap: -0.1},
		"MaxRefinements":   {Ranges: 2, MaxRefinements: -1},
	} {
		if _, err := OptimizeDataDependent(context.Background(), p, o); !errors.Is(err, ErrInvalidParam) {
			t.Errorf("%s: %v", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OptimizeDataDependent(ctx, p, DataDependentOptions{Ranges: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
