// Command naivebayes trains a differentially private Gaussian naive Bayes
// classifier (Selvi, Liu and Wiesemann, "Differential privacy via
// distributionally robust optimization", §5.2; Vaidya et al. 2013) on the
// shared classification datasets and prints its test error over random
// 80/20 splits with classic noise (Laplace, analytic Gaussian) and the
// optimal noise of package noise, next to the non-private classifier.
//
// # Data-independent sensitivities
//
// The paper perturbs the class counts n_c and the class-conditional means
// and deviations, whose sensitivities (u − l)/n_c and (u − l)/√n_c divide
// by the private counts: the noise scale would then reveal n_c. Here every
// feature is first mapped by its public range [l_v, u_v] to
// u = (clamp(x) − mid)/half ∈ [−1, 1], and three sums are released instead,
// whose sensitivities depend only on the public dimension d and the number
// of classes:
//
//	N_c = Σ_{i: yᵢ = c} 1,   S_{c,v} = Σ_{i: yᵢ = c} u_{iv},   Q_{c,v} = Σ_{i: yᵢ = c} u_{iv}².
//
// Replacing one row (class c, features u) by another (class c′, u′) changes
// N by e_{c′} − e_c, S by u′ in class c′ and −u in class c, Q likewise, so
//
//	N: ℓ₁ ≤ 2, ℓ₂ ≤ √2, ℓ∞ ≤ 1;
//	S: ℓ₁ ≤ 2d, ℓ₂ ≤ 2√d (c = c′: ‖u′ − u‖₂; else √(‖u‖² + ‖u′‖²) ≤ √(2d)), ℓ∞ ≤ 2;
//	Q: ℓ₁ ≤ 2d, ℓ₂ ≤ √(2d), ℓ∞ ≤ 1.
//
// The three releases split (ε, δ) in equal parts (basic composition). The
// classifier is a post-processing: n̂_c = max(Ñ_c, 1), μ̂ = S̃/n̂, σ̂² =
// max(Q̃/n̂ − μ̂², σ²_min) with the public floor σ_min = 0.05, priors n̂_c/Σn̂.
//
// Mechanisms: "Laplace" (vector ℓ₁ sensitivities, (ε, 0)-DP), "Gaussian"
// (analytic Gaussian on each vector with its ℓ₂ sensitivity), "optimal"
// (noise.Optimize's ℓ₁-optimal noise, the paper's loss, for each entry with its ℓ∞
// sensitivity at (ε/(3m), δ/(3m)), m the entries one replaced row can
// change — 2 counts, 2d sums — by basic composition over them; unchanged
// entries have identical laws).
// Every value is drawn by the mechanism's floating-point-safe release.
//
// Usage:
//
//	go run ./examples/naivebayes [-splits 50] [-epsilon 1] [-delta 0.1] [-sets iris,wine,breast-cancer] [-per-statistic]
//
// -per-statistic reproduces the paper's setting instead: every scalar
// statistic is released at (ε, δ) with its ℓ∞ sensitivity and the
// releases are not composed (a comparison of mechanisms, not a guarantee
// for the classifier).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/privopt/privopt/internal/classdata"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/noise"

	// The optimal-noise solver's LPs run on HiGHS (registered by this import).
	_ "github.com/privopt/privopt/noise/lphighs"
)

func main() {
	splits := flag.Int("splits", 10, "random 80/20 splits")
	eps := flag.Float64("epsilon", 1, "ε of the whole release")
	delta := flag.Float64("delta", 0.1, "δ of the whole release (the paper's 0.1)")
	sets := flag.String("sets", "iris,wine,breast-cancer", "datasets")
	perStat := flag.Bool("per-statistic", false, "the paper's setting: every scalar statistic at (ε, δ) on its own (no guarantee for the classifier)")
	flag.Parse()
	if err := run(context.Background(), *splits, *eps, *delta, *perStat, strings.Split(*sets, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "naivebayes:", err)
		os.Exit(1)
	}
}

// Stats are the sufficient statistics N, S, Q of C classes and d features.
type Stats struct {
	N    []float64   // C
	S, Q [][]float64 // C×d
}

// Compute returns the statistics of rows u (features already in [−1, 1])
// with labels 0..C−1.
func Compute(u [][]float64, y []int, classes int) Stats {
	d := len(u[0])
	st := Stats{N: make([]float64, classes), S: make([][]float64, classes), Q: make([][]float64, classes)}
	for c := range st.S {
		st.S[c], st.Q[c] = make([]float64, d), make([]float64, d)
	}
	for i, r := range u {
		c := y[i]
		st.N[c]++
		for v, x := range r {
			st.S[c][v] += x
			st.Q[c][v] += x * x
		}
	}
	return st
}

