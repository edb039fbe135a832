package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/plot"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/opfrelease"
	"github.com/privopt/privopt/query"
)

func init() {
	register(command{name: "opf", summary: "DC optimal power flow on a MATPOWER case: nominal (not private), or one private release with a certified sensitivity", run: runOPF})
}

type opfFlags struct {
	casePath, query, noiseName, method, plotPath, dcModel, formulation  string
	nominal, jsonOut, diagnostics, secure                               bool
	postFactor                                                          float64
	epsilon, delta, alpha, eta, beta, cvarQ, band, priceCap, priceFloor float64
	declared                                                            float64
	evaluate, inputN, segments                                          int
	seed                                                                uint64
	ledger                                                              ledgerFlags
}

func runOPF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f opfFlags
	fs := flag.NewFlagSet("opf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.casePath, "case", "", "MATPOWER case file (.m), required")
	fs.BoolVar(&f.nominal, "nominal", false, "solve the plain DC-OPF: cost, dispatch, LMPs (default when --query is absent; NOT private)")
	fs.StringVar(&f.query, "query", "", "private release: cost | gen-subset:LIST (1-based mpc.gen rows, e.g. 1,3,5-8; needs --declared-sensitivity)")
	fs.Float64Var(&f.epsilon, "epsilon", 1, "privacy parameter ε")
	fs.Float64Var(&f.delta, "delta", 0, "privacy parameter δ (needed by gaussian, analytic-gaussian, truncated-laplace, optimal)")
	fs.Float64Var(&f.alpha, "alpha", 1, "adjacency α in MW: one bus load may differ by at most α")
	fs.Float64Var(&f.band, "load-band", 0.1, "declared load domain: each bus load within ±FRACTION of the case's load (public bound the guarantee covers)")
	fs.Float64Var(&f.priceCap, "price-cap", 1000, "market price cap / value of lost load, $/MWh (load shedding backstop)")
	fs.Float64Var(&f.priceFloor, "price-floor", 0, "market price floor, $/MWh, ≤ 0 (curtailment backstop)")
	fs.IntVar(&f.segments, "cost-segments", 20, "quadratic costs are replaced by this many secant segments per unit (the release is an LP value)")
	fs.Float64Var(&f.declared, "declared-sensitivity", 0, "use this sensitivity instead of a certified one (labelled assumed; required for gen-subset and --cvar-q)")
	fs.StringVar(&f.noiseName, "noise", "laplace", "noise: "+strings.Join(query.MechanismNames(), " | "))
	fs.StringVar(&f.method, "method", "vertex", "chance-constraint method: vertex | bonferroni | robust")
	fs.Float64Var(&f.eta, "eta", 0.01, "joint constraint violation probability η in (0, 1)")
	fs.Float64Var(&f.beta, "beta", 0.1, "confidence parameter β in (0, 1) of vertex sampling")
	fs.Float64Var(&f.cvarQ, "cvar-q", 0, "minimize the CVaR of the cost over the worst fraction q of 1000 scenarios (0: expected cost)")
	f.ledger.register(fs)
	fs.BoolVar(&f.secure, "n-1", false, "N-1 secure release: every non-islanding branch outage keeps the flows within --post-factor × the ratings (contingency cuts generated lazily; price-cap sensitivity)")
	fs.Float64Var(&f.postFactor, "post-factor", 1, "with --n-1: post-contingency limits as a multiple of the normal ratings")
	fs.BoolVar(&f.diagnostics, "diagnostics", false, "also print PRIVATE diagnostics (pre-noise values, nominal cost, feasibility, evaluations, plots): never publish them")
	fs.IntVar(&f.evaluate, "evaluate", 0, "with --diagnostics: Monte Carlo over N simulated releases per strategy (program, output, input perturbation)")
	fs.IntVar(&f.inputN, "input-n", 0, "cap on input-perturbation realizations (each is one OPF solve); 0 = --evaluate")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for reproducible experiments (0: cryptographic randomness; a seeded release is not private)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.StringVar(&f.plotPath, "plot", "", "with --diagnostics: write the released-value densities for three adjacent load vectors to this SVG file")
	fs.StringVar(&f.dcModel, "dc-model", "powermodels", "DC model: powermodels (b = x/(r²+x²), no taps/shifts; PGLib baselines) | matpower (b = 1/x, taps, shifts)")
	fs.StringVar(&f.formulation, "formulation", "auto", "network formulation: auto (nominal: the measured automatic choice of formulation, lazily added limits and backend, printed as the strategy; private release above 100 buses: ptdf with lazily monitored flow limits) | b-theta | ptdf")
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
	if f.evaluate < 0 || f.inputN < 0 {
		return usagef("--evaluate %d and --input-n %d must be ≥ 0", f.evaluate, f.inputN)
	}
	if (f.evaluate > 0 || f.plotPath != "") && !f.diagnostics {
		return usagef("--evaluate and --plot show values computed from the unperturbed data: add --diagnostics (their output is private)")
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
	return runPrivate(ctx, &f, net, form, parse, t0, stdout, stderr)
}

type timeJSON struct {
	Parse float64 `json:"parse"`
	Build float64 `json:"build"`
	Solve float64 `json:"solve"`
	Total float64 `json:"total"`
}

func secs(d time.Duration) float64 { return d.Seconds() }

func runNominal(ctx context.Context, f *opfFlags, net *grid.Network, form grid.Formulation, parse time.Duration, t0 time.Time, stdout io.Writer) error {
	// The measured automatic configuration (grid.AutoStrategy): formulation,
	// lazily added line limits and backend, reported as "strategy".
	sol, err := net.SolveDCOPF(ctx, grid.DCOPFOptions{OPF: grid.OPFOptions{Formulation: form}})
	if err != nil {
		return err
	}
	o := sol.OPF
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
			Strategy    string    `json:"strategy"`
			NominalCost float64   `json:"nominal_cost"`
			Dispatch    []genJSON `json:"dispatch"`
			LMP         []busJSON `json:"lmp"`
			Time        timeJSON  `json:"time"`
		}{Case: c.Name, Status: sol.Status.String(), DCModel: f.dcModel, Formulation: o.Options.Formulation.String(), Strategy: sol.Strategy.String(), NominalCost: sol.Cost, Time: tj}
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
		c.Name, net.NumBuses(), net.NumGens(), net.NumBranches(), f.dcModel, sol.Strategy)
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

