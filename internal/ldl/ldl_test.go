package ldl

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/sparse"
)

// configs covers every ordering × numeric method pair the tests run.
var configs = []Options{
	{Ordering: Natural, Method: Simplicial},
	{Ordering: Natural, Method: Supernodal},
	{Ordering: AMD, Method: Simplicial},
	{Ordering: AMD, Method: Supernodal},
}

func cfgName(o Options) string { return o.Ordering.String() + "/" + o.Method.String() }

var methods = []Method{Simplicial, Supernodal}

func TestSolveRandomQuasiDefinite(t *testing.T) {
	cases := []struct {
		n1, n2  int
		density float64
	}{
		{1, 0, 0}, {0, 1, 0}, {3, 2, 0.5}, {10, 7, 0.3}, {40, 25, 0.1},
		{200, 120, 0.02}, {1200, 800, 0.002}, {2500, 1500, 0.001},
	}
	for ci, c := range cases {
		for _, ord := range configs {
			if ord.Ordering == Natural && c.n1+c.n2 > 2000 {
				continue // natural order fills L completely; slow and not informative
			}
			t.Run(fmt.Sprintf("n1=%d,n2=%d,%v", c.n1, c.n2, cfgName(ord)), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(ci), 7))
				k, signs := quasiDefinite(rng, c.n1, c.n2, c.density)
				s := mustAnalyze(t, k, ord)
				if !isPerm(s.Perm(), k.Cols) {
					t.Fatalf("Perm %v is not a permutation", s.Perm())
				}
				// Quasi-definite: strongly factorizable without signs.
				f, err := s.Factor(k, nil, Regularization{})
				if err != nil {
					t.Fatalf("Factor: %v", err)
				}
				pos, neg, zero := f.Inertia()
				if pos != c.n1 || neg != c.n2 || zero != 0 {
					t.Errorf("Inertia = (%d,%d,%d), want (%d,%d,0)", pos, neg, zero, c.n1, c.n2)
				}
				b := randVec(rng, k.Cols)
				x := f.Solve(nil, b)
				if r := relResidual(k, x, b); r > 1e-10 {
					t.Errorf("relative residual %.3g > 1e-10", r)
				}
				// With signs the factor must be identical (no pivot is small).
				g, err := s.Factor(k, signs, DefaultRegularization)
				if err != nil {
					t.Fatalf("Factor with signs: %v", err)
				}
				if g.DynamicRegCount() != 0 {
					t.Errorf("DynamicRegCount = %d on a well-conditioned quasi-definite matrix", g.DynamicRegCount())
				}
			})
		}
	}
}

// TestAgainstDenseLU compares solutions with gonum's dense LU with partial
// pivoting, an independent factorization.
func TestAgainstDenseLU(t *testing.T) {
	for seed := uint64(0); seed < 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n1, n2 := 1+rng.IntN(40), rng.IntN(30)
		k, _ := quasiDefinite(rng, n1, n2, 0.05+0.3*rng.Float64())
		n := n1 + n2
		dense := mat.NewDense(n, n, nil)
		for j := 0; j < n; j++ {
			for p := k.ColPtr[j]; p < k.ColPtr[j+1]; p++ {
				i := k.RowIdx[p]
				dense.Set(i, j, k.Val[p])
				dense.Set(j, i, k.Val[p])
			}
		}
		b := randVec(rng, n)
		var lu mat.LU
		lu.Factorize(dense)
		var want mat.VecDense
		if err := lu.SolveVecTo(&want, false, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
			t.Fatalf("seed %d: dense LU: %v", seed, err)
		}
		for _, ord := range configs {
			s := mustAnalyze(t, k, ord)
			f, err := s.Factor(k, nil, Regularization{})
			if err != nil {
				t.Fatalf("seed %d %v: %v", seed, cfgName(ord), err)
			}
			x := f.Solve(nil, b)
			diff, scale := 0.0, 0.0
			for i := range x {
				diff = math.Max(diff, math.Abs(x[i]-want.AtVec(i)))
				scale = math.Max(scale, math.Abs(want.AtVec(i)))
			}
			if diff > 1e-10*(1+scale) {
				t.Errorf("seed %d %v (n=%d): max |x − x_LU| = %.3g", seed, cfgName(ord), n, diff)
			}
		}
	}
}

