package ldl

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSubMulColsBitIdentical checks subMulCols (with its AVX kernel where
// the machine has one) against the scalar formula
// dst[a] −= sign·Σ_t d_t·x(r,t)·x(r+a,t), four columns grouped as
// ((c₀s₀ + c₁s₁) + c₂s₂) + c₃s₃ and the remaining ones one by one, to the
// last bit, for column lengths 1 to 29 and 0 to 9 columns, and against the
// plain sum to 1e-12.
func TestSubMulColsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	for n := 1; n < 30; n++ {
		for nt := 0; nt < 10; nt++ {
			const r = 2
			m := n + r + 1
			x := make([]float64, m*nt)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			d := make([]float64, nt)
			for i := range d {
				d[i] = rng.NormFloat64()
			}
			if nt > 5 {
				x[4*m+r] = 0 // one zero multiplier inside a group
			}
			sign := 1.0
			if nt%2 == 1 {
				sign = -1
			}
			dst := make([]float64, n)
			for i := range dst {
				dst[i] = rng.NormFloat64()
			}
			want, plain := append([]float64(nil), dst...), append([]float64(nil), dst...)
			tt := 0
			for ; tt+4 <= nt; tt += 4 {
				var c [4]float64
				for q := range c {
					c[q] = sign * d[tt+q] * x[(tt+q)*m+r]
				}
				if c == [4]float64{} {
					continue
				}
				for a := range want {
					p0, p1 := c[0]*x[tt*m+r+a], c[1]*x[(tt+1)*m+r+a]
					p2, p3 := c[2]*x[(tt+2)*m+r+a], c[3]*x[(tt+3)*m+r+a]
					s := p0 + p1
					s += p2
					s += p3
					want[a] -= s
				}
			}
			for ; tt < nt; tt++ {
				c := sign * d[tt] * x[tt*m+r]
				if c == 0 {
					continue
				}
				for a := range want {
					p := c * x[tt*m+r+a]
					want[a] -= p
				}
			}
			for q := 0; q < nt; q++ {
				for a := range plain {
					plain[a] -= sign * d[q] * x[q*m+r] * x[q*m+r+a]
				}
			}
			subMulCols(dst, x, m, r, d, 0, nt, sign)
			for a := range dst {
				if math.Float64bits(dst[a]) != math.Float64bits(want[a]) {
					t.Fatalf("n=%d, %d columns, dst[%d] = %v, scalar formula %v", n, nt, a, dst[a], want[a])
				}
				if math.Abs(dst[a]-plain[a]) > 1e-12*(1+math.Abs(plain[a])) {
					t.Fatalf("n=%d, %d columns, dst[%d] = %v, plain sum %v", n, nt, a, dst[a], plain[a])
				}
			}
		}
	}
}

// TestAddScaledBitIdentical checks addScaledAVX's use in the forward solve
// against the scalar dst[i] += src[i]·a, to the last bit, for lengths 0 to 40.
func TestAddScaledBitIdentical(t *testing.T) {
	if !haveAVX {
		t.Skip("no AVX on this machine: the scalar loop is the only path")
	}
	rng := rand.New(rand.NewPCG(2, 9))
	for n := 0; n <= 40; n += 4 {
		dst, src := make([]float64, n+1), make([]float64, n)
		for i := range src {
			src[i], dst[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		a := rng.NormFloat64()
		want := append([]float64(nil), dst...)
		for i := range src {
			p := src[i] * a
			want[i] += p
		}
		if n > 0 {
			addScaledAVX(&dst[0], &src[0], n, a)
		}
		for i := range dst {
			if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: dst[%d] = %v, scalar %v", n, i, dst[i], want[i])
			}
		}
	}
}

// TestAddScaledMatchesLoop checks AddScaled against the scalar loop
// dst[i] += a·x[i], to the last bit, for lengths 0 to 41 (kernel and tails),
// with dst longer than x left alone beyond len(x).
func TestAddScaledMatchesLoop(t *testing.T) {
	checkAddScaled(t, rand.New(rand.NewPCG(5, 3)), false)
}

// TestSubScaledMatchesLoop checks AddScaled with −a (the forward solve's
// subtraction) against the scalar loop dst[i] −= x[i]·a, to the last bit,
// for lengths 0 to 41.
func TestSubScaledMatchesLoop(t *testing.T) {
	checkAddScaled(t, rand.New(rand.NewPCG(6, 2)), true)
}

// checkAddScaled compares AddScaled(dst, a, x) (sub: AddScaled(dst, −a, x))
// with the scalar loop dst[i] + a·x[i] (sub: dst[i] − x[i]·a) bit for bit, for
// lengths 0 to 41 and dst two entries longer than x.
func checkAddScaled(t *testing.T, rng *rand.Rand, sub bool) {
	t.Helper()
	for n := 0; n <= 41; n++ {
		dst, x := make([]float64, n+2), make([]float64, n)
		for i := range dst {
			dst[i] = rng.NormFloat64()
		}
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		a := rng.NormFloat64()
		want := append([]float64(nil), dst...)
		for i := range x {
			if sub {
				p := x[i] * a
				want[i] = want[i] - p
			} else {
				p := a * x[i]
				want[i] = want[i] + p
			}
		}
		if sub {
			AddScaled(dst, -a, x)
		} else {
			AddScaled(dst, a, x)
		}
		for i := range dst {
			if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n=%d: dst[%d] = %v, scalar %v", n, i, dst[i], want[i])
			}
		}
	}
}
