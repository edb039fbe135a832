// Command n1scale measures the N-1 secure private cost release
// (opfrelease.Options.Security, `privopt opf --n-1`) on large PGLib cases:
// plan and release time, the Go heap's peak (runtime/metrics sampled every
// 100 ms; the process's peak RSS is what /usr/bin/time -v reports) and the
// release's cut count, for each network formulation asked for.
//
// Usage:
//
//	go run ./bench/n1scale [-cases 2383wp_k,10000_goc] [-post-factor 1] [-formulations b-theta,ptdf] [-band 0.1] [-cpuprofile FILE]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/opfrelease"
)

func main() {
	cases := flag.String("cases", "2383wp_k", "PGLib case names")
	factor := flag.Float64("post-factor", 1, "post-contingency limits as a multiple of the ratings")
	forms := flag.String("formulations", "b-theta", "network formulations (b-theta, ptdf, auto)")
	cpu := flag.String("cpuprofile", "", "write a CPU profile")
	search := flag.Bool("search", false, "with -band: also search for the largest change of the statistic when one bus load at the domain's midpoint moves by −α (one solve per bus), against the price-cap bound")
	band := flag.Float64("band", 0, "public domain: the case's loads (a published reference profile) ±band·|load| (0: the default domain)")
	flag.Parse()
	dir, err := shareddata.Dir()
	if err != nil {
		fmt.Fprintln(os.Stderr, "n1scale: shared data absent:", err)
		os.Exit(1)
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	fmt.Println("| case | formulation | post-factor | plan s | release s | peak Go heap MB | status |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, name := range strings.Split(*cases, ",") {
		for _, fs := range strings.Split(*forms, ",") {
			form, err := grid.ParseFormulation(fs)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			run(dir, name, form, fs, *factor, *band, *search)
		}
	}
}

func run(dir, name string, form grid.Formulation, fs string, factor, band float64, search bool) {
	c, err := grid.ReadCase(filepath.Join(dir, "pglib", "pglib_opf_case"+name+".m"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	net, err := grid.NewNetwork(c, grid.DCOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	pub, loads, err := opfrelease.Split(net)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	opt := opfrelease.DefaultOptions()
	opt.Security = &opfrelease.Security{PostFactor: factor}
	opt.Formulation = form
	opt.ChanceSeed = 1 // public; a fixed seed makes runs comparable
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	ctx := context.Background()
	t0 := time.Now()
	var plan *opfrelease.Plan
	if band > 0 {
		plan, _, err = opfrelease.ReferencePlan(ctx, net, opt, band)
	} else {
		plan, err = opfrelease.NewPlan(ctx, pub, opt)
	}
	if err != nil {
		close(done)
		fmt.Fprintln(os.Stderr, name, err)
		return
	}
	tp := time.Since(t0)
	t1 := time.Now()
	_, err = plan.Release(ctx, loads, opfrelease.ReleaseOptions{Label: name})
	tr := time.Since(t1)
	close(done)
	status := "ok"
	if err != nil {
		status = err.Error()
	}
	fmt.Printf("| %s | %s | %g | %.1f | %.1f | %.0f | %s |\n", name, fs, factor, tp.Seconds(), tr.Seconds(), float64(peak.Load())/1e6, status)
	if search && band > 0 {
		searchChange(ctx, plan, pub, name, factor)
	}
}

// searchChange moves one bus load at a time by −α from the domain's
// midpoint and reports the largest change of the statistic per MW (an
// adversarial lower bound on the sensitivity per α): when it reaches the
// price cap, the price-cap bound is exact and no certified bound can be
// below it.
func searchChange(ctx context.Context, plan *opfrelease.Plan, pub *opfrelease.PublicNetwork, name string, factor float64) {
	t0 := time.Now()
	dom := plan.LoadDomain()
	alpha := plan.Alpha
	mid := make([]float64, len(dom.Lo))
	for i := range mid {
		mid[i] = dom.Lo[i] + (dom.Hi[i]-dom.Lo[i])/2
	}
	stat := func(d []float64) (float64, error) {
		l, err := opfrelease.NewLoads(pub, d)
		if err != nil {
			return 0, err
		}
		r, err := plan.Release(ctx, l, opfrelease.ReleaseOptions{Diagnostics: true})
		if err != nil {
			return 0, err
		}
		return r.Diagnostics.Statistic, nil
	}
	v0, err := stat(mid)
	if err != nil {
		fmt.Fprintln(os.Stderr, name, err)
		return
	}
	best, at, n := 0.0, -1, 0
	for i := range mid {
		if mid[i]-alpha < dom.Lo[i] {
			continue
		}
		d := append([]float64(nil), mid...)
		d[i] -= alpha
		v, err := stat(d)
		if err != nil {
			fmt.Fprintln(os.Stderr, name, "bus", i, err)
			continue
		}
		n++
		if c := math.Abs(v0-v) / alpha; c > best {
			best, at = c, i
		}
	}
	fmt.Printf("search %s post-factor %g: %d buses moved by −%g MW from the midpoint; largest change %.4f $/h per MW at bus index %d (price cap %g; certified %s %.4g); %.1f s\n",
		name, factor, n, alpha, best, at, plan.PriceCap, plan.Provenance, plan.Sensitivity, time.Since(t0).Seconds())
}
