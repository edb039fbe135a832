// Command ellipsoid releases the centre of the maximum-volume ellipsoid
// inscribed in a polytope whose right-hand sides are private (Dvorkin et al.,
// "Privacy-preserving convex optimization", Section 4.4):
//
//	maximize   log det B
//	subject to ‖B aᵢ‖₂ + aᵢᵀc ≤ bᵢ,  i = 1…m,   B ⪰ 0,
//
// E = {Bu + c : ‖u‖ ≤ 1} (Boyd and Vandenberghe 2004, §8.4.2). In the plane
// log det B is maximized through its monotone transform √det B: t² ≤
// B₁₁B₂₂ − B₁₂² is the rotated cone 2(B₁₁/2)B₂₂ ≥ B₁₂² + t², so the program
// is a second-order-cone program for the interior-point solver.
//
// Each bᵢ belongs to one data owner; adjacent datasets differ in one bᵢ by at
// most α = 0.1. The centre c is released with analytic Gaussian noise at
// ε = 1, δ = 10⁻⁵. Its sensitivity has no certificate: it is sampled on the
// released statistic (query.EstimateSensitivity, γ = β = 0.1). Output
// perturbation releases c* + ζ; program perturbation (query.Solve, vertex
// method, η = 0.05, β = 0.1, no recourse on B) releases c̄* + ζ with a shape
// B̄* such that the ellipsoid with the released centre stays inside the
// polytope with probability ≥ 1 − η. The table reports, over fresh noise
// draws, the fraction of released ellipsoids (shape B* or B̄*) leaving the
// polytope and the area relative to the non-private one.
//
// Usage: go run ./examples/ellipsoid [-draws 100000] [-svg ellipsoid.svg]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/internal/plot"
	"github.com/privopt/privopt/lindecision"
	"github.com/privopt/privopt/model"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// polytope is {x : aᵢᵀx ≤ bᵢ} with unit normals at angles θᵢ.
type polytope struct {
	a [][2]float64
	b []float64
}

func newPolytope(rng *rand.Rand, m int) polytope {
	var p polytope
	for i := 0; i < m; i++ {
		th := 2*math.Pi*float64(i)/float64(m) + 0.3*rng.Float64()
		p.a = append(p.a, [2]float64{math.Cos(th), math.Sin(th)})
		p.b = append(p.b, 1+rng.Float64())
	}
	return p
}

// build returns the model, the columns of c, and the variables.
func build(p polytope) (*model.Model, *model.Var, *model.Var) {
	m := model.New("mvie")
	bv := m.Vector("B", 3) // B₁₁, B₁₂, B₂₂
	c := m.Vector("c", 2)
	t := m.Scalar("t")
	for i, a := range p.a {
		ba := model.Stack(bv.At(0).Scale(a[0]).Add(bv.At(1).Scale(a[1])), bv.At(1).Scale(a[0]).Add(bv.At(2).Scale(a[1])))
		m.NormLessEq(fmt.Sprintf("face%d", i), ba, model.Const(p.b[i]).Sub(c.Expr().Dot(a[:])))
	}
	m.RotatedCone("det", bv.At(0).Scale(0.5), bv.At(2), model.Stack(bv.At(1), t.Expr()))
	m.Maximize(t.Expr())
	return m, bv, c
}

func canon(p polytope) (*solver.Problem, []int, []int, error) {
	m, bv, c := build(p)
	can, err := m.Canonicalize()
	if err != nil {
		return nil, nil, nil, err
	}
	return can.Problem, query.Columns(c), query.Columns(bv), nil
}

// outside returns max_i ‖B aᵢ‖ + aᵢᵀc − bᵢ (> 0: the ellipsoid leaves P).
func outside(p polytope, B [3]float64, c [2]float64) float64 {
	v := math.Inf(-1)
	for i, a := range p.a {
		x, y := B[0]*a[0]+B[1]*a[1], B[1]*a[0]+B[2]*a[1]
		v = math.Max(v, math.Hypot(x, y)+a[0]*c[0]+a[1]*c[1]-p.b[i])
	}
	return v
}

func det(B [3]float64) float64 { return B[0]*B[2] - B[1]*B[1] }

type line struct {
	name      string
	violation float64
	area      float64
}

