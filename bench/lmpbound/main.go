// Command lmpbound measures the certified LMP bound of the cost release
// (grid.Network.CertifyCostBound: merit order when nothing can congest, else
// the KKT mixed-integer bound, else the price cap) against the largest
// adjacent change an adversarial search finds (grid.Network.SearchLMPChange
// with its congestion vertices and realized-change climbs, started also from
// the KKT program's incumbent and the bound-tightening LPs' price
// maximizers), on PGLib cases with public domains ±band around PGLib's
// nominal loads (times a scale), costs as 20 secant segments, PowerModels DC
// model, cap 1,000 $/MWh, floor 0, α = 1 MW.
//
// Usage:
//
//	go run ./bench/lmpbound [-cases 5_pjm,14_ieee,...] [-bands 0.1,0.3] [-time-limit 60s] [-domain-dir DIR]
//	    [-search-only] [-search-steps 3000] [-search-per-bus 200] [-search-flow-starts] [-per-bus-mip] [-tightening-work W] [-tightening-passes P] [-mip-work W] [-checkable]
//	    [-split N] [-split-tol T]
//
// With -checkable the certification records the checkable proof
// (LMPBoundOptions.Checkable), which is then checked by
// grid.Network.CheckLMPProof (its value and time on standard error).
//
// A case name may carry a load scale after "x", e.g. 118_ieee x1.336.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/bench/internal/pglibcase"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
)

