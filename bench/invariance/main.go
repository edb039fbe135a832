// Command invariance runs the adjacency-invariance sweep of `privopt opf`
// through a built binary (see internal/invariance), the refusal sweep (random
// load vectors from a public domain: every one must release, none may fall
// back) and a day of hourly releases under one plan.
//
//	go build -o bin/privopt ./cmd/privopt
//	go run ./bench/invariance -bin bin/privopt -mode sweep -pairs 100
//	go run ./bench/invariance -bin bin/privopt -mode refusals -vectors 1000
//	go run ./bench/invariance -bin bin/privopt -mode day
//
// It prints Markdown tables (BENCHMARKS.md, "Privacy by construction").
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/opfrelease"
)

var (
	bin     = flag.String("bin", "bin/privopt", "the privopt binary")
	mode    = flag.String("mode", "sweep", "sweep | refusals | day")
	pairs   = flag.Int("pairs", 100, "sweep: adjacent pairs per configuration")
	vectors = flag.Int("vectors", 1000, "refusals: random load vectors per case (analytic Gaussian + Bonferroni); other configurations get a fifth")
	band    = flag.Float64("band", 0.3, "the public domain: PGLib's nominal loads (a published reference profile) ± band")
	only    = flag.String("cases", "", "comma-separated case names, NAME or NAME@SCALE (default: the issue's list)")
	cfgOnly = flag.String("configs", "", "comma-separated configuration numbers (1-based, in the order of the table; default: all)")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "invariance:", err)
		os.Exit(1)
	}
}

func runner(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	cmd := exec.Command(*bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		return -1, "", err.Error()
	}
	return code, out.String(), errb.String()
}

type caseSpec struct {
	name  string
	scale float64
}

func cases() []caseSpec {
	all := []caseSpec{{"5_pjm", 1}, {"14_ieee", 1}, {"24_ieee_rts", 1}, {"30_ieee", 1}, {"57_ieee", 1}, {"118_ieee", 1}, {"118_ieee", 1.336}, {"300_ieee", 1}}
	if *only == "" {
		return all
	}
	var out []caseSpec
	for _, n := range strings.Split(*only, ",") {
		name, scale, _ := strings.Cut(n, "@")
		for _, c := range all {
			if c.name == name && (scale == "" || fmt.Sprint(c.scale) == scale) {
				out = append(out, c)
			}
		}
	}
	return out
}

// setup writes the (scaled) case as a PowerModels JSON file and returns its
// path, network, the reference profile and the public domain (zero-load
// buses may carry up to 5 MW).
func setup(dir string, c caseSpec) (string, *grid.Network, []float64, grid.LoadDomain, error) {
	data, err := shareddata.Dir()
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	cs, err := grid.ReadCase(filepath.Join(data, "pglib", "pglib_opf_case"+c.name+".m"))
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	for i := range cs.Buses {
		cs.Buses[i].Pd *= c.scale
	}
	path := filepath.Join(dir, fmt.Sprintf("case%s_x%g.json", c.name, c.scale))
	fh, err := os.Create(path)
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	if err := grid.WritePMJSON(fh, cs); err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	fh.Close()
	cs2, err := grid.ReadCase(path)
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	net, err := grid.NewNetwork(cs2, grid.PowerModelsDC())
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	_, loads, err := opfrelease.Split(net)
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	ref := loads.Values()
	dom, err := grid.ReferenceBand(ref, *band)
	if err != nil {
		return "", nil, nil, grid.LoadDomain{}, err
	}
	for i, v := range ref {
		if v == 0 {
			dom.Hi[i] = 5
		}
	}
	return path, net, ref, dom, nil
}

// configs are the release configurations: every mechanism with the vertex
// method, Bonferroni with Laplace and analytic Gaussian, robust with the
// bounded mechanisms, and N-1.
var configs = []struct {
	name   string
	args   []string
	perRun int // releases per CLI run (a large δ must fit one ledger's δ < 1)
}{
	{"laplace / vertex", []string{"--query", "cost"}, 0},
	{"laplace / bonferroni", []string{"--query", "cost", "--method", "bonferroni"}, 0},
	{"analytic-gaussian / vertex", []string{"--query", "cost", "--noise", "analytic-gaussian", "--delta", "1e-5"}, 0},
	{"analytic-gaussian / bonferroni", []string{"--query", "cost", "--noise", "analytic-gaussian", "--delta", "1e-5", "--method", "bonferroni"}, 0},
	{"gaussian (ε 0.5) / vertex", []string{"--query", "cost", "--noise", "gaussian", "--epsilon", "0.5", "--delta", "1e-5"}, 0},
	{"truncated-laplace / robust", []string{"--query", "cost", "--noise", "truncated-laplace", "--delta", "1e-3", "--method", "robust"}, 0},
	{"optimal (δ 0.1) / robust", []string{"--query", "cost", "--noise", "optimal", "--delta", "0.1", "--method", "robust"}, 9},
	{"laplace / vertex, N-1 (post 1.5)", []string{"--query", "cost", "--n-1", "--post-factor", "1.5"}, 0},
}

