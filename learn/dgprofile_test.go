package learn

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/noise"
)

// coordinatePLD returns the pessimistic privacy-loss distribution (rounded
// up to the grid h, accounting.PLD) of one coordinate of the vector
// discrete Gaussian release: Y ~ N_ℤ(0, v) against Y + a (integer shift a ≥
// 0 in grid units). The loss at output y is
//
//	L(y) = ln(p(y)/p(y − a)) = (a² − 2ay)/(2v)   under y ~ N_ℤ(0, v),
//
// and its law is built exactly on |y| ≤ T = ⌈K√v⌉: every mass p(y) =
// exp(−y²/(2v))/Z goes to the bin ⌈L(y)/h⌉ (rounding the loss up only
// increases δ(ε), see accounting.PLD), Z is the finite sum over |y| ≤ 2T
// (a lower bound, so every mass is overestimated), and the mass outside
// |y| ≤ T — at most 2·∫_T^∞ e^{−x²/(2v)}dx/Z = √(2πv)·erfc(T/√(2v))/Z —
// is put at L = +∞.
func coordinatePLD(v float64, a int64, h, k float64) *accounting.PLD {
	t := int64(math.Ceil(k * math.Sqrt(v)))
	z := 0.0
	for y := -2 * t; y <= 2*t; y++ {
		z += math.Exp(-float64(y*y) / (2 * v))
	}
	af := float64(a)
	lo := int(math.Ceil((af*af - 2*af*float64(t)) / (2 * v) / h))
	hi := int(math.Ceil((af*af + 2*af*float64(t)) / (2 * v) / h))
	// Floating point, made pessimistic instead of carried in Err: z is
	// lowered by its summation bound (4t+1)·u·z, and every added term is
	// raised by 4u (math.Exp, the division, the bin sum), so each computed
	// mass is ≥ the exact one and Err stays 0.
	const u = 0x1p-53
	z *= 1 - float64(4*t+2)*u
	p := &accounting.PLD{Step: h, Offset: lo, Mass: make([]float64, hi-lo+1)}
	for y := -t; y <= t; y++ {
		yf := float64(y)
		l := (af*af - 2*af*yf) / (2 * v)
		p.Mass[int(math.Ceil(l/h))-lo] += math.Exp(-yf*yf/(2*v)) / z * (1 + 4*u)
	}
	for i := range p.Mass {
		p.Mass[i] *= 1 + float64(2*t+1)*u // the bin sums' rounding (≤ 2t+1 terms)
	}
	p.Inf = math.Sqrt(2*math.Pi*v) * math.Erfc(float64(t)/math.Sqrt(2*v)) / z * (1 + 8*u)
	return p
}

// trimPLD moves the finite mass above hi to +∞ and the mass below lo up to
// lo (both pessimistic: losses only grow), keeping the arrays of the
// compositions short.
func trimPLD(p *accounting.PLD, lo, hi float64) *accounting.PLD {
	jlo, jhi := int(math.Floor(lo/p.Step)), int(math.Ceil(hi/p.Step))
	if jlo < p.Offset {
		jlo = p.Offset
	}
	if top := p.Offset + len(p.Mass) - 1; jhi > top {
		jhi = top
	}
	q := &accounting.PLD{Step: p.Step, Offset: jlo, Mass: make([]float64, jhi-jlo+1), Inf: p.Inf, Err: p.Err}
	moved, count := 0.0, 0
	for i, m := range p.Mass {
		j := p.Offset + i
		switch {
		case j > jhi:
			q.Inf += m
			moved += m
			count++
		case j < jlo:
			q.Mass[0] += m
			moved += m
			count++
		default:
			q.Mass[j-jlo] += m
		}
	}
	// Only the two moved sums are rounded: ≤ (count + 2)·u of what moved.
	q.Err += float64(count+2) * 0x1p-53 * moved
	return q
}

// shiftGroup is r coordinates shifted by a grid steps.
type shiftGroup struct {
	a int64
	r int
}

// vectorDGDelta returns an upper bound on δ(ε) of the product discrete
// Gaussian N_ℤ(0, v)^m under the integer shift vector of the groups: the
// privacy loss of the product is the sum of the independent per-coordinate
// losses, so its PLD is the composition (convolution) of the coordinates'
// PLDs (accounting.PLD.Compose, with its floating-point error bound),
// trimmed pessimistically to [lo, hi] after each step.
func vectorDGDelta(t *testing.T, v float64, groups []shiftGroup, eps, h, lo, hi float64) (float64, float64) {
	t.Helper()
	var acc *accounting.PLD
	for _, g := range groups {
		if g.a == 0 || g.r == 0 {
			continue
		}
		base := trimPLD(coordinatePLD(v, g.a, h, 8), lo, hi)
		var grp *accounting.PLD
		for r := g.r; ; {
			if r&1 == 1 {
				if grp == nil {
					grp = base
				} else {
					c, err := grp.Compose(base)
					if err != nil {
						t.Fatal(err)
					}
					grp = trimPLD(c, lo, hi)
				}
			}
			r >>= 1
			if r == 0 {
				break
			}
			c, err := base.Compose(base)
			if err != nil {
				t.Fatal(err)
			}
			base = trimPLD(c, lo, hi)
		}
		if acc == nil {
			acc = grp
		} else {
			c, err := acc.Compose(grp)
			if err != nil {
				t.Fatal(err)
			}
			acc = trimPLD(c, lo, hi)
		}
	}
	return acc.Delta(eps), acc.Err
}

