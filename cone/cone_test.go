package cone

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const e = math.E

// closeTo reports |got − want| ≤ tol·max(1, |want|).
func closeTo(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func TestDistanceTable(t *testing.T) {
	s2 := math.Sqrt2
	tests := []struct {
		name string
		c    Cone
		s    []float64
		dist float64 // hand-computed Euclidean distance to the cone
	}{
		{"zero origin", NewZero(2), []float64{0, 0}, 0},
		{"zero 3-4-5", NewZero(2), []float64{3, 4}, 5},
		{"free", NewFree(2), []float64{1e3, -5}, 0},
		{"nonneg inside", NewNonnegative(3), []float64{1, 2, 0}, 0},
		{"nonneg 3-4-5", NewNonnegative(3), []float64{1, -3, -4}, 5},
		{"soc inside", NewSecondOrder(3), []float64{5, 3, 4}, 0},
		{"soc boundary", NewSecondOrder(3), []float64{5, -3, 4}, 0},
		{"soc t=0", NewSecondOrder(3), []float64{0, 3, 4}, 5 / s2},
		{"soc t=4", NewSecondOrder(3), []float64{4, 3, 4}, 1 / s2},
		{"soc polar", NewSecondOrder(3), []float64{-5, 3, 4}, math.Sqrt(50)},
		{"soc dim 1 negative", NewSecondOrder(1), []float64{-2}, 2},
		{"soc dim 1 positive", NewSecondOrder(1), []float64{3}, 0},
		{"rsoc boundary 2·1·2=4", NewRotatedSecondOrder(3), []float64{1, 2, 2}, 0},
		// R(1,1) = (√2, 0); ‖(0, 2)‖ = 2 > √2: distance (2 − √2)/√2.
		{"rsoc 2·1·1<4", NewRotatedSecondOrder(3), []float64{1, 1, 2}, s2 - 1},
		{"rsoc polar", NewRotatedSecondOrder(3), []float64{-1, -1, 0}, s2},
		{"rsoc dim 2 = orthant", NewRotatedSecondOrder(2), []float64{3, -4}, 4},
		{"psd diag(1,-2)", NewPSD(2), []float64{1, 0, -2}, 2},
		// [[0,1],[1,0]] has eigenvalues ±1.
		{"psd swap", NewPSD(2), []float64{0, s2, 0}, 1},
		// [[2,1],[1,2]] has eigenvalues 1 and 3.
		{"psd inside", NewPSD(2), []float64{2, s2, 2}, 0},
		{"psd 1×1", NewPSD(1), []float64{-3}, 3},
		{"exp origin", NewExponential(), []float64{0, 0, 0}, 0},
		{"exp 1·e^0 = 1", NewExponential(), []float64{0, 1, 1}, 0},
		{"exp boundary (1,1,e)", NewExponential(), []float64{1, 1, e}, 0},
		{"exp face x≤0,y=0,z≥0", NewExponential(), []float64{-1, 0, 0}, 0},
		// x ≤ 0, y ≤ 0: projection (x, 0, max(z, 0)).
		{"exp x,y≤0", NewExponential(), []float64{-3, -1, 2}, 1},
		{"exp x,y,z≤0", NewExponential(), []float64{-1, -1, -1}, s2},
		// −(1,0,−1) = (−1,0,1) ∈ K*_exp since 1·e^0 ≤ e·1: the projection is 0.
		{"exp polar", NewExponential(), []float64{1, 0, -1}, s2},
		{"dual exp boundary", NewDualExponential(), []float64{-1, 0, 1 / e}, 0},
		{"dual exp face", NewDualExponential(), []float64{0, 1, 1}, 0},
		// −(1,1,e) ∈ −K_exp = polar of K*: projection 0.
		{"dual exp polar", NewDualExponential(), []float64{-1, -1, -e}, math.Sqrt(2 + e*e)},
		{"power boundary", NewPower(0.5), []float64{1, 4, 2}, 0},
		{"power boundary z<0", NewPower(0.5), []float64{1, 4, -2}, 0},
		{"power z=0", NewPower(0.5), []float64{-1, 4, 0}, 1},
		// (x,y,z) = (−1,−1,1): −v = (1,1,−1) ∈ K*_½ since 2·√(1·1) ≥ 1: projection 0.
		{"power polar", NewPower(0.5), []float64{-1, -1, 1}, math.Sqrt(3)},
		{"dual power boundary", NewDualPower(0.5), []float64{1, 1, 2}, 0},
		{"dual power z=0", NewDualPower(0.3), []float64{2, -2, 0}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.c.Distance(tc.s)
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(d, tc.dist, 1e-12) {
				t.Errorf("Distance(%v) = %.17g, want %.17g", tc.s, d, tc.dist)
			}
			if tc.dist == 0 && !tc.c.Contains(tc.s, 1e-12) {
				t.Errorf("Contains(%v, 1e-12) = false, want true", tc.s)
			}
			if tc.dist > 0 {
				if tc.c.Contains(tc.s, tc.dist/2) {
					t.Errorf("Contains(%v, %g) = true, want false", tc.s, tc.dist/2)
				}
				if !tc.c.Contains(tc.s, tc.dist*1.000001) {
					t.Errorf("Contains(%v, %g) = false, want true", tc.s, tc.dist*1.000001)
				}
			}
			p, err := tc.c.Project(nil, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			var ss float64
			for i := range p {
				ss += sq(p[i] - tc.s[i])
			}
			if !closeTo(math.Sqrt(ss), tc.dist, 1e-12) {
				t.Errorf("‖Project(s) − s‖ = %g, want %g (projection %v)", math.Sqrt(ss), tc.dist, p)
			}
		})
	}
}

func TestProjectTable(t *testing.T) {
	s2 := math.Sqrt2
	tests := []struct {
		name string
		c    Cone
		s    []float64
		want []float64 // hand-computed projection
	}{
		{"nonneg", NewNonnegative(3), []float64{1, -2, 0}, []float64{1, 0, 0}},
		// ((t + ‖x‖)/2)·(1, x/‖x‖) = 2.5·(1, 0.6, 0.8).
		{"soc", NewSecondOrder(3), []float64{0, 3, 4}, []float64{2.5, 1.5, 2}},
		{"soc polar", NewSecondOrder(3), []float64{-5, 3, 4}, []float64{0, 0, 0}},
		// R(1,1,2) = (√2, 0, 2) → SOC projection ((√2+2)/2)(1, 0, 1) → back through R.
		{"rsoc", NewRotatedSecondOrder(3), []float64{1, 1, 2},
			[]float64{(s2 + 2) / 2 / s2, (s2 + 2) / 2 / s2, (s2 + 2) / 2}},
		{"psd diag", NewPSD(2), []float64{1, 0, -2}, []float64{1, 0, 0}},
		// [[0,1],[1,0]] → ½[[1,1],[1,1]] (keep the eigenvalue 1 with vector (1,1)/√2).
		{"psd swap", NewPSD(2), []float64{0, s2, 0}, []float64{0.5, 0.5 * s2, 0.5}},
		{"exp x,y≤0", NewExponential(), []float64{-3, -1, 2}, []float64{-3, 0, 2}},
		{"power z=0", NewPower(0.3), []float64{-1, 4, 0}, []float64{0, 4, 0}},
		{"zero", NewZero(2), []float64{1, 2}, []float64{0, 0}},
		{"free", NewFree(2), []float64{1, 2}, []float64{1, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.c.Project(nil, tc.s)
			if err != nil {
				t.Fatal(err)
			}
			for i := range p {
				if !closeTo(p[i], tc.want[i], 1e-13) {
					t.Fatalf("Project(%v) = %v, want %v", tc.s, p, tc.want)
				}
			}
			// In place.
			in := append([]float64(nil), tc.s...)
			q, err := tc.c.Project(in, in)
			if err != nil {
				t.Fatal(err)
			}
			for i := range q {
				if q[i] != p[i] {
					t.Fatalf("in-place Project = %v, want %v", q, p)
				}
			}
		})
	}
}

// TestExpProjectionKnownPoint checks a projection against the Moreau
// decomposition built by hand: with ρ = 0, a = 2, b = 1,
// v = 2·(0, 1, 1) + 1·(1, 1, −1) = (1, 3, 1) must project to (0, 2, 2).
func TestExpProjectionKnownPoint(t *testing.T) {
	p, err := NewExponential().Project(nil, []float64{1, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 2, 2}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-14 {
			t.Fatalf("Project = %v, want %v", p, want)
		}
	}
	// And ρ = 1, a = 1, b = 2: v = (1, 1, e) + 2·(1, 0, −1/e) = (3, 1, e − 2/e).
	p, _ = NewExponential().Project(nil, []float64{3, 1, e - 2/e})
	want = []float64{1, 1, e}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-13 {
			t.Fatalf("Project = %v, want %v", p, want)
		}
	}
}

