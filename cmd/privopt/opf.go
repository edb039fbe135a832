package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/plot"
	"github.com/privopt/privopt/noise"
)

func init() {
	register(command{name: "opf", summary: "DC optimal power flow on a MATPOWER case, nominal or with a private cost release", run: runOPF})
}

type opfFlags struct {
	casePath, query, noiseName, method, plotPath, dcModel, formulation string
	nominal, jsonOut                                                   bool
	epsilon, delta, alpha, eta, beta, cvarQ                            float64
	evaluate, inputN                                                   int
	seed                                                               uint64
}

func runOPF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f opfFlags
	fs := flag.NewFlagSet("opf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.casePath, "case", "", "MATPOWER case file (.m), required")
	fs.BoolVar(&f.nominal, "nominal", false, "solve the plain DC-OPF: cost, dispatch, LMPs (default when --query is absent)")
	fs.StringVar(&f.query, "query", "", "private release: cost | gen-subset:LIST (1-based mpc.gen rows, e.g. 1,3,5-8)")
	fs.Float64Var(&f.epsilon, "epsilon", 1, "privacy parameter ε")
	fs.Float64Var(&f.delta, "delta", 0, "privacy parameter δ (needed by gaussian, analytic-gaussian, truncated-laplace)")
	fs.Float64Var(&f.alpha, "alpha", 1, "adjacency α in MW: one load may differ by at most α")
	fs.StringVar(&f.noiseName, "noise", "laplace", "noise: laplace | gaussian | analytic-gaussian | truncated-laplace | optimal")
	fs.StringVar(&f.method, "method", "vertex", "chance-constraint method: vertex | bonferroni | robust")
	fs.Float64Var(&f.eta, "eta", 0.01, "joint constraint violation probability η")
	fs.Float64Var(&f.beta, "beta", 0.1, "confidence parameter β of vertex sampling")
	fs.Float64Var(&f.cvarQ, "cvar-q", 0, "minimize the CVaR of the cost over the worst fraction q of 1000 scenarios (0: expected cost)")
	fs.IntVar(&f.evaluate, "evaluate", 0, "Monte Carlo: N realizations per strategy (program, input, output perturbation)")
	fs.IntVar(&f.inputN, "input-n", 0, "cap on input-perturbation realizations (each is one OPF solve); 0 = --evaluate")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for reproducible experiments (0: cryptographic randomness; never seed a real release)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.StringVar(&f.plotPath, "plot", "", "write the released-value densities for three adjacent load vectors to this SVG file")
	fs.StringVar(&f.dcModel, "dc-model", "powermodels", "DC model: powermodels (b = x/(r²+x²), no taps/shifts; PGLib baselines) | matpower (b = 1/x, taps, shifts)")
	fs.StringVar(&f.formulation, "formulation", "auto", "network formulation: auto (ptdf up to 100 buses, b-theta above) | b-theta | ptdf")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %v", fs.Args())
	}
	if f.casePath == "" {
		return usagef("--case FILE.m is required")
	}
	if f.nominal && f.query != "" {
		return usagef("--nominal and --query are exclusive")
	}
	var dc grid.DCOptions
	switch f.dcModel {
	case "powermodels":
		dc = grid.PowerModelsDC()
	case "matpower":
	default:
		return usagef("--dc-model %q: must be powermodels or matpower", f.dcModel)
	}
	form, err := grid.ParseFormulation(f.formulation)
	if err != nil {
		return usageError{err}
	}
	t0 := time.Now()
	c, err := grid.ReadCase(f.casePath)
	if err != nil {
		return err
	}
	net, err := grid.NewNetwork(c, dc)
	if err != nil {
		return err
	}
	parse := time.Since(t0)
	if f.query == "" {
		return runNominal(ctx, &f, net, form, parse, t0, stdout)
	}
	return runPrivate(ctx, &f, net, form, parse, t0, stdout)
}

type timeJSON struct {
	Parse float64 `json:"parse"`
	Build float64 `json:"build"`
	Solve float64 `json:"solve"`
	Total float64 `json:"total"`
}

func secs(d time.Duration) float64 { return d.Seconds() }

