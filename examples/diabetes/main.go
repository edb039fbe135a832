// Command diabetes releases private ridge-regression weights on the diabetes
// data of Efron, Hastie, Johnstone and Tibshirani (2004; 442 patients, 10
// baseline variables, disease progression after one year; distributed with
// scikit-learn, BSD-3) and compares the release strategies of package learn
// against the non-private fit and the constant predictor on a 20% hold-out.
//
// Features are scaled by declared clinical ranges (publicRanges, not computed
// from the data) to [−1, 1], then divided by Shrink·√10 so that a row of
// typical values has norm about 1; rows are clipped to ‖x‖ ≤ 1 and the target
// to [0, 400] (centred at 200, Y = 200).
//
// Usage: go run ./examples/diabetes [-data FILE] [-releases 200] [-svg out.svg]
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/privopt/privopt/internal/plot"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/learn"
)

// rangesJSON holds declared clinical ranges [lo, hi] of the ten baseline
// variables (age in years, sex coded 1/2, BMI kg/m², mean arterial pressure
// mmHg, total cholesterol, LDL and HDL mg/dL, cholesterol/HDL ratio, log
// serum triglycerides, glucose mg/dL) and of the target: public knowledge,
// not computed from the data. The same file serves `privopt regress
// --ranges`.
//
//go:embed ranges.json
var rangesJSON []byte

var columns = []string{"age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"}

// publicRanges returns the feature ranges in column order and the target's.
func publicRanges() ([][2]float64, [2]float64, error) {
	var m map[string][2]float64
	if err := json.Unmarshal(rangesJSON, &m); err != nil {
		return nil, [2]float64{}, err
	}
	out := make([][2]float64, len(columns))
	for j, c := range columns {
		r, ok := m[c]
		if !ok {
			return nil, [2]float64{}, fmt.Errorf("ranges.json has no range for %q", c)
		}
		out[j] = r
	}
	t, ok := m["target"]
	if !ok {
		return nil, [2]float64{}, fmt.Errorf("ranges.json has no target range")
	}
	return out, t, nil
}

func main() {
	dataPath := flag.String("data", "", "diabetes CSV (default: the shared data folder)")
	releases := flag.Int("releases", 200, "Monte Carlo releases per row")
	svg := flag.String("svg", "diabetes.svg", "SVG output")
	lambda := flag.Float64("lambda", 1, "ridge λ (scaled units)")
	shrink := flag.Float64("shrink", 0.5, "feature scaling factor (declared row-norm design)")
	flag.Parse()
	if *dataPath == "" {
		d, err := shareddata.Dir()
		if err != nil {
			fmt.Fprintln(os.Stderr, "diabetes:", err)
			os.Exit(1)
		}
		*dataPath = filepath.Join(d, "regression", "diabetes.csv")
	}
	tab, err := run(context.Background(), *dataPath, *releases, *lambda, *shrink, []float64{0.5, 1, 2, 5})
	if err != nil {
		fmt.Fprintln(os.Stderr, "diabetes:", err)
		os.Exit(1)
	}
	fmt.Print(tab.text)
	if err := tab.fig.WriteSVGFile(*svg); err != nil {
		fmt.Fprintln(os.Stderr, "diabetes:", err)
		os.Exit(1)
	}
}

type result struct {
	text        string
	fig         *plot.Figure
	rows        []learn.Row
	nonPrivate  float64
	constant    float64
	scaleY      float64
	train, test learn.Data
	spec        learn.Spec
}

