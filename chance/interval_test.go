package chance

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// randomDispatch is a random dispatch-like LP: n units with costs and limits
// serve a demand D (one equality), some pairs share a capacity row, and the
// query is the total cost (weighted sum), with unit 0 deterministic
// (no recourse).
func randomDispatch(rng *rand.Rand, n int) (*solver.Problem, lindecision.SparseVector) {
	tr := sparse.NewTriplets(1+2*n+n/2, n, 4*n) // demand, limits, pair caps
	b := []float64{}
	row := 0
	for j := 0; j < n; j++ {
		tr.Append(row, j, 1)
	}
	demand := 0.0
	q := make([]float64, n)
	var upper []float64
	for j := 0; j < n; j++ {
		q[j] = 1 + 9*rng.Float64()
		upper = append(upper, 5+10*rng.Float64())
		demand += 0.5 * upper[j]
	}
	b = append(b, demand)
	row++
	for j := 0; j < n; j++ {
		tr.Append(row, j, 1) // x_j ≤ u_j
		b = append(b, upper[j])
		row++
		tr.Append(row, j, -1) // x_j ≥ 0
		b = append(b, 0)
		row++
	}
	for j := 0; j+1 < n; j += 2 { // x_j + x_{j+1} ≤ 0.8(u_j + u_{j+1})
		tr.Append(row, j, 1)
		tr.Append(row, j+1, 1)
		b = append(b, 0.8*(upper[j]+upper[j+1]))
		row++
	}
	idx := make([]int, n)
	for j := range idx {
		idx[j] = j
	}
	p := &solver.Problem{Q: q, A: tr.ToCSC(), B: b, Cones: []cone.Cone{cone.NewZero(1), cone.NewNonnegative(row - 1)}}
	return p, lindecision.SparseVector{Idx: idx, Val: append([]float64(nil), q...)}
}

// The interval fast path and the general (x̄, X) counterpart have the same
// optimal value and the same released Q x̄ on random dispatch LPs, for
// vertex, robust and CVaR objectives.
func TestIntervalMatchesGeneral(t *testing.T) {
	lap, _ := noise.NewLaplace(2)
	tl, _ := noise.NewTruncatedLaplace(2, 6)
	rng := rand.New(rand.NewPCG(3, 4))
	compared := 0
	defer func() {
		if compared < 8 {
			t.Errorf("only %d of 12 trials were feasible and compared", compared)
		}
	}()
	for trial := 0; trial < 12; trial++ {
		p, qrow := randomDispatch(rng, 6+trial)
		d := lindecision.Distribution(lap)
		spec := Spec{Approximation: Approximation{Method: Vertex, Eta: 0.05, Beta: 0.1}}
		switch trial % 3 {
		case 1:
			d = tl
			spec.Approximation = Approximation{Method: Robust}
		case 2:
			spec.CVaR = &CVaR{Alpha: 0.9, Samples: 200, Weight: 0.5}
		}
		ls := lindecision.Spec{Noise: lindecision.Perturbation{Components: []lindecision.Distribution{d}},
			Query: []lindecision.SparseVector{qrow}, Recourse: lindecision.Recourse{Zero: []int{0}}}
		run := func(general bool) (*Result, *Counterpart, error) {
			disableInterval = general
			defer func() { disableInterval = false }()
			s := spec
			s.Rand = rand.New(rand.NewPCG(uint64(trial), 9))
			l, err := lindecision.Lift(p, ls)
			if err != nil {
				return nil, nil, err
			}
			cp, err := Reformulate(l, s)
			if err != nil {
				return nil, nil, err
			}
			res, err := Solve(t.Context(), cp, nil, solver.Settings{})
			return res, cp, err
		}
		fast, fcp, err1 := run(false)
		gen, gcp, err2 := run(true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("trial %d: fast path error %v, general %v", trial, err1, err2)
		}
		if err1 != nil {
			continue
		}
		compared++
		if fcp.decode == nil || gcp.decode != nil {
			t.Fatalf("trial %d: fast path not taken (or taken when disabled)", trial)
		}
		if math.Abs(fast.Objective-gen.Objective) > 1e-6*(1+math.Abs(gen.Objective)) {
			t.Errorf("trial %d: objective fast %v, general %v", trial, fast.Objective, gen.Objective)
		}
		qf, qg := 0.0, 0.0
		for t2, c := range qrow.Idx {
			qf += qrow.Val[t2] * fast.Rule.XBar[c]
			qg += qrow.Val[t2] * gen.Rule.XBar[c]
		}
		if spec.CVaR == nil && math.Abs(qf-qg) > 1e-6*(1+math.Abs(qg)) {
			t.Errorf("trial %d: Q x̄ fast %v, general %v", trial, qf, qg)
		}
		if math.Abs(fast.Rule.X.At(0, 0)) > 1e-9 {
			t.Errorf("trial %d: deterministic column got recourse %v", trial, fast.Rule.X.At(0, 0))
		}
	}
}

