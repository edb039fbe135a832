package ipm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privopt/privopt/sparse"
)

// TestMulKFast: on KKT-shaped upper triangles whose every column ends in its
// diagonal (sparse columns, dense contiguous ones, extra rows without
// regularization), mulK through mulKFast gives the bits of the general
// entry-by-entry loop, over the whole matrix and over column ranges; a
// matrix with a column lacking its diagonal is left to the Go loop.
func TestMulKFast(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 26))
	for trial := 0; trial < 20; trial++ {
		n, mr, extra := 2+r.IntN(15), 2+r.IntN(30), r.IntN(4)
		dim := n + mr + extra
		k := &sparse.CSC{Rows: dim, Cols: dim, ColPtr: make([]int, dim+1)}
		signs := make([]int8, dim)
		denseFrom := dim - r.IntN(10)
		for j := 0; j < dim; j++ {
			signs[j] = 1
			if j >= n && j < n+mr {
				signs[j] = -1
			}
			for i := 0; i <= j; i++ {
				if i < j && j < denseFrom && r.Float64() < 0.8 {
					continue
				}
				v := r.NormFloat64() * math.Exp(8*r.NormFloat64())
				if r.IntN(10) == 0 {
					v = 0
				}
				k.RowIdx = append(k.RowIdx, i)
				k.Val = append(k.Val, v)
			}
			k.ColPtr[j+1] = len(k.Val)
		}
		ks := &kktSystem{n: n, mr: mr, k: k, signs: signs, eps: 1e-8 * (1 + r.Float64())}
		x := make([]float64, dim)
		for i := range x {
			x[i] = r.NormFloat64()
			if r.IntN(6) == 0 {
				x[i] = 0
			}
		}
		got, ref := make([]float64, dim), make([]float64, dim)
		ks.mulK(got, x)
		if !ks.diagLast {
			t.Fatalf("trial %d: every column ends in its diagonal, but diagLast is false", trial)
		}
		mulKGeneral(ks, ref, x)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("trial %d: out[%d] = %v, general loop %v", trial, i, got[i], ref[i])
			}
		}
		// a column range, on top of existing values
		from, to := r.IntN(dim), dim
		to = from + r.IntN(to-from+1)
		for i := range got {
			got[i] = float64(i)
			ref[i] = float64(i)
		}
		ks.mulKCols(got, x, from, to)
		ks2 := &kktSystem{n: n, mr: mr, k: k, signs: signs, eps: ks.eps, diagLast: false, signf: []float64{}}
		ks2.mulKCols(ref, x, from, to)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("trial %d: columns [%d,%d): out[%d] = %v, Go loop %v", trial, from, to, i, got[i], ref[i])
			}
		}
		// regularization changed in place (setStaticReg's ε)
		ks.eps *= 3
		ks.mulK(got, x)
		mulKGeneral(ks, ref, x)
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("trial %d, new ε: out[%d] = %v, general loop %v", trial, i, got[i], ref[i])
			}
		}
	}
	// a column without its diagonal: the Go loop
	k := &sparse.CSC{Rows: 2, Cols: 2, ColPtr: []int{0, 0, 2}, RowIdx: []int{0, 1}, Val: []float64{1, 2}}
	ks := &kktSystem{n: 1, mr: 1, k: k, signs: []int8{1, -1}}
	if ks.mulKFast(make([]float64, 2), []float64{1, 1}, 0, 2) {
		t.Fatal("mulKFast ran on a column without its diagonal")
	}
}

// TestNormInfAsm: normInf (normInfAsm on x86-64) against the scalar loop, on
// lengths 0–33 with signed zeros, infinities, subnormals and NaN anywhere
// (odd and even positions, the tail).
func TestNormInfAsm(t *testing.T) {
	ref := func(v []float64) float64 {
		var m float64
		for _, x := range v {
			if a := math.Abs(x); a > m || math.IsNaN(a) {
				m = a
			}
		}
		return m
	}
	r := rand.New(rand.NewPCG(13, 71))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, -5e-324, math.MaxFloat64, -math.MaxFloat64}
	for n := 0; n <= 33; n++ {
		for rep := 0; rep < 40; rep++ {
			v := make([]float64, n)
			for i := range v {
				v[i] = r.NormFloat64() * math.Exp(20*r.NormFloat64())
				if r.IntN(5) == 0 {
					v[i] = special[r.IntN(len(special))]
				}
			}
			if n > 0 && rep%4 == 0 {
				v[r.IntN(n)] = math.NaN()
			}
			got, want := normInf(v), ref(v)
			if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("n = %d: normInf = %v, loop %v (%v)", n, got, want, v)
			}
		}
	}
}

// TestSetNonsymBlock: the unrolled 3×3 block store gives the values of
// update's generic loop over denseH's copy (positions permuted at random).
func TestSetNonsymBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 3))
	for rep := 0; rep < 50; rep++ {
		pos := r.Perm(12)
		dense := pos[:6]
		diag := []int{dense[0], dense[2], dense[5]}
		var h [9]float64
		for i := range h {
			h[i] = r.NormFloat64()
		}
		eps := r.Float64() * 1e-6
		got, want := make([]float64, 12), make([]float64, 12)
		for i := range got {
			got[i] = r.NormFloat64()
			want[i] = got[i]
		}
		setNonsymBlock(got, dense, diag, &h, eps)
		q := 0
		for jj := 0; jj < 3; jj++ {
			for ii := 0; ii <= jj; ii++ {
				want[dense[q]] = -h[jj*3+ii]
				q++
			}
			want[diag[jj]] -= eps
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				t.Fatalf("rep %d: v[%d] = %v, loop %v", rep, i, got[i], want[i])
			}
		}
	}
}