// privateOptions turns the flags into release options; every invalid value is
// a usage error naming the flag (nothing is replaced by a default).
func privateOptions(f *opfFlags, form grid.Formulation) (opfrelease.Options, error) {
	opt := opfrelease.DefaultOptions()
	q, err := opfrelease.ParseQuery(f.query)
	if err != nil {
		return opt, usageError{err}
	}
	method, err := chance.ParseMethod(f.method)
	if err != nil || method == chance.Scenario {
		return opt, usagef("--method %q: must be vertex, bonferroni or robust", f.method)
	}
	if _, err := query.ParseMechanism(f.noiseName); err != nil {
		return opt, usagef("--noise %q: must be one of %s", f.noiseName, strings.Join(query.MechanismNames(), ", "))
	}
	for _, c := range []struct {
		name string
		v    float64
		ok   bool
		must string
	}{
		{"--epsilon", f.epsilon, f.epsilon > 0 && !math.IsInf(f.epsilon, 0), "> 0 and finite"},
		{"--delta", f.delta, f.delta >= 0 && f.delta < 1, "in [0, 1)"},
		{"--alpha", f.alpha, f.alpha > 0 && !math.IsInf(f.alpha, 0), "> 0 and finite (MW)"},
		{"--eta", f.eta, f.eta > 0 && f.eta < 1, "in (0, 1)"},
		{"--beta", f.beta, f.beta > 0 && f.beta < 1, "in (0, 1)"},
		{"--cvar-q", f.cvarQ, f.cvarQ >= 0 && f.cvarQ < 1, "in [0, 1)"},
		{"--load-band", f.band, f.band >= 0 && f.band <= 10, "in [0, 10]"},
		{"--price-cap", f.priceCap, f.priceCap > 0 && !math.IsInf(f.priceCap, 0), "> 0 and finite"},
		{"--price-floor", f.priceFloor, f.priceFloor <= 0 && !math.IsInf(f.priceFloor, 0), "≤ 0 and finite"},
		{"--declared-sensitivity", f.declared, f.declared >= 0 && !math.IsInf(f.declared, 0), "≥ 0 and finite"},
	} {
		if !c.ok {
			return opt, usagef("%s is %v, must be %s", c.name, c.v, c.must)
		}
	}
	if !(f.postFactor > 0) || math.IsInf(f.postFactor, 0) {
		return opt, usagef("--post-factor is %v, must be > 0 and finite", f.postFactor)
	}
	if f.secure {
		opt.Security = &opfrelease.Security{PostFactor: f.postFactor}
	}
	if f.segments < 1 || f.segments > 10000 {
		return opt, usagef("--cost-segments is %d, must be in [1, 10000]", f.segments)
	}
	opt.Query, opt.Alpha, opt.Band = q, f.alpha, f.band
	opt.Rules = grid.MarketRules{PriceCap: f.priceCap, PriceFloor: f.priceFloor}
	opt.Epsilon, opt.Delta, opt.Noise = f.epsilon, f.delta, f.noiseName
	opt.Method, opt.Eta, opt.Beta, opt.CVaRQ = method, f.eta, f.beta, f.cvarQ
	opt.CostSegments, opt.DeclaredSensitivity, opt.Formulation = f.segments, f.declared, form
	opt.ChanceSeed = f.seed
	return opt, nil
}

