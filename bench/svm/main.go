// Command svm builds the chance-constrained support vector machine of Dvorkin
// et al., "Privacy-preserving convex optimization" (Section 4.2, program (17)),
// with the Bonferroni second-order-cone reformulation of Remark 3.4, directly as
// a solver.Problem, solves it with the pure-Go interior-point solver and prints
// the solve time, the iteration count and the peak resident memory.
//
// With features xᵢ ∈ ℝᵈ, labels yᵢ = ±1 (i = 1…m), the perturbation
// ζ ∈ ℝᵈ⁺¹ with covariance σ²I and the identity recourse [W; B] = I, the
// program is
//
//	minimize   λ‖w̄‖² + (1/m)·1ᵀz̄
//	subject to z·σ·‖aᵢ + Zᵢ‖ ≤ yᵢ(w̄ᵀxᵢ − b̄) − 1 + z̄ᵢ,  aᵢ = yᵢ(xᵢ, −1),
//	           z·σ·‖Zᵢ‖ ≤ z̄ᵢ,                          i = 1…m,
//
// over w̄ ∈ ℝᵈ, b̄, z̄ ∈ ℝᵐ, Zᵢ ∈ ℝᵈ⁺¹: two second-order cones of dimension d+2
// per data point (the constant trace term of the objective is dropped). The
// safety factor is z = Φ⁻¹(1 − η̄) (Gaussian perturbation) or √((1−η̄)/η̄)
// (distribution-free), with η̄ the per-constraint violation probability.
//
// Usage:
//
//	go run ./bench/svm [-data opf_feasibility_case89_pegase_1.json] [-points 4500]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
	"gonum.org/v1/gonum/stat/distuv"
)

type dataset struct {
	X [][]float64 `json:"x_train"` // features × points
	Y []float64   `json:"y_train"`
}

func main() {
	data := flag.String("data", "svm-opf/opf_feasibility_case89_pegase_1.json", "dataset, relative to the shared data folder or absolute")
	points := flag.Int("points", 0, "use only the first this many points (0: all)")
	lambda := flag.Float64("lambda", 1e-5, "regularization λ")
	sigma := flag.Float64("sigma", 0.01, "standard deviation σ of each perturbation entry")
	eta := flag.Float64("eta", 0.01, "violation probability η̄ of each individual chance constraint")
	free := flag.Bool("distribution-free", false, "use z = √((1−η̄)/η̄) instead of the Gaussian quantile")
	verbose := flag.Bool("v", false, "print the solver log")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the solve to this file")
	flag.Parse()

	path := *data
	if !filepath.IsAbs(path) {
		dir, err := shareddata.Dir()
		if err != nil {
			fail(err)
		}
		path = filepath.Join(dir, path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	var ds dataset
	if err := json.Unmarshal(raw, &ds); err != nil {
		fail(err)
	}
	z := distuv.UnitNormal.Quantile(1 - *eta)
	if *free {
		z = math.Sqrt((1 - *eta) / *eta)
	}
	p := build(ds, *points, *lambda, *sigma, z)
	raw, ds = nil, dataset{}
	runtime.GC()

	set := ipm.Settings{}
	if *verbose {
		set.Log = os.Stdout
	}
	sv, err := ipm.NewWithSettings(set)
	if err != nil {
		fail(err)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	sol, err := sv.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		fail(err)
	}
	el := time.Since(start)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	fmt.Printf("svm: %d points, %d variables, %d rows, %d second-order cones of dimension %d, nnz(A) = %d\n",
		len(p.Cones)/2, p.NumVars(), p.NumRows(), len(p.Cones), p.Cones[0].Dim, p.A.Nnz())
	fmt.Printf("status %v, objective %.10g, dual objective %.10g, iterations %d\n", sol.Status, sol.Objective, sol.DualObjective, sol.Iterations)
	fmt.Printf("solve time %.2f s, peak RSS %.0f MB, z = %.4g\n", el.Seconds(), float64(ru.Maxrss)/1024, z)
}

// build assembles program (17) in standard form. Columns: w̄ (d), b̄, z̄ (m),
// Z (m·(d+1)). Rows: per point, the cone (a) then the cone (b).
func build(ds dataset, points int, lambda, sigma, z float64) *solver.Problem {
	d := len(ds.X)
	m := len(ds.Y)
	if points > 0 && points < m {
		m = points
	}
	k := d + 1
	nv := d + 1 + m + m*k
	cdim := k + 1
	nrows := 2 * m * cdim
	t := sparse.NewTriplets(nrows, nv, m*(2*d+4+2*k))
	b := make([]float64, nrows)
	q := make([]float64, nv)
	zcol := func(i int) int { return d + 1 + i }
	Zcol := func(i, j int) int { return d + 1 + m + i*k + j }
	cones := make([]cone.Cone, 0, 2*m)
	zs := z * sigma
	for i := 0; i < m; i++ {
		yi := ds.Y[i]
		r := 2 * i * cdim
		// (a): t = yᵢ(w̄ᵀxᵢ − b̄) − 1 + z̄ᵢ, u = zσ(aᵢ + Zᵢ)
		for j := 0; j < d; j++ {
			t.Append(r, j, -yi*ds.X[j][i])
		}
		t.Append(r, d, yi)
		t.Append(r, zcol(i), -1)
		b[r] = -1
		for j := 0; j < k; j++ {
			aij := -yi // the b̄ component of aᵢ = yᵢ(xᵢ, −1)
			if j < d {
				aij = yi * ds.X[j][i]
			}
			t.Append(r+1+j, Zcol(i, j), -zs)
			b[r+1+j] = zs * aij
		}
		cones = append(cones, cone.NewSecondOrder(cdim))
		// (b): t = z̄ᵢ, u = zσZᵢ
		r += cdim
		t.Append(r, zcol(i), -1)
		for j := 0; j < k; j++ {
			t.Append(r+1+j, Zcol(i, j), -zs)
		}
		cones = append(cones, cone.NewSecondOrder(cdim))
		q[zcol(i)] = 1 / float64(m)
	}
	pt := sparse.NewTriplets(nv, nv, d)
	for j := 0; j < d; j++ {
		pt.Append(j, j, 2*lambda) // λ‖w̄‖² = ½w̄ᵀ(2λI)w̄
	}
	return &solver.Problem{P: pt.ToCSC(), Q: q, A: t.ToCSC(), B: b, Cones: cones}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "svm:", err)
	os.Exit(1)
}