// TestInertiaAgainstEigenvalues checks Inertia on random symmetric (generally
// indefinite, not quasi-definite) matrices against the signs of the
// eigenvalues from gonum's symmetric eigensolver. Random Gaussian matrices have
// nonzero leading minors with probability one, so no pivot is zero.
func TestInertiaAgainstEigenvalues(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 5))
		n := 2 + rng.IntN(25)
		tr := sparse.NewTriplets(n, n, 0)
		sym := mat.NewSymDense(n, nil)
		for j := 0; j < n; j++ {
			for i := 0; i <= j; i++ {
				if i != j && rng.Float64() > 0.4 {
					continue
				}
				v := rng.NormFloat64() + 0.3*float64(rng.IntN(3)-1)
				tr.Append(i, j, v)
				sym.SetSym(i, j, v)
			}
		}
		k := tr.ToCSC()
		var eig mat.EigenSym
		if !eig.Factorize(sym, false) {
			t.Fatal("EigenSym failed")
		}
		var wantPos, wantNeg int
		for _, ev := range eig.Values(nil) {
			if ev > 0 {
				wantPos++
			} else if ev < 0 {
				wantNeg++
			}
		}
		if wantPos+wantNeg != n {
			t.Fatalf("seed %d: singular test matrix", seed)
		}
		for _, ord := range configs {
			f, err := mustAnalyze(t, k, ord).Factor(k, nil, Regularization{})
			if err != nil {
				t.Fatalf("seed %d %v: %v", seed, cfgName(ord), err)
			}
			pos, neg, zero := f.Inertia()
			if pos != wantPos || neg != wantNeg || zero != 0 {
				t.Errorf("seed %d %v: Inertia = (%d,%d,%d), eigenvalues give (%d,%d,0)", seed, cfgName(ord), pos, neg, zero, wantPos, wantNeg)
			}
			b := randVec(rng, n)
			if r := relResidual(k, f.Solve(nil, b), b); r > 1e-9 {
				t.Errorf("seed %d %v: residual %.3g", seed, cfgName(ord), r)
			}
		}
	}
}

func TestInertiaDiagonal(t *testing.T) { forMethods(t, testInertiaDiagonal) }

func testInertiaDiagonal(t *testing.T, m Method) {
	d := []float64{3, -1, 2, -5, -0.5, 7}
	tr := sparse.NewTriplets(len(d), len(d), len(d))
	for i, v := range d {
		tr.Append(i, i, v)
	}
	k := tr.ToCSC()
	f, err := mustAnalyze(t, k, Options{Method: m}).Factor(k, nil, Regularization{})
	if err != nil {
		t.Fatal(err)
	}
	if pos, neg, zero := f.Inertia(); pos != 3 || neg != 3 || zero != 0 {
		t.Errorf("Inertia = (%d,%d,%d), want (3,3,0)", pos, neg, zero)
	}
}

// TestDynamicRegularization factorizes a singular KKT matrix: H = 0 on two of
// three primal variables and a zero row in A, so zero pivots are certain.
func TestDynamicRegularization(t *testing.T) { forMethods(t, testDynamicRegularization) }