// Sensitivities returns the ℓ₁, ℓ₂, ℓ∞ sensitivities of N, S and Q for d
// features (see the package comment).
func Sensitivities(d int) (n, s, q [3]float64) {
	fd := float64(d)
	return [3]float64{2, math.Sqrt2, 1}, [3]float64{2 * fd, 2 * math.Sqrt(fd), 2}, [3]float64{2 * fd, math.Sqrt(2 * fd), 1}
}

// Mechanism names the noise of a private fit.
type Mechanism string

// The mechanisms compared.
const (
	Laplace  Mechanism = "laplace"
	Gaussian Mechanism = "analytic-gaussian"
	Optimal  Mechanism = "optimal"
)

// optimalKey identifies one optimal-noise calibration (public numbers).
type optimalKey struct{ eps, delta, sens float64 }

// optimalCache memoizes noise.Optimize across splits.
var optimalCache = map[optimalKey]*noise.Mechanism{}

// newReleaser calibrates mech for one of the three releases at (ε/3,
// δ/3); optimal noise spends (ε/(3m), δ/(3m)) per entry, m the entries one
// replaced row can change (memoized per ℓ∞ sensitivity).
func newReleaser(ctx context.Context, mech Mechanism, eps, delta float64, perStat bool, src noise.Source) func(v []float64, sens [3]float64, changed int) ([]float64, error) {
	e3, d3 := eps/3, delta/3
	return func(v []float64, sens [3]float64, changed int) ([]float64, error) {
		if perStat {
			// The paper's setting: every scalar at (ε, δ) with its ℓ∞
			// sensitivity, no composition.
			e3, d3, changed = eps, delta, 1
			sens = [3]float64{sens[2], sens[2], sens[2]}
		}
		var m *noise.Mechanism
		var err error
		switch mech {
		case Laplace:
			m, err = noise.LaplaceMechanism(noise.Params{Epsilon: e3, Sensitivity: sens[0]})
		case Gaussian:
			m, err = noise.AnalyticGaussianMechanism(noise.Params{Epsilon: e3, Delta: d3, Sensitivity: sens[1]})
		case Optimal:
			k := float64(changed)
			key := optimalKey{e3 / k, d3 / k, sens[2]}
			if m = optimalCache[key]; m == nil {
				var r *noise.OptimalResult
				r, err = noise.Optimize(ctx, noise.Params{Epsilon: key.eps, Delta: key.delta, Sensitivity: key.sens},
					noise.OptimalOptions{Loss: noise.L1(), SkipLowerBound: true, Symmetric: true})
				if err == nil {
					m = r.Mechanism
					optimalCache[key] = m
				}
			}
		default:
			return nil, fmt.Errorf("unknown mechanism %q", mech)
		}
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(v))
		for j, x := range v {
			if out[j], err = m.Release(x, src, noise.ReleaseOptions{}); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// Private returns the statistics released by mech at (ε, δ) in total
// (perStat: each scalar at (ε, δ), the paper's setting, which is not a
// guarantee for the classifier).
func Private(ctx context.Context, st Stats, mech Mechanism, eps, delta float64, perStat bool, src noise.Source) (Stats, error) {
	classes, d := len(st.N), len(st.S[0])
	sn, ss, sq := Sensitivities(d)
	// Optimal noise composes over the entries one replaced row can change:
	// 2 of N (min(C, 2)), 2d of S and of Q (min(C·d, 2d)).
	rel := newReleaser(ctx, mech, eps, delta, perStat, src)
	cn, cs := min(classes, 2), min(classes*d, 2*d)
	flat := func(a [][]float64) []float64 {
		var o []float64
		for _, r := range a {
			o = append(o, r...)
		}
		return o
	}
	unflat := func(v []float64) [][]float64 {
		o := make([][]float64, classes)
		for c := range o {
			o[c] = v[c*d : (c+1)*d]
		}
		return o
	}
	n, err := rel(st.N, sn, cn)
	if err != nil {
		return Stats{}, err
	}
	s, err := rel(flat(st.S), ss, cs)
	if err != nil {
		return Stats{}, err
	}
	q, err := rel(flat(st.Q), sq, cs)
	if err != nil {
		return Stats{}, err
	}
	return Stats{N: n, S: unflat(s), Q: unflat(q)}, nil
}

// Classifier is a Gaussian naive Bayes model.
type Classifier struct {
	LogPrior []float64
	Mu, Var  [][]float64
}

// minStd is the public floor of the class-conditional deviations (in the
// scaled units of [−1, 1]).
const minStd = 0.05

// Fit builds the classifier from (possibly noisy) statistics: a
// post-processing that never looks at the data.
func Fit(st Stats) Classifier {
	classes, d := len(st.N), len(st.S[0])
	cl := Classifier{LogPrior: make([]float64, classes), Mu: make([][]float64, classes), Var: make([][]float64, classes)}
	total := 0.0
	nh := make([]float64, classes)
	for c := range nh {
		nh[c] = math.Max(st.N[c], 1)
		total += nh[c]
	}
	for c := 0; c < classes; c++ {
		cl.LogPrior[c] = math.Log(nh[c] / total)
		cl.Mu[c], cl.Var[c] = make([]float64, d), make([]float64, d)
		for v := 0; v < d; v++ {
			mu := math.Max(-1, math.Min(1, st.S[c][v]/nh[c]))
			cl.Mu[c][v] = mu
			cl.Var[c][v] = math.Max(st.Q[c][v]/nh[c]-mu*mu, minStd*minStd)
		}
	}
	return cl
}

// Predict returns the class with the largest posterior.
func (cl Classifier) Predict(u []float64) int {
	best, bv := 0, math.Inf(-1)
	for c := range cl.LogPrior {
		s := cl.LogPrior[c]
		for v, x := range u {
			s -= 0.5*math.Log(cl.Var[c][v]) + (x-cl.Mu[c][v])*(x-cl.Mu[c][v])/(2*cl.Var[c][v])
		}
		if s > bv {
			best, bv = c, s
		}
	}
	return best
}

// prepare returns the rows mapped to [−1, 1] by the ranges and the labels
// as class indices 0..C−1.
func prepare(data learn.Data, lo, hi []float64) ([][]float64, []int, int) {
	n, d := data.X.Dims()
	u := make([][]float64, n)
	idx := map[float64]int{}
	y := make([]int, n)
	for i := 0; i < n; i++ {
		u[i] = make([]float64, d)
		for v := 0; v < d; v++ {
			x := math.Max(lo[v], math.Min(hi[v], data.X.At(i, v)))
			u[i][v] = (x - (lo[v]+hi[v])/2) / ((hi[v] - lo[v]) / 2)
		}
		c, ok := idx[data.Y[i]]
		if !ok {
			c = len(idx)
			idx[data.Y[i]] = c
		}
		y[i] = c
	}
	return u, y, len(idx)
}

func run(ctx context.Context, splits int, eps, delta float64, perStat bool, names []string) error {
	dir, err := classdata.Dir()
	if err != nil {
		return err
	}
	mechs := []Mechanism{Laplace, Gaussian, Optimal}
	scope := "for the whole release"
	if perStat {
		scope = "for every scalar statistic (the paper's setting, no composition)"
	}
	fmt.Printf("private Gaussian naive Bayes, (ε, δ) = (%g, %g) %s, %d splits 80/20: mean test error (standard error)\n", eps, delta, scope, splits)
	fmt.Printf("%-14s %5s %3s %3s %16s %16s %16s %16s\n", "dataset", "n", "d", "C", "NB", "Laplace", "analytic-Gauss", "optimal")
	for _, name := range names {
		set, err := classdata.ByName(name)
		if err != nil {
			return err
		}
		data, _, err := classdata.Load(dir, set)
		if err != nil {
			return err
		}
		lo, hi := classdata.Ranges(data.X, set)
		u, y, classes := prepare(data, lo, hi)
		rng := rand.New(rand.NewPCG(5, 6))
		sums := make([][]float64, 1+len(mechs))
		for s := 0; s < splits; s++ {
			tr, te := classdata.Split(rng, len(u), 0.8)
			ut, yt := make([][]float64, len(tr)), make([]int, len(tr))
			for k, i := range tr {
				ut[k], yt[k] = u[i], y[i]
			}
			st := Compute(ut, yt, classes)
			cls := []Classifier{Fit(st)}
			for m, mech := range mechs {
				ps, err := Private(ctx, st, mech, eps, delta, perStat, noise.NewSeededSource(uint64(100*s+m)))
				if err != nil {
					return fmt.Errorf("%s %s: %w", name, mech, err)
				}
				cls = append(cls, Fit(ps))
			}
			for c, cl := range cls {
				wrong := 0
				for _, i := range te {
					if cl.Predict(u[i]) != y[i] {
						wrong++
					}
				}
				sums[c] = append(sums[c], float64(wrong)/float64(len(te)))
			}
		}
		fmt.Printf("%-14s %5d %3d %3d", name, len(u), len(u[0]), classes)
		for _, v := range sums {
			m, se := classdata.MeanSE(v)
			fmt.Printf(" %8.2f%% (%4.2f)", 100*m, 100*se)
		}
		fmt.Println()
	}
	return nil
}
