package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/model"
)

// Grid is the shortest-path network of Elmachtoub and Grigas ("Smart
// 'predict, then optimize'", Management Science 68(1), 2022, §6.1): a
// Size×Size grid of nodes, arcs pointing right or down, from the top-left
// to the bottom-right node. Arc a joins From[a] to To[a].
type Grid struct {
	Size     int
	From, To []int
}

// NewGrid returns the Size×Size grid (2·Size·(Size−1) arcs; 40 for 5×5).
func NewGrid(size int) *Grid {
	g := &Grid{Size: size}
	for r := 0; r < size; r++ {
		for c := 0; c < size; c++ {
			v := r*size + c
			if c+1 < size {
				g.From, g.To = append(g.From, v), append(g.To, v+1)
			}
			if r+1 < size {
				g.From, g.To = append(g.From, v), append(g.To, v+size)
			}
		}
	}
	return g
}

// Arcs returns the number of arcs.
func (g *Grid) Arcs() int { return len(g.From) }

// Oracle returns w*(c) ∈ argmin{cᵀw : w ∈ S}, S the unit-flow polytope of
// the grid (a 0/1 path indicator at a vertex), for any real c (negative
// entries included: SPO+ evaluates w*(2ĉ − c)).
type Oracle interface {
	Solve(c []float64) ([]float64, error)
}

// DAGOracle solves the shortest path by dynamic programming in
// topological order (the grid is acyclic, so negative costs are fine): the
// exact optimum of the LP, whose vertices are the paths.
type DAGOracle struct{ G *Grid }

// Solve returns the indicator of a shortest path under c.
func (o DAGOracle) Solve(c []float64) ([]float64, error) {
	g := o.G
	nv := g.Size * g.Size
	dist := make([]float64, nv)
	pred := make([]int, nv)
	for v := range dist {
		dist[v], pred[v] = math.Inf(1), -1
	}
	dist[0] = 0
	// Arcs go from lower to higher node numbers: node order is topological.
	in := make([][]int, nv)
	for a := range g.From {
		in[g.To[a]] = append(in[g.To[a]], a)
	}
	for v := 1; v < nv; v++ {
		for _, a := range in[v] {
			if d := dist[g.From[a]] + c[a]; d < dist[v] {
				dist[v], pred[v] = d, a
			}
		}
	}
	w := make([]float64, g.Arcs())
	for v := nv - 1; v != 0; v = g.From[pred[v]] {
		w[pred[v]] = 1
	}
	return w, nil
}

// LPOracle solves min cᵀw over the flow polytope {0 ≤ w ≤ 1, net outflow
// 1 at the source, −1 at the sink, 0 elsewhere} as a linear program through
// privopt's modelling layer and its default solver (HiGHS); the vertex
// returned is rounded to the nearest 0/1 vector (it is integral up to the
// solver's tolerance: the constraint matrix is totally unimodular).
type LPOracle struct {
	G *Grid
}

// Solve builds and solves the LP.
func (o LPOracle) Solve(c []float64) ([]float64, error) {
	g := o.G
	nv, na := g.Size*g.Size, g.Arcs()
	a := mat.NewDense(nv, na, nil)
	b := make([]float64, nv)
	for k := range g.From {
		a.Set(g.From[k], k, 1)
		a.Set(g.To[k], k, -1)
	}
	b[0], b[nv-1] = 1, -1
	m := model.New("shortest-path")
	w := m.Vector("w", na)
	m.Bound(w, 0, 1)
	m.Equal("flow", model.MulDense(a, w.Expr()), model.Const(b...))
	m.Minimize(w.Expr().Dot(c))
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		return nil, err
	}
	if !res.Status.OK() {
		return nil, fmt.Errorf("spo: shortest-path LP: status %v", res.Status)
	}
	x := res.Value(w)
	for k := range x {
		x[k] = math.Round(x[k])
	}
	return x, nil
}

// Instance is a predict-then-optimize dataset: features x (n×p) and the
// true costs c (n×arcs) of the arcs.
type Instance struct {
	X, C [][]float64
}