func testDynamicRegularization(t *testing.T, m Method) {
	// K = [H Aᵀ; A 0], H = diag(1, 0, 0), A = [1 1 0; 0 0 0]: K is singular
	// (variable 2 and constraint 1 appear nowhere).
	n := 5
	tr := sparse.NewTriplets(n, n, 0)
	tr.Append(0, 0, 1)
	tr.Append(1, 1, 0)
	tr.Append(2, 2, 0)
	tr.Append(3, 3, 0)
	tr.Append(4, 4, 0)
	tr.Append(0, 3, 1)
	tr.Append(1, 3, 1)
	k := tr.ToCSC()
	// ToCSC drops the explicit zeros; put the diagonal back into the pattern.
	k = withDiagonal(k)
	signs := []int8{1, 1, 1, -1, -1}
	s := mustAnalyze(t, k, Options{Method: m})
	if _, err := s.Factor(k, nil, Regularization{}); !errors.Is(err, ErrZeroPivot) {
		t.Fatalf("Factor without signs: err = %v, want ErrZeroPivot", err)
	}
	f, err := s.Factor(k, signs, DefaultRegularization)
	if err != nil {
		t.Fatal(err)
	}
	if f.DynamicRegCount() == 0 {
		t.Fatal("DynamicRegCount = 0 on a singular matrix")
	}
	pos, neg, _ := f.Inertia()
	if pos != 3 || neg != 2 {
		t.Errorf("Inertia after regularization = (%d,%d), want (3,2)", pos, neg)
	}
	b := []float64{1, 2, 3, 4, 5}
	x := f.Solve(nil, b)
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("x[%d] = %v", i, v)
		}
	}
	// The regularized factor is that of K + E with E diagonal, |E_ii| ≤ Delta
	// or E_ii = 0: check L D Lᵀ reproduces K off the diagonal.
	rebuilt := reconstruct(f)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			if i == j {
				continue
			}
			if got, want := rebuilt[i][j], denseAt(k, i, j); math.Abs(got-want) > 1e-12 {
				t.Errorf("(LDLᵀ)(%d,%d) = %v, want %v", i, j, got, want)
			}
		}
	}
}

// withDiagonal returns a copy of a with every missing diagonal entry stored
// as an explicit zero.
func withDiagonal(a *sparse.CSC) *sparse.CSC {
	n := a.Cols
	out := &sparse.CSC{Rows: n, Cols: n, ColPtr: make([]int, n+1)}
	for j := 0; j < n; j++ {
		hasDiag := false
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			out.RowIdx = append(out.RowIdx, a.RowIdx[p])
			out.Val = append(out.Val, a.Val[p])
			hasDiag = hasDiag || a.RowIdx[p] == j
		}
		if !hasDiag {
			out.RowIdx = append(out.RowIdx, j)
			out.Val = append(out.Val, 0)
		}
		out.ColPtr[j+1] = len(out.RowIdx)
	}
	return out
}

func denseAt(upper *sparse.CSC, i, j int) float64 {
	if i > j {
		i, j = j, i
	}
	return upper.At(i, j)
}

// reconstruct returns Pᵀ L D Lᵀ P as a dense matrix in the original ordering.
func reconstruct(f *Factor) [][]float64 {
	s := f.sym
	n := s.n
	l := make([][]float64, n)
	for i := range l {
		l[i] = make([]float64, n)
		l[i][i] = 1
	}
	if sn := s.sn; sn != nil {
		for J := 0; J+1 < len(sn.start); J++ {
			rows := sn.rows[sn.rowPtr[J]:sn.rowPtr[J+1]]
			m := len(rows)
			for j := sn.start[J]; j < sn.start[J+1]; j++ {
				t := j - sn.start[J]
				for a := t + 1; a < m; a++ {
					l[rows[a]][j] = f.sx[sn.valPtr[J]+t*m+a]
				}
			}
		}
	} else {
		for j := 0; j < n; j++ {
			for p := s.lp[j]; p < s.lp[j+1]; p++ {
				l[f.li[p]][j] = f.lx[p]
			}
		}
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, n)
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			var v float64
			for c := 0; c <= min(a, b); c++ {
				v += l[a][c] * f.d[c] * l[b][c]
			}
			out[s.perm[a]][s.perm[b]] = v
		}
	}
	return out
}

func TestReconstruction(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	k, _ := quasiDefinite(rng, 30, 20, 0.08)
	for _, ord := range configs {
		f, err := mustAnalyze(t, k, ord).Factor(k, nil, Regularization{})
		if err != nil {
			t.Fatal(err)
		}
		r := reconstruct(f)
		for i := range r {
			for j := range r {
				if d := math.Abs(r[i][j] - denseAt(k, i, j)); d > 1e-12*symNormInf(k) {
					t.Fatalf("%v: (Pᵀ L D Lᵀ P)(%d,%d) differs from K by %.3g", cfgName(ord), i, j, d)
				}
			}
		}
	}
}

func TestRefactorEqualsFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	k, signs := quasiDefinite(rng, 300, 200, 0.01)
	for _, ord := range configs {
		s := mustAnalyze(t, k, ord)
		f, err := s.Factor(k, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 3; round++ {
			k2 := withValues(rng, k)
			if err := f.Refactor(k2); err != nil {
				t.Fatal(err)
			}
			fresh, err := s.Factor(k2, signs, DefaultRegularization)
			if err != nil {
				t.Fatal(err)
			}
			for i := range f.d {
				if s.Method() == Simplicial && f.d[i] != fresh.d[i] {
					// Refactor replays the row patterns recorded by the
					// first factorization: the same operations in the
					// same order, so the same bits
					t.Fatalf("%v round %d: D[%d] = %v after Refactor, %v fresh (must be identical)", cfgName(ord), round, i, f.d[i], fresh.d[i])
				}
				if math.Abs(f.d[i]-fresh.d[i]) > 1e-12*math.Abs(fresh.d[i]) {
					t.Fatalf("%v round %d: D[%d] = %v after Refactor, %v fresh", cfgName(ord), round, i, f.d[i], fresh.d[i])
				}
			}
			b := randVec(rng, k.Cols)
			x1, x2 := f.Solve(nil, b), fresh.Solve(nil, b)
			for i := range x1 {
				if math.Abs(x1[i]-x2[i]) > 1e-12*(1+math.Abs(x2[i])) {
					t.Fatalf("%v round %d: x[%d] = %v after Refactor, %v fresh", cfgName(ord), round, i, x1[i], x2[i])
				}
			}
			if r := relResidual(k2, x1, b); r > 1e-10 {
				t.Errorf("%v round %d: residual %.3g", cfgName(ord), round, r)
			}
		}
	}
}

func TestNoAllocations(t *testing.T) { forMethods(t, testNoAllocations) }

