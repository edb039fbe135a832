package ipm

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/mat"
)

func eye(n int, a float64) *sparse.CSC {
	t := sparse.NewTriplets(n, n, n)
	for i := 0; i < n; i++ {
		t.Append(i, i, a)
	}
	return t.ToCSC()
}

// both runs f with the sparse and the dense KKT solver.
func both(t *testing.T, f func(t *testing.T, set Settings)) {
	t.Run("sparse", func(t *testing.T) { f(t, Settings{}) })
	t.Run("dense", func(t *testing.T) { f(t, Settings{DenseKKT: true}) })
}

func TestLPHandSolution(t *testing.T) {
	// min −x − y s.t. x + 2y ≤ 4, 3x + y ≤ 6, x, y ≥ 0: vertex (1.6, 1.2), value −2.8,
	// duals 0.4 and 0.2 on the two active rows.
	p := &solver.Problem{
		Q:     []float64{-1, -1},
		A:     dense([][]float64{{1, 2}, {3, 1}, {-1, 0}, {0, -1}}),
		B:     []float64{4, 6, 0, 0},
		Cones: []cone.Cone{nn(4)},
	}
	both(t, func(t *testing.T, set Settings) {
		sol := solveT(t, p, set)
		if sol.Status != solver.Optimal {
			t.Fatalf("status %v", sol.Status)
		}
		want := []float64{1.6, 1.2}
		for i := range want {
			if !close(sol.X[i], want[i], 1e-7) {
				t.Errorf("x[%d] = %v, want %v", i, sol.X[i], want[i])
			}
		}
		wantY := []float64{0.4, 0.2, 0, 0}
		for i := range wantY {
			if math.Abs(sol.Y[i]-wantY[i]) > 1e-7 {
				t.Errorf("y[%d] = %v, want %v", i, sol.Y[i], wantY[i])
			}
		}
		if !close(sol.Objective, -2.8, 1e-8) {
			t.Errorf("objective %v, want -2.8", sol.Objective)
		}
		checkKKT(t, p, sol, 1e-7)
	})
}

func TestQPHandSolution(t *testing.T) {
	// min ½(x² + y²) − x − y + 3 s.t. x + y ≤ 1, x − y = 0: x = y = ½, value 2.25,
	// y_ineq = ½ (from x − 1 + y₁ + y₂ = 0 and y − 1 + y₁ − y₂ = 0).
	p := &solver.Problem{
		P:     eye(2, 1),
		Q:     []float64{-1, -1},
		R:     3,
		A:     dense([][]float64{{1, -1}, {1, 1}}),
		B:     []float64{0, 1},
		Cones: []cone.Cone{cone.NewZero(1), nn(1)},
	}
	both(t, func(t *testing.T, set Settings) {
		sol := solveT(t, p, set)
		if sol.Status != solver.Optimal {
			t.Fatalf("status %v", sol.Status)
		}
		if !close(sol.X[0], 0.5, 1e-7) || !close(sol.X[1], 0.5, 1e-7) {
			t.Errorf("x = %v, want (0.5, 0.5)", sol.X)
		}
		if !close(sol.Objective, 2.25, 1e-8) || !close(sol.DualObjective, 2.25, 1e-7) {
			t.Errorf("objectives %v, %v, want 2.25", sol.Objective, sol.DualObjective)
		}
		if math.Abs(sol.Y[0]) > 1e-7 || math.Abs(sol.Y[1]-0.5) > 1e-7 {
			t.Errorf("y = %v, want (0, 0.5)", sol.Y)
		}
		checkKKT(t, p, sol, 1e-7)
	})
}

// TestEqualityQPRandom compares with the solution of the KKT linear system
// [P Cᵀ; C 0][x; λ] = [−q; d] (gonum LU), an independent computation.
func TestEqualityQPRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20; trial++ {
		n, me := 8+trial%5, 3+trial%3
		f := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				f.Set(i, j, rng.NormFloat64())
			}
		}
		var pm mat.Dense
		pm.Mul(f.T(), f)
		for i := 0; i < n; i++ {
			pm.Set(i, i, pm.At(i, i)+0.1)
		}
		c := mat.NewDense(me, n, nil)
		q := make([]float64, n)
		d := make([]float64, me)
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		for i := 0; i < me; i++ {
			d[i] = rng.NormFloat64()
			for j := 0; j < n; j++ {
				c.Set(i, j, rng.NormFloat64())
			}
		}
		kk := mat.NewDense(n+me, n+me, nil)
		rhs := mat.NewVecDense(n+me, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				kk.Set(i, j, pm.At(i, j))
			}
			rhs.SetVec(i, -q[i])
		}
		for i := 0; i < me; i++ {
			for j := 0; j < n; j++ {
				kk.Set(n+i, j, c.At(i, j))
				kk.Set(j, n+i, c.At(i, j))
			}
			rhs.SetVec(n+i, d[i])
		}
		var sol mat.VecDense
		if err := sol.SolveVec(kk, rhs); err != nil {
			t.Fatal(err)
		}
		rows := make([][]float64, me)
		prow := make([][]float64, n)
		for i := range rows {
			rows[i] = make([]float64, n)
			for j := range rows[i] {
				rows[i][j] = c.At(i, j)
			}
		}
		for i := range prow {
			prow[i] = make([]float64, n)
			for j := range prow[i] {
				prow[i][j] = pm.At(i, j)
			}
		}
		p := &solver.Problem{P: upperOf(prow), Q: q, A: dense(rows), B: d, Cones: []cone.Cone{cone.NewZero(me)}}
		got := solveT(t, p, Settings{})
		if got.Status != solver.Optimal {
			t.Fatalf("trial %d: status %v", trial, got.Status)
		}
		for j := 0; j < n; j++ {
			if math.Abs(got.X[j]-sol.AtVec(j)) > 1e-6*(1+math.Abs(sol.AtVec(j))) {
				t.Fatalf("trial %d: x[%d] = %v, KKT solve %v", trial, j, got.X[j], sol.AtVec(j))
			}
		}
		// our y is the multiplier of Cx = d in Px + q + Cᵀy = 0, i.e. λ
		for i := 0; i < me; i++ {
			if math.Abs(got.Y[i]-sol.AtVec(n+i)) > 1e-6*(1+math.Abs(sol.AtVec(n+i))) {
				t.Fatalf("trial %d: y[%d] = %v, KKT solve %v", trial, i, got.Y[i], sol.AtVec(n+i))
			}
		}
	}
}

