// Command svm releases a private linear SVM on the OPF-feasibility data of
// Dvorkin et al. ("Privacy-preserving convex optimization", Section 4.2; the
// public datasets of the paper's repository, MIT): 4500 training and 500 test
// operating points of an IEEE 14-bus case labelled feasible (+1) or not
// (−1), 11 features in [0, 1]. The SVM is eq. 17, λ‖w‖² + (1/m)Σ max(0, 1 −
// yᵢ(wᵀxᵢ + b)) with λ = 10⁻⁵ and a free offset b (learn.Hinge with
// FreeIntercept, λ_learn = 2λ).
//
// As in the paper, the ℓ₂ sensitivity of (w, b) is sampled: S = ⌈1/(ηβ)⌉ =
// 100 pairs of datasets whose features are each scaled by independent U(1 −
// α, 1 + α) factors, α = 0.01, and the largest ‖(w, b)(D) − (w, b)(D′)‖₂ is
// taken. That is (ε, δ, γ)-probabilistic DP for the paper's α-adjacency, not
// DP for replace-one adjacency: the free offset leaves no certificate.
// ε = 1, δ = 1/4050. The paper draws σ = √(2 ln(1.25/δ))·Δ/ε (the classical
// Gaussian formula, proven only for ε < 1); we report it and the analytic
// Gaussian σ (Balle and Wang 2018), valid at ε = 1.
//
// Program perturbation goes through learn.Program (query.Solve): the margin
// constraints hold jointly with probability ≥ 1 − η, η = 0.05 (flag -eta), by Bonferroni
// with Gaussian quantiles; the paper imposes each constraint individually at
// η = 0.05, which is far less conservative. A second program-perturbation
// line does that (learn.Options.IndividualEta), and its statement says that
// the joint guarantee is then only the union bound.
//
// Section 4.2.1's synthetic experiment (two Gaussian classes, Laplace noise
// of the paper's scale 21.8) runs after it (synthetic.go).
//
// Usage: go run ./examples/svm [-case case14_ieee_3] [-draws 1000] [-svg svm.svg]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/internal/plot"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/noise"
)

// Paper's numbers (Section 4.2.2, its table of OPF-feasibility
// classification, row 14_ieee_3): mean test accuracy in percent, standard
// deviations in parentheses there: non-private 98.6, output perturbation
// 69.7 (14.5), program perturbation with η̄ᵢ = 5% per constraint 91.4 (3.6).
// (The 99.4%, 51.2% and 97.6% often quoted are Section 4.2.1's synthetic
// experiment: runSynthetic.)
const paperNonPrivate, paperOutput, paperProgram = 98.6, 69.7, 91.4

type opfData struct {
	XTrain [][]float64 `json:"x_train"` // features × rows
	YTrain []float64   `json:"y_train"`
	XTest  [][]float64 `json:"x_test"`
	YTest  []float64   `json:"y_test"`
}

func toData(cols [][]float64, y []float64) learn.Data {
	d, n := len(cols), len(y)
	x := mat.NewDense(n, d, nil)
	for j, c := range cols {
		for i, v := range c {
			x.Set(i, j, v)
		}
	}
	return learn.Data{X: x, Y: append([]float64(nil), y...)}
}

func load(path string) (train, test learn.Data, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return train, test, err
	}
	var o opfData
	if err := json.Unmarshal(b, &o); err != nil {
		return train, test, fmt.Errorf("%s: %w", path, err)
	}
	return toData(o.XTrain, o.YTrain), toData(o.XTest, o.YTest), nil
}

// scaled returns d with every feature multiplied by an independent U(1−α, 1+α).
func scaled(d learn.Data, alpha float64, rng *rand.Rand) learn.Data {
	x := mat.DenseCopyOf(d.X)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] *= 1 - alpha + 2*alpha*rng.Float64()
	}
	return learn.Data{X: x, Y: d.Y}
}

type row struct {
	name      string
	mean, std float64
	sigma     float64
	guarantee string
}