func runNominal(ctx context.Context, f *opfFlags, net *grid.Network, form grid.Formulation, parse time.Duration, t0 time.Time, stdout io.Writer) error {
	o, err := net.BuildOPF(grid.OPFOptions{Formulation: form})
	if err != nil {
		return err
	}
	sol, err := o.Solve(ctx)
	if err != nil {
		return err
	}
	total := time.Since(t0)
	if !sol.Status.OK() {
		var load, pmin, pmax float64
		for _, d := range net.Load {
			load += d
		}
		for g := range net.Pmax {
			pmin += net.Pmin[g]
			pmax += net.Pmax[g]
		}
		return fmt.Errorf("DC-OPF is %v: load %.6g MW, generation limits [%.6g, %.6g] MW; hint: check generator limits against the load and the branch ratings (rateA) of congested corridors", sol.Status, load, pmin, pmax)
	}
	c := net.Case
	tj := timeJSON{Parse: secs(parse), Build: secs(sol.Time.Build), Solve: secs(sol.Time.Solve), Total: secs(total)}
	if f.jsonOut {
		type genJSON struct {
			Gen  int     `json:"gen"`
			Bus  int     `json:"bus"`
			P    float64 `json:"p_mw"`
			Pmin float64 `json:"pmin_mw"`
			Pmax float64 `json:"pmax_mw"`
		}
		type busJSON struct {
			Bus int     `json:"bus"`
			LMP float64 `json:"lmp"`
		}
		out := struct {
			Case        string    `json:"case"`
			Status      string    `json:"status"`
			DCModel     string    `json:"dc_model"`
			Formulation string    `json:"formulation"`
			NominalCost float64   `json:"nominal_cost"`
			Dispatch    []genJSON `json:"dispatch"`
			LMP         []busJSON `json:"lmp"`
			Time        timeJSON  `json:"time"`
		}{Case: c.Name, Status: sol.Status.String(), DCModel: f.dcModel, Formulation: o.Options.Formulation.String(), NominalCost: sol.Cost, Time: tj}
		for g, p := range sol.Dispatch {
			out.Dispatch = append(out.Dispatch, genJSON{Gen: net.Gen[g] + 1, Bus: net.BusID[net.GenBus[g]], P: p, Pmin: net.Pmin[g], Pmax: net.Pmax[g]})
		}
		for i, l := range sol.LMP {
			out.LMP = append(out.LMP, busJSON{Bus: net.BusID[i], LMP: l})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "case %s: %d buses, %d generators, %d branches in service (DC model %s, %s)\n",
		c.Name, net.NumBuses(), net.NumGens(), net.NumBranches(), f.dcModel, o.Options.Formulation)
	fmt.Fprintf(stdout, "status %v, cost %.2f $/h\n\n", sol.Status, sol.Cost)
	const maxRows = 40
	fmt.Fprintf(stdout, "%6s %6s %10s %10s %10s\n", "gen", "bus", "p (MW)", "pmin", "pmax")
	shown := 0
	for g, p := range sol.Dispatch {
		if net.NumGens() > maxRows && p == 0 {
			continue
		}
		if shown == maxRows {
			fmt.Fprintf(stdout, "  … (use --json for all)\n")
			break
		}
		fmt.Fprintf(stdout, "%6d %6d %10.2f %10.2f %10.2f\n", net.Gen[g]+1, net.BusID[net.GenBus[g]], p, net.Pmin[g], net.Pmax[g])
		shown++
	}
	lmp := append([]float64(nil), sol.LMP...)
	sort.Float64s(lmp)
	fmt.Fprintf(stdout, "\nLMP ($/MWh): min %.3f, median %.3f, max %.3f\n", lmp[0], lmp[len(lmp)/2], lmp[len(lmp)-1])
	if net.NumBuses() <= maxRows {
		for i, l := range sol.LMP {
			fmt.Fprintf(stdout, "  bus %4d  %10.3f\n", net.BusID[i], l)
		}
	}
	fmt.Fprintf(stdout, "\ntime: parse %v, build %v, solve (HiGHS) %v, total %v\n",
		parse.Round(time.Microsecond), sol.Time.Build.Round(time.Microsecond), sol.Time.Solve.Round(time.Microsecond), total.Round(time.Microsecond))
	return nil
}

func runPrivate(ctx context.Context, f *opfFlags, net *grid.Network, form grid.Formulation, parse time.Duration, t0 time.Time, stdout io.Writer) error {
	q, err := grid.ParseQuery(f.query)
	if err != nil {
		return usageError{err}
	}
	method, err := grid.ParseChanceMethod(f.method)
	if err != nil {
		return usageError{err}
	}
	var src noise.Source
	if f.seed != 0 {
		src = noise.NewSeededSource(f.seed)
	}
	opt := grid.PrivateOptions{Query: q, Alpha: f.alpha, Epsilon: f.epsilon, Delta: f.delta, Noise: f.noiseName,
		Method: method, Eta: f.eta, Beta: f.beta, CVaRQ: f.cvarQ, Formulation: form, Source: src}
	pr, err := net.PrivateRelease(ctx, opt)
	if err != nil {
		if errors.Is(err, grid.ErrPrivateInfeasible) {
			return fmt.Errorf("%v\nhint: the privacy level cannot be provided at this feasibility level; lower --alpha, or raise --eta with --method vertex or bonferroni", err)
		}
		return err
	}
	total := time.Since(t0)
	var ev *grid.Evaluation
	if f.evaluate > 0 {
		ev, err = pr.Evaluate(ctx, grid.EvaluateOptions{N: f.evaluate, InputN: f.inputN, Source: src})
		if err != nil {
			return err
		}
	}
	if f.plotPath != "" {
		if err := writeDensityPlot(ctx, pr, f.plotPath); err != nil {
			return err
		}
	}
	isCost := q.Kind == grid.QueryCost
	if f.jsonOut {
		type evJSON struct {
			Program grid.StrategyStats `json:"program"`
			Input   grid.StrategyStats `json:"input"`
			Output  grid.StrategyStats `json:"output"`
			Seconds float64            `json:"seconds"`
			// ProgramSeconds is the evaluation of program perturbation alone.
			ProgramSeconds float64 `json:"program_seconds"`
		}
		out := struct {
			Case          string     `json:"case"`
			Query         string     `json:"query"`
			Status        string     `json:"status"`
			NominalCost   float64    `json:"nominal_cost"`
			NominalValue  float64    `json:"nominal_value"`
			ReleasedCost  *float64   `json:"released_cost"`
			ReleasedValue float64    `json:"released_value"`
			MeanCost      float64    `json:"mean_cost"`
			Feasible      bool       `json:"feasible"`
			Epsilon       float64    `json:"epsilon"`
			Delta         float64    `json:"delta"`
			Alpha         float64    `json:"alpha"`
			Sensitivity   float64    `json:"sensitivity"`
			Method        string     `json:"method"`
			Noise         string     `json:"noise"`
			NoiseStd      float64    `json:"noise_std"`
			Interval      [2]float64 `json:"zeta_interval"`
			Eta           float64    `json:"eta"`
			Beta          float64    `json:"beta"`
			CVaRQ         float64    `json:"cvar_q"`
			Seeded        bool       `json:"seeded"`
			FloatSafe     bool       `json:"floating_point_safe"`
			Time          timeJSON   `json:"time"`
			Evaluation    *evJSON    `json:"evaluation,omitempty"`
		}{Case: net.Case.Name, Query: q.String(), Status: pr.Status.String(), NominalCost: pr.NominalCost, NominalValue: pr.NominalQuery,
			ReleasedValue: pr.Released, MeanCost: pr.MeanCost, Feasible: pr.Feasible, Epsilon: f.epsilon, Delta: pr.Mechanism.Params.Delta,
			Alpha: f.alpha, Sensitivity: pr.Sensitivity, Method: method.String(), Noise: f.noiseName, NoiseStd: noise.Std(pr.Mechanism.Dist),
			Interval: [2]float64{pr.ZetaLo, pr.ZetaHi}, Eta: f.eta, Beta: f.beta, CVaRQ: f.cvarQ, Seeded: src != nil, FloatSafe: pr.FloatSafe,
			Time: timeJSON{Parse: secs(parse), Build: secs(pr.Time.Build), Solve: secs(pr.Time.Solve), Total: secs(total)}}
		if isCost {
			v := pr.Released
			out.ReleasedCost = &v
		}
		if ev != nil {
			out.Evaluation = &evJSON{Program: ev.Program, Input: ev.Input, Output: ev.Output, Seconds: ev.Time.Seconds(), ProgramSeconds: ev.ProgramTime.Seconds()}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "case %s: private %s query, (ε, δ) = (%g, %g), α = %g MW\n", net.Case.Name, q, f.epsilon, pr.Mechanism.Params.Delta, f.alpha)
	fmt.Fprintf(stdout, "noise %s (std %.4g), sensitivity %.4g, method %s on ζ ∈ [%.4g, %.4g]\n", f.noiseName, noise.Std(pr.Mechanism.Dist), pr.Sensitivity, method, pr.ZetaLo, pr.ZetaHi)
	unit := "MW"
	if isCost {
		unit = "$/h"
	}
	fmt.Fprintf(stdout, "nominal cost      %14.2f $/h\n", pr.NominalCost)
	fmt.Fprintf(stdout, "expected cost     %14.2f $/h  (loss %.3f%%)\n", pr.MeanCost, 100*(pr.MeanCost-pr.NominalCost)/math.Abs(pr.NominalCost))
	if !isCost {
		fmt.Fprintf(stdout, "nominal value     %14.2f %s\n", pr.NominalQuery, unit)
	}
	fmt.Fprintf(stdout, "released value    %14.2f %s  (dispatch behind it feasible: %v)\n", pr.Released, unit, pr.Feasible)
	if src != nil {
		fmt.Fprintf(stdout, "warning: seeded noise (--seed) is for experiments only; the release is not private\n")
	}
	if ev != nil {
		fmt.Fprintf(stdout, "\n%-10s %8s %10s %14s %10s\n", "strategy", "N", "loss (%)", "infeasible (%)", "CVaR5 (%)")
		for _, r := range []struct {
			name string
			s    grid.StrategyStats
		}{{"program", ev.Program}, {"input", ev.Input}, {"output", ev.Output}} {
			fmt.Fprintf(stdout, "%-10s %8d %10.3f %14.2f %10.3f\n", r.name, r.s.N, r.s.LossPct, r.s.InfeasiblePct, r.s.CVaRPct)
		}
		fmt.Fprintf(stdout, "evaluation: %v (program perturbation alone: %v, no re-solves)\n", ev.Time.Round(time.Millisecond), ev.ProgramTime.Round(time.Microsecond))
	}
	fmt.Fprintf(stdout, "\ntime: parse %v, build %v, solve (HiGHS) %v, total %v\n",
		parse.Round(time.Microsecond), pr.Time.Build.Round(time.Microsecond), pr.Time.Solve.Round(time.Microsecond), total.Round(time.Microsecond))
	return nil
}

// writeDensityPlot draws the released-value densities on D″, D and D′.
func writeDensityPlot(ctx context.Context, pr *grid.Private, path string) error {
	centers, err := pr.AdjacentCenters(ctx)
	if err != nil {
		return err
	}
	d := pr.Mechanism.Dist
	sd := noise.Std(d)
	lo := math.Min(centers[0], centers[2]) - 5*sd
	hi := math.Max(centers[0], centers[2]) + 5*sd
	const npts = 400
	fig := &plot.Figure{Title: fmt.Sprintf("Released %s, ε = %g, α = %g MW", pr.Options.Query, pr.Options.Epsilon, pr.Options.Alpha),
		XLabel: "released value", YLabel: "density"}
	for k, name := range []string{"D″ (max load − α)", "D", "D′ (max load + α)"} {
		s := plot.Series{Name: name, Dashed: k == 1}
		for i := 0; i <= npts; i++ {
			x := lo + (hi-lo)*float64(i)/npts
			s.X = append(s.X, x)
			s.Y = append(s.Y, d.PDF(x-centers[k]))
		}
		fig.Series = append(fig.Series, s)
	}
	return fig.WriteSVGFile(path)
}