// selected reports whether configuration k (0-based) is in -configs.
func selected(k int) bool {
	if *cfgOnly == "" {
		return true
	}
	for _, f := range strings.Split(*cfgOnly, ",") {
		if strings.TrimSpace(f) == strconv.Itoa(k+1) {
			return true
		}
	}
	return false
}

func run() error {
	dir, err := os.MkdirTemp("", "invariance")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	switch *mode {
	case "sweep":
		return sweep(dir)
	case "refusals":
		return refusals(dir)
	case "day":
		return day(dir)
	}
	return fmt.Errorf("-mode %q: must be sweep, refusals or day", *mode)
}

func sweep(dir string) error {
	fmt.Printf("## Adjacency invariance of `privopt opf` (%d pairs per row, same seed, domain ±%g around PGLib's loads)\n\n", *pairs, *band)
	fmt.Println("| case | configuration | pairs | refusals | published differences | max \\|Δ released\\| / (Δ + grid) | max \\|Δ released\\| / Δ | time |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	bad := 0
	for _, c := range cases() {
		path, net, ref, dom, err := setup(dir, c)
		if err != nil {
			return err
		}
		for k, cfg := range configs {
			if !selected(k) {
				continue
			}
			t0 := time.Now()
			res, err := invariance.OPF(runner, dir, net, invariance.OPFCase{Name: c.name + " " + cfg.name, Case: path, Args: cfg.args,
				Alpha: 1, Pairs: *pairs, Seed: uint64(100 + k), Domain: dom, Ref: ref, PerRun: cfg.perRun})
			if err != nil {
				return err
			}
			diffs := len(res.Failures) - res.Refusals
			bad += len(res.Failures)
			fmt.Printf("| %s ×%g | %s | %d | %d | %d | %.3f | %.3f | %.1f s |\n", c.name, c.scale, cfg.name, res.Pairs, res.Refusals, diffs, res.MaxRatio, res.MaxRawRatio, time.Since(t0).Seconds())
			for _, f := range res.Failures {
				fmt.Fprintln(os.Stderr, "  ", f)
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d failures", bad)
	}
	return nil
}

// releaseOut is the part of `privopt opf --json --diagnostics` this program reads.
type releaseOut struct {
	Plan struct {
		Sensitivity float64 `json:"sensitivity"`
	} `json:"plan"`
	Releases []struct {
		Label string `json:"label"`
		Diag  struct {
			Fallback string  `json:"fallback"`
			Seconds  float64 `json:"seconds"`
			Clamped  int     `json:"clamped_buses"`
		} `json:"private_diagnostics"`
	} `json:"releases"`
}

func refusals(dir string) error {
	fmt.Printf("## No refusal after the spend: random load vectors from the public domain (±%g around PGLib's loads), one CLI run per row\n\n", *band)
	fmt.Println("| case | configuration | vectors | refusals | fallbacks | mean s / release |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	bad := 0
	for _, c := range cases() {
		path, net, _, dom, err := setup(dir, c)
		if err != nil {
			return err
		}
		for k, cfg := range configs {
			if !selected(k) {
				continue
			}
			n := *vectors / 5
			if cfg.name == "analytic-gaussian / bonferroni" {
				n = *vectors
			}
			rng := rand.New(rand.NewPCG(uint64(7+k), 3))
			labels := make([]string, n)
			cols := make([][]float64, n)
			for j := range cols {
				labels[j] = fmt.Sprintf("v%d", j)
				cols[j] = make([]float64, len(dom.Lo))
				for i := range dom.Lo {
					cols[j][i] = dom.Lo[i] + rng.Float64()*(dom.Hi[i]-dom.Lo[i])
				}
			}
			dpath, lpath := filepath.Join(dir, "dom.csv"), filepath.Join(dir, "loads.csv")
			if err := invariance.WriteDomainCSV(dpath, net, dom); err != nil {
				return err
			}
			if err := invariance.WriteLoadsCSV(lpath, net, labels, cols); err != nil {
				return err
			}
			args := append([]string{"opf", "--case", path, "--domain", dpath, "--loads", lpath, "--seed", "5", "--json", "--diagnostics"}, cfg.args...)
			code, out, e := runner(args...)
			refused, fallbacks, secs := 0, 0, 0.0
			var ro releaseOut
			if code != 0 {
				refused = n
				fmt.Fprintln(os.Stderr, "  ", c.name, cfg.name, strings.TrimSpace(e))
			} else if err := json.Unmarshal([]byte(out), &ro); err != nil {
				return err
			}
			refused += n - len(ro.Releases)
			for _, r := range ro.Releases {
				if r.Diag.Fallback != "" {
					fallbacks++
				}
				secs += r.Diag.Seconds
			}
			bad += refused + fallbacks
			fmt.Printf("| %s ×%g | %s | %d | %d | %d | %.4f |\n", c.name, c.scale, cfg.name, n, refused, fallbacks, secs/math.Max(1, float64(len(ro.Releases))))
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d refusals or fallbacks", bad)
	}
	return nil
}

// day releases 24 hourly load columns under one plan (one command, one
// ledger): 118_ieee and 2383wp_k, the hourly profile a public daily shape
// times the reference, with private noise per bus.
func day(dir string) error {
	fmt.Println("## A day of hourly releases under one plan (24 load columns, one command, one ledger)")
	fmt.Println()
	fmt.Println("| case | releases | ledger entries | plan + releases wall time | time per release (private diagnostic) |")
	fmt.Println("|---|---:|---:|---:|---:|")
	shape := []float64{0.72, 0.69, 0.67, 0.66, 0.67, 0.71, 0.79, 0.88, 0.94, 0.97, 0.99, 1.0, 0.99, 0.98, 0.97, 0.97, 0.99, 1.03, 1.05, 1.02, 0.96, 0.89, 0.81, 0.75}
	for _, name := range []string{"118_ieee", "2383wp_k"} {
		path, net, ref, _, err := setup(dir, caseSpec{name, 1})
		if err != nil {
			return err
		}
		dom, _ := grid.ReferenceBand(ref, 0.5)
		rng := rand.New(rand.NewPCG(1, 2))
		labels := make([]string, 24)
		cols := make([][]float64, 24)
		for h := range cols {
			labels[h] = fmt.Sprintf("h%02d", h)
			cols[h] = make([]float64, len(ref))
			for i, v := range ref {
				cols[h][i] = v * shape[h] * (1 + 0.05*rng.NormFloat64())
			}
		}
		dpath, lpath, led := filepath.Join(dir, "dom.csv"), filepath.Join(dir, "loads.csv"), filepath.Join(dir, "day.db")
		os.Remove(led)
		if err := invariance.WriteDomainCSV(dpath, net, dom); err != nil {
			return err
		}
		if err := invariance.WriteLoadsCSV(lpath, net, labels, cols); err != nil {
			return err
		}
		if code, _, e := runner("ledger", "init", "--ledger", led, "--dataset", "grid", "--epsilon", "100", "--delta", "1e-3"); code != 0 {
			return errors.New(e)
		}
		t0 := time.Now()
		code, out, e := runner("opf", "--case", path, "--domain", dpath, "--loads", lpath, "--query", "cost", "--ledger", led, "--dataset", "grid", "--json", "--diagnostics")
		wall := time.Since(t0)
		if code != 0 {
			return fmt.Errorf("%s: %s", name, e)
		}
		var ro releaseOut
		if err := json.Unmarshal([]byte(out), &ro); err != nil {
			return err
		}
		code, lj, e := runner("ledger", "show", "--ledger", led, "--json")
		if code != 0 {
			return errors.New(e)
		}
		entries := strings.Count(lj, `"label `) + strings.Count(lj, ", label h")
		var secs float64
		for _, r := range ro.Releases {
			secs += r.Diag.Seconds
		}
		fmt.Printf("| %s | %d | %d | %.1f s | %.3f s |\n", name, len(ro.Releases), entries, wall.Seconds(), secs/float64(len(ro.Releases)))
	}
	return nil
}
