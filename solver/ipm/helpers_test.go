package ipm

import (
	"context"
	"math"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// dense builds a CSC from a row-major dense matrix.
func dense(rows [][]float64) *sparse.CSC {
	m := len(rows)
	n := 0
	if m > 0 {
		n = len(rows[0])
	}
	t := sparse.NewTriplets(m, n, m*n)
	for i, r := range rows {
		for j, v := range r {
			if v != 0 {
				t.Append(i, j, v)
			}
		}
	}
	return t.ToCSC()
}

func upperOf(rows [][]float64) *sparse.CSC {
	n := len(rows)
	t := sparse.NewTriplets(n, n, n*n)
	for i := range rows {
		for j := i; j < n; j++ {
			if rows[i][j] != 0 {
				t.Append(i, j, rows[i][j])
			}
		}
	}
	return t.ToCSC()
}

func solveT(t *testing.T, p *solver.Problem, set Settings) *solver.Solution {
	t.Helper()
	sv, err := NewWithSettings(set)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sv.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	return sol
}

func close(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func nn(d int) cone.Cone { return cone.NewNonnegative(d) }

// checkKKT verifies the optimality conditions of a returned solution.
func checkKKT(t *testing.T, p *solver.Problem, sol *solver.Solution, tol float64) {
	t.Helper()
	n, m := len(p.Q), len(p.B)
	r := p.A.MulVecTo(nil, 1, sol.X, 0)
	for i := 0; i < m; i++ {
		r[i] += sol.S[i] - p.B[i]
	}
	if e := normInf(r); e > tol*(1+normInf(p.B)) {
		t.Errorf("primal residual %g", e)
	}
	d := make([]float64, n)
	symMulVec(d, p.P, sol.X)
	p.A.MulTransVecTo(d, 1, sol.Y, 1)
	for j := range d {
		d[j] += p.Q[j]
	}
	if e := normInf(d); e > tol*(1+normInf(p.Q)) {
		t.Errorf("dual residual %g", e)
	}
	if g := math.Abs(sol.Objective - sol.DualObjective); g > tol*math.Max(1, math.Abs(sol.Objective)) {
		t.Errorf("gap %g (primal %g, dual %g)", g, sol.Objective, sol.DualObjective)
	}
}
