package cone

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randPoint draws a point whose coordinates are N(0,1) times a common scale
// 10^U(−3, 3), so that projections are exercised across magnitudes.
func randPoint(rng *rand.Rand, d int) []float64 {
	scale := math.Pow(10, 6*rng.Float64()-3)
	v := make([]float64, d)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

var propertyCones = []Cone{
	NewZero(3), NewFree(3), NewNonnegative(5),
	NewSecondOrder(1), NewSecondOrder(2), NewSecondOrder(6),
	NewRotatedSecondOrder(2), NewRotatedSecondOrder(5),
	NewPSD(1), NewPSD(2), NewPSD(4), NewPSD(7),
	NewExponential(), NewDualExponential(),
	NewPower(0.5), NewPower(0.1), NewPower(0.83), NewDualPower(0.5), NewDualPower(0.27),
}

// definingMargin evaluates the defining inequality of the non-symmetric cones
// directly (independently of the projection code), as a relative margin: ≥ −tol
// means "in the cone up to tol".
func definingMargin(c Cone, s []float64) float64 {
	x, y, z := s[0], s[1], s[2]
	n := math.Max(norm2(s), 1e-300)
	switch c.Kind {
	case Exponential:
		if y <= 0 {
			return math.Min(math.Min(-x, z), -math.Abs(y)) / n
		}
		return (z - y*math.Exp(x/y)) / n
	case DualExponential:
		if x >= 0 {
			return math.Min(math.Min(y, z), -math.Abs(x)) / n
		}
		return (e*z + x*math.Exp(y/x)) / n
	case Power, DualPower:
		a := c.Alpha
		if c.Kind == DualPower {
			x, y = x/a, y/(1-a)
		}
		if x < 0 || y < 0 {
			return math.Min(x, y) / n
		}
		return (math.Pow(x, a)*math.Pow(y, 1-a) - math.Abs(z)) / n
	}
	panic("definingMargin: not a 3-dimensional cone")
}

// TestProjectionProperties checks, on 2,000 seeded random points per cone, the
// conditions that characterize the Euclidean projection (Moreau's decomposition
// v = Π_K(v) − Π_{K*}(−v) into orthogonal parts): with p = Π_K(v) and
// q = Π_{K*}(−v) computed independently by Project on K and on K*, p ∈ K, q ∈ K*,
// p − q = v and ⟨p, q⟩ = 0; also that the projection is idempotent and consistent
// with Distance. For the exponential and power cones membership is also checked
// with the defining inequalities, independently of the projection code.
// Deterministic (fixed seed), so it cannot fail at random.
func TestProjectionProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range propertyCones {
		t.Run(c.String(), func(t *testing.T) {
			for trial := range 2000 {
				v := randPoint(rng, c.Dim)
				p, err := c.Project(nil, v)
				if err != nil {
					t.Fatal(err)
				}
				mv := make([]float64, len(v))
				for i := range v {
					mv[i] = -v[i]
				}
				q, err := c.Dual().Project(nil, mv)
				if err != nil {
					t.Fatal(err)
				}
				nv := math.Max(norm2(v), 1e-300)
				tol := 1e-10 * nv
				fail := func(format string, args ...any) {
					t.Fatalf("trial %d, v = %v, p = %v, q = %v: %s", trial, v, p, q, fmt.Sprintf(format, args...))
				}
				if d, _ := c.Distance(p); d > tol {
					fail("dist(p, K) = %g", d)
				}
				if d, _ := c.Dual().Distance(q); d > tol {
					fail("dist(q, K*) = %g", d)
				}
				for i := range v {
					if math.Abs(p[i]-q[i]-v[i]) > tol {
						fail("p − q ≠ v at %d: %g", i, p[i]-q[i]-v[i])
					}
				}
				if ip := dot(p, q); math.Abs(ip) > 1e-10*nv*nv {
					fail("⟨p, q⟩ = %g", ip)
				}
				if d, _ := c.Distance(v); math.Abs(d-norm2(q)) > tol {
					fail("Distance(v) = %g, ‖q‖ = %g", d, norm2(q))
				}
				pp, _ := c.Project(nil, p)
				for i := range pp {
					if math.Abs(pp[i]-p[i]) > tol {
						fail("not idempotent: Π(p) = %v", pp)
					}
				}
				if k := c.Kind; k == Exponential || k == DualExponential || k == Power || k == DualPower {
					if m := definingMargin(c, p); m < -1e-12 {
						fail("defining inequality of K violated by p: %g", m)
					}
					if m := definingMargin(c.Dual(), q); m < -1e-12 {
						fail("defining inequality of K* violated by q: %g", m)
					}
				}
			}
		})
	}
}