// releaseJSON is what `privopt opf --query … --json` prints: only publishable
// values, plus the private diagnostics object when --diagnostics is given.
type releaseJSON struct {
	Case          string             `json:"case"`
	Query         string             `json:"query"`
	ReleasedValue float64            `json:"released_value"`
	Unit          string             `json:"unit"`
	Guarantee     string             `json:"guarantee"`
	Epsilon       float64            `json:"epsilon"`
	Delta         float64            `json:"delta"`
	Alpha         float64            `json:"alpha"`
	Noise         string             `json:"noise"`
	NoiseStd      float64            `json:"noise_std"`
	Sensitivity   float64            `json:"sensitivity"`
	Provenance    string             `json:"sensitivity_provenance"`
	Certificate   *query.Certificate `json:"certificate,omitempty"`
	Method        string             `json:"method"`
	Feasibility   string             `json:"feasibility_guarantee"`
	Eta           float64            `json:"eta"`
	Beta          float64            `json:"beta"`
	CVaRQ         float64            `json:"cvar_q"`
	LoadBand      float64            `json:"load_band"`
	PriceCap      float64            `json:"price_cap"`
	PriceFloor    float64            `json:"price_floor"`
	Substitutions []string           `json:"substitutions"`
	Dataset       string             `json:"dataset,omitempty"`
	Seeded        bool               `json:"seeded"`
	FloatSafe     bool               `json:"floating_point_safe"`
	Diagnostics   *diagJSON          `json:"private_diagnostics,omitempty"`
}

type diagJSON struct {
	Warning       string              `json:"warning"`
	NominalCost   float64             `json:"nominal_cost"`
	ExpectedValue float64             `json:"expected_value"`
	ExpectedCost  float64             `json:"expected_cost"`
	ZetaInterval  [2]float64          `json:"zeta_interval"`
	Feasible      bool                `json:"release_dispatch_feasible"`
	SecurityCuts  int                 `json:"security_cuts,omitempty"`
	Solves        int                 `json:"solves"`
	Evaluation    map[string]evalJSON `json:"evaluation,omitempty"`
	// Time is private too: the solve time depends on the loads.
	Time timeJSON `json:"time"`
}