func testNoAllocations(t *testing.T, m Method) {
	rng := rand.New(rand.NewPCG(1, 2))
	k, signs := quasiDefinite(rng, 200, 100, 0.02)
	s := mustAnalyze(t, k, Options{Method: m})
	f, err := s.Factor(k, signs, DefaultRegularization)
	if err != nil {
		t.Fatal(err)
	}
	b := randVec(rng, k.Cols)
	x := make([]float64, k.Cols)
	if a := testing.AllocsPerRun(5, func() {
		if err := f.Refactor(k); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("Refactor allocates %v times", a)
	}
	if a := testing.AllocsPerRun(5, func() { f.Solve(x, b) }); a != 0 {
		t.Errorf("Solve allocates %v times", a)
	}
	if a := testing.AllocsPerRun(5, func() { f.SolveRefine(x, b, k, 3, 1e-14) }); a != 0 {
		t.Errorf("SolveRefine allocates %v times", a)
	}
}

func TestSolveAliasing(t *testing.T) { forMethods(t, testSolveAliasing) }

func testSolveAliasing(t *testing.T, m Method) {
	rng := rand.New(rand.NewPCG(4, 4))
	k, _ := quasiDefinite(rng, 20, 10, 0.1)
	f, err := mustAnalyze(t, k, Options{Method: m}).Factor(k, nil, Regularization{})
	if err != nil {
		t.Fatal(err)
	}
	b := randVec(rng, k.Cols)
	want := f.Solve(nil, b)
	got := append([]float64(nil), b...)
	f.Solve(got, got)
	got2 := append([]float64(nil), b...)
	f.SolveRefine(got2, got2, k, 2, 0)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-14*(1+math.Abs(want[i])) || math.Abs(got2[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("aliased solve differs at %d: %v, %v vs %v", i, got[i], got2[i], want[i])
		}
	}
}

// TestSolveRefineRegularized factorizes K + δ·diag(signs) (static
// regularization, as an IPM does) and refines against K itself.
func TestSolveRefineRegularized(t *testing.T) { forMethods(t, testSolveRefineRegularized) }

func testSolveRefineRegularized(t *testing.T, m Method) {
	rng := rand.New(rand.NewPCG(8, 1))
	k, signs := quasiDefinite(rng, 400, 300, 0.005)
	kreg := k.Clone()
	const delta = 1e-6
	for j := 0; j < k.Cols; j++ {
		kreg.Val[kreg.ColPtr[j+1]-1] += delta * float64(signs[j])
	}
	f, err := mustAnalyze(t, kreg, Options{Method: m}).Factor(kreg, signs, DefaultRegularization)
	if err != nil {
		t.Fatal(err)
	}
	b := randVec(rng, k.Cols)
	plain := f.Solve(nil, b)
	r0 := relResidual(k, plain, b)
	x, steps := f.SolveRefine(nil, b, k, 10, 1e-14)
	r1 := relResidual(k, x, b)
	if steps == 0 || r1 > 1e-13 || r1 >= r0 {
		t.Errorf("refinement: %d steps, residual %.3g → %.3g", steps, r0, r1)
	}
	kx := symMul(k, x)
	for i := range kx {
		kx[i] -= b[i]
	}
	if got := normInf(kx); math.Abs(got-f.LastResidual()) > 1e-15*(1+got) {
		t.Errorf("LastResidual = %v, recomputed %v", f.LastResidual(), got)
	}
	// nil upperK refines against the factorized (regularized) matrix.
	x2, _ := f.SolveRefine(nil, b, nil, 5, 1e-15)
	if r := relResidual(kreg, x2, b); r > 1e-14 {
		t.Errorf("refinement against the factorized matrix: residual %.3g", r)
	}
}

func TestGivenOrdering(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	k, _ := quasiDefinite(rng, 25, 15, 0.1)
	n := k.Cols
	perm := rng.Perm(n)
	s := mustAnalyze(t, k, Options{Ordering: Given, Perm: perm})
	got := s.Perm()
	for i := range perm {
		if got[i] != perm[i] {
			t.Fatalf("Perm()[%d] = %d, want %d", i, got[i], perm[i])
		}
	}
	f, err := s.Factor(k, nil, Regularization{})
	if err != nil {
		t.Fatal(err)
	}
	b := randVec(rng, n)
	if r := relResidual(k, f.Solve(nil, b), b); r > 1e-10 {
		t.Errorf("residual %.3g", r)
	}
}

// TestSubsetPattern: a matrix whose pattern is a subset of the analyzed one is
// factorized as if the missing entries were zeros.
func TestSubsetPattern(t *testing.T) { forMethods(t, testSubsetPattern) }

func testSubsetPattern(t *testing.T, m Method) {
	rng := rand.New(rand.NewPCG(6, 6))
	k, _ := quasiDefinite(rng, 30, 20, 0.1)
	s := mustAnalyze(t, k, Options{Method: m})
	// Drop every third off-diagonal entry.
	sub, zeroed := dropOffDiagonal(k, 3)
	f1, err := s.Factor(sub, nil, Regularization{})
	if err != nil {
		t.Fatal(err)
	}
	f2, err := s.Factor(zeroed, nil, Regularization{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range f1.d {
		if f1.d[i] != f2.d[i] {
			t.Fatalf("D[%d]: subset %v, explicit zeros %v", i, f1.d[i], f2.d[i])
		}
	}
}

func TestErrors(t *testing.T) { forMethods(t, testErrors) }

func testErrors(t *testing.T, m Method) {
	rng := rand.New(rand.NewPCG(2, 2))
	k, signs := quasiDefinite(rng, 6, 4, 0.3)
	s := mustAnalyze(t, k, Options{Method: m})

	missingDiag := &sparse.CSC{Rows: 2, Cols: 2, ColPtr: []int{0, 1, 2}, RowIdx: []int{0, 0}, Val: []float64{1, 1}}
	lower := &sparse.CSC{Rows: 2, Cols: 2, ColPtr: []int{0, 2, 3}, RowIdx: []int{0, 1, 1}, Val: []float64{1, 1, 1}}
	unsorted := &sparse.CSC{Rows: 2, Cols: 2, ColPtr: []int{0, 1, 3}, RowIdx: []int{0, 1, 0}, Val: []float64{1, 1, 1}}
	rect := sparse.NewCSC(2, 3)

	// Extra entry: a copy of k with one more off-diagonal entry outside the
	// analyzed pattern.
	extra := withExtraEntry(k)
	nan := k.Clone()
	nan.Val[0] = math.NaN()
	inf := k.Clone()
	inf.Val[len(inf.Val)-1] = math.Inf(-1)
	small := withDiagonal(sparse.NewCSC(3, 3))

	cases := []struct {
		name string
		err  error
		want error
	}{
		{"nil matrix", analyzeErr(nil, Options{Method: m}), ErrInvalidInput},
		{"missing diagonal", analyzeErr(missingDiag, Options{Method: m}), ErrInvalidInput},
		{"entry below diagonal", analyzeErr(lower, Options{Method: m}), ErrInvalidInput},
		{"unsorted rows", analyzeErr(unsorted, Options{Method: m}), ErrInvalidInput},
		{"not square", analyzeErr(rect, Options{Method: m}), ErrInvalidInput},
		{"bad ordering", analyzeErr(k, Options{Ordering: 7}), ErrInvalidInput},
		{"perm without Given", analyzeErr(k, Options{Perm: []int{0}}), ErrInvalidInput},
		{"Given without perm", analyzeErr(k, Options{Ordering: Given}), ErrInvalidInput},
		{"perm wrong length", analyzeErr(k, Options{Ordering: Given, Perm: []int{1, 0}}), ErrInvalidInput},
		{"perm repeats", analyzeErr(small, Options{Ordering: Given, Perm: []int{0, 1, 1}}), ErrInvalidInput},
		{"bad method", analyzeErr(k, Options{Method: 9}), ErrInvalidInput},
		{"NaN dense factor", analyzeErr(k, Options{DenseFactor: math.NaN()}), ErrInvalidInput},
		{"negative supernodal ratio", analyzeErr(k, Options{SupernodalRatio: -1}), ErrInvalidInput},
		{"NaN supernodal ratio", analyzeErr(k, Options{SupernodalRatio: math.NaN()}), ErrInvalidInput},
		{"pattern mismatch", factorErr(s, extra, nil, Regularization{}), ErrPatternMismatch},
		{"wrong size", factorErr(s, small, nil, Regularization{}), ErrPatternMismatch},
		{"NaN value", factorErr(s, nan, nil, Regularization{}), ErrInvalidInput},
		{"Inf value", factorErr(s, inf, nil, Regularization{}), ErrInvalidInput},
		{"signs wrong length", factorErr(s, k, signs[:3], DefaultRegularization), ErrInvalidInput},
		{"sign zero", factorErr(s, k, make([]int8, k.Cols), DefaultRegularization), ErrInvalidInput},
		{"delta zero", factorErr(s, k, signs, Regularization{Eps: 1e-13}), ErrInvalidInput},
		{"eps negative", factorErr(s, k, signs, Regularization{Eps: -1, Delta: 1}), ErrInvalidInput},
		{"nil in Factor", factorErr(s, nil, nil, Regularization{}), ErrInvalidInput},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, c.err, c.want)
		} else if c.err.Error() == c.want.Error() {
			t.Errorf("%s: error %q carries no detail", c.name, c.err)
		}
	}

	// Refactor reports the same errors and recovers afterwards.
	f, err := s.Factor(k, signs, DefaultRegularization)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Refactor(extra); !errors.Is(err, ErrPatternMismatch) {
		t.Errorf("Refactor(extra): %v", err)
	}
	if err := f.Refactor(nan); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("Refactor(NaN): %v", err)
	}
	if err := f.Refactor(k); err != nil {
		t.Errorf("Refactor after errors: %v", err)
	}
	var pe *PivotError
	z := withDiagonal(sparse.NewCSC(2, 2))
	_, err = mustAnalyze(t, z, Options{Ordering: Natural}).Factor(z, nil, Regularization{})
	if !errors.As(err, &pe) || pe.Index != 0 {
		t.Errorf("zero matrix: err = %v, want *PivotError at 0", err)
	}
}