func socProj(v []float64) []float64 {
	d := len(v)
	nx := norm2(v[1:])
	out := make([]float64, d)
	switch {
	case nx <= v[0]:
		copy(out, v)
	case nx <= -v[0]:
	default:
		a := (v[0] + nx) / 2
		out[0] = a
		for i := 1; i < d; i++ {
			out[i] = a * v[i] / nx
		}
	}
	return out
}

// TestSOCProjection: argmin ½‖u − v‖² over the second-order cone has the closed
// form ((t + ‖x‖)/2)(1, x/‖x‖) when ‖x‖ > |t| (Boyd & Vandenberghe, Ex. 8.3(c)
// solutions), v itself inside the cone and 0 inside the polar cone. Dimensions
// 3 (dense scaling block), 10 and 37 (sparse expansion).
func TestSOCProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 2, 3, 10, 37} {
		for trial := 0; trial < 6; trial++ {
			v := make([]float64, d)
			for i := range v {
				v[i] = 2 * rng.NormFloat64()
			}
			switch trial {
			case 0:
				v[0] = norm2(v[1:]) + 1 // inside
			case 1:
				v[0] = -norm2(v[1:]) - 1 // polar cone: projection 0
			}
			q := make([]float64, d)
			for i := range q {
				q[i] = -v[i]
			}
			p := &solver.Problem{P: eye(d, 1), Q: q, A: eye(d, -1), B: make([]float64, d), Cones: []cone.Cone{cone.NewSecondOrder(d)}}
			sol := solveT(t, p, Settings{})
			if sol.Status != solver.Optimal {
				t.Fatalf("d=%d trial %d: status %v", d, trial, sol.Status)
			}
			want := socProj(v)
			for i := range want {
				if math.Abs(sol.X[i]-want[i]) > 1e-6*(1+norm2(v)) {
					t.Fatalf("d=%d trial %d: x[%d] = %v, want %v", d, trial, i, sol.X[i], want[i])
				}
			}
			checkKKT(t, p, sol, 1e-7)
		}
	}
}

// TestRotatedCone: min u + v s.t. 2uv ≥ 1 (u, v ≥ 0) has u = v = 1/√2, value √2;
// and min t − 2x s.t. 2·t·(1/2) ≥ x² has x = 1, t = 1, value −1.
func TestRotatedCone(t *testing.T) {
	p := &solver.Problem{
		Q:     []float64{1, 1},
		A:     dense([][]float64{{-1, 0}, {0, -1}, {0, 0}}),
		B:     []float64{0, 0, 1},
		Cones: []cone.Cone{cone.NewRotatedSecondOrder(3)},
	}
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, math.Sqrt2, 1e-8) {
		t.Fatalf("status %v objective %v, want √2", sol.Status, sol.Objective)
	}
	if !close(sol.X[0], 1/math.Sqrt2, 1e-6) || !close(sol.X[1], 1/math.Sqrt2, 1e-6) {
		t.Errorf("x = %v, want (1/√2, 1/√2)", sol.X)
	}
	checkKKT(t, p, sol, 1e-7)
	// dual: y ∈ rotated cone (self-dual): 2 y0 y1 ≥ y2²
	if y := sol.Y; !(y[0] >= 0 && y[1] >= 0 && 2*y[0]*y[1] >= y[2]*y[2]*(1-1e-6)) {
		t.Errorf("y = %v not in the rotated cone", y)
	}
	// vars t, x: s = (t, 1/2, x)
	p2 := &solver.Problem{
		Q:     []float64{1, -2},
		A:     dense([][]float64{{-1, 0}, {0, 0}, {0, -1}}),
		B:     []float64{0, 0.5, 0},
		Cones: []cone.Cone{cone.NewRotatedSecondOrder(3)},
	}
	sol = solveT(t, p2, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, -1, 1e-8) || !close(sol.X[1], 1, 1e-3) {
		t.Fatalf("status %v objective %v x %v, want −1 at x = 1", sol.Status, sol.Objective, sol.X)
	}
}