type evalJSON struct {
	N             int     `json:"n"`
	LossPct       float64 `json:"loss_pct"`
	InfeasiblePct float64 `json:"infeasible_pct"`
	CVaRPct       float64 `json:"cvar_pct"`
}

const privateWarning = "PRIVATE DIAGNOSTICS: computed from the unperturbed data; never publish"

func runPrivate(ctx context.Context, f *opfFlags, net *grid.Network, form grid.Formulation, parse time.Duration, t0 time.Time, stdout, stderr io.Writer) error {
	opt, err := privateOptions(f, form)
	if err != nil {
		return err
	}
	if f.plotPath != "" {
		if err := checkWritable(f.plotPath); err != nil {
			return usagef("--plot %q: %v", f.plotPath, err)
		}
	}
	led, err := f.ledger.open(ctx)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	pr, err := opfrelease.Prepare(ctx, net, opt)
	if err != nil {
		return err
	}
	var src noise.Source
	if f.seed != 0 {
		src = noise.NewSeededSource(f.seed)
	}
	rel, err := pr.Release(query.ReleaseOptions{Source: src, Dataset: f.ledger.dataset, Ledger: led})
	if err != nil {
		return err
	}
	total := time.Since(t0)
	mech, err := pr.Noise()
	if err != nil {
		return err
	}
	rec := rel.Record
	out := releaseJSON{Case: net.Case.Name, Query: opt.Query.String(), ReleasedValue: rel.Value, Unit: rel.Unit, Guarantee: rec.Guarantee,
		Epsilon: rec.Epsilon, Delta: rec.Delta, Alpha: opt.Alpha, Noise: f.noiseName, NoiseStd: noise.Std(mech.Dist),
		Sensitivity: rec.Sensitivity, Provenance: string(rec.SensitivitySource), Certificate: rec.Certificate,
		Method: rec.Method, Feasibility: pr.Solution().Counterpart.Guarantee.String(), Eta: rec.Eta, Beta: rec.Beta, CVaRQ: opt.CVaRQ,
		LoadBand: opt.Band, PriceCap: opt.Rules.PriceCap, PriceFloor: opt.Rules.PriceFloor, Substitutions: pr.Substitutions,
		Dataset: f.ledger.dataset, Seeded: src != nil, FloatSafe: rec.FloatingPointSafe}
	if f.diagnostics {
		d, err := pr.Diagnostics(ctx)
		if err != nil {
			return err
		}
		out.Diagnostics = &diagJSON{Warning: privateWarning, NominalCost: d.NominalCost, ExpectedValue: d.ExpectedValue, ExpectedCost: d.ExpectedCost,
			ZetaInterval: [2]float64{d.ZetaLo, d.ZetaHi}, Feasible: d.LastFeasible, SecurityCuts: d.SecurityCuts, Solves: d.Solves,
			Time: timeJSON{Parse: secs(parse), Build: secs(pr.Timing.Certify + pr.Timing.Build), Solve: secs(pr.Timing.Solve), Total: secs(total)}}
		if f.evaluate > 0 {
			ev, err := pr.Evaluate(ctx, opfrelease.EvalOptions{N: f.evaluate, InputN: f.inputN, Seed: f.seed})
			if err != nil {
				return err
			}
			out.Diagnostics.Evaluation = map[string]evalJSON{}
			for name, e := range map[string]*query.Evaluation{"program": ev.Program, "output": ev.Output, "input": ev.Input} {
				if e != nil {
					out.Diagnostics.Evaluation[name] = evalJSON{N: e.N, LossPct: e.MeanLossPct, InfeasiblePct: 100 * e.InfeasibleRate, CVaRPct: e.CVaRLossPct}
				}
			}
		}
		if f.plotPath != "" {
			if err := writeDensityPlot(ctx, pr, net, f.plotPath); err != nil {
				return err
			}
		}
	}
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "case %s: private %s release\n", out.Case, out.Query)
	fmt.Fprintf(stdout, "released value    %.2f %s\n", out.ReleasedValue, out.Unit)
	fmt.Fprintf(stdout, "guarantee         %s\n", out.Guarantee)
	fmt.Fprintf(stdout, "noise             %s, std %.4g; adjacency: one bus load differs by ≤ %g MW within ±%g%% of the case's loads\n", out.Noise, out.NoiseStd, opt.Alpha, 100*opt.Band)
	if c := out.Certificate; c != nil {
		fmt.Fprintf(stdout, "certificate       %s, bound %.6g; %s\n", c.Method, c.Bound, c.Domain)
		for _, a := range c.Assumptions {
			fmt.Fprintf(stdout, "                  - %s\n", a)
		}
	}
	fmt.Fprintf(stdout, "feasibility       %s\n", out.Feasibility)
	for _, s := range out.Substitutions {
		fmt.Fprintf(stdout, "note              %s\n", s)
	}
	if src != nil {
		fmt.Fprintf(stdout, "warning: seeded noise (--seed) is for experiments only; the release is not private\n")
	}
	if d := out.Diagnostics; d != nil {
		fmt.Fprintf(stdout, "\n--- %s ---\n", privateWarning)
		fmt.Fprintf(stdout, "nominal cost      %14.2f $/h\n", d.NominalCost)
		fmt.Fprintf(stdout, "pre-noise value   %14.2f %s\n", d.ExpectedValue, out.Unit)
		fmt.Fprintf(stdout, "expected cost     %14.2f $/h (loss %.3f%%)\n", d.ExpectedCost, 100*(d.ExpectedCost-d.NominalCost)/math.Abs(d.NominalCost))
		fmt.Fprintf(stdout, "noise interval    [%.4g, %.4g]; dispatch behind the release feasible: %v\n", d.ZetaInterval[0], d.ZetaInterval[1], d.Feasible)
		fmt.Fprintf(stdout, "programs solved   %d; N-1 contingency cuts %d\n", d.Solves, d.SecurityCuts)
		fmt.Fprintf(stdout, "time              parse %v, certify+build %v, solve %v, total %v\n",
			parse.Round(time.Microsecond), (pr.Timing.Certify + pr.Timing.Build).Round(time.Microsecond), pr.Timing.Solve.Round(time.Microsecond), total.Round(time.Microsecond))
		if len(d.Evaluation) > 0 {
			fmt.Fprintf(stdout, "\n%-10s %8s %10s %14s %10s\n", "strategy", "N", "loss (%)", "infeasible (%)", "CVaR (%)")
			for _, name := range []string{"program", "output", "input"} {
				if e, ok := d.Evaluation[name]; ok {
					fmt.Fprintf(stdout, "%-10s %8d %10.3f %14.2f %10.3f\n", name, e.N, e.LossPct, e.InfeasiblePct, e.CVaRPct)
				}
			}
		}
	}
	return nil
}

// checkWritable fails early when path cannot be created.
func checkWritable(path string) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	return fh.Close()
}

// writeDensityPlot draws the released-value densities on D″, D and D′ (the
// largest load −α and +α): a private diagnostic.
func writeDensityPlot(ctx context.Context, pr *opfrelease.Program, net *grid.Network, path string) error {
	imax := 0
	for i, d := range net.Load {
		if d > net.Load[imax] {
			imax = i
		}
	}
	var centers [3]float64
	for k, sgn := range []float64{-1, 0, 1} {
		load := append([]float64(nil), net.Load...)
		load[imax] += sgn * pr.Options.Alpha
		c, err := pr.ReleasedMeanAt(ctx, load)
		if err != nil {
			return err
		}
		centers[k] = c
	}
	mech, err := pr.Noise()
	if err != nil {
		return err
	}
	d := mech.Dist
	sd := noise.Std(d)
	lo := math.Min(centers[0], centers[2]) - 5*sd
	hi := math.Max(centers[0], centers[2]) + 5*sd
	const npts = 400
	fig := &plot.Figure{Title: fmt.Sprintf("PRIVATE: released %s densities, ε = %g, α = %g MW", pr.Options.Query, pr.Options.Epsilon, pr.Options.Alpha),
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
