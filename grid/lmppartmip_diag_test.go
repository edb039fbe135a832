package grid

import (
	"context"
	"encoding/gob"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver/highs"
)

// TestLMPPartMIPDiag is a measurement run only on request
// (PRIVOPT_PARTMIP="bus,from-to,up|lo|free", e.g. "121,119-121,up";
// PRIVOPT_LMPDIAG_CASE, PRIVOPT_LMPDIAG_BAND as for TestLMPPerBusMIP;
// PRIVOPT_LMPDIAG_CUTOFF the cutoff; PRIVOPT_PARTMIP_WORK the part's
// tightening work, default 1.1e8; PRIVOPT_PARTMIP_PASSES, default 1;
// PRIVOPT_PARTMIP_ITERS the MIP's LP-iteration limit, default 14000;
// PRIVOPT_PARTMIP_BUSHI the bus's price bound as an earlier level left
// it; PRIVOPT_PARTMIP_LOOSE=1|0 the price cap as the MIP's own-bus bound
// (partMIPOptions.looseOwn) on or off; PRIVOPT_PARTMIP_RESTRICT=1|0 the restriction to π ≥ cutoff on or off;
// PRIVOPT_PARTMIP_LOG=1 prints HiGHS's MIP log; PRIVOPT_PARTMIP_PRESOLVE=off
// turns HiGHS's presolve off for the part's LPs and MIP; PRIVOPT_PARTMIP_CACHE a
// file keeping the default tightening's evidence between runs). It runs
// one part of the pattern split (partBound) as the split step does, after
// the default bound tightening, and reports its proven bound and the
// big-Ms (congestion dual bounds) of the part against the whole program's.
func TestLMPPartMIPDiag(t *testing.T) {
	spec := os.Getenv("PRIVOPT_PARTMIP")
	if spec == "" {
		t.Skip("a measurement: set PRIVOPT_PARTMIP to \"bus,from-to,up|lo|free\"")
	}
	f := strings.Split(spec, ",")
	id, _ := strconv.Atoi(f[0])
	side := map[string]int{"up": 1, "lo": -1, "free": 0}[f[2]]
	n, dom, rules, ev := cachedDiagEvidence(t, os.Getenv("PRIVOPT_PARTMIP_CACHE"))
	i := n.BusIndex[id]
	l := branchByEnds(t, n, f[1])
	envF := func(k string, def float64) float64 {
		if v, err := strconv.ParseFloat(os.Getenv(k), 64); err == nil {
			return v
		}
		return def
	}
	work := envF("PRIVOPT_PARTMIP_WORK", 1.1e8)
	passes := int(envF("PRIVOPT_PARTMIP_PASSES", 1))
	iters := int64(envF("PRIVOPT_PARTMIP_ITERS", 14000))
	cutoff := envF("PRIVOPT_LMPDIAG_CUTOFF", 0)
	o := partMIPDefaults
	if s := os.Getenv("PRIVOPT_PARTMIP_LOOSE"); s != "" {
		o.looseOwn = s == "1"
	}
	if v := envF("PRIVOPT_PARTMIP_BUSHI", 0); v > 0 {
		ev.PriceHi[i] = v // the bus's bound as a previous level left it
	}
	if s := os.Getenv("PRIVOPT_PARTMIP_RESTRICT"); s != "" {
		o.restrict = s == "1"
	}
	if os.Getenv("PRIVOPT_PARTMIP_LOG") != "" {
		o.mipLog = os.Stderr
	}
	o.inspect = func(pev *LMPEvidence, plo, phi []float64) {
		type mu struct {
			l       int
			up      bool
			whole   float64
			partVal float64
		}
		var ms []mu
		cut, kept := 0, 0
		for q := range pev.MuUp {
			for _, up := range []bool{true, false} {
				a, b := ev.MuUp[q], pev.MuUp[q]
				if !up {
					a, b = ev.MuLo[q], pev.MuLo[q]
				}
				if a == 0 {
					continue
				}
				if b == 0 {
					cut++
				} else {
					kept++
				}
				ms = append(ms, mu{q, up, a, b})
			}
		}
		sort.Slice(ms, func(a, b int) bool { return ms[a].partVal > ms[b].partVal })
		var lines []string
		for _, x := range ms[:min(12, len(ms))] {
			lines = append(lines, strconv.Itoa(n.BusID[n.From[x.l]])+"–"+strconv.Itoa(n.BusID[n.To[x.l]])+map[bool]string{true: " up ", false: " lo "}[x.up]+
				strconv.FormatFloat(x.whole, 'g', 5, 64)+" → "+strconv.FormatFloat(x.partVal, 'g', 5, 64)+
				" (flow "+strconv.FormatFloat(pev.FlowLo[x.l], 'g', 5, 64)+".."+strconv.FormatFloat(pev.FlowHi[x.l], 'g', 5, 64)+")")
		}
		above := 0
		for j := range phi {
			if phi[j] < piHiOf(ev, j)-1e-9 {
				above++
			}
		}
		t.Logf("part's tightening: %d passes; %d congestion limits kept, %d fixed at 0 in the part; %d price bounds lower than the whole program's; π_%d in [%.6g, %.6g]; largest dual bounds whole → part:\n  %s",
			pev.TighteningPasses, kept, cut, above, id, plo[i], phi[i], strings.Join(lines, "\n  "))
	}
	m, _, mlp := marketLPSolver(t, n, dom, rules)
	mlp.Close()
	need := priceNeed(m)
	hopt := highs.Options{}
	hopt.Threads = 1
	hopt.Presolve = os.Getenv("PRIVOPT_PARTMIP_PRESOLVE") // "", "on" or "off"
	t0 := time.Now()
	part := &kktPart{own: i, ownLoad: dom.Hi[i], l: l, side: side}
	b, used, err := n.partBound(context.Background(), dom, rules, hopt, ev, ev.PriceLo, ev.PriceHi, need, m, part, passes, work, cutoff, iters, 0, o, testWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bus %d, branch %s, part %s, cutoff %g, restrict %v: bound %.6g (tightened bound before %.6g), %.3g work units, %.1f s",
		id, f[1], f[2], cutoff, o.restrict, b, ev.PriceHi[i], used, time.Since(t0).Seconds())
}

func piHiOf(ev *LMPEvidence, j int) float64 { return ev.PriceHi[j] }

// cachedDiagEvidence is diagEvidence keeping its evidence in the file path
// (gob; empty path: no cache) for later runs on the same case and band.
func cachedDiagEvidence(t *testing.T, path string) (*Network, LoadDomain, MarketRules, *LMPEvidence) {
	t.Helper()
	if path != "" {
		if fh, err := os.Open(path); err == nil {
			defer fh.Close()
			var ev LMPEvidence
			if err := gob.NewDecoder(fh).Decode(&ev); err == nil {
				n, dom := diagCase(t)
				return n, dom, DefaultMarketRules(), &ev
			}
		}
	}
	n, dom, rules, ev := diagEvidence(t)
	if path != "" {
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		c := *ev
		c.Candidates, c.IncumbentLoad = nil, nil
		for j := range c.PriceLo {
			if math.IsInf(c.PriceLo[j], 0) || math.IsInf(c.PriceHi[j], 0) {
				t.Logf("bus %d: infinite price bound kept", n.BusID[j])
			}
		}
		if err := gob.NewEncoder(fh).Encode(&c); err != nil {
			t.Fatal(err)
		}
	}
	return n, dom, rules, ev
}