func main() {
	cases := flag.String("cases", "5_pjm,14_ieee,24_ieee_rts,30_ieee,57_ieee,118_ieee,118_ieeex1.336,300_ieee", "PGLib case names (suffix xS scales the loads)")
	bands := flag.String("bands", "0.1,0.3", "domain half-widths as fractions of the nominal loads")
	limit := flag.Duration("time-limit", 60*time.Second, "time limit of each mixed-integer solve")
	searchOnly := flag.Bool("search-only", false, "run only the adversarial search (no certification)")
	steps := flag.Int("search-steps", 3000, "coordinate flips of the search's local search")
	flowStarts := flag.Bool("search-flow-starts", true, "LMPSearchOptions.FlowStarts: start the search also from each branch's flow-maximizing loads")
	patterns := flag.Int("search-patterns", 40, "LMPSearchOptions.Patterns: pattern LPs of the search's congestion-pattern step per bus (0: no such step)")
	perBus := flag.Int("search-per-bus", 200, "LMPSearchOptions.PerBus: coordinate flips of the search's climb per varying bus (0: none)")
	work := flag.Float64("tightening-work", 0, "LMPBoundOptions.TighteningWork (0: the default for the time limit)")
	passes := flag.Int("tightening-passes", 0, "LMPBoundOptions.TighteningPasses (0: the default)")
	mipWork := flag.Float64("mip-work", 0, "LMPBoundOptions.MIPWork, work units (0: the default for the time limit)")
	checkable := flag.Bool("checkable", false, "LMPBoundOptions.Checkable: certify with a proof checkable without a solver (privopt certify's default); the certified value is then the proof's")
	rulesOpt := flag.Bool("decision-rules", false, "LMPBoundOptions.DecisionRules: robust linear decision rules as repair points of the congestion dual bounds")
	split := flag.Int("split", 0, "LMPBoundOptions.Split: split the domain into at most this many boxes (spatial branch and bound; 0: none)")
	splitTol := flag.Float64("split-tol", 0, "LMPBoundOptions.SplitTol: splitting stops at this relative gap to the largest known price (0: 0.1)")
	perBusMIP := flag.Bool("per-bus-mip", false, "LMPBoundOptions.PerBusMIP with KnownPrice from a search run before the certification (its largest |π|): one KKT MIP per bus with that price as a cutoff")
	patSplit := flag.Float64("pattern-split-work", 0, "LMPBoundOptions.PatternSplitWork: work units of the congestion-pattern split of the buses holding the largest price bounds (0: off)")
	patTarget := flag.Float64("target-ratio", 0, "LMPBoundOptions.PatternSplitTarget: with -pattern-split-work, the split stops at the level whose cutoff is this ratio times the price the search found (0: levels until the budget)")
	domDir := flag.String("domain-dir", "", "also write each domain as CSV (bus,min,max) into this directory")
	flag.Parse()
	dir, err := shareddata.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lmpbound: shared data absent:", err)
		os.Exit(1)
	}
	rules := grid.DefaultMarketRules()
	fmt.Println("| case | domain | method | certified $/MWh | found $/MWh | ratio | certify s | certify CPU s | search s | largest |π| seen | MIP closed | leaves |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	err = pglibcase.Each(dir, *cases, *bands, func(name string, net *grid.Network, band float64, dom grid.LoadDomain) {
		if *domDir != "" {
			f, err := os.Create(filepath.Join(*domDir, fmt.Sprintf("%s_%g.csv", name, band)))
			if err == nil {
				dom.WriteCSV(f, net)
				f.Close()
			}
		}
		ctx := context.Background()
		var known float64
		if *perBusMIP && !*searchOnly {
			t := time.Now()
			pre, err := net.SearchLMPChange(ctx, dom, 1, rules, grid.LMPSearchOptions{Seed: 1, Steps: *steps, Climbs: 5, Congestion: true, PerBus: *perBus, FlowStarts: *flowStarts, Patterns: *patterns})
			if err != nil {
				fmt.Fprintln(os.Stderr, name, err)
				return
			}
			known = pre.LMP
			fmt.Fprintf(os.Stderr, "%s ±%g: search before certifying: largest |π| %.6g $/MWh (%.1f s)\n", name, band, known, time.Since(t).Seconds())
		}
		t0, c0 := time.Now(), cputime.Process()
		cert := &grid.CostCertificate{Method: "none", PerMW: math.NaN()}
		if !*searchOnly {
			cert, err = net.CertifyCostBound(ctx, dom, 1, rules, grid.LMPBoundOptions{TimeLimit: *limit, Progress: os.Stderr, TighteningWork: *work, TighteningPasses: *passes, MIPWork: *mipWork, Checkable: *checkable, DecisionRules: *rulesOpt, KnownPrice: known, PerBusMIP: *perBusMIP, Split: *split, SplitTol: *splitTol, PatternSplitWork: *patSplit, PatternSplitTarget: *patTarget})
			if err != nil {
				fmt.Fprintln(os.Stderr, name, err)
				return
			}
		}
		tc, cc := time.Since(t0), cputime.Process()-c0
		if *checkable && cert.LMP != nil && cert.LMP.Proof != nil {
			chk, err := net.CheckLMPProof(ctx, dom, rules, cert.LMP.Proof)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s ±%g: the proof does not check: %v\n", name, band, err)
			} else {
				fmt.Fprintf(os.Stderr, "%s ±%g: proof checks: %.6g $/MWh, %d LP bounds, %.2f s\n", name, band, chk.PerMW, chk.Steps, chk.Seconds)
			}
		}
		var extra [][]float64
		closed, leaves := "–", 1
		if cert.LMP != nil {
			leaves = max(1, cert.LMP.SplitLeaves)
			extra = append(extra, cert.LMP.IncumbentLoad)
			extra = append(extra, cert.LMP.Candidates...)
			closed = strconv.FormatBool(cert.LMP.Closed)
		}
		t1 := time.Now()
		found, err := net.SearchLMPChange(ctx, dom, 1, rules, grid.LMPSearchOptions{Extra: extra, Seed: 1, Steps: *steps, Climbs: 5, Congestion: true, PerBus: *perBus, FlowStarts: *flowStarts, Patterns: *patterns})
		if err != nil {
			fmt.Fprintln(os.Stderr, name, err)
			return
		}
		ts := time.Since(t1)
		if cert.Reason != "" {
			fmt.Fprintf(os.Stderr, "%s ±%g: %s\n", name, band, cert.Reason)
		}
		fmt.Printf("| %s | ±%g%% | %s | %.4g | %.4g | %.3g | %.1f | %.1f | %.1f | %.4g | %s | %d |\n", name, 100*band, cert.Method, cert.PerMW, found.PerMW,
			cert.PerMW/found.PerMW, tc.Seconds(), cc.Seconds(), ts.Seconds(), found.LMP, closed, leaves)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lmpbound:", err)
		os.Exit(2)
	}
}