// TestAbsResidualBoundFast: expAbsResidualBound with the assembly product
// gives the bits of its Go loop (a matrix the fast path declines).
func TestAbsResidualBoundFast(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 9))
	for trial := 0; trial < 20; trial++ {
		n, mr, extra := 2+r.IntN(10), 2+r.IntN(20), r.IntN(3)
		dim := n + mr + extra
		k := &sparse.CSC{Rows: dim, Cols: dim, ColPtr: make([]int, dim+1)}
		signs := make([]int8, dim)
		for j := 0; j < dim; j++ {
			signs[j] = 1
			if j >= n && j < n+mr {
				signs[j] = -1
			}
			for i := 0; i <= j; i++ {
				if i < j && r.Float64() < 0.7 {
					continue
				}
				k.RowIdx = append(k.RowIdx, i)
				k.Val = append(k.Val, r.NormFloat64()*math.Exp(5*r.NormFloat64()))
			}
			k.ColPtr[j+1] = len(k.Val)
		}
		x, b := make([]float64, dim), make([]float64, dim)
		for i := range x {
			x[i], b[i] = r.NormFloat64(), r.NormFloat64()
		}
		fast := &kktSystem{n: n, mr: mr, k: k, signs: signs, eps: 1e-7, res: make([]float64, dim)}
		slow := &kktSystem{n: n, mr: mr, k: k, signs: signs, eps: 1e-7, res: make([]float64, dim), signf: []float64{}}
		got, want := fast.expAbsResidualBound(x, b), slow.expAbsResidualBound(x, b)
		if !fast.diagLast {
			t.Fatal("fast path not taken")
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: %v, Go loop %v", trial, got, want)
		}
		for i := range fast.res {
			if math.Float64bits(fast.res[i]) != math.Float64bits(slow.res[i]) {
				t.Fatalf("trial %d: |K||x| differs at %d", trial, i)
			}
		}
	}
}

// TestSubNormInfAsm: res = b − res and its ∞-norm by subNormInfAsm against
// the scalar loop of refineSolutionNorm, lengths 0–21, with NaN, infinities
// and signed zeros.
func TestSubNormInfAsm(t *testing.T) {
	if !haveMulKAsm {
		t.Skip("no assembly form off x86-64")
	}
	r := rand.New(rand.NewPCG(13, 77))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e308, -1e308}
	for n := 1; n <= 21; n++ {
		for rep := 0; rep < 50; rep++ {
			res, b := make([]float64, n), make([]float64, n)
			for i := range res {
				res[i], b[i] = r.NormFloat64(), r.NormFloat64()
				if r.IntN(6) == 0 {
					res[i] = special[r.IntN(len(special))]
				}
				if r.IntN(6) == 0 {
					b[i] = special[r.IntN(len(special))]
				}
			}
			want := append([]float64(nil), res...)
			var wr float64
			for i, v := range want {
				d := b[i] - v
				want[i] = d
				if a := math.Abs(d); a > wr || math.IsNaN(a) {
					wr = a
				}
			}
			got := subNormInfAsm(&res[0], &b[0], n)
			if math.IsNaN(got) != math.IsNaN(wr) || !math.IsNaN(wr) && math.Float64bits(got) != math.Float64bits(wr) {
				t.Fatalf("n = %d: norm %v, loop %v", n, got, wr)
			}
			for i := range res {
				if math.Float64bits(res[i]) != math.Float64bits(want[i]) && !(math.IsNaN(res[i]) && math.IsNaN(want[i])) {
					t.Fatalf("n = %d: res[%d] = %v, loop %v", n, i, res[i], want[i])
				}
			}
		}
	}
}

// expWrapped is expBarriers behind another type: nonsymCone.stepLength
// takes its generic path (the interface calls) for it.
type expWrapped struct{ expBarriers }

// TestExpStepLength: the written-out exponential-cone step length
// (expStepLength) gives the bits of the generic backtracking and bisection
// over expBarriers' membership tests, with and without the bisections (the
// dual scaling), on random interior points and directions.
func TestExpStepLength(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 31))
	f := expBarriers{}
	cut := 0
	for rep := 0; rep < 2000; rep++ {
		s, z := make([]float64, 3), make([]float64, 3)
		f.central(s)
		f.central(z)
		for i := range s {
			s[i] += 0.3 * r.NormFloat64() * math.Abs(s[i])
			z[i] += 0.3 * r.NormFloat64() * math.Abs(z[i])
		}
		if !f.primalIn(s) || !f.dualIn(z) {
			continue
		}
		ds, dz := make([]float64, 3), make([]float64, 3)
		for i := range ds {
			ds[i] = r.NormFloat64() * math.Exp(2*r.NormFloat64())
			dz[i] = r.NormFloat64() * math.Exp(2*r.NormFloat64())
		}
		amax := r.Float64() + 0.5
		for _, dualOnly := range []bool{false, true} {
			fast := &nonsymCone{f: f, dualOnly: dualOnly}
			slow := &nonsymCone{f: expWrapped{}, dualOnly: dualOnly}
			gz, gs := fast.stepLength(dz, ds, z, s, amax)
			wz, ws := slow.stepLength(dz, ds, z, s, amax)
			if math.Float64bits(gz) != math.Float64bits(wz) || math.Float64bits(gs) != math.Float64bits(ws) {
				t.Fatalf("rep %d (dual only %v): steps (%v, %v), generic (%v, %v)", rep, dualOnly, gz, gs, wz, ws)
			}
			if gz < amax || gs < amax {
				cut++
			}
		}
	}
	if cut < 200 {
		t.Fatalf("only %d of the trials backtracked", cut)
	}
}
