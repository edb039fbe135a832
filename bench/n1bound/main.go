// Command n1bound measures the N-1 price bound (grid.Network.CertifyN1LMPBound,
// `privopt certify --n-1 --post-factor F`) against the largest adjacent
// change an adversarial search finds on the N-1 program
// (grid.Network.SearchN1LMPChange), on PGLib cases with public domains
// ±band around the nominal loads (20 secant segments, PowerModels DC model,
// cap 1,000 $/MWh, floor 0, α = 1 MW), and prints the screening counts.
//
// Usage:
//
//	go run ./bench/n1bound [-cases 118_ieee] [-bands 0.1] [-post-factor 1.5] [-time-limit 60s] [-verify]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/privopt/privopt/bench/internal/cputime"
	"github.com/privopt/privopt/bench/internal/pglibcase"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
)

func main() {
	cases := flag.String("cases", "118_ieee", "PGLib case names")
	bands := flag.String("bands", "0.1", "domain half-widths (fractions of the nominal loads)")
	factor := flag.Float64("post-factor", 1.5, "post-contingency limits as a multiple of the ratings")
	limit := flag.Duration("time-limit", 60*time.Second, "LMPBoundOptions.TimeLimit of each KKT bound")
	rounds := flag.Int("rounds", 3, "N1BoundOptions.Rounds")
	perBus := flag.Bool("per-bus-mip", false, "LMPBoundOptions.PerBusMIP for the final KKT bound (the search's price as the cutoff)")
	work := flag.Float64("work", 0, "LMPBoundOptions.TighteningWork (0: 2.4e7 per second of -time-limit)")
	mipWork := flag.Float64("mip-work", 0, "LMPBoundOptions.MIPWork (0: 8e6 per second of -time-limit)")
	target := flag.Float64("target-ratio", 0, "N1BoundOptions.TargetRatio (0: grid.DefaultN1TargetRatio; -1: none, MIPs to their budgets)")
	steps := flag.Int("search-steps", 100, "LMPSearchOptions.Steps of the search")
	verify := flag.Bool("verify", false, "re-derive each certificate (grid.Network.VerifyCostCertificateContext) and print the result and its CPU s to stderr")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "n1bound:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "n1bound:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	dir, err := shareddata.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "n1bound: shared data absent:", err)
		os.Exit(1)
	}
	rules := grid.DefaultMarketRules()
	fmt.Println("| case | domain | post-factor | rows | after interval | seeded pairs | kept pairs | KKT-box interval drops | implied drops | LP drops | rounds | method | certified $/MWh | found $/MWh | ratio | certify CPU s | screening s | search s | dropped rows binding at the search's pair |")
	fmt.Println("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	err = pglibcase.Each(dir, *cases, *bands, func(name string, net *grid.Network, band float64, dom grid.LoadDomain) {
		ctx := context.Background()
		c0 := cputime.Process()
		cert, ev, err := net.CertifyN1LMPBound(ctx, dom, 1, rules, grid.N1BoundOptions{PostFactor: *factor, Rounds: *rounds, TargetRatio: *target,
			Bound: grid.LMPBoundOptions{TimeLimit: *limit, Progress: os.Stderr, PerBusMIP: *perBus, TighteningWork: *work, MIPWork: *mipWork}})
		if err != nil {
			fmt.Fprintln(os.Stderr, name, err)
			return
		}
		cc := cputime.Process() - c0
		if cert.Reason != "" {
			fmt.Fprintf(os.Stderr, "%s ±%g: %s\n", name, band, cert.Reason)
		}
		if *verify {
			v0 := cputime.Process()
			verr := net.VerifyCostCertificateContext(ctx, cert, dom)
			fmt.Fprintf(os.Stderr, "%s ±%g: verification: %v (%.1f CPU s)\n", name, band, map[bool]string{true: "re-derived", false: fmt.Sprint(verr)}[verr == nil], (cputime.Process() - v0).Seconds())
		}
		var extra [][]float64
		if cert.LMP != nil {
			extra = append(extra, cert.LMP.IncumbentLoad)
			extra = append(extra, cert.LMP.Candidates...)
		}
		t1 := time.Now()
		found, dropped, err := net.SearchN1LMPChange(ctx, dom, 1, rules, ev, grid.LMPSearchOptions{Extra: extra, Seed: 1, Steps: *steps, Climbs: 5, Congestion: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, name, err)
			return
		}
		ts := time.Since(t1)
		fmt.Printf("| %s | ±%g%% | %g | %d | %d | %d | %d | %d | %d | %d | %d | %s | %.6g | %.6g | %.5g | %.1f | %.1f | %.1f | %d |\n", name, 100*band, *factor,
			ev.Rows, ev.Rows-ev.ZeroLODF-ev.IntervalDropped, ev.Seeded, len(ev.Kept), ev.KKTIntervalDropped, ev.ImpliedDropped, ev.LPDropped, ev.Rounds,
			cert.Method, cert.PerMW, found.PerMW, cert.PerMW/found.PerMW, cc.Seconds(), ev.ScreenSeconds, ts.Seconds(), dropped)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "n1bound:", err)
		os.Exit(2)
	}
}