// logdetProblem builds maximize Σ tᵢ (≤ log det X) over X ∈ S^n via
//
//	[X Z; Zᵀ diag(Z)] ⪰ 0, Z lower triangular, (tᵢ, 1, Zᵢᵢ) ∈ K_exp
//
// (Ben-Tal & Nemirovski, Lectures on Modern Convex Optimization, §4.2), or
// with pow = true for n = 2, maximize w ≤ √(Z₁₁Z₂₂) via a power cone. The
// columns are svec(X) (dx), Z (dx), t (n) and then extra columns; extra rows
// (with their cones, placed first) are added by the caller through rows.
type logdet struct {
	n, dx, extra int
	pow          bool
	t            *sparse.Triplets
	b            []float64
	cones        []cone.Cone
	q            []float64
	row          int
}

func newLogdet(n, extra int, pow bool) *logdet {
	dx := n * (n + 1) / 2
	nv := 2*dx + n + extra
	if pow {
		nv = 2*dx + 1 + extra
	}
	return &logdet{n: n, dx: dx, extra: extra, pow: pow, t: sparse.NewTriplets(0, nv, 0), q: make([]float64, nv)}
}

func svecIdx(i, j, n int) int { // i ≥ j
	return j*n - j*(j-1)/2 + (i - j)
}

func (l *logdet) xvar(i, j int) (int, float64) { // X_ij = coef·x[var]
	if i < j {
		i, j = j, i
	}
	if i == j {
		return svecIdx(i, j, l.n), 1
	}
	return svecIdx(i, j, l.n), 1 / math.Sqrt2
}

func (l *logdet) zvar(i, j int) int { return l.dx + svecIdx(i, j, l.n) }

func (l *logdet) add(coefs map[int]float64, b float64) {
	l.t.Grow(l.row+1, 0)
	for j, v := range coefs {
		l.t.Append(l.row, j, v)
	}
	l.b = append(l.b, b)
	l.row++
}

func (l *logdet) finish() *solver.Problem {
	n := l.n
	// PSD block of order 2n: s = svec(M)
	N := 2 * n
	for c := 0; c < N; c++ {
		for r := c; r < N; r++ {
			co := map[int]float64{}
			switch {
			case r < n:
				co[svecIdx(r, c, n)] = -1
			case c < n:
				// M[r][c] = Z[c][r−n] when c ≥ r−n
				if c >= r-n {
					co[l.zvar(c, r-n)] = -math.Sqrt2
				}
			case r == c:
				co[l.zvar(r-n, r-n)] = -1
			}
			l.add(co, 0)
		}
	}
	l.cones = append(l.cones, cone.NewPSD(N))
	if l.pow {
		w := 2 * l.dx
		l.add(map[int]float64{l.zvar(0, 0): -1}, 0)
		l.add(map[int]float64{l.zvar(1, 1): -1}, 0)
		l.add(map[int]float64{w: -1}, 0)
		l.cones = append(l.cones, cone.NewPower(0.5))
		l.q[w] = -1
	} else {
		for i := 0; i < n; i++ {
			ti := 2*l.dx + i
			l.add(map[int]float64{ti: -1}, 0)
			l.add(map[int]float64{}, 1)
			l.add(map[int]float64{l.zvar(i, i): -1}, 0)
			l.cones = append(l.cones, cone.NewExponential())
			l.q[ti] = -1
		}
	}
	return &solver.Problem{Q: l.q, A: l.t.ToCSC(), B: l.b, Cones: l.cones}
}

// maxVolumeEllipsoid builds max log det B s.t. ‖B gₖ‖ + gₖᵀd ≤ hₖ, the largest
// ellipsoid {Bu + d : ‖u‖ ≤ 1} inside {x : Gx ≤ h} (Boyd & Vandenberghe §8.4.2).
func maxVolumeEllipsoid(g [][2]float64, h []float64, pow bool) (*solver.Problem, *logdet) {
	l := newLogdet(2, 2, pow)
	dcol := l.t
	_ = dcol
	nv := len(l.q)
	d0, d1 := nv-2, nv-1
	for k := range g {
		l.add(map[int]float64{d0: g[k][0], d1: g[k][1]}, h[k])
		for i := 0; i < 2; i++ {
			co := map[int]float64{}
			for j := 0; j < 2; j++ {
				v, c := l.xvar(i, j)
				co[v] -= c * g[k][j]
			}
			l.add(co, 0)
		}
		l.cones = append(l.cones, cone.NewSecondOrder(3))
	}
	return l.finish(), l
}