func analyzeErr(a *sparse.CSC, o Options) error {
	_, err := Analyze(a, o)
	return err
}

func factorErr(s *Symbolic, a *sparse.CSC, signs []int8, r Regularization) error {
	_, err := s.Factor(a, signs, r)
	return err
}

// withExtraEntry returns a copy of a with one off-diagonal upper entry added
// where a has none.
func withExtraEntry(a *sparse.CSC) *sparse.CSC {
	n := a.Cols
	for j := 1; j < n; j++ {
		for i := 0; i < j; i++ {
			if a.At(i, j) == 0 {
				tr := sparse.NewTriplets(n, n, a.Nnz()+1)
				for jj := 0; jj < n; jj++ {
					for p := a.ColPtr[jj]; p < a.ColPtr[jj+1]; p++ {
						tr.Append(a.RowIdx[p], jj, a.Val[p])
					}
				}
				tr.Append(i, j, 0.5)
				return tr.ToCSC()
			}
		}
	}
	panic("dense matrix")
}

// forMethods runs test once per numeric method.
func forMethods(t *testing.T, test func(*testing.T, Method)) {
	for _, m := range methods {
		t.Run(m.String(), func(t *testing.T) { test(t, m) })
	}
}

// TestSOCKKT factorizes the SVM-shaped KKT matrix (sparse SOC scaling
// expansion, 37 dense coupling columns) with both methods: AMD must detect
// the dense columns, the matrix is quasi-definite by construction, so the
// inertia equals the sign counts and no pivot needs regularization.
func TestSOCKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	k, signs := socKKT(rng, 60, 36)
	wantPos := 0
	for _, s := range signs {
		if s > 0 {
			wantPos++
		}
	}
	for _, m := range methods {
		s := mustAnalyze(t, k, Options{Method: m})
		if s.DenseCount() < 36 {
			t.Errorf("%v: DenseCount = %d, want ≥ 36 (the w columns)", m, s.DenseCount())
		}
		f, err := s.Factor(k, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		pos, neg, _ := f.Inertia()
		if pos != wantPos || neg != k.Cols-wantPos || f.DynamicRegCount() != 0 {
			t.Errorf("%v: inertia (%d,%d), want (%d,%d); %d regularized pivots", m, pos, neg, wantPos, k.Cols-wantPos, f.DynamicRegCount())
		}
		b := randVec(rng, k.Cols)
		x, _ := f.SolveRefine(nil, b, k, 3, 1e-14)
		if r := relResidual(k, x, b); r > 1e-12 {
			t.Errorf("%v: residual %.3g", m, r)
		}
	}
}