func main() {
	caseID := flag.String("case", "case14_ieee_3", "dataset: opf_feasibility_<case>.json")
	draws := flag.Int("draws", 1000, "noise draws per strategy")
	pairs := flag.Int("pairs", 100, "sensitivity pairs (paper: ⌈1/(ηβ)⌉ = 100)")
	svg := flag.String("svg", "svm.svg", "SVG output")
	eta := flag.Float64("eta", 0.05, "program perturbation's violation probability η (per row, and joint); the paper's table: 0.05, 0.01, 0.0001")
	flag.Parse()
	dir, err := shareddata.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "svm:", err)
		os.Exit(1)
	}
	rows, info, err := run(context.Background(), filepath.Join(dir, "svm-opf", "opf_feasibility_"+*caseID+".json"), *draws, *pairs, *eta)
	if err != nil {
		fmt.Fprintln(os.Stderr, "svm:", err)
		os.Exit(1)
	}
	fmt.Print(info)
	fmt.Printf("%-38s %9s %7s %9s\n", "strategy", "accuracy", "std", "σ")
	for _, r := range rows {
		fmt.Printf("%-38s %8.1f%% %6.1f%% %9.4g\n", r.name, 100*r.mean, 100*r.std, r.sigma)
	}
	fmt.Printf("paper (case14_ieee_3): non-private %.1f%%, output perturbation %.1f%%, program perturbation (η per row) %.1f%%\n", paperNonPrivate, paperOutput, paperProgram)
	srows, sinfo, err := runSynthetic(context.Background(), *draws)
	if err != nil {
		fmt.Fprintln(os.Stderr, "svm:", err)
		os.Exit(1)
	}
	fmt.Print("\n" + sinfo)
	for _, r := range srows {
		fmt.Printf("%-38s %8.1f%% %6.1f%% %9.4g\n", r.name, 100*r.mean, 100*r.std, r.sigma)
	}
	fmt.Printf("paper (synthetic): non-private %.1f%%, output perturbation %.1f%%, program perturbation %.1f%%\n", paperSynthNonPrivate, paperSynthOutput, paperSynthProgram)
	rows = append(rows, srows...)
	for _, r := range rows {
		if r.guarantee != "" {
			fmt.Printf("%s: %s\n", r.name, r.guarantee)
		}
	}
	fig := &plot.Figure{Title: "OPF-feasibility SVM: test accuracy", XLabel: "strategy (1 non-private, 2.. private)", YLabel: "accuracy %"}
	var xs, ys []float64
	for i, r := range rows {
		xs, ys = append(xs, float64(i+1)), append(ys, 100*r.mean)
	}
	fig.Series = []plot.Series{{Name: "privopt", X: xs, Y: ys}}
	if err := fig.WriteSVGFile(*svg); err != nil {
		fmt.Fprintln(os.Stderr, "svm:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, path string, draws, pairs int, eta float64) ([]row, string, error) {
	train, test, err := load(path)
	if err != nil {
		return nil, "", err
	}
	_, d := train.X.Dims()
	spec := learn.Spec{Loss: learn.Hinge, Lambda: 2e-5, Intercept: true, FreeIntercept: true,
		Bounds: learn.Bounds{X: math.Sqrt(float64(d)), Y: 1}}
	t0 := time.Now()
	w, err := learn.Fit(ctx, train, spec)
	if err != nil {
		return nil, "", err
	}
	fitTime := time.Since(t0)
	acc := func(w []float64) float64 { return learn.Score(learn.Accuracy, w, test, true, 0) }
	rows := []row{{name: "non-private", mean: acc(w)}}
	// Sampled sensitivity, the paper's α-scaling universe.
	rng := rand.New(rand.NewPCG(10, 20))
	sens := 0.0
	for s := 0; s < pairs; s++ {
		wi, err := learn.Fit(ctx, scaled(train, 0.01, rng), spec)
		if err != nil {
			return nil, "", fmt.Errorf("sensitivity pair %d: %w", s, err)
		}
		wj, err := learn.Fit(ctx, scaled(train, 0.01, rng), spec)
		if err != nil {
			return nil, "", fmt.Errorf("sensitivity pair %d: %w", s, err)
		}
		dd := 0.0
		for k := range wi {
			dd += (wi[k] - wj[k]) * (wi[k] - wj[k])
		}
		sens = math.Max(sens, math.Sqrt(dd))
	}
	delta := 1.0 / 4050
	eps := 1.0
	sigmaPaper := math.Sqrt(2*math.Log(1.25/delta)) * sens / eps
	ag, err := noise.AnalyticGaussianMechanism(noise.Params{Epsilon: eps, Delta: delta, Sensitivity: sens})
	if err != nil {
		return nil, "", err
	}
	sigmaAG := noise.Std(ag.Dist)
	info := fmt.Sprintf("OPF-feasibility SVM (%s): m = %d train, %d test, %d features; w* fit in %v (loaded machine)\nsampled ℓ2 sensitivity of (w, b): %.4g (%d pairs, α = 0.01); ε = 1, δ = 1/4050; |w*| = %.3g\n",
		filepath.Base(path), train.N(), test.N(), d, fitTime.Round(time.Millisecond), sens, pairs, w)
	stats := func(center []float64, sigma float64) (float64, float64) {
		g, _ := noise.NewGaussian(sigma)
		src := noise.NewSeededSource(1)
		var s, s2 float64
		for k := 0; k < draws; k++ {
			v := make([]float64, len(center))
			for j := range v {
				v[j] = center[j] + g.Sample(src)
			}
			a := acc(v)
			s += a
			s2 += a * a
		}
		m := s / float64(draws)
		return m, math.Sqrt(math.Max(s2/float64(draws)-m*m, 0))
	}
	m1, s1 := stats(w, sigmaPaper)
	rows = append(rows, row{name: "output perturbation (paper σ)", mean: m1, std: s1, sigma: sigmaPaper})
	m2, s2 := stats(w, sigmaAG)
	rows = append(rows, row{name: "output perturbation (analytic σ)", mean: m2, std: s2, sigma: sigmaAG})
	smp := &learn.Sampled{Value: sens, Gamma: 0.1, Beta: 0.1, Samples: pairs}
	for _, individual := range []bool{false, true} {
		t1 := time.Now()
		prog, err := learn.Prepare(ctx, train, spec, learn.Program, learn.Privacy{Epsilon: eps, Delta: delta, Mechanism: learn.AnalyticGaussian},
			learn.Options{Eta: eta, Sampled: smp, DeclareProgram: true, IndividualEta: individual})
		if err != nil {
			return rows, info, fmt.Errorf("program perturbation: %w", err)
		}
		name := "program perturbation (joint η)"
		if individual {
			name = "program perturbation (η per row, paper)"
		}
		info += fmt.Sprintf("%s: counterpart solved in %v (loaded machine)\n", name, time.Since(t1).Round(time.Millisecond))
		var ps, ps2 float64
		for k := 0; k < draws; k++ {
			v, err := prog.Draw(ctx, noise.NewSeededSource(uint64(k)+1))
			if err != nil {
				return rows, info, err
			}
			a := acc(v)
			ps += a
			ps2 += a * a
		}
		pm := ps / float64(draws)
		rows = append(rows, row{name: name, mean: pm, std: math.Sqrt(math.Max(ps2/float64(draws)-pm*pm, 0)), sigma: sigmaAG, guarantee: prog.Guarantee().Statement})
	}
	return rows, info, nil
}