// TestPowerProjectionKnownPoint: for α = ½ the boundary point (1, 4, 2) has the
// outward normal ∇(|z| − √(xy)) = (−1, −¼, 1); v = (1,4,2) + (−1,−¼,1) = (0, 3.75, 3)
// projects to (1, 4, 2) (the normal direction is in −K* = K°, orthogonal to p).
func TestPowerProjectionKnownPoint(t *testing.T) {
	p, err := NewPower(0.5).Project(nil, []float64{0, 3.75, 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 4, 2}
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-12 {
			t.Fatalf("Project = %v, want %v", p, want)
		}
	}
}

func TestDual(t *testing.T) {
	tests := []struct{ c, want Cone }{
		{NewZero(3), NewFree(3)},
		{NewFree(3), NewZero(3)},
		{NewNonnegative(2), NewNonnegative(2)},
		{NewSecondOrder(4), NewSecondOrder(4)},
		{NewRotatedSecondOrder(4), NewRotatedSecondOrder(4)},
		{NewPSD(3), NewPSD(3)},
		{NewExponential(), NewDualExponential()},
		{NewDualExponential(), NewExponential()},
		{NewPower(0.3), NewDualPower(0.3)},
		{NewDualPower(0.3), NewPower(0.3)},
	}
	for _, tc := range tests {
		if got := tc.c.Dual(); got != tc.want {
			t.Errorf("%v.Dual() = %v, want %v", tc.c, got, tc.want)
		}
		if got := tc.c.Dual().Dual(); got != tc.c {
			t.Errorf("%v.Dual().Dual() = %v", tc.c, got)
		}
		if tc.c.Kind.SelfDual() != (tc.c.Dual() == tc.c) {
			t.Errorf("%v: SelfDual() = %v disagrees with Dual()", tc.c, tc.c.Kind.SelfDual())
		}
	}
	if !NewZero(2).ContainsDual([]float64{-7, 1e9}, 0) {
		t.Error("the dual of the zero cone must contain every finite vector")
	}
	if NewExponential().ContainsDual([]float64{1, 1, 1}, 1e-9) {
		t.Error("(1,1,1) is not in K*_exp (u > 0)")
	}
}