// TestDualPairing checks ⟨x, y⟩ ≥ 0 for x ∈ K and y ∈ K* drawn as projections of
// random points (10,000 pairs per cone).
func TestDualPairing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range propertyCones {
		t.Run(c.String(), func(t *testing.T) {
			for range 10000 {
				x, _ := c.Project(nil, randPoint(rng, c.Dim))
				y, _ := c.Dual().Project(nil, randPoint(rng, c.Dim))
				if ip := dot(x, y); ip < -1e-12*norm2(x)*norm2(y) {
					t.Fatalf("⟨x, y⟩ = %g < 0 for x = %v ∈ K, y = %v ∈ K*", ip, x, y)
				}
			}
		})
	}
}

// TestExpDualDefinition checks the dual exponential cone formula against the
// definition K* = {y : ⟨s, y⟩ ≥ 0 ∀ s ∈ K}, with points drawn from the defining
// inequalities (not from the projection code):
//   - s ∈ K_exp from s = (x, y, y·e^{x/y} + slack), y > 0, and y ∈ K*_exp from
//     (u, v, −u·e^{v/u}/e + slack), u < 0: ⟨s, y⟩ ≥ 0;
//   - conversely, a random w that the formula puts outside K*_exp by a clear margin
//     has ⟨s, w⟩ < 0 for some boundary ray s = (ρ, 1, e^ρ), ρ on a grid, or for a
//     face direction (−1, 0, 0), (0, 0, 1) — so the formula is not too small either.
func TestExpDualDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		yy := math.Exp(4 * rng.NormFloat64())
		x := 3 * rng.NormFloat64() * yy
		s := []float64{x, yy, yy*math.Exp(x/yy) + yy*rng.ExpFloat64()*rng.Float64()}
		u := -math.Exp(4 * rng.NormFloat64())
		v := 3 * rng.NormFloat64() * -u
		w := []float64{u, v, -u*math.Exp(v/u)/e + -u*rng.ExpFloat64()*rng.Float64()}
		if ip := dot(s, w); ip < -1e-12*norm2(s)*norm2(w) {
			t.Fatalf("⟨s, w⟩ = %g < 0 for s = %v ∈ K_exp, w = %v ∈ K*_exp", ip, s, w)
		}
		if !NewExponential().Contains(s, 1e-9*norm2(s)) || !NewDualExponential().Contains(w, 1e-9*norm2(w)) {
			t.Fatalf("Contains disagrees with the defining inequality for s = %v or w = %v", s, w)
		}
	}
	outside := 0
	for range 4000 {
		w := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		m := definingMargin(NewDualExponential(), w)
		if math.Abs(m) < 1e-2 {
			continue // too close to the boundary for a grid witness
		}
		minIP := math.Min(-w[0], w[2]) // face directions (−1,0,0) and (0,0,1)
		for rho := -25.0; rho <= 25; rho += 0.005 {
			ray := []float64{rho, 1, math.Exp(rho)}
			minIP = math.Min(minIP, dot(ray, w)/norm2(ray))
			if minIP < 0 {
				break
			}
		}
		if (m < 0) != (minIP < 0) {
			t.Fatalf("w = %v: formula margin %g but min over K of ⟨s, w⟩/‖s‖ ≈ %g", w, m, minIP)
		}
		if m < 0 {
			outside++
		}
	}
	if outside < 400 {
		t.Fatalf("only %d points outside K*_exp were tested", outside)
	}
}