func TestMaxVolumeEllipsoidBox(t *testing.T) {
	// box [c0 ± a0] × [c1 ± a1]: the inscribed ellipse has semi-axes a, center c
	a := [2]float64{2, 0.5}
	c := [2]float64{1, -0.5}
	g := [][2]float64{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	h := []float64{c[0] + a[0], -c[0] + a[0], c[1] + a[1], -c[1] + a[1]}
	for _, pow := range []bool{false, true} {
		p, l := maxVolumeEllipsoid(g, h, pow)
		sol := solveT(t, p, Settings{})
		if sol.Status != solver.Optimal {
			t.Fatalf("pow=%v: status %v", pow, sol.Status)
		}
		want := -math.Log(a[0] * a[1])
		if pow {
			want = -math.Sqrt(a[0] * a[1])
		}
		if !close(sol.Objective, want, 1e-6) {
			t.Errorf("pow=%v: objective %v, want %v", pow, sol.Objective, want)
		}
		b00, b10, b11 := sol.X[0], sol.X[1]/math.Sqrt2, sol.X[2]
		if math.Abs(b00-a[0]) > 1e-5 || math.Abs(b11-a[1]) > 1e-5 || math.Abs(b10) > 1e-5 {
			t.Errorf("pow=%v: B = [%v %v; %v %v], want diag(%v, %v)", pow, b00, b10, b10, b11, a[0], a[1])
		}
		nv := len(l.q)
		if math.Abs(sol.X[nv-2]-c[0]) > 1e-5 || math.Abs(sol.X[nv-1]-c[1]) > 1e-5 {
			t.Errorf("pow=%v: center (%v, %v), want %v", pow, sol.X[nv-2], sol.X[nv-1], c)
		}
	}
}

// TestMaxVolumeEllipsoidTriangle: the Steiner inellipse is the maximal one; its
// area is π/(3√3)·area(triangle) and its center the centroid.
func TestMaxVolumeEllipsoidTriangle(t *testing.T) {
	v := [3][2]float64{{0, 0}, {4, 0}, {1, 3}}
	var g [][2]float64
	var h []float64
	for k := 0; k < 3; k++ {
		p, q, o := v[k], v[(k+1)%3], v[(k+2)%3]
		n := [2]float64{q[1] - p[1], p[0] - q[0]}
		hh := n[0]*p[0] + n[1]*p[1]
		if n[0]*o[0]+n[1]*o[1] > hh { // orient outward
			n[0], n[1], hh = -n[0], -n[1], -hh
		}
		g = append(g, n)
		h = append(h, hh)
	}
	area := 6.0
	p, l := maxVolumeEllipsoid(g, h, false)
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal {
		t.Fatalf("status %v", sol.Status)
	}
	detB := math.Exp(-sol.Objective)
	if want := area / (3 * math.Sqrt(3)); !close(detB, want, 1e-6) {
		t.Errorf("det B = %v, want area/(3√3) = %v", detB, want)
	}
	nv := len(l.q)
	if math.Abs(sol.X[nv-2]-5.0/3) > 1e-5 || math.Abs(sol.X[nv-1]-1) > 1e-5 {
		t.Errorf("center (%v, %v), want the centroid (5/3, 1)", sol.X[nv-2], sol.X[nv-1])
	}
}

// TestLogDet: min tr(CX) − log det X has X = C⁻¹ and value n + log det C.
func TestLogDet(t *testing.T) {
	n := 3
	cm := mat.NewSymDense(n, []float64{4, 1, 0.5, 1, 3, -0.2, 0.5, -0.2, 2})
	l := newLogdet(n, 0, false)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			v, c := l.xvar(i, j)
			f := 1.0
			if i != j {
				f = 2
			}
			l.q[v] += f * c * cm.At(i, j)
		}
	}
	p := l.finish()
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal {
		t.Fatalf("status %v", sol.Status)
	}
	var ch mat.Cholesky
	ch.Factorize(cm)
	want := float64(n) + ch.LogDet()
	if !close(sol.Objective, want, 1e-7) {
		t.Errorf("objective %v, want n + log det C = %v", sol.Objective, want)
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			v, c := l.xvar(i, j)
			if got := c * sol.X[v]; math.Abs(got-inv.At(i, j)) > 1e-5 {
				t.Errorf("X[%d,%d] = %v, want (C⁻¹) %v", i, j, got, inv.At(i, j))
			}
		}
	}
}

// TestMinEigenvalueSDP: min tr(CX) s.t. tr X = 1, X ⪰ 0 is λ_min(C) (gonum eigen).
func TestMinEigenvalueSDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{2, 5, 12} {
		d := n * (n + 1) / 2
		c := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				c.SetSym(i, j, rng.NormFloat64())
			}
		}
		var es mat.EigenSym
		es.Factorize(c, false)
		q := make([]float64, d)
		tri := sparse.NewTriplets(1+d, d, 2*d)
		for j := 0; j < n; j++ {
			for i := j; i < n; i++ {
				k := svecIdx(i, j, n)
				if i == j {
					q[k] = c.At(i, j)
					tri.Append(0, k, 1)
				} else {
					q[k] = math.Sqrt2 * c.At(i, j)
				}
				tri.Append(1+k, k, -1)
			}
		}
		b := make([]float64, 1+d)
		b[0] = 1
		p := &solver.Problem{Q: q, A: tri.ToCSC(), B: b, Cones: []cone.Cone{cone.NewZero(1), cone.NewPSD(n)}}
		sol := solveT(t, p, Settings{})
		if sol.Status != solver.Optimal || !close(sol.Objective, es.Values(nil)[0], 1e-7) {
			t.Errorf("n=%d: status %v objective %v, want λmin %v", n, sol.Status, sol.Objective, es.Values(nil)[0])
		}
		checkKKT(t, p, sol, 1e-7)
	}
}

// TestEntropy: max −Σ xᵢ log xᵢ over the simplex is log n at the uniform point.
func TestEntropy(t *testing.T) {
	for _, nv := range []int{2, 5, 20} {
		n := 2 * nv
		q := make([]float64, n)
		m := 1 + 3*nv
		tri := sparse.NewTriplets(m, n, 4*nv)
		b := make([]float64, m)
		for i := 0; i < nv; i++ {
			tri.Append(0, i, 1)
			q[nv+i] = -1
		}
		b[0] = 1
		cones := []cone.Cone{cone.NewZero(1)}
		for i := 0; i < nv; i++ {
			r := 1 + 3*i
			tri.Append(r, nv+i, -1) // tᵢ ≤ −xᵢ log xᵢ ⇔ (tᵢ, xᵢ, 1) ∈ K_exp
			tri.Append(r+1, i, -1)
			b[r+2] = 1
			cones = append(cones, cone.NewExponential())
		}
		p := &solver.Problem{Q: q, A: tri.ToCSC(), B: b, Cones: cones}
		sol := solveT(t, p, Settings{})
		if sol.Status != solver.Optimal || !close(-sol.Objective, math.Log(float64(nv)), 1e-7) {
			t.Errorf("n=%d: status %v, entropy %v, want log n = %v", nv, sol.Status, -sol.Objective, math.Log(float64(nv)))
		}
		for i := 0; i < nv; i++ {
			if math.Abs(sol.X[i]-1/float64(nv)) > 1e-5 {
				t.Errorf("n=%d: x[%d] = %v, want 1/n", nv, i, sol.X[i])
			}
		}
	}
}

