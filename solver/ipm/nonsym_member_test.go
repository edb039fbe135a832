package ipm

import (
	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"math"
	"math/rand/v2"
	"testing"
)

// TestNonsymMembership checks primalIn/dualIn against the barriers' domains
// (primalValue/dualValue finite) on random points and on points of the
// cones' boundaries, and against the cones' definitions away from them.
func TestNonsymMembership(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 9))
	pairs := []struct {
		name string
		f    barrierPair
		// in reports membership from the cone's definition and a margin
		// (the relative gap to the boundary), primal and dual.
		in func(v []float64, dual bool) (bool, float64)
	}{
		{"exp", expBarriers{}, func(v []float64, dual bool) (bool, float64) {
			if !dual { // y·exp(x/y) < z
				x, y, z := v[0], v[1], v[2]
				if !(y > 0 && z > 0) {
					return false, math.Inf(1)
				}
				l, r := y*math.Exp(x/y), z
				return l < r, math.Abs(l-r) / math.Max(l, r)
			}
			u, vv, w := v[0], v[1], v[2] // −u·exp(v/u) < e·w
			if !(u < 0 && w > 0) {
				return false, math.Inf(1)
			}
			l, r := -u*math.Exp(vv/u), math.E*w
			return l < r, math.Abs(l-r) / math.Max(l, r)
		}},
		{"pow 0.3", powBarriers{alpha: 0.3}, func(v []float64, dual bool) (bool, float64) {
			a := 0.3
			x, y, z := v[0], v[1], v[2]
			if dual {
				x, y = x/a, y/(1-a)
			}
			if !(x > 0 && y > 0) {
				return false, math.Inf(1)
			}
			l := math.Pow(x, a) * math.Pow(y, 1-a)
			return l > math.Abs(z), math.Abs(l-math.Abs(z)) / math.Max(l, math.Abs(z))
		}},
	}
	for _, p := range pairs {
		checked := 0
		for k := 0; k < 20000; k++ {
			var v [3]float64
			for i := range v {
				v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(5)-2))
			}
			if k%10 == 0 {
				v[rng.IntN(3)] = 0
			}
			for _, dual := range []bool{false, true} {
				got, old := p.f.primalIn(v[:]), !math.IsInf(p.f.primalValue(v[:]), 1)
				if dual {
					got, old = p.f.dualIn(v[:]), !math.IsInf(p.f.dualValue(v[:]), 1)
				}
				if got != old {
					t.Fatalf("%s dual=%v at %v: membership %v, barrier finite %v", p.name, dual, v, got, old)
				}
				if want, margin := p.in(v[:], dual); margin > 1e-9 {
					checked++
					if got != want {
						t.Fatalf("%s dual=%v at %v: membership %v, definition %v", p.name, dual, v, got, want)
					}
				}
			}
		}
		if checked < 20000 {
			t.Fatalf("%s: only %d points away from the boundary", p.name, checked)
		}
	}
	// Points on the boundaries (exactly representable): not interior.
	e := expBarriers{}
	for _, v := range [][]float64{{0, 1, 1}, {-1, 0, 1}, {0, 0, 0}, {-2, 0, 0}, {1, 1, math.E * 1.0000001}} {
		want := v[1] > 0 && v[1]*math.Exp(v[0]/v[1]) < v[2]
		if e.primalIn(v) != want || e.primalIn(v) != !math.IsInf(e.primalValue(v), 1) {
			t.Errorf("exp primal at %v: membership %v, want %v", v, e.primalIn(v), want)
		}
	}
	for _, v := range [][]float64{{-1, -1, 1}, {0, 1, 1}, {-1, 5, 0}, {-1, -0.9999999, 1}} {
		want := v[0] < 0 && v[2] > 0 && -v[0]*math.Exp(v[1]/v[0]) < math.E*v[2]
		if e.dualIn(v) != want || e.dualIn(v) != !math.IsInf(e.dualValue(v), 1) {
			t.Errorf("exp dual at %v: membership %v, want %v", v, e.dualIn(v), want)
		}
	}
}

// TestNonsymEarlyRefineClass pins the class of nonsymRefineFrac: a
// well-scaled exponential-cone problem stops its refinement at the solver
// tolerance; one with a PSD block, or with rows 10⁶ apart, refines to
// round-off (earlyRefineStop returns 0).
func TestNonsymEarlyRefineClass(t *testing.T) {
	set := DefaultSettings()
	mk := func(scale float64, extra ...cone.Cone) *solver.Problem {
		rows := [][]float64{{0, -1}, {0, 0}, {-1, 0}}
		b := []float64{0, 1, 0}
		for _, c := range extra {
			for i := 0; i < c.Dim; i++ {
				rows = append(rows, []float64{0, 0})
				b = append(b, 1)
			}
		}
		rows = append(rows, []float64{scale, 0})
		b = append(b, 10*scale)
		return &solver.Problem{Q: []float64{1, -2}, A: dense(rows), B: b,
			Cones: append(append([]cone.Cone{cone.NewExponential()}, extra...), cone.NewNonnegative(1))}
	}
	for _, c := range []struct {
		name string
		p    *solver.Problem
		want bool
	}{
		{"exp", mk(1), true},
		{"exp + PSD", mk(1, cone.NewPSD(2)), false},
		{"exp, row scaled 1e6", mk(1e6), false},
	} {
		w, err := newWorkspace(c.p, &set, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if w.nonsymEarly != c.want {
			t.Errorf("%s: nonsymEarly %v, want %v (row spread %.3g)", c.name, w.nonsymEarly, c.want, w.sc.rowSpread())
		}
		stop := w.earlyRefineStop()
		if c.want && !(stop <= nonsymRefineFrac*math.Min(set.FeasTol, set.GapTol)) {
			t.Errorf("%s: early stop %g, want ≤ %g", c.name, stop, nonsymRefineFrac*math.Min(set.FeasTol, set.GapTol))
		}
		if !c.want && stop != 0 {
			t.Errorf("%s: early stop %g, want 0 (round-off)", c.name, stop)
		}
	}
}
