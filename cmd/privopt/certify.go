package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/opfrelease"
)

func init() {
	register(command{name: "certify", summary: "certify the cost release's sensitivity once for a network and a public load domain (writes CERT.json)", run: runCertify})
}

func runCertify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		casePath, domPath, out, dcModel string
		alpha, priceCap, priceFloor     float64
		postFactor, targetRatio         float64
		splitWork                       float64
		segments                        int
		secure, verify, quiet, proof    bool
		limit                           time.Duration
		treeNodes                       int
	)
	fs := flag.NewFlagSet("certify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&casePath, "case", "", "MATPOWER case file (.m), required")
	fs.StringVar(&domPath, "domain", "", "public load domain CSV with header bus,min,max (MW; buses not listed carry no load), required")
	fs.Float64Var(&alpha, "alpha", 1, "adjacency α in MW: one bus load may differ by at most α")
	fs.BoolVar(&secure, "n-1", false, "certify for the N-1 secure release: the KKT bound of the N-1 program over the post-contingency rows that screening cannot rule out (grid.Network.CertifyN1LMPBound; re-derived evidence, no checkable proof), the price cap when it is not below it")
	fs.Float64Var(&postFactor, "post-factor", 1, "with --n-1: post-contingency limits as a multiple of the normal ratings (as 'privopt opf --post-factor')")
	fs.Float64Var(&targetRatio, "target-ratio", grid.DefaultN1TargetRatio, "with --n-1: stop the bound's MIP once it proves at most this multiple of the price a short search realizes (grid.N1BoundOptions.TargetRatio); with --pattern-split-work and --checkable=false: stop the split at the level whose cutoff is this multiple of that price (grid.LMPBoundOptions.PatternSplitTarget); the certificate records it; 0 runs the MIP to closure or the split's levels until its budget (tighter, slower)")
	fs.StringVar(&out, "out", "", "write the certificate (CERT.json) to this file")
	fs.Float64Var(&priceCap, "price-cap", 1000, "market price cap / value of lost load, $/MWh")
	fs.Float64Var(&priceFloor, "price-floor", 0, "market price floor, $/MWh, ≤ 0")
	fs.IntVar(&segments, "cost-segments", 20, "quadratic costs are replaced by this many secant segments per unit (as the release does)")
	fs.StringVar(&dcModel, "dc-model", "powermodels", "DC model: powermodels | matpower (must match the release)")
	fs.DurationVar(&limit, "time-limit", 60*time.Second, "nominal budget of the certification, turned into deterministic work budgets so that the certificate does not depend on machine load (grid.LMPBoundOptions.TimeLimit); each mixed-integer solve has a wall-clock safety net of 4× it, reported in the certificate when it stops a solve")
	fs.BoolVar(&verify, "verify", false, "verify the certificate after computing it: check its proof (no solver), or re-derive it without one (solves again)")
	fs.BoolVar(&proof, "checkable", true, "record a proof of the LMP bound that 'privopt opf --certificate' checks without a solver (its value is the proof's: a branch and bound of at most --tree-nodes LPs, which may be above HiGHS's MIP bound; the note says so)")
	fs.Float64Var(&splitWork, "pattern-split-work", 0, "work units (simplex iterations times program size; about 3·10⁷ per CPU second) for splitting the buses with the largest price bounds by their congestion patterns (grid.LMPBoundOptions.PatternSplitWork; 0: no split; with --checkable, any value above 0 turns on the split, each split bus then gets a branch-and-bound tree of at most 200 LPs recorded in the proof). with --checkable=false and the default --target-ratio 1.5, 4.8e10 certified 300_ieee ±10% at 169.6 $/MWh (1.5× the largest price found) in about 3.2 CPU minutes (BENCHMARKS.md)")
	fs.IntVar(&treeNodes, "tree-nodes", 400, "LP budget of the checkable branch and bound")
	fs.BoolVar(&quiet, "quiet", false, "no progress output on stderr")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %v", fs.Args())
	}
	postSet, targetSet := false, false
	fs.Visit(func(fl *flag.Flag) {
		postSet = postSet || fl.Name == "post-factor"
		targetSet = targetSet || fl.Name == "target-ratio"
	})
	if postSet && !secure {
		return usagef("--post-factor sets the N-1 post-contingency limits: it needs --n-1")
	}
	if targetSet && !secure && (splitWork == 0 || proof) {
		return usagef("--target-ratio sets where the N-1 bound or the pattern split stops: it needs --n-1, or --pattern-split-work with --checkable=false (the checkable split does not stop at a target)")
	}
	if !(splitWork >= 0) || math.IsInf(splitWork, 0) {
		return errFlag("pattern-split-work", splitWork, "must be ≥ 0 and finite")
	}
	if splitWork > 0 && secure {
		return usagef("--pattern-split-work does not run with --n-1 (the N-1 route does not run the split)")
	}
	if !(targetRatio == 0 || targetRatio >= 1) || math.IsInf(targetRatio, 0) {
		return errFlag("target-ratio", targetRatio, "must be 0 (run to closure) or ≥ 1 and finite")
	}
	n1Target := targetRatio
	if n1Target == 0 {
		n1Target = -1 // N1BoundOptions: below 1 runs to closure, 0 is the default
	}
	if !(postFactor > 0) || math.IsInf(postFactor, 0) {
		return errFlag("post-factor", postFactor, "must be > 0 and finite")
	}
	if casePath == "" || domPath == "" {
		return usagef("--case FILE.m and --domain DOMAIN.csv are required")
	}
	if err := checkFlags(floatIn("alpha", alpha, 0, 1e6, openLo), floatIn("price-cap", priceCap, 0, 1e9, openLo),
		intIn("cost-segments", segments, 1, 10000), writableFile("out", out)); err != nil {
		return err
	}
	if !(priceFloor <= 0) {
		return errFlag("price-floor", priceFloor, "must be ≤ 0")
	}
	if limit <= 0 {
		return errFlag("time-limit", limit, "must be > 0")
	}
	if err := checkFlags(intIn("tree-nodes", treeNodes, 3, 1000000)); err != nil {
		return err
	}
	var dc grid.DCOptions
	switch dcModel {
	case "powermodels":
		dc = grid.PowerModelsDC()
	case "matpower":
	default:
		return usagef("--dc-model %q: must be powermodels or matpower", dcModel)
	}
	net, err := certifyNetwork(casePath, dc, segments)
	if err != nil {
		return err
	}
	df, err := os.Open(domPath)
	if err != nil {
		return err
	}
	dom, err := grid.ReadLoadDomainCSV(df, net)
	df.Close()
	if err != nil {
		return err
	}
	if err := dom.Validate(net); err != nil {
		return err
	}
	// The release's market program sees the demands plus the case's public
	// shunt withdrawals: certify over that withdrawal domain, on the network
	// without its demands, as a plan does (opf --certificate checks it so).
	pub, _, err := opfrelease.Split(net)
	if err != nil {
		return err
	}
	net, dom = pub.Network(), pub.WithdrawalDomain(dom)
	shunts, shuntMW := 0, 0.0
	for _, l := range net.Load {
		if l != 0 {
			shunts, shuntMW = shunts+1, shuntMW+l
		}
	}
	rules := grid.MarketRules{PriceCap: priceCap, PriceFloor: priceFloor}
	var progress io.Writer = stderr
	if quiet {
		progress = nil
	}
	t0 := time.Now()
	var cert *grid.CostCertificate
	if secure {
		cert, _, err = net.CertifyN1LMPBound(ctx, dom, alpha, rules, grid.N1BoundOptions{PostFactor: postFactor, TargetRatio: n1Target, Bound: grid.LMPBoundOptions{TimeLimit: limit, Progress: progress}})
	} else {
		bopt := grid.LMPBoundOptions{TimeLimit: limit, Progress: progress, Checkable: proof, TreeNodes: treeNodes, PatternSplitWork: splitWork}
		if !proof {
			bopt.PatternSplitTarget = targetRatio
		}
		cert, err = net.CertifyCostBound(ctx, dom, alpha, rules, bopt)
	}
	if err != nil {
		return err
	}
	el := time.Since(t0)
	if verify {
		if err := net.VerifyCostCertificateContext(ctx, cert, dom); err != nil {
			return err
		}
	}
	file := net.NewCertificateFile(cert, dom, secure, segments)
	fmt.Fprintf(stdout, "certificate: %s, %.6g $/MWh per MW, sensitivity %.6g $/h for α = %g MW (%.1f s)\n", cert.Method, cert.PerMW, cert.Bound, alpha, el.Seconds())
	if cert.Reason != "" {
		fmt.Fprintf(stdout, "note: %s\n", cert.Reason)
	}
	if shunts > 0 {
		fmt.Fprintf(stdout, "note: the domain is the release's withdrawals: the loads plus the case's shunt withdrawals at %d buses (%.6g MW in all)\n", shunts, shuntMW)
	}
	fmt.Fprintf(stdout, "domain %s\ncase   %s\n", file.DomainDigest, file.CaseDigest)
	if verify {
		if cert.LMP != nil && cert.LMP.Proof != nil {
			fmt.Fprintln(stdout, "verified: the proof checks (LP duals evaluated with outward rounding, no solver)")
		} else {
			fmt.Fprintln(stdout, "verified: re-derived independently of the first run")
		}
	}
	if out != "" {
		var buf bytes.Buffer
		if err := file.Write(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// certifyNetwork reads the case, converts quadratic costs to the release's
// secant piecewise-linear costs and builds the DC network.
func certifyNetwork(path string, dc grid.DCOptions, segments int) (*grid.Network, error) {
	c, err := grid.ReadCase(path)
	if err != nil {
		return nil, err
	}
	pw, _, err := c.PiecewiseCosts(segments)
	if err != nil {
		return nil, err
	}
	return grid.NewNetwork(pw, dc)
}