// gaussianDelta is the continuous Gaussian's exact profile at μ = ‖shift‖/σ
// (Balle and Wang 2018, Thm 8): Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).
func gaussianDelta(eps, mu float64) float64 {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	return phi(mu/2-eps/mu) - math.Exp(eps)*phi(-mu/2-eps/mu)
}

// The vector discrete Gaussian's calibration holds: the safe release rounds
// each of the m coordinates to the grid g and adds g·Y_j, Y_j ~ N_ℤ(0, v)
// i.i.d., so adjacent statistics at ℓ₂ distance ≤ Δ give integer shift
// vectors s with ‖s‖₂ < S = Δ/g + √m. For each (m, Δ, ε, δ) — SSP on the
// diabetes shape (d = 10 with intercept: m = 76 moments, X = √10, Y = 1 as
// with --ranges), 11 projection weights, 3 weights at a large ε — the
// exact privacy profile of the product law (convolution of the per-
// coordinate loss distributions, rounded up to the grid h, tails moved to
// +∞) is computed for the integer shift vectors of norm ≤ S that put the
// shift on 1, 2, 4, 16 or all m coordinates (a·𝟙_r plus one remainder
// coordinate b, with r·a² + b² ≤ S²) and must be ≤ the target δ. The
// continuous Gaussian's δ at the same ‖s‖ is logged beside it.
func TestVectorDiscreteGaussianProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("the exact profile convolutions take a few seconds; run without -short")
	}
	// The default run checks SSP on diabetes at (1, 1e-5) and the
	// 3-weight case; PRIVOPT_DG_PROFILE=full adds the two slower cases
	// (their numbers are in BENCHMARKS.md).
	full := os.Getenv("PRIVOPT_DG_PROFILE") == "full"
	ctx := context.Background()
	_, sspL2 := SSPSensitivity(10, Bounds{X: math.Sqrt(10), Y: 1}, true)
	for _, c := range []struct {
		name       string
		m          int
		sens       float64
		eps, delta float64
		slow       bool
	}{
		{"ssp-diabetes", 76, sspL2, 1, 1e-5, false},
		{"ssp-diabetes-eps0.3", 76, sspL2, 0.3, 1e-6, true},
		{"projection-11", 11, 0.3, 0.5, 1e-6, true},
		{"weights-3-eps4", 3, 0.05, 4, 1e-5, false},
	} {
		if c.slow && !full {
			t.Logf("%s: set PRIVOPT_DG_PROFILE=full to check it", c.name)
			continue
		}
		vn, err := newVectorNoise(ctx, AnalyticGaussian, 1, c.m, c.sens, c.eps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		dg, err := noise.DiscreteGaussianFor(vn.dist.(*noise.Gaussian).Sigma, vn.mech.Params, vn.grid)
		if err != nil {
			t.Fatal(err)
		}
		v, g := float64(dg.Variance), dg.Granularity
		s := c.sens/g + math.Sqrt(float64(c.m)) // sup of ‖s‖₂ (strict)
		mu := s / math.Sqrt(v)
		// Loss grid and trimming window. Rounding every coordinate's loss up
		// to h shifts the total loss by up to m·h, which inflates δ(ε) by
		// about exp(m·h·ε/μ²): h = μ/(4·10⁴) keeps that below 1% here. The
		// window [−(12μ + μ²), ε + 12μ] holds all but a negligible mass of
		// every partial sum (std ≤ μ), and trimming is pessimistic.
		h := mu / 4e4
		lo, hi := -(12*mu + mu*mu), c.eps+12*mu
		worst := 0.0
		for _, r := range []int{1, 2, 4, 16, c.m} {
			if r > c.m {
				continue
			}
			a := int64(math.Floor(s / math.Sqrt(float64(r))))
			for float64(r)*float64(a*a) >= s*s {
				a--
			}
			// j of the r coordinates at a + 1 as long as the norm stays < S,
			// then one more coordinate b (if r < m) with the rest.
			j := 0
			for j < r && float64(r-j-1)*float64(a*a)+float64(j+1)*float64((a+1)*(a+1)) < s*s {
				j++
			}
			sq := float64(r-j)*float64(a*a) + float64(j)*float64((a+1)*(a+1))
			b := int64(0)
			if r < c.m {
				b = int64(math.Floor(math.Sqrt(s*s - sq)))
				for b > 0 && sq+float64(b*b) >= s*s {
					b--
				}
			}
			groups := []shiftGroup{{a, r - j}, {a + 1, j}, {b, 1}}
			norm := math.Sqrt(sq + float64(b*b))
			d, errb := vectorDGDelta(t, v, groups, c.eps, h, lo, hi)
			cont := gaussianDelta(c.eps, norm/math.Sqrt(v))
			t.Logf("%s: m = %d, Δ = %.6g, g = %g, v = %.6g (σ_Z = %.6g grid steps), S = Δ/g + √m = %.6g; shift %d×%d, %d×%d, 1×%d: ‖s‖ = %.6g, discrete δ(%g) ≤ %.6g (float error bound %.2g), continuous %.6g, target %g",
				c.name, c.m, c.sens, g, v, math.Sqrt(v), s, r-j, a, j, a+1, b, norm, c.eps, d, errb, cont, c.delta)
			if !(d <= c.delta) {
				t.Errorf("%s: shift %d×%d, %d×%d, 1×%d: discrete δ(%g) = %v exceeds the target %v", c.name, r-j, a, j, a+1, b, c.eps, d, c.delta)
			}
			worst = math.Max(worst, d)
		}
		t.Logf("%s: worst discrete δ %.6g / target %g = %.4f", c.name, worst, c.delta, worst/c.delta)
	}
}
