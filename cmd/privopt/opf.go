package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/gateway"
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
	domainPath, referencePath, loadsPath, certPath                      string
	planPath, planOut                                                   string
	planFlags                                                           []string // plan-shaping flags given explicitly
	nominal, jsonOut, diagnostics, secure, planOnly, progress           bool
	maxMemory                                                           string
	postFactor                                                          float64
	epsilon, delta, alpha, eta, beta, cvarQ, band, priceCap, priceFloor float64
	declared                                                            float64
	evaluate, inputN, segments                                          int
	seed, chanceSeed                                                    uint64
	lmpLimit                                                            time.Duration
	ledger                                                              ledgerFlags
	stderr                                                              io.Writer // progress (--progress)
}

// progressWriter prefixes each progress line with the command's name.
type progressWriter struct{ w io.Writer }

func (p progressWriter) Write(b []byte) (int, error) {
	if _, err := fmt.Fprintf(p.w, "privopt opf: %s", b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// parseBytes reads a size: a non-negative integer of bytes with an optional
// suffix KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 0) || v*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("want a size ≥ 0 in bytes, optionally with KB, MB, GB, KiB, MiB or GiB")
	}
	return int64(v * float64(mult)), nil
}

func runOPF(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := opfFlags{stderr: stderr}
	fs := flag.NewFlagSet("opf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.casePath, "case", "", "MATPOWER case file (.m), required")
	fs.BoolVar(&f.nominal, "nominal", false, "solve the plain DC-OPF: cost, dispatch, LMPs (default when --query is absent; NOT private)")
	fs.StringVar(&f.query, "query", "", "private release: cost | gen-subset:LIST (1-based mpc.gen rows, e.g. 1,3,5-8; needs --declared-sensitivity)")
	fs.Float64Var(&f.epsilon, "epsilon", 1, "privacy parameter ε")
	fs.Float64Var(&f.delta, "delta", 0, "privacy parameter δ (needed by gaussian, analytic-gaussian, truncated-laplace, optimal)")
	fs.Float64Var(&f.alpha, "alpha", 1, "adjacency α in MW: one bus load may differ by at most α")
	fs.StringVar(&f.domainPath, "domain", "", "PUBLIC load domain CSV with header bus,min,max (MW of demand; buses not listed carry no load); loads outside it are clamped into it")
	fs.StringVar(&f.referencePath, "reference", "", "PUBLISHED reference profile CSV with header bus,mw: the domain is ±--band around it (instead of --domain)")
	fs.Float64Var(&f.band, "band", 0.1, "with --reference: the domain is each reference load ±FRACTION of its absolute value")
	fs.StringVar(&f.loadsPath, "loads", "", "PRIVATE loads CSV with header bus,LABEL1,LABEL2,… (MW of demand): one release per column, each spent and labelled; without it the case's loads are the private data (one release labelled case)")
	fs.StringVar(&f.certPath, "certificate", "", "CERT.json written by 'privopt certify' for this case and --domain: verified (network and domain digests, arithmetic) and used instead of certifying")
	fs.DurationVar(&f.lmpLimit, "certify-lmp", 0, "certify in the plan with the LMP bound (grid.Network.CertifyCostBound: merit order, tight price cap, or the KKT MILP's proven bound), with this nominal budget (e.g. 30s; turned into deterministic work budgets, grid.LMPBoundOptions.TimeLimit); 0: merit order or price cap")
	fs.BoolVar(&f.planOnly, "plan-only", false, "print the public plan (certificate, noise, offset, notes) and read no private value")
	fs.StringVar(&f.planOut, "save-plan", "", "write the public plan to this file (PLAN.json: its inputs, certificate and public JSON) to release later with --plan")
	fs.StringVar(&f.planPath, "plan", "", "release with the plan saved in this file by --save-plan: it is rebuilt from its inputs on --case, its certificate checked and reused, and refused unless it reproduces the saved plan exactly; the plan's flags (--query, --epsilon, --domain, …) come from the file")
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
	fs.BoolVar(&f.secure, "n-1", false, "N-1 secure release: every non-islanding branch outage keeps the flows within --post-factor × the ratings (contingency cuts generated lazily; price-cap sensitivity, or with --certify-lmp the N-1 program's LMP bound)")
	fs.Float64Var(&f.postFactor, "post-factor", 1, "with --n-1: post-contingency limits as a multiple of the normal ratings")
	fs.StringVar(&f.maxMemory, "max-memory", "0", "with --n-1: memory guard, bytes or with a suffix (e.g. 2GB, 512MiB; 0: none): the plan estimates the N-1 peak from public sizes (printed as n1_memory), stores the LODFs sparsely if the dense estimate exceeds it, and refuses before reading any private value (exit 2) if even the sparse one does")
	fs.BoolVar(&f.progress, "progress", false, "print the plan's progress on stderr: the N-1 cut rounds of the public midpoint solve (round, cuts, elapsed) and the --certify-lmp steps; releases print no rounds (their counts depend on the private loads)")
	fs.BoolVar(&f.diagnostics, "diagnostics", false, "also print PRIVATE diagnostics (pre-noise values, nominal cost, feasibility, evaluations, plots): never publish them")
	fs.IntVar(&f.evaluate, "evaluate", 0, "with --diagnostics: Monte Carlo over N simulated releases per strategy (program, output, input perturbation)")
	fs.IntVar(&f.inputN, "input-n", 0, "cap on input-perturbation realizations (each is one OPF solve); 0 = --evaluate")
	fs.Uint64Var(&f.seed, "seed", 0, "INSECURE: deterministic noise and uncertainty set for tests and audits (0: cryptographic randomness); a seeded release is not private")
	fs.Uint64Var(&f.chanceSeed, "chance-seed", 0, "seed of the uncertainty set (public: it fixes the plan's noise interval and offset, so plans made with the same seed are identical); 0: --seed, or random")
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
	fs.Visit(func(fl *flag.Flag) {
		if planShapingFlags[fl.Name] {
			f.planFlags = append(f.planFlags, "--"+fl.Name)
		}
	})
	if f.planPath != "" {
		if f.maxMemory != "0" || f.progress {
			return usagef("--max-memory and --progress apply when the plan is computed, not with --plan (the saved plan's n1_memory holds its estimate)")
		}
		if len(f.planFlags) > 0 {
			return usagef("--plan %s fixes the plan: %s cannot be given with it", f.planPath, strings.Join(f.planFlags, ", "))
		}
		if f.nominal {
			return usagef("--nominal and --plan are exclusive")
		}
		if f.planOut != "" {
			return usagef("--plan and --save-plan are exclusive (the loaded plan is already saved)")
		}
	}
	if f.planOut != "" {
		if err := checkWritable(f.planOut); err != nil {
			return usagef("--save-plan %q: %v", f.planOut, err)
		}
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
	if f.query == "" && f.planPath == "" {
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
		{"--band", f.band, f.band >= 0 && f.band <= 10, "in [0, 10]"},
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
	maxMem, err := parseBytes(f.maxMemory)
	if err != nil {
		return opt, usagef("--max-memory %q: %v", f.maxMemory, err)
	}
	if maxMem > 0 && !f.secure {
		return opt, usagef("--max-memory guards the N-1 structures: it needs --n-1")
	}
	if f.secure {
		opt.Security = &opfrelease.Security{PostFactor: f.postFactor, MaxMemoryBytes: maxMem}
		if f.progress {
			opt.Security.Progress = progressWriter{f.stderr}
		}
	}
	if f.segments < 1 || f.segments > 10000 {
		return opt, usagef("--cost-segments is %d, must be in [1, 10000]", f.segments)
	}
	opt.Query, opt.Alpha = q, f.alpha
	opt.Rules = grid.MarketRules{PriceCap: f.priceCap, PriceFloor: f.priceFloor}
	if opt.PrivacySpec, err = query.ParseSpec(f.noiseName, f.epsilon, f.delta); err != nil {
		return opt, usageError{err}
	}
	opt.Method, opt.Eta, opt.Beta, opt.CVaRQ = method, f.eta, f.beta, f.cvarQ
	opt.CostSegments, opt.DeclaredSensitivity, opt.Formulation = f.segments, f.declared, form
	opt.ChanceSeed = f.seed
	if f.chanceSeed != 0 {
		opt.ChanceSeed = f.chanceSeed
	}
	return opt, nil
}

// opfOutput is what `privopt opf --query … --json` prints: the public plan
// and the releases (label, released value, estimate); private diagnostics
// only with --diagnostics, under their warning.
type opfOutput struct {
	Plan     planJSON              `json:"plan"`
	Releases []*opfrelease.Release `json:"releases"`
	// Batch is set when the columns were charged as one batch (PLD-batch
	// composition of the dataset's budget).
	Batch *gateway.BatchSpend `json:"batch,omitempty"`
	// Evaluation is private (--diagnostics --evaluate).
	Evaluation *evalOutput `json:"private_evaluation,omitempty"`
}

type planJSON struct {
	*opfrelease.Plan
	Dataset string `json:"dataset,omitempty"`
	Seeded  bool   `json:"seeded"`
}

type evalOutput struct {
	Warning    string              `json:"warning"`
	Label      string              `json:"label"`
	Strategies map[string]evalJSON `json:"strategies"`
}

type evalJSON struct {
	// NotApplicable says why a baseline was not simulated (the others still are).
	NotApplicable string  `json:"not_applicable,omitempty"`
	N             int     `json:"n"`
	LossPct       float64 `json:"loss_pct"`
	InfeasiblePct float64 `json:"infeasible_pct"`
	CVaRPct       float64 `json:"cvar_pct"`
}

const privateWarning = opfrelease.PrivateWarning

// publicDomain reads --domain or --reference/--band (public inputs) for the
// public network; nil without either (the plan's default domain).
func publicDomain(f *opfFlags, pub *opfrelease.PublicNetwork) (*grid.LoadDomain, string, error) {
	switch {
	case f.domainPath != "" && f.referencePath != "":
		return nil, "", usagef("--domain and --reference are exclusive")
	case f.domainPath != "":
		fh, err := os.Open(f.domainPath)
		if err != nil {
			return nil, "", err
		}
		defer fh.Close()
		d, err := grid.ReadLoadDomainCSV(fh, pub.Network())
		if err != nil {
			return nil, "", err
		}
		return &d, "domain file", nil
	case f.referencePath != "":
		fh, err := os.Open(f.referencePath)
		if err != nil {
			return nil, "", err
		}
		defer fh.Close()
		ref, err := grid.ReadReferenceCSV(fh, pub.Network())
		if err != nil {
			return nil, "", err
		}
		d, err := grid.ReferenceBand(ref, f.band)
		if err != nil {
			return nil, "", usageError{err}
		}
		return &d, fmt.Sprintf("published reference profile ± %g·|reference|", f.band), nil
	}
	return nil, "", nil
}

// newPlanFromFlags computes the plan from the flags: the public domain
// (--domain or --reference/--band), the certificate (--certificate or
// --certify-lmp) and the options.
func newPlanFromFlags(ctx context.Context, f *opfFlags, net *grid.Network, pub *opfrelease.PublicNetwork, opt opfrelease.Options) (*opfrelease.Plan, error) {
	var err error
	if opt.Domain, opt.DomainSource, err = publicDomain(f, pub); err != nil {
		return nil, err
	}
	if f.lmpLimit < 0 {
		return nil, usagef("--certify-lmp is %v, must be ≥ 0", f.lmpLimit)
	}
	if f.lmpLimit > 0 {
		opt.LMPBound = &grid.LMPBoundOptions{TimeLimit: f.lmpLimit}
		if f.progress {
			opt.LMPBound.Progress = progressWriter{f.stderr}
		}
		if f.certPath != "" {
			return nil, usagef("--certify-lmp and --certificate are exclusive")
		}
	}
	if f.certPath != "" {
		if opt.CertificateFile, err = loadCertificate(f, opt.Domain); err != nil {
			return nil, err
		}
	}
	p, err := opfrelease.NewPlan(ctx, pub, opt)
	if errors.Is(err, opfrelease.ErrMemoryGuard) {
		return nil, usageError{err} // refused at plan time: no private value read
	}
	return p, err
}

// loadCertificate reads --certificate: the CERT.json of `privopt certify`
// for this case and this domain. The plan checks it
// (opfrelease.Options.CertificateFile: grid.LoadCostCertificate against
// the plan's network and withdrawal domain — the domain plus the case's
// shunt withdrawals, as `privopt certify` computes it — then its cost
// segments, N-1 flag, α and market rules).
func loadCertificate(f *opfFlags, dom *grid.LoadDomain) (*grid.CertificateFile, error) {
	if dom == nil {
		return nil, usagef("--certificate needs the --domain (or --reference/--band) it was computed for")
	}
	b, err := os.ReadFile(f.certPath)
	if err != nil {
		return nil, err
	}
	var cf grid.CertificateFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cf); err != nil {
		return nil, fmt.Errorf("--certificate %s: %w", f.certPath, err)
	}
	return &cf, nil
}

// privateLoads returns the labelled private load vectors: the columns of
// --loads, or the case's own loads labelled "case".
func privateLoads(f *opfFlags, pub *opfrelease.PublicNetwork, caseLoads opfrelease.Loads) ([]string, []opfrelease.Loads, error) {
	if f.loadsPath == "" {
		return []string{"case"}, []opfrelease.Loads{caseLoads}, nil
	}
	fh, err := os.Open(f.loadsPath)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	cols, err := grid.ReadLoadColumnsCSV(fh, pub.Network())
	if err != nil {
		return nil, nil, err
	}
	out := make([]opfrelease.Loads, len(cols.Loads))
	for k, mw := range cols.Loads {
		if out[k], err = opfrelease.NewLoads(pub, mw); err != nil {
			return nil, nil, err
		}
	}
	return cols.Labels, out, nil
}

// planShapingFlags are the flags that determine the plan: a plan loaded
// with --plan fixes them.
var planShapingFlags = map[string]bool{"query": true, "epsilon": true, "delta": true, "alpha": true, "domain": true,
	"reference": true, "band": true, "certificate": true, "certify-lmp": true, "price-cap": true, "price-floor": true,
	"cost-segments": true, "declared-sensitivity": true, "noise": true, "method": true, "eta": true, "beta": true,
	"cvar-q": true, "n-1": true, "post-factor": true, "chance-seed": true, "formulation": true}

// loadPlan reads --plan (a file written by --save-plan) and rebuilds the plan
// on the public network (opfrelease.LoadPlan).
func loadPlan(ctx context.Context, f *opfFlags, pub *opfrelease.PublicNetwork) (*opfrelease.Plan, error) {
	fh, err := os.Open(f.planPath)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	p, err := opfrelease.LoadPlan(ctx, fh, pub)
	if err != nil {
		return nil, fmt.Errorf("--plan %s: %w", f.planPath, err)
	}
	return p, nil
}

// savePlan writes --save-plan.
func savePlan(f *opfFlags, p *opfrelease.Plan) error {
	pf, err := p.File()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pf.Write(&buf); err != nil {
		return err
	}
	return os.WriteFile(f.planOut, buf.Bytes(), 0o644)
}

func runPrivate(ctx context.Context, f *opfFlags, net *grid.Network, form grid.Formulation, parse time.Duration, t0 time.Time, stdout, stderr io.Writer) error {
	opt, err := privateOptions(f, form)
	if err != nil && f.planPath == "" {
		return err
	}
	if f.plotPath != "" {
		if err := checkWritable(f.plotPath); err != nil {
			return usagef("--plot %q: %v", f.plotPath, err)
		}
	}
	if f.planOnly && (f.loadsPath != "" || f.diagnostics || f.ledger.file != "") {
		return usagef("--plan-only reads no private value: it takes no --loads, --diagnostics or --ledger")
	}
	// The public half: the network without its loads, the public domain.
	pub, caseLoads, err := opfrelease.Split(net)
	if err != nil {
		return err
	}
	var plan *opfrelease.Plan
	if f.planPath != "" {
		if plan, err = loadPlan(ctx, f, pub); err != nil {
			return err
		}
	} else if plan, err = newPlanFromFlags(ctx, f, net, pub, opt); err != nil {
		return err
	}
	if f.planOut != "" {
		if err := savePlan(f, plan); err != nil {
			return err
		}
	}
	out := opfOutput{Plan: planJSON{Plan: plan, Dataset: f.ledger.dataset, Seeded: f.seed != 0}, Releases: []*opfrelease.Release{}}
	if f.planOnly {
		return printOPF(stdout, f, &out)
	}
	led, err := f.ledger.open(ctx)
	if err != nil {
		return err
	}
	if led != nil {
		defer led.Close()
	}
	labels, loads, err := privateLoads(f, pub, caseLoads)
	if err != nil {
		return err
	}
	var src noise.Source
	if f.seed != 0 {
		src = noise.NewSeededSource(f.seed)
	}
	// One spend per release, or one batch spend of every column when the
	// dataset's budget uses the PLD-batch composition (gateway.ReleaseColumns).
	cols, relErr := gateway.ReleaseColumns(ctx, plan, labels, loads, led, f.ledger.dataset, opfrelease.ReleaseOptions{Source: src, Diagnostics: f.diagnostics})
	out.Releases, out.Batch = cols.Releases, cols.Batch
	if f.diagnostics && len(out.Releases) > 0 {
		prog := out.Releases[0].Diagnostics.Program()
		if f.evaluate > 0 && prog != nil && prog.Solution() != nil {
			ev, err := prog.Evaluate(ctx, opfrelease.EvalOptions{N: f.evaluate, InputN: f.inputN, Seed: f.seed})
			if err != nil {
				return err
			}
			out.Evaluation = &evalOutput{Warning: privateWarning, Label: out.Releases[0].Label, Strategies: map[string]evalJSON{}}
			for name, e := range map[string]*query.Evaluation{"program": ev.Program, "output": ev.Output, "input": ev.Input} {
				if e != nil {
					out.Evaluation.Strategies[name] = evalJSON{NotApplicable: e.NotApplicable, N: e.N, LossPct: e.MeanLossPct, InfeasiblePct: 100 * e.InfeasibleRate, CVaRPct: e.CVaRLossPct}
				}
			}
		}
		if f.plotPath != "" && prog != nil {
			if err := writeDensityPlot(ctx, prog, labels[0], loads[0], f.plotPath); err != nil {
				return err
			}
		}
	}
	if err := printOPF(stdout, f, &out); err != nil {
		return err
	}
	return relErr
}

// printOPF prints the plan and the releases (JSON or text); private
// diagnostics follow under their banner.
func printOPF(stdout io.Writer, f *opfFlags, out *opfOutput) error {
	if f.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	p := out.Plan.Plan
	fmt.Fprintf(stdout, "case %s: private %s release plan (public)\n", p.Case, p.Query)
	fmt.Fprintf(stdout, "guarantee         %s\n", p.Guarantee)
	fmt.Fprintf(stdout, "noise             %s, std %.6g", p.Noise, p.NoiseStd)
	if p.ReleaseGrid > 0 {
		fmt.Fprintf(stdout, "; released on a grid of %g (released-noise RMS ≤ %.6g)", p.ReleaseGrid, p.ReleasedNoiseRMS)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "adjacency         one bus load differs by ≤ %g MW inside the public domain\n", p.Alpha)
	fmt.Fprintf(stdout, "domain            %s: %d buses vary, total demand in [%.6g, %.6g] MW\n", p.Domain.Source, p.Domain.VaryingBuses, p.Domain.TotalMin, p.Domain.TotalMax)
	if c := p.Certificate; c != nil {
		fmt.Fprintf(stdout, "certificate       %s, bound %.6g\n", c.Method, c.Bound)
		for _, a := range c.Assumptions {
			fmt.Fprintf(stdout, "                  - %s\n", a)
		}
	}
	fmt.Fprintf(stdout, "offset            %.6g %s (estimate = released − offset); noise interval [%.6g, %.6g]\n", p.Offset, p.Unit, p.NoiseInterval[0], p.NoiseInterval[1])
	fmt.Fprintf(stdout, "feasibility       %s\n", p.Feasibility)
	fmt.Fprintf(stdout, "accuracy target   τ = %.6g %s per solve (re-solved until met)\n", p.AccuracyTarget, p.Unit)
	fmt.Fprintf(stdout, "chance seed       %d\n", p.ChanceSeed)
	if m := p.Memory; m != nil {
		fmt.Fprintf(stdout, "N-1 memory        estimated peak %.0f MiB with dense LODFs, %.0f MiB sparse (%d outages; %s storage; public sizes only)\n",
			float64(m.PeakDenseBytes)/(1<<20), float64(m.PeakSparseBytes)/(1<<20), m.Outages, p.LODFStorage())
	}
	for _, s := range p.Notes {
		fmt.Fprintf(stdout, "note              %s\n", s)
	}
	fmt.Fprintf(stdout, "note              %s\n", p.Domain.Clamping)
	if out.Plan.Dataset != "" {
		fmt.Fprintf(stdout, "dataset           %s\n", out.Plan.Dataset)
	}
	if out.Plan.Seeded {
		fmt.Fprintf(stdout, "warning: seeded noise (--seed) is for tests and audits only; the release is not private\n")
	}
	if f.planOnly {
		return nil
	}
	fmt.Fprintf(stdout, "\n%-12s %18s %18s\n", "release", "released ("+p.Unit+")", "estimate ("+p.Unit+")")
	for _, r := range out.Releases {
		fmt.Fprintf(stdout, "%-12s %18.6g %18.6g\n", r.Label, r.ReleasedValue, r.Estimate)
	}
	if b := out.Batch; b != nil {
		fmt.Fprintf(stdout, "spent             (ε %g, δ %g, γ %g) once for %d releases: %s\n", b.Cost.Epsilon, b.Cost.Delta, b.Cost.Gamma, b.Releases, b.Composition)
	}
	if !f.diagnostics {
		return nil
	}
	fmt.Fprintf(stdout, "\n--- %s ---\n", privateWarning)
	for _, r := range out.Releases {
		d := r.Diagnostics
		fmt.Fprintf(stdout, "%-12s statistic %.6f, clamped buses %d, solves %d, dispatch feasible %v, %.3f s", r.Label, d.Statistic, d.Clamped, d.Solves, d.Feasible, d.Seconds)
		if d.Route != "" {
			fmt.Fprintf(stdout, ", route %s", d.Route)
		}
		if d.Fallback != "" {
			fmt.Fprintf(stdout, ", FALLBACK %s", d.Fallback)
		}
		fmt.Fprintln(stdout)
	}
	if ev := out.Evaluation; ev != nil {
		fmt.Fprintf(stdout, "\nsimulated releases at %s:\n%-10s %8s %10s %14s %10s\n", ev.Label, "strategy", "N", "loss (%)", "infeasible (%)", "CVaR (%)")
		for _, name := range []string{"program", "output", "input"} {
			if e, ok := ev.Strategies[name]; ok && e.NotApplicable != "" {
				fmt.Fprintf(stdout, "%-10s %s\n", name, e.NotApplicable)
			} else if ok {
				fmt.Fprintf(stdout, "%-10s %8d %10.3f %14.2f %10.3f\n", name, e.N, e.LossPct, e.InfeasiblePct, e.CVaRPct)
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

// writeDensityPlot draws the released-value densities at the loads of one
// release (D) and with its largest load −α and +α (D″, D′): a private
// diagnostic.
func writeDensityPlot(ctx context.Context, prog *opfrelease.Program, label string, loads opfrelease.Loads, path string) error {
	pub := prog.Public()
	base := loads.Values()
	imax := 0
	for i, d := range base {
		if d > base[imax] {
			imax = i
		}
	}
	alpha := prog.Options().Alpha
	var centers [3]float64
	for k, sgn := range []float64{-1, 0, 1} {
		mw := append([]float64(nil), base...)
		mw[imax] += sgn * alpha
		l, err := opfrelease.NewLoads(pub, mw)
		if err != nil {
			return err
		}
		c, err := prog.ReleasedMeanAt(ctx, l)
		if err != nil {
			return err
		}
		centers[k] = c
	}
	d := prog.NoiseMechanism().Dist
	sd := noise.Std(d)
	lo := math.Min(centers[0], centers[2]) - 5*sd
	hi := math.Max(centers[0], centers[2]) + 5*sd
	const npts = 400
	fig := &plot.Figure{Title: fmt.Sprintf("PRIVATE: released %s densities (%s), ε = %g, α = %g MW", prog.Options().Query, label, prog.Options().Epsilon, alpha),
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