// TestExpClosedForm: min t − 2x s.t. eˣ ≤ t has eˣ = 2: x = log 2, value 2 − 2 log 2.
func TestExpClosedForm(t *testing.T) {
	p := &solver.Problem{
		Q:     []float64{1, -2},
		A:     dense([][]float64{{0, -1}, {0, 0}, {-1, 0}}),
		B:     []float64{0, 1, 0},
		Cones: []cone.Cone{cone.NewExponential()},
	}
	sol := solveT(t, p, Settings{})
	if want := 2 - 2*math.Ln2; sol.Status != solver.Optimal || !close(sol.Objective, want, 1e-7) || math.Abs(sol.X[1]-math.Ln2) > 1e-5 {
		t.Fatalf("status %v objective %v x %v, want %v at x = log 2", sol.Status, sol.Objective, sol.X, want)
	}
	checkKKT(t, p, sol, 1e-6)
}

// TestPowerClosedForm: max x^α y^(1−α) on x + y = 1 is α^α(1−α)^(1−α); and
// min t − x s.t. |x|^{3/2} ≤ t (t^{2/3}·1^{1/3} ≥ |x|) is −4/27 at x = 4/9.
func TestPowerClosedForm(t *testing.T) {
	for _, a := range []float64{0.3, 0.5, 0.8} {
		p := &solver.Problem{
			Q:     []float64{0, 0, -1},
			A:     dense([][]float64{{1, 1, 0}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}),
			B:     []float64{1, 0, 0, 0},
			Cones: []cone.Cone{cone.NewZero(1), cone.NewPower(a)},
		}
		sol := solveT(t, p, Settings{})
		want := -math.Pow(a, a) * math.Pow(1-a, 1-a)
		if sol.Status != solver.Optimal || !close(sol.Objective, want, 1e-7) || math.Abs(sol.X[0]-a) > 1e-5 {
			t.Errorf("α=%v: status %v objective %v x %v, want %v at x = α", a, sol.Status, sol.Objective, sol.X, want)
		}
	}
	p := &solver.Problem{
		Q:     []float64{1, -1},
		A:     dense([][]float64{{-1, 0}, {0, 0}, {0, -1}}),
		B:     []float64{0, 1, 0},
		Cones: []cone.Cone{cone.NewPower(2.0 / 3)},
	}
	sol := solveT(t, p, Settings{})
	if sol.Status != solver.Optimal || !close(sol.Objective, -4.0/27, 1e-7) || math.Abs(sol.X[1]-4.0/9) > 1e-5 {
		t.Errorf("status %v objective %v x %v, want −4/27 at x = 4/9", sol.Status, sol.Objective, sol.X)
	}
}

// checkPrimalCert verifies y ∈ K* (here SOC and orthant), Aᵀy ≈ 0, bᵀy = −1.
func checkPrimalCert(t *testing.T, p *solver.Problem, y []float64) {
	t.Helper()
	if by := dot(p.B, y); math.Abs(by+1) > 1e-9 {
		t.Errorf("bᵀy = %v, want −1", by)
	}
	aty := p.A.MulTransVecTo(nil, 1, y, 0)
	if e := normInf(aty); e > 1e-6 {
		t.Errorf("‖Aᵀy‖∞ = %v", e)
	}
	checkDualCone(t, p.Cones, y, 1e-7)
}

func checkDualCone(t *testing.T, cs []cone.Cone, y []float64, tol float64) {
	t.Helper()
	off := 0
	for _, c := range cs {
		v := y[off : off+c.Dim]
		switch c.Kind {
		case cone.Nonnegative:
			for _, x := range v {
				if x < -tol {
					t.Errorf("dual %v has entry %v < 0", c, x)
				}
			}
		case cone.SecondOrder:
			if v[0] < norm2(v[1:])-tol {
				t.Errorf("dual %v: t = %v < ‖x‖ = %v", c, v[0], norm2(v[1:]))
			}
		}
		off += c.Dim
	}
}

func TestInfeasibleSOCP(t *testing.T) {
	// ‖(x, y)‖ ≤ t, t ≤ −1, and x + y ≥ 3 (rows: SOC, then two orthant rows)
	p := &solver.Problem{
		Q:     []float64{1, 0, 0},
		A:     dense([][]float64{{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}, {1, 0, 0}, {0, -1, -1}}),
		B:     []float64{0, 0, 0, -1, -3},
		Cones: []cone.Cone{cone.NewSecondOrder(3), nn(2)},
	}
	both(t, func(t *testing.T, set Settings) {
		sol := solveT(t, p, set)
		if sol.Status != solver.PrimalInfeasible {
			t.Fatalf("status %v, want infeasible", sol.Status)
		}
		checkPrimalCert(t, p, sol.Y)
	})
}