func TestBadInput(t *testing.T) {
	tests := []struct {
		name string
		c    Cone
		s    []float64
		want error
	}{
		{"short", NewSecondOrder(3), []float64{1, 2}, ErrDimension},
		{"nan", NewNonnegative(2), []float64{1, math.NaN()}, ErrNotFinite},
		{"inf", NewExponential(), []float64{1, math.Inf(1), 0}, ErrNotFinite},
		{"bad alpha", NewPower(1.5), []float64{1, 1, 1}, nil},
		{"bad psd", Cone{Kind: PSD, Dim: 2}, []float64{1, 1}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.c.Contains(tc.s, 1e9) {
				t.Error("Contains = true on bad input")
			}
			_, err := tc.c.Distance(tc.s)
			if err == nil {
				t.Fatal("Distance: no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Distance error %v, want errors.Is %v", err, tc.want)
			}
			if _, err := tc.c.Project(nil, tc.s); err == nil {
				t.Error("Project: no error")
			}
		})
	}
	if ProductContains([]Cone{NewNonnegative(2)}, []float64{1}, 0) {
		t.Error("ProductContains accepted a short vector")
	}
	if _, err := ProductDistance([]Cone{NewNonnegative(2)}, []float64{1}); !errors.Is(err, ErrDimension) {
		t.Errorf("ProductDistance error %v, want ErrDimension", err)
	}
	if _, err := SMat(nil, []float64{1, 2}); !errors.Is(err, ErrDimension) {
		t.Errorf("SMat error %v, want ErrDimension", err)
	}
}

func TestProduct(t *testing.T) {
	cones := []Cone{NewZero(1), NewNonnegative(2), NewSecondOrder(3)}
	s := []float64{0, 1, 2, 5, 3, 4}
	if !ProductContains(cones, s, 0) {
		t.Error("ProductContains = false for a member")
	}
	s = []float64{3, -4, 2, 0, 3, 4} // block distances 3, 4, 5/√2
	d, err := ProductDistance(cones, s)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Sqrt(9 + 16 + 12.5); !closeTo(d, want, 1e-14) {
		t.Errorf("ProductDistance = %v, want %v", d, want)
	}
	if ProductContains(cones, s, 3.9) || !ProductContains(cones, s, 4) {
		t.Error("ProductContains must test each block against tol")
	}
	p, err := ProjectProduct(nil, cones, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0, 2, 2.5, 1.5, 2}
	for i := range p {
		if !closeTo(p[i], want[i], 1e-14) {
			t.Fatalf("ProjectProduct = %v, want %v", p, want)
		}
	}
}

func TestSVec(t *testing.T) {
	a := mat.NewSymDense(3, []float64{
		1, 2, 3,
		2, 4, 5,
		3, 5, 6,
	})
	s2 := math.Sqrt2
	got := SVec(nil, a)
	want := []float64{1, 2 * s2, 3 * s2, 4, 5 * s2, 6}
	for i := range want {
		if !closeTo(got[i], want[i], 1e-15) {
			t.Fatalf("SVec = %v, want %v", got, want)
		}
	}
	for j := 0; j < 3; j++ {
		for i := 0; i < 3; i++ {
			scale := 1.0
			if i != j {
				scale = s2
			}
			if v := got[SVecIndex(3, i, j)]; !closeTo(v, scale*a.At(i, j), 1e-15) {
				t.Errorf("svec[SVecIndex(3,%d,%d)] = %v, want %v", i, j, v, scale*a.At(i, j))
			}
		}
	}
	back, err := SMat(nil, got)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(back, a, 1e-14) {
		t.Errorf("SMat(SVec(A)) = %v, want %v", mat.Formatted(back), mat.Formatted(a))
	}
	// ⟨svec A, svec B⟩ = tr(AB).
	b := mat.NewSymDense(3, []float64{
		-1, 0.5, 2,
		0.5, 3, -1,
		2, -1, 0,
	})
	sb := SVec(nil, b)
	var dot float64
	for i := range got {
		dot += got[i] * sb[i]
	}
	var ab mat.Dense
	ab.Mul(a, b)
	if tr := mat.Trace(&ab); !closeTo(dot, tr, 1e-14) {
		t.Errorf("⟨svec A, svec B⟩ = %v, tr(AB) = %v", dot, tr)
	}
}
