package ipm_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// randomLinearConic returns a feasible, bounded LP (withP false) or convex QP
// with me equality and mi inequality rows: b = Ax₀ + s₀ with s₀ > 0 on the
// inequalities, and q = −Aᵀy₀ − Px₀·0 with y₀ > 0 there (dual feasible).
func randomLinearConic(rng *rand.Rand, n, me, mi int, withP bool) *solver.Problem {
	m := me + mi
	tri := sparse.NewTriplets(m, n, 4*m)
	for i := 0; i < m; i++ {
		for k := 0; k < 3; k++ {
			tri.Append(i, rng.IntN(n), rng.NormFloat64())
		}
	}
	// box rows keep the LP bounded in every direction
	a := tri.ToCSC()
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.NormFloat64()
	}
	b := a.MulVecTo(nil, 1, x0, 0)
	y0 := make([]float64, m)
	for i := 0; i < m; i++ {
		if i < me {
			y0[i] = rng.NormFloat64()
		} else {
			b[i] += rng.Float64() + 0.01
			y0[i] = rng.Float64() + 0.01
		}
	}
	q := a.MulTransVecTo(nil, -1, y0, 0)
	p := &solver.Problem{Q: q, A: a, B: b, Cones: []cone.Cone{cone.NewZero(me), cone.NewNonnegative(mi)}}
	if withP {
		k := n / 2
		f := sparse.NewTriplets(k, n, 3*k)
		for i := 0; i < k; i++ {
			for c := 0; c < 3; c++ {
				f.Append(i, rng.IntN(n), rng.NormFloat64())
			}
		}
		fd := f.ToCSC().Dense()
		pt := sparse.NewTriplets(n, n, n*n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				var v float64
				for r := 0; r < k; r++ {
					v += fd[r][i] * fd[r][j]
				}
				if v != 0 {
					pt.Append(i, j, v)
				}
			}
		}
		p.P = pt.ToCSC()
	}
	return p
}

// TestAgainstHiGHS compares statuses and optimal objectives with the HiGHS
// backend (simplex / active-set QP), an independent solver, on random LPs and
// QPs, and on infeasible and unbounded variants.
func TestAgainstHiGHS(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	count := map[solver.Status]int{}
	defer func() { t.Logf("statuses: %v", count) }()
	for trial := 0; trial < 30; trial++ {
		n := 10 + rng.IntN(40)
		me := rng.IntN(n / 3)
		mi := n + rng.IntN(n)
		p := randomLinearConic(rng, n, me, mi, trial%2 == 1)
		switch trial % 5 {
		case 3: // infeasible: duplicate the first inequality row with an impossible rhs
			p = withContradiction(p, me)
		case 4: // unbounded (LP only): drop the dual-feasibility of q
			if p.P == nil {
				for j := range p.Q {
					p.Q[j] = rng.NormFloat64()
				}
				p.A, p.B, p.Cones = sparse.NewCSC(0, n), nil, nil
				p.Q[0] = -1
			}
		}
		hs, err := highs.New().Solve(context.Background(), p, solver.Settings{})
		if err != nil {
			t.Fatalf("trial %d: highs: %v", trial, err)
		}
		is, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
		if err != nil {
			t.Fatalf("trial %d: ipm: %v", trial, err)
		}
		hst := hs.Status
		if hst == solver.StatusUnknown || hst == solver.NumericalError {
			t.Logf("trial %d: highs status %v, skipped", trial, hst)
			continue
		}
		// HiGHS's QP answers may be re-checked as almost-optimal (its
		// active-set solver stops at ~1e-7): compare outcomes.
		if hst == solver.AlmostOptimal && is.Status == solver.Optimal {
			hst = solver.Optimal
		}
		if is.Status != hst {
			t.Errorf("trial %d (n=%d, P=%v): ipm %v, highs %v", trial, n, p.P != nil, is.Status, hst)
			continue
		}
		count[hst]++
		if hst == solver.Optimal {
			if d := math.Abs(is.Objective - hs.Objective); d > 1e-6*math.Max(1, math.Abs(hs.Objective)) {
				t.Errorf("trial %d: ipm objective %.10g, highs %.10g", trial, is.Objective, hs.Objective)
			}
		}
	}
}

// withContradiction appends the rows aᵀx ≤ β and −aᵀx ≤ −β − 1 for the first
// inequality row a.
func withContradiction(p *solver.Problem, me int) *solver.Problem {
	at := p.A.Transpose()
	m, n := p.A.Rows, p.A.Cols
	tri := sparse.NewTriplets(m+2, n, p.A.Nnz()+8)
	for j := 0; j < n; j++ {
		for k := p.A.ColPtr[j]; k < p.A.ColPtr[j+1]; k++ {
			tri.Append(p.A.RowIdx[k], j, p.A.Val[k])
		}
	}
	for k := at.ColPtr[me]; k < at.ColPtr[me+1]; k++ {
		tri.Append(m, at.RowIdx[k], at.Val[k])
		tri.Append(m+1, at.RowIdx[k], -at.Val[k])
	}
	b := append(append([]float64(nil), p.B...), 0, -1)
	cones := append(append([]cone.Cone(nil), p.Cones...), cone.NewNonnegative(2))
	return &solver.Problem{P: p.P, Q: p.Q, A: tri.ToCSC(), B: b, Cones: cones}
}