// unboundedSOCP is min −t − x s.t. ‖(x, y)‖ ≤ t, y = 1: unbounded along
// t = x → ∞.
func unboundedSOCP() *solver.Problem {
	return &solver.Problem{
		Q:     []float64{-1, -1, 0},
		A:     dense([][]float64{{0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}),
		B:     []float64{1, 0, 0, 0},
		Cones: []cone.Cone{cone.NewZero(1), cone.NewSecondOrder(3)},
	}
}

func TestUnboundedSOCP(t *testing.T) {
	p := unboundedSOCP()
	both(t, func(t *testing.T, set Settings) {
		sol := solveT(t, p, set)
		if sol.Status != solver.DualInfeasible {
			t.Fatalf("status %v, want unbounded", sol.Status)
		}
		x := sol.X
		if qx := dot(p.Q, x); math.Abs(qx+1) > 1e-9 {
			t.Errorf("qᵀx = %v, want −1", qx)
		}
		ax := p.A.MulVecTo(nil, -1, x, 0) // −Ax must lie in K
		if math.Abs(ax[0]) > 1e-6 {
			t.Errorf("zero-cone row of −Ax = %v", ax[0])
		}
		if ax[1] < norm2(ax[2:4])-1e-6 {
			t.Errorf("−Ax = %v not in the second-order cone", ax[1:4])
		}
	})
}

// TestNoGraceStopsAtDetection: with Termination.DualInfeasibleGrace =
// NoGrace the IPM answers "unbounded" at the iteration that detects the ray,
// exactly DualInfeasibleGrace (default 10) iterations before the default
// settings do, with the same ray (the iterates agree up to the detection).
func TestNoGraceStopsAtDetection(t *testing.T) {
	p := unboundedSOCP()
	def := solveT(t, p, Settings{})
	fast := solveT(t, p, Settings{Termination: Termination{DualInfeasibleGrace: NoGrace}})
	if def.Status != solver.DualInfeasible || fast.Status != solver.DualInfeasible {
		t.Fatalf("statuses %v (default), %v (NoGrace); want unbounded", def.Status, fast.Status)
	}
	if def.Iterations-fast.Iterations != 10 {
		t.Errorf("iterations %d (default) and %d (NoGrace), want 10 apart", def.Iterations, fast.Iterations)
	}
	for j := range def.X {
		if def.X[j] != fast.X[j] {
			t.Fatalf("rays differ: %v (default), %v (NoGrace)", def.X, fast.X)
		}
	}
	if _, err := NewWithSettings(Settings{Termination: Termination{DualInfeasibleGrace: -7}}); err != nil {
		t.Errorf("a negative grace (NoGrace) rejected: %v", err)
	}
}

// TestIllPosed: min x s.t. [x 1; 1 y] ⪰ 0, y ≤ 1/ε-free has infimum 0 not
// attained when y is free; with y ≤ 1e6 the optimum is 1e-6. Any OK status must
// come with a point satisfying the conditions; never a wrong optimum.
func TestIllPosed(t *testing.T) {
	// variables x, y; s = svec([x 1; 1 y]) = (x, √2, y)
	p := &solver.Problem{
		Q:     []float64{1, 0},
		A:     dense([][]float64{{-1, 0}, {0, 0}, {0, -1}}),
		B:     []float64{0, math.Sqrt2, 0},
		Cones: []cone.Cone{cone.NewPSD(2)},
	}
	sol := solveT(t, p, Settings{})
	if sol.Status.OK() {
		if sol.X[0] < -1e-7 || sol.X[0]*sol.X[1] < 1-1e-6 || sol.Objective > 1e-4 {
			t.Errorf("status %v with x = %v, objective %v", sol.Status, sol.X, sol.Objective)
		}
		checkKKT(t, p, sol, 1e-5)
	}
	// feasible but not strictly: x ≥ ‖(x, y)‖ forces y = 0; min y − x/1e3 with x ≤ 1
	p2 := &solver.Problem{
		Q:     []float64{-1e-3, 1},
		A:     dense([][]float64{{1, 0}, {-1, 0}, {-1, 0}, {0, -1}}),
		B:     []float64{1, 0, 0, 0},
		Cones: []cone.Cone{nn(1), cone.NewSecondOrder(3)},
	}
	sol = solveT(t, p2, Settings{})
	if sol.Status.OK() {
		if math.Abs(sol.Objective+1e-3) > 1e-5 {
			t.Errorf("status %v objective %v, want −1e-3", sol.Status, sol.Objective)
		}
		checkKKT(t, p2, sol, 1e-5)
	}
	t.Logf("ill-posed statuses: %v", sol.Status)
}

func TestInvalidInput(t *testing.T) {
	ok := func() *solver.Problem {
		return &solver.Problem{Q: []float64{1, 1}, A: dense([][]float64{{1, 0}, {0, 1}, {1, 1}}), B: []float64{1, 1, 1}, Cones: []cone.Cone{cone.NewSecondOrder(3)}}
	}
	cases := []struct {
		name   string
		mutate func(p *solver.Problem)
		want   error
	}{
		{"nan q", func(p *solver.Problem) { p.Q[0] = math.NaN() }, solver.ErrInvalidProblem},
		{"inf b", func(p *solver.Problem) { p.B[1] = math.Inf(1) }, solver.ErrInvalidProblem},
		{"cone mismatch", func(p *solver.Problem) { p.Cones = []cone.Cone{cone.NewSecondOrder(2)} }, solver.ErrInvalidProblem},
		{"soc dim 0", func(p *solver.Problem) { p.Cones = []cone.Cone{cone.NewSecondOrder(0), nn(3)} }, solver.ErrInvalidProblem},
		{"psd not triangular", func(p *solver.Problem) { p.Cones = []cone.Cone{{Kind: cone.PSD, Dim: 2}, nn(1)} }, solver.ErrInvalidProblem},
		{"power alpha", func(p *solver.Problem) { p.Cones = []cone.Cone{cone.NewPower(1.5)} }, solver.ErrInvalidProblem},
		{"A shape", func(p *solver.Problem) { p.B = p.B[:2]; p.Cones = []cone.Cone{nn(2)} }, solver.ErrInvalidProblem},
		{"nonconvex P", func(p *solver.Problem) { p.P = upperOf([][]float64{{1, 2}, {2, 1}}) }, ErrNotConvex},
		{"negative diagonal P", func(p *solver.Problem) { p.P = upperOf([][]float64{{-1, 0}, {0, 1}}) }, ErrNotConvex},
	}
	for _, c := range cases {
		p := ok()
		c.mutate(p)
		_, err := New().Solve(context.Background(), p, solver.Settings{})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := New().Solve(context.Background(), nil, solver.Settings{}); !errors.Is(err, solver.ErrInvalidProblem) {
		t.Errorf("nil problem: %v", err)
	}
	if _, err := NewWithSettings(Settings{FeasTol: -1}); !errors.Is(err, ErrInvalidSettings) {
		t.Errorf("negative FeasTol: %v", err)
	}
	if _, err := NewWithSettings(Settings{MaxStepFraction: 1.5}); !errors.Is(err, ErrInvalidSettings) {
		t.Errorf("MaxStepFraction 1.5: %v", err)
	}
	if _, err := NewWithSettings(Settings{MinStaticReg: math.NaN()}); !errors.Is(err, ErrInvalidSettings) || !strings.Contains(err.Error(), "MinStaticReg") {
		t.Errorf("MinStaticReg NaN: %v", err)
	}
	if _, err := New().Solve(context.Background(), ok(), solver.Settings{MaxIterations: -1}); !errors.Is(err, ErrInvalidSettings) {
		t.Errorf("MaxIterations −1: %v", err)
	}
	// a PSD but singular P is convex
	p := ok()
	p.P = upperOf([][]float64{{1, 1}, {1, 1}})
	if _, err := New().Solve(context.Background(), p, solver.Settings{}); err != nil {
		t.Errorf("singular PSD P rejected: %v", err)
	}
}

func TestLimitsAndCancellation(t *testing.T) {
	p := &solver.Problem{P: eye(3, 1), Q: []float64{-3, 1, 2}, A: eye(3, -1), B: make([]float64, 3), Cones: []cone.Cone{cone.NewSecondOrder(3)}}
	sol, err := New().Solve(context.Background(), p, solver.Settings{MaxIterations: 2})
	if err != nil || sol.Status != solver.IterationLimit || sol.Iterations != 2 {
		t.Errorf("MaxIterations 2: %v, %+v", err, sol)
	}
	sol, err = New().Solve(context.Background(), p, solver.Settings{TimeLimit: time.Nanosecond})
	if err != nil || sol.Status != solver.TimeLimit {
		t.Errorf("TimeLimit 1ns: %v, status %v", err, sol.Status)
	}
	var log bytes.Buffer
	sol, err = New().Solve(context.Background(), p, solver.Settings{Log: &log})
	if err != nil || sol.Status != solver.Optimal {
		t.Fatalf("with log: %v, status %v", err, sol.Status)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	// header, column titles, iterations 0..k
	if len(lines) != sol.Iterations+3 || !strings.Contains(lines[1], "pcost") {
		t.Errorf("log has %d lines for %d iterations:\n%s", len(lines), sol.Iterations, log.String())
	}
	var its []Iteration
	sv, _ := NewWithSettings(Settings{Progress: func(it Iteration) { its = append(its, it) }})
	sol, err = sv.Solve(context.Background(), p, solver.Settings{})
	if err != nil || len(its) != sol.Iterations+1 || its[len(its)-1].PrimalResidual > 1e-8 || its[0].Step != 0 {
		t.Errorf("progress: %v, %d calls for %d iterations", err, len(its), sol.Iterations)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sol, err = New().Solve(ctx, p, solver.Settings{})
	if err != nil || sol.Status != solver.Cancelled {
		t.Errorf("cancelled context: %v, status %v", err, sol.Status)
	}
}

// TestDenseSparseAgree solves random feasible SOCPs with both KKT solvers and
// checks the optimality conditions of both answers.
func TestRandomSOCP(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 10; trial++ {
		p := randomSOCP(rng, 12, []int{5, 3, 8, 1})
		s1 := solveT(t, p, Settings{})
		s2 := solveT(t, p, Settings{DenseKKT: true})
		if s1.Status != solver.Optimal || s2.Status != solver.Optimal {
			t.Fatalf("trial %d: statuses %v, %v", trial, s1.Status, s2.Status)
		}
		if !close(s1.Objective, s2.Objective, 1e-7) {
			t.Errorf("trial %d: objectives %v (sparse) and %v (dense)", trial, s1.Objective, s2.Objective)
		}
		checkKKT(t, p, s1, 1e-7)
		checkDualCone(t, p.Cones, s1.Y, 1e-8)
		if c := dot(s1.S, s1.Y); math.Abs(c) > 1e-6*(1+math.Abs(s1.Objective)) {
			t.Errorf("trial %d: sᵀy = %v", trial, c)
		}
	}
}

// randomSOCP: a strictly feasible, bounded problem: s₀ = b − Ax₀ in the cones'
// interiors and q = −Aᵀy₀ with y₀ in the interiors, plus a small P.
func randomSOCP(rng *rand.Rand, n int, socs []int) *solver.Problem {
	return randomSOCPDensity(rng, n, socs, 0.5)
}

// randomSOCPDensity is randomSOCP with the given density of A.
func randomSOCPDensity(rng *rand.Rand, n int, socs []int, density float64) *solver.Problem {
	m := 0
	for _, d := range socs {
		m += d
	}
	m += n // an orthant block of size n
	tri := sparse.NewTriplets(m, n, int(density*float64(m*n))+m)
	for i := 0; i < m; i++ {
		// about density·n entries per row, at least one
		cnt := max(1, int(density*float64(n)+rng.Float64()))
		for k := 0; k < cnt; k++ {
			tri.Append(i, rng.IntN(n), rng.NormFloat64())
		}
	}
	am := tri.ToCSC()
	x0 := make([]float64, n)
	for j := range x0 {
		x0[j] = rng.NormFloat64()
	}
	interior := func(v []float64) {
		v[0] = norm2(v[1:]) + 0.5 + rng.Float64()
	}
	s0 := make([]float64, m)
	y0 := make([]float64, m)
	var cones []cone.Cone
	off := 0
	for _, d := range socs {
		for i := 0; i < d; i++ {
			s0[off+i] = rng.NormFloat64()
			y0[off+i] = rng.NormFloat64()
		}
		interior(s0[off : off+d])
		interior(y0[off : off+d])
		cones = append(cones, cone.NewSecondOrder(d))
		off += d
	}
	for i := off; i < m; i++ {
		s0[i] = rng.Float64() + 0.1
		y0[i] = rng.Float64() + 0.1
	}
	cones = append(cones, nn(n))
	b := am.MulVecTo(nil, 1, x0, 0)
	for i := range b {
		b[i] += s0[i]
	}
	q := am.MulTransVecTo(nil, -1, y0, 0)
	return &solver.Problem{P: eye(n, 0.1), Q: q, A: am, B: b, Cones: cones}
}

// TestPSDElimination: min t s.t. tI − C ⪰ 0 is λmax(C) (gonum eigen); and an
// SDP with a 12×12 block over 8 variables (dense coefficients) gives the same
// optimum with the block eliminated (Schur complement) and kept in the KKT
// matrix.
func TestPSDElimination(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 9
	d := n * (n + 1) / 2
	c := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			c.SetSym(i, j, rng.NormFloat64())
		}
	}
	var es mat.EigenSym
	es.Factorize(c, false)
	tri := sparse.NewTriplets(d, 1, n)
	b := make([]float64, d)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			k := svecIdx(i, j, n)
			if i == j {
				tri.Append(k, 0, -1) // s = t·svec(I) − svec(C)
				b[k] = -c.At(i, j)
			} else {
				b[k] = -math.Sqrt2 * c.At(i, j)
			}
		}
	}
	p := &solver.Problem{Q: []float64{1}, A: tri.ToCSC(), B: b, Cones: []cone.Cone{cone.NewPSD(n)}}
	sol := solveT(t, p, Settings{})
	if want := es.Values(nil)[n-1]; sol.Status != solver.Optimal || !close(sol.Objective, want, 1e-7) {
		t.Errorf("λmax: status %v objective %v, want %v", sol.Status, sol.Objective, want)
	}
	// random SDP: min qᵀx s.t. Σ xⱼ Fⱼ ⪯ G, ‖x‖∞ ≤ 1 (bounded, G ≻ 0 so x = 0 is strictly feasible)
	n, nv := 12, 8
	d = n * (n + 1) / 2
	tri = sparse.NewTriplets(d+2*nv, nv, d*nv+2*nv)
	b = make([]float64, d+2*nv)
	for v := 0; v < nv; v++ {
		for k := 0; k < d; k++ {
			tri.Append(k, v, rng.NormFloat64())
		}
		tri.Append(d+2*v, v, 1)
		tri.Append(d+2*v+1, v, -1)
		b[d+2*v], b[d+2*v+1] = 1, 1
	}
	for j := 0; j < n; j++ {
		b[svecIdx(j, j, n)] = float64(n)
	}
	q := make([]float64, nv)
	for v := range q {
		q[v] = rng.NormFloat64()
	}
	p = &solver.Problem{Q: q, A: tri.ToCSC(), B: b, Cones: []cone.Cone{cone.NewPSD(n), nn(2 * nv)}}
	s1 := solveT(t, p, Settings{})
	s2 := solveT(t, p, Settings{DisablePSDElimination: true})
	if s1.Status != solver.Optimal || s2.Status != solver.Optimal || !close(s1.Objective, s2.Objective, 1e-7) {
		t.Errorf("eliminated: %v %v; kept: %v %v", s1.Status, s1.Objective, s2.Status, s2.Objective)
	}
	checkKKT(t, p, s1, 1e-7)
}