func load(path string, shrink float64) (train, test learn.Data, err error) {
	f, err := os.Open(path)
	if err != nil {
		return train, test, err
	}
	defer f.Close()
	raw, names, err := learn.ReadCSV(f, "target")
	if err != nil {
		return train, test, err
	}
	ranges, tr, err := publicRanges()
	if err != nil {
		return train, test, err
	}
	for j, c := range columns {
		if j >= len(names) || names[j] != c {
			return train, test, fmt.Errorf("%s: columns %v, want %v", path, names, columns)
		}
	}
	targetLo, targetHi := tr[0], tr[1]
	_, d := raw.X.Dims()
	aff := learn.Affine{Center: make([]float64, d), Scale: make([]float64, d)}
	for j, r := range ranges {
		aff.Center[j] = (r[0] + r[1]) / 2
		aff.Scale[j] = (r[1] - r[0]) / 2 * shrink * math.Sqrt(float64(d))
	}
	x := aff.Apply(raw.X)
	y := make([]float64, len(raw.Y))
	c, h := (targetLo+targetHi)/2, (targetHi-targetLo)/2
	for i, v := range raw.Y {
		y[i] = (v - c) / h
	}
	all := learn.Data{X: x, Y: y}
	perm := rand.New(rand.NewPCG(2004, 1)).Perm(all.N())
	nTest := all.N() / 5
	return learn.Split(all, perm[nTest:]), learn.Split(all, perm[:nTest]), nil
}

func run(ctx context.Context, path string, releases int, lambda, shrink float64, eps []float64) (*result, error) {
	train, test, err := load(path, shrink)
	if err != nil {
		return nil, err
	}
	spec := learn.Spec{Loss: learn.Squared, Lambda: lambda, Intercept: true, Bounds: learn.Bounds{X: 1, Y: 1}}
	_, tr, err := publicRanges()
	if err != nil {
		return nil, err
	}
	h := (tr[1] - tr[0]) / 2
	res := &result{train: train, test: test, spec: spec, scaleY: h * h}
	// The non-private reference: ordinary least squares on the unclipped data.
	ols := spec
	ols.Lambda, ols.Bounds = 1e-9, learn.Bounds{X: 1e6, Y: 1e6}
	w, err := learn.Fit(ctx, train, ols)
	if err != nil {
		return nil, err
	}
	res.nonPrivate = learn.Score(learn.MSE, w, test, true, 0) * res.scaleY
	mean := 0.0
	for _, v := range train.Y {
		mean += v
	}
	mean /= float64(train.N())
	_, d := train.X.Dims()
	cw := make([]float64, d+1)
	cw[d] = mean
	res.constant = learn.Score(learn.MSE, cw, test, true, 0) * res.scaleY
	rows, err := learn.Compare(ctx, train, test, spec, learn.CompareOptions{Epsilons: eps, Delta: 1e-5, Releases: releases, Seed: 1})
	if err != nil {
		return nil, err
	}
	res.rows = rows
	txt := fmt.Sprintf("diabetes: n = %d train, %d test; test MSE non-private %.0f, constant predictor %.0f (mean over %d releases, δ = 1e-5)\n", train.N(), test.N(), res.nonPrivate, res.constant, releases)
	txt += fmt.Sprintf("%-10s %-18s", "strategy", "noise")
	for _, e := range eps {
		txt += fmt.Sprintf(" %10s", fmt.Sprintf("ε=%g", e))
	}
	txt += "\n"
	fig := &plot.Figure{Title: "Diabetes: private ridge regression, test MSE", XLabel: "ε", YLabel: "test MSE"}
	for _, st := range learn.Strategies {
		for _, nk := range learn.NoiseKinds {
			line := fmt.Sprintf("%-10s %-18s", st, nk)
			var sx, sy []float64
			any := false
			for _, e := range eps {
				cell := "n/a"
				for _, r := range rows {
					if r.Strategy == st && r.Noise == nk && r.Epsilon == e && r.Err == nil {
						cell = fmt.Sprintf("%.0f", r.Mean*res.scaleY)
						sx, sy = append(sx, e), append(sy, r.Mean*res.scaleY)
						any = true
					}
				}
				line += fmt.Sprintf(" %10s", cell)
			}
			if any {
				txt += line + "\n"
				fig.Series = append(fig.Series, plot.Series{Name: string(st) + "/" + string(nk), X: sx, Y: sy})
			}
		}
	}
	fig.Series = append(fig.Series,
		plot.Series{Name: "non-private", X: []float64{eps[0], eps[len(eps)-1]}, Y: []float64{res.nonPrivate, res.nonPrivate}, Dashed: true},
		plot.Series{Name: "constant", X: []float64{eps[0], eps[len(eps)-1]}, Y: []float64{res.constant, res.constant}, Dashed: true})
	res.text, res.fig = txt, fig
	return res, nil
}