func TestAutoMethod(t *testing.T) {
	if got := mustAnalyze(t, arrow(100), Options{}).Method(); got != Simplicial {
		t.Errorf("arrow: Auto chose %v, want Simplicial (flops/nnz(L) = 2)", got)
	}
	s := mustAnalyze(t, gridLaplacian(60), Options{})
	if got := s.Method(); got != Supernodal || s.Supernodes() == 0 || s.Supernodes() >= s.N() {
		t.Errorf("60×60 grid: Auto chose %v with %d supernodes, want Supernodal with 0 < count < n", got, s.Supernodes())
	}
}

func TestEmptyMatrix(t *testing.T) {
	k := sparse.NewCSC(0, 0)
	for _, o := range configs {
		s := mustAnalyze(t, k, o)
		f, err := s.Factor(k, []int8{}, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		if x := f.Solve(nil, nil); len(x) != 0 || s.NnzL() != 0 {
			t.Errorf("%s: len(x) = %d, nnz(L) = %d", cfgName(o), len(x), s.NnzL())
		}
	}
}

// TestBlockedSupernode factors dense quasi-definite matrices whose
// supernodes have blockedMinCols columns or more (so numericSupernodal takes
// the panel path, blockUpdate), of orders that leave remainders of the 8×4
// register blocks and of the panels, and checks P·L·D·Lᵀ·Pᵀ = K entrywise
// and D against the simplicial factorization (a separate code path).
func TestBlockedSupernode(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 6))
	for _, sh := range [][2]int{{blockedMinCols, 0}, {blockedMinCols + 37, 30}, {blockedMinCols + 101, 2}} {
		k, signs := quasiDefinite(rng, sh[0], sh[1], 4)
		o := Options{Ordering: Natural, Method: Supernodal}
		f, err := mustAnalyze(t, k, o).Factor(k, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		sn := f.sym.sn
		widest := 0
		for J := 0; J+1 < len(sn.start); J++ {
			widest = max(widest, sn.start[J+1]-sn.start[J])
		}
		if widest < blockedMinCols {
			t.Fatalf("%v: widest supernode has %d columns, the test needs %d", sh, widest, blockedMinCols)
		}
		r := reconstruct(f)
		tol := 1e-12 * symNormInf(k)
		for i := range r {
			for j := range r {
				if d := math.Abs(r[i][j] - denseAt(k, i, j)); d > tol {
					t.Fatalf("%v: (P L D Lᵀ Pᵀ)(%d,%d) differs from K by %.3g", sh, i, j, d)
				}
			}
		}
		fs, err := mustAnalyze(t, k, Options{Ordering: Natural, Method: Simplicial}).Factor(k, signs, DefaultRegularization)
		if err != nil {
			t.Fatal(err)
		}
		ds, dsimp := f.D(), fs.D()
		for i := range ds {
			if math.Abs(ds[i]-dsimp[i]) > 1e-10*math.Abs(dsimp[i]) {
				t.Fatalf("%v: d[%d] = %v, simplicial %v", sh, i, ds[i], dsimp[i])
			}
		}
	}
}