func main() {
	draws := flag.Int("draws", 100000, "noise draws")
	svg := flag.String("svg", "ellipsoid.svg", "SVG output")
	flag.Parse()
	if _, err := run(context.Background(), *draws, *svg); err != nil {
		fmt.Fprintln(os.Stderr, "ellipsoid:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, draws int, svg string) ([]line, error) {
	rng := rand.New(rand.NewPCG(44, 1))
	p := newPolytope(rng, 8)
	prob, cCols, bCols, err := canon(p)
	if err != nil {
		return nil, err
	}
	qp := ipm.New()
	det0, err := qp.Solve(ctx, prob, solver.Settings{})
	if err != nil || !det0.Status.OK() {
		return nil, fmt.Errorf("non-private solve: %v %v", err, det0.Status)
	}
	Bs := [3]float64{det0.X[bCols[0]], det0.X[bCols[1]], det0.X[bCols[2]]}
	cs := [2]float64{det0.X[cCols[0]], det0.X[cCols[1]]}
	// Recourse only on c (identity, Q X = I); B and t stay deterministic.
	var zero []int
	for j := 0; j < prob.NumVars(); j++ {
		if j != cCols[0] && j != cCols[1] {
			zero = append(zero, j)
		}
	}
	const alpha, eps, delta, eta = 0.1, 1.0, 1e-5, 0.05
	cspec := chance.Spec{Approximation: chance.Approximation{Method: chance.Vertex, Eta: eta, Beta: 0.1}, Rand: rand.New(rand.NewPCG(7, 7))}
	spec := query.Spec{Query: query.Identity(cCols...), Solver: qp, Chance: cspec,
		Recourse: lindecision.Recourse{Zero: zero},
		Privacy:  query.Privacy{Mechanism: query.AnalyticGaussian, Epsilon: eps, Delta: delta, Sensitivity: query.Sensitivity{Value: 0.01, Norm: 2}}} // starting calibration of the fixed point
	pair := func(ctx context.Context, rng *rand.Rand, s int) (*solver.Problem, *solver.Problem, error) {
		q := polytope{a: p.a, b: append([]float64(nil), p.b...)}
		i := rng.IntN(len(q.b))
		q.b[i] += alpha * (2*rng.Float64() - 1)
		p2, _, _, err := canon(q)
		return prob, p2, err
	}
	sens, err := query.EstimateSensitivity(ctx, query.SensitivitySpec{Program: spec, Norm: 2, Gamma: 0.1, Beta: 0.1, Pair: pair, Seed: 3, ChanceSeed: 7, Workers: 2})
	if err != nil {
		return nil, fmt.Errorf("sampled sensitivity: %w", err)
	}
	spec.Privacy.Sensitivity = sens
	spec.Chance.Rand = rand.New(rand.NewPCG(7, 7))
	sol, err := query.Solve(ctx, prob, spec)
	if err != nil {
		return nil, fmt.Errorf("program perturbation: %w", err)
	}
	Bp := [3]float64{sol.Rule.XBar[bCols[0]], sol.Rule.XBar[bCols[1]], sol.Rule.XBar[bCols[2]]}
	cp := [2]float64{sol.QueryMean[0], sol.QueryMean[1]}
	mech, err := noise.AnalyticGaussianMechanism(noise.Params{Epsilon: eps, Delta: delta, Sensitivity: sens.Value})
	if err != nil {
		return nil, err
	}
	src := noise.NewSeededSource(1)
	var lines []line
	var outPts, progPts [2][]float64
	for _, s := range []struct {
		name string
		B    [3]float64
		c    [2]float64
		pts  *[2][]float64
	}{{"output perturbation", Bs, cs, &outPts}, {"program perturbation", Bp, cp, &progPts}} {
		l := line{name: s.name, area: det(s.B) / det(Bs)} // area = π det B
		for k := 0; k < draws; k++ {
			c := [2]float64{s.c[0] + mech.Dist.Sample(src), s.c[1] + mech.Dist.Sample(src)}
			if outside(p, s.B, c) > 1e-9 {
				l.violation++
			}
			if k < 200 {
				s.pts[0], s.pts[1] = append(s.pts[0], c[0]), append(s.pts[1], c[1])
			}
		}
		l.violation /= float64(draws)
		lines = append(lines, l)
	}
	fmt.Printf("max-volume inscribed ellipsoid (Section 4.4): 8 faces, α = %g, ε = %g, δ = %g, η = %g, %d draws\n", alpha, eps, delta, eta, draws)
	fmt.Printf("non-private centre %.3f, det B* = %.4f; program centre %.3f, det B̄* = %.4f\n", cs, det(Bs), cp, det(Bp))
	fmt.Printf("noise σ = %.4f per coordinate; guarantee: %s\n", noise.Std(mech.Dist), query.GuaranteeString(eps, delta, sens))
	fmt.Printf("%-22s %12s %14s\n", "strategy", "outside P", "area / area*")
	for _, l := range lines {
		fmt.Printf("%-22s %11.2f%% %14.3f\n", l.name, 100*l.violation, l.area)
	}
	fig := &plot.Figure{Title: "Max-volume inscribed ellipsoid: released centres", XLabel: "x₁", YLabel: "x₂"}
	fig.Series = append(fig.Series, polySeries(p), ellipse("non-private", Bs, cs, true), ellipse("program (B̄*, c̄*)", Bp, cp, false),
		plot.Series{Name: "output-perturbed centres", X: outPts[0], Y: outPts[1]},
		plot.Series{Name: "program-perturbed centres", X: progPts[0], Y: progPts[1]})
	return lines, fig.WriteSVGFile(svg)
}

func ellipse(name string, B [3]float64, c [2]float64, dashed bool) plot.Series {
	var xs, ys []float64
	for k := 0; k <= 100; k++ {
		th := 2 * math.Pi * float64(k) / 100
		u := [2]float64{math.Cos(th), math.Sin(th)}
		xs = append(xs, B[0]*u[0]+B[1]*u[1]+c[0])
		ys = append(ys, B[1]*u[0]+B[2]*u[1]+c[1])
	}
	return plot.Series{Name: name, X: xs, Y: ys, Dashed: dashed}
}

// polySeries draws the polytope's boundary by walking its vertices.
func polySeries(p polytope) plot.Series {
	var xs, ys []float64
	m := len(p.a)
	for k := 0; k <= m; k++ {
		i, j := k%m, (k+1)%m
		a, b := p.a[i], p.a[j]
		dt := a[0]*b[1] - a[1]*b[0]
		xs = append(xs, (p.b[i]*b[1]-a[1]*p.b[j])/dt)
		ys = append(ys, (a[0]*p.b[j]-p.b[i]*b[0])/dt)
	}
	return plot.Series{Name: "polytope", X: xs, Y: ys}
}