// Generate draws n examples of Elmachtoub and Grigas's synthetic model
// (§6.1): x ~ N(0, I_p), a fixed B* with Bernoulli(½) entries (drawn from
// rng before the examples, so the same rng state gives the same B*), and
//
//	c_j = [(1/√p·(B*x)_j + 3)^deg + 1]·u_j,   u_j ~ U[1 − ε̄, 1 + ε̄].
//
// (Their model divides by 3.5^{deg−1}; that positive constant rescales all
// costs and changes neither the decisions nor the normalized regret.)
func Generate(rng *rand.Rand, bstar [][]float64, n, deg int, halfWidth float64) Instance {
	m, p := len(bstar), len(bstar[0])
	in := Instance{X: make([][]float64, n), C: make([][]float64, n)}
	for i := 0; i < n; i++ {
		x := make([]float64, p)
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		c := make([]float64, m)
		for j := range c {
			t := 0.0
			for k := range x {
				t += bstar[j][k] * x[k]
			}
			c[j] = (math.Pow(t/math.Sqrt(float64(p))+3, float64(deg))/math.Pow(3.5, float64(deg-1)) + 1) * (1 - halfWidth + 2*halfWidth*rng.Float64())
		}
		in.X[i], in.C[i] = x, c
	}
	return in
}

// RandomB returns an m×p matrix of Bernoulli(½) entries.
func RandomB(rng *rand.Rand, m, p int) [][]float64 {
	b := make([][]float64, m)
	for j := range b {
		b[j] = make([]float64, p)
		for k := range b[j] {
			if rng.IntN(2) == 1 {
				b[j][k] = 1
			}
		}
	}
	return b
}

// Features returns x̃ = (x clipped to ℓ₂ norm X, 1): the public feature
// map whose norm is at most √(X² + 1).
func Features(x []float64, bound float64) []float64 {
	nr := 0.0
	for _, v := range x {
		nr += v * v
	}
	nr = math.Sqrt(nr)
	f := make([]float64, len(x)+1)
	for k, v := range x {
		f[k] = v
		if nr > bound {
			f[k] *= bound / nr
		}
	}
	f[len(x)] = 1
	return f
}

// Predict returns ĉ = B x̃ for the weights B (m×q, row-major in w).
func Predict(w []float64, m int, f []float64) []float64 {
	q := len(f)
	c := make([]float64, m)
	for j := range c {
		for k, v := range f {
			c[j] += w[j*q+k] * v
		}
	}
	return c
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// SPOPlus returns the SPO+ loss of Elmachtoub and Grigas (eq. 6),
//
//	ℓ(ĉ, c) = max_{w ∈ S} (c − 2ĉ)ᵀw + 2ĉᵀw*(c) − cᵀw*(c),
//
// and its subgradient in ĉ, 2(w*(c) − w*(2ĉ − c)) (their Prop. 5).
func SPOPlus(o Oracle, chat, c, wstar []float64) (float64, []float64, error) {
	d := make([]float64, len(c))
	for j := range d {
		d[j] = 2*chat[j] - c[j]
	}
	wt, err := o.Solve(d)
	if err != nil {
		return 0, nil, err
	}
	// max (c − 2ĉ)ᵀw = −min (2ĉ − c)ᵀw = −(2ĉ − c)ᵀw̃.
	loss := -dot(d, wt) + 2*dot(chat, wstar) - dot(c, wstar)
	g := make([]float64, len(c))
	for j := range g {
		g[j] = 2 * (wstar[j] - wt[j])
	}
	return loss, g, nil
}

// Diameter returns the ℓ₂ diameter of S for the grid: two monotone paths
// have 2(Size−1) arcs each, so ‖w − w′‖₂² = |w Δ w′| ≤ 4(Size−1) and
// diam₂(S) = 2√(Size−1) (attained by the two boundary paths, which share
// no arc). It is a bound on ‖w*(c) − w*(c′)‖₂ for the vertices the oracles
// return.
func (g *Grid) Diameter() float64 { return 2 * math.Sqrt(float64(g.Size-1)) }

// NormalizedRegret returns Σᵢ (cᵢᵀw*(ĉᵢ) − z*(cᵢ)) / Σᵢ z*(cᵢ) of the
// predictions ĉᵢ = B x̃ᵢ on inst.
func NormalizedRegret(o Oracle, w []float64, inst Instance, bound float64) (float64, error) {
	num, den := 0.0, 0.0
	for i, x := range inst.X {
		c := inst.C[i]
		wh, err := o.Solve(Predict(w, len(c), Features(x, bound)))
		if err != nil {
			return 0, err
		}
		ws, err := o.Solve(c)
		if err != nil {
			return 0, err
		}
		z := dot(c, ws)
		num += dot(c, wh) - z
		den += z
	}
	return num / den, nil
}