// TestSupernodalRatio: Auto compares flops(L)/nnz(L) with
// Options.SupernodalRatio. A dense 20×20 matrix has flops/nnz ≈ 2·20/3 + …
// well above the default 5 (supernodal) and below 1000 (simplicial with that
// ratio); both methods give the same solution.
func TestSupernodalRatio(t *testing.T) {
	const n = 20
	tr := sparse.NewTriplets(n, n, n*(n+1)/2)
	for j := 0; j < n; j++ {
		for i := 0; i <= j; i++ {
			v := 1.0 / float64(1+i+j)
			if i == j {
				v += n
			}
			tr.Append(i, j, v)
		}
	}
	k := tr.ToCSC()
	ratio := func(s *Symbolic) float64 { return s.FactorFlops() / float64(s.NnzL()) }
	def := mustAnalyze(t, k, Options{})
	if r := ratio(def); !(r >= 5 && r < 1000) {
		t.Fatalf("flops/nnz = %v, the test needs it in [5, 1000)", r)
	}
	if def.Method() != Supernodal {
		t.Errorf("default ratio: method %v, want Supernodal (flops/nnz = %v ≥ 5)", def.Method(), ratio(def))
	}
	hi := mustAnalyze(t, k, Options{SupernodalRatio: 1000})
	if hi.Method() != Simplicial {
		t.Errorf("SupernodalRatio 1000: method %v, want Simplicial (flops/nnz = %v)", hi.Method(), ratio(hi))
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = float64(i%3) - 1
	}
	var xs [2][]float64
	for i, s := range []*Symbolic{def, hi} {
		f, err := s.Factor(k, nil, Regularization{})
		if err != nil {
			t.Fatalf("Factor (%v): %v", s.Method(), err)
		}
		xs[i] = f.Solve(nil, b)
	}
	x1, x2 := xs[0], xs[1]
	for i := range x1 {
		if math.Abs(x1[i]-x2[i]) > 1e-12 {
			t.Fatalf("x[%d]: supernodal %v, simplicial %v", i, x1[i], x2[i])
		}
	}
}