// ReleaseMargin widens every reformulation by the release rounding: in
// Example 2.7 (x ≥ ℓ with x̃ = x̄ + ζ) the nominal solution moves by exactly
// the margin, for the vertex box, the robust support and the exact
// Bonferroni quantile; a negative margin is invalid.
func TestReleaseMargin(t *testing.T) {
	lap, _ := noise.NewLaplace(1)
	tl, _ := noise.NewTruncatedLaplace(1, 3)
	for _, c := range []struct {
		a Approximation
		d lindecision.Distribution
	}{
		{Approximation{Method: Vertex, Eta: 0.05, Beta: 0.1}, lap},
		{Approximation{Method: Robust}, tl},
		{Approximation{Method: Bonferroni, Eta: 0.05}, lap},
	} {
		var xbar [2]float64
		for k, m := range []float64{0, 0.3} {
			a := c.a
			a.ReleaseMargin = m
			res, _ := solve(t, example27(1, 2, 50), identitySpec(c.d), Spec{Approximation: a, Rand: rand.New(rand.NewPCG(4, 4))})
			xbar[k] = res.Rule.XBar[0]
		}
		if d := xbar[1] - xbar[0]; math.Abs(d-0.3) > 1e-7 {
			t.Errorf("%v: margin 0.3 moved x̄ by %v", c.a.Method, d)
		}
	}
	a := Approximation{Method: Vertex, Eta: 0.05, Beta: 0.1, ReleaseMargin: -1}
	if err := a.Validate(); err == nil {
		t.Error("negative ReleaseMargin accepted")
	}
}

// Decoupled copies (split.go): with free recourse and the query as the
// objective, solving the lower copy as the base problem and the upper copy
// on its own gives the optimal value and Q x̄ of the counterpart solved whole
// (HiGHS on the two-copy LP), on random dispatch LPs, with no proposal and
// with a wrong proposal for the upper copy (which must be rejected).
func TestSplitMatchesWhole(t *testing.T) {
	lap, _ := noise.NewLaplace(2)
	tl, _ := noise.NewTruncatedLaplace(2, 6)
	rng := rand.New(rand.NewPCG(5, 6))
	compared := 0
	for trial := 0; trial < 12; trial++ {
		p, qrow := randomDispatch(rng, 6+trial)
		d := lindecision.Distribution(lap)
		spec := Spec{Approximation: Approximation{Method: Vertex, Eta: 0.05, Beta: 0.1}}
		if trial%2 == 1 {
			d = tl
			spec.Approximation = Approximation{Method: Robust}
		}
		if trial%3 == 2 { // a wrong proposal: the lower copy itself
			spec.Upper = func(xLo []float64, _ float64) []float64 { return xLo }
		}
		ls := lindecision.Spec{Noise: lindecision.Perturbation{Components: []lindecision.Distribution{d}},
			Query: []lindecision.SparseVector{qrow}}
		run := func(whole bool) (*Result, *Counterpart, error) {
			disableSplit = whole
			defer func() { disableSplit = false }()
			s := spec
			s.Rand = rand.New(rand.NewPCG(uint64(trial), 9))
			l, err := lindecision.Lift(p, ls)
			if err != nil {
				return nil, nil, err
			}
			cp, err := Reformulate(l, s)
			if err != nil {
				return nil, nil, err
			}
			res, err := Solve(t.Context(), cp, nil, solver.Settings{})
			return res, cp, err
		}
		split, scp, err1 := run(false)
		whole, _, err2 := run(true)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("trial %d: split error %v, whole %v", trial, err1, err2)
		}
		if err1 != nil {
			continue
		}
		compared++
		if scp.split == nil || !strings.Contains(split.Solution.Diagnostic, "decoupled") {
			t.Fatalf("trial %d: copies not decoupled (%q)", trial, split.Solution.Diagnostic)
		}
		if trial%3 == 2 && !strings.Contains(split.Solution.Diagnostic, "upper copy solved") {
			t.Errorf("trial %d: a wrong proposal was used (%q)", trial, split.Solution.Diagnostic)
		}
		if math.Abs(split.Objective-whole.Objective) > 1e-7*(1+math.Abs(whole.Objective)) {
			t.Errorf("trial %d: objective split %v, whole %v", trial, split.Objective, whole.Objective)
		}
		qs, qw := 0.0, 0.0
		for t2, c := range qrow.Idx {
			qs += qrow.Val[t2] * split.Rule.XBar[c]
			qw += qrow.Val[t2] * whole.Rule.XBar[c]
		}
		if math.Abs(qs-qw) > 1e-7*(1+math.Abs(qw)) {
			t.Errorf("trial %d: Q x̄ split %v, whole %v", trial, qs, qw)
		}
	}
	if compared < 8 {
		t.Errorf("only %d of 12 trials were feasible and compared", compared)
	}
}
