// Command lmpcert measures checkable "lmp-bound" certificates
// (grid.LMPBoundOptions.Checkable, verified by grid.Network.CheckLMPProof
// without a solver) on PGLib cases with public domains ±band around PGLib's
// nominal loads (times a scale), costs as 20 secant segments, PowerModels DC
// model, cap 1,000 $/MWh, floor 0, α = 1 MW: the value the proof covers, the
// HiGHS MIP's proven bound of the same run, the certificate's size (JSON
// bytes), certification and check times. With -baseline it also certifies
// without a proof (the round-3 path) for comparison.
//
// Usage:
//
//	go run ./bench/lmpcert [-cases 5_pjm,14_ieee,...] [-bands 0.1,0.3] [-time-limit 60s] [-tree-nodes 400] [-baseline]
//
// A case name may carry a load scale after "x", e.g. 118_ieee x1.336.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
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
	limit := flag.Duration("time-limit", 60*time.Second, "certification time budget (LMPBoundOptions.TimeLimit)")
	nodes := flag.Int("tree-nodes", 0, "LMPBoundOptions.TreeNodes (0: the default)")
	baseline := flag.Bool("baseline", false, "also certify without a proof (the re-derivation-verified path)")
	flag.Parse()
	dir, err := shareddata.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lmpcert: shared data absent:", err)
		os.Exit(1)
	}
	rules := grid.DefaultMarketRules()
	fmt.Println("| case | domain | method | checked | proof $/MWh | HiGHS MIP $/MWh | baseline $/MWh | tree closed | size kB | certify CPU s | check s | LP bounds checked |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	err = pglibcase.Each(dir, *cases, *bands, func(name string, net *grid.Network, band float64, dom grid.LoadDomain) {
		ctx := context.Background()
		base := "–"
		if *baseline {
			b, err := net.CertifyCostBound(ctx, dom, 1, rules, grid.LMPBoundOptions{TimeLimit: *limit})
			if err != nil {
				fmt.Fprintln(os.Stderr, name, err)
				return
			}
			base = fmt.Sprintf("%.5g", b.PerMW)
		}
		c0 := cputime.Process()
		cert, err := net.CertifyCostBound(ctx, dom, 1, rules, grid.LMPBoundOptions{TimeLimit: *limit, Checkable: true, TreeNodes: *nodes, Progress: os.Stderr})
		if err != nil {
			fmt.Fprintln(os.Stderr, name, err)
			return
		}
		cc := cputime.Process() - c0
		js, _ := json.Marshal(net.NewCertificateFile(cert, dom, false, 20))
		checked, proof, mip, closed, chk, steps := "–", "–", "–", "–", "–", "–"
		if cert.LMP != nil && cert.LMP.Proof != nil {
			mip = fmt.Sprintf("%.5g", max(cert.LMP.MaxPrice, cert.LMP.MinPrice))
			proof = fmt.Sprintf("%.5g", cert.LMP.Proof.PerMW)
			closed = "no tree"
			if tr := cert.LMP.Proof.Trees; len(tr) > 0 {
				nodes := 0
				for _, t := range tr {
					nodes += len(t.Nodes)
				}
				closed = fmt.Sprintf("%v (%d trees, %d nodes)", cert.LMP.Proof.TreesClosed, len(tr), nodes)
			}
			t1 := time.Now()
			r, err := net.CheckLMPProof(ctx, dom, rules, cert.LMP.Proof)
			chk = fmt.Sprintf("%.2f", time.Since(t1).Seconds())
			if err != nil {
				checked = "no: " + err.Error()
			} else {
				checked = "yes"
				steps = strconv.Itoa(r.Steps)
			}
		} else if cert.Method != "lmp-bound" {
			checked = "n/a (" + cert.Method + ")"
		}
		fmt.Printf("| %s | ±%g%% | %s | %s | %s | %s | %s | %s | %.1f | %.1f | %s | %s |\n", name, 100*band, cert.Method, checked, proof, mip, base,
			closed, float64(len(js))/1000, cc.Seconds(), chk, steps)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "lmpcert:", err)
		os.Exit(2)
	}
}
