package grid

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/privopt/privopt/solver/highs"
)

// TestLMPLevelSchedule is a measurement run only on request
// (PRIVOPT_LEVELDIAG_WORK = the split budget in work units, e.g. 1.2e10;
// PRIVOPT_LMPDIAG_CASE and PRIVOPT_LMPDIAG_BAND as for the other
// diagnostics; PRIVOPT_LEVELDIAG_TIME the bench's -time-limit, default 60 s).
// It runs the default route with the pattern split and reports, per level
// (cutoff) and per split bus, the bound before and after, the work used,
// the parts (relaxation, tightened bound, the part MIP's status and stop
// reason), and the work of every level.
func TestLMPLevelSchedule(t *testing.T) {
	s := os.Getenv("PRIVOPT_LEVELDIAG_WORK")
	if s == "" {
		t.Skip("a measurement: set PRIVOPT_LEVELDIAG_WORK to the split's work units")
	}
	w, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	limit := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("PRIVOPT_LEVELDIAG_TIME")); err == nil {
		limit = d
	}
	n, dom := diagCase(t)
	var log bytes.Buffer
	opt := LMPBoundOptions{TimeLimit: limit, PatternSplitWork: w, Progress: io.MultiWriter(&log, os.Stderr)}
	t0 := time.Now()
	ev, reason, err := n.lmpBound(context.Background(), dom, DefaultMarketRules(), opt)
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	t.Logf("certified max π %.6g, %.1f s wall, split budget %.3g", ev.MaxPrice, time.Since(t0).Seconds(), w)
	// The part lines of the progress output, by bus.
	partRe := regexp.MustCompile(`bus (\d+), branch (\S+) part ([+-]\d): (.*)`)
	parts := map[int][]string{}
	for _, line := range bytes.Split(log.Bytes(), []byte("\n")) {
		if m := partRe.FindSubmatch(line); m != nil {
			id, _ := strconv.Atoi(string(m[1]))
			parts[id] = append(parts[id], string(m[3])+": "+string(m[4]))
		}
	}
	level, levelWork, cut := 0, 0.0, -1.0
	for _, sp := range ev.PatternSplits {
		if sp.Cutoff != cut {
			if level > 0 {
				t.Logf("level %d: %.3g work units", level, levelWork)
			}
			level, levelWork, cut = level+1, 0, sp.Cutoff
			t.Logf("level %d, cutoff %.6g", level, cut)
		}
		levelWork += sp.Work
		t.Logf("  bus %d by %d–%d: %.6g → %.6g, %.3g work", sp.Bus, sp.From, sp.To, sp.Before, sp.After, sp.Work)
	}
	if level > 0 {
		t.Logf("level %d: %.3g work units", level, levelWork)
	}
	for id, ls := range parts {
		for _, l := range ls {
			t.Logf("bus %d part %s", id, l)
		}
	}
	t.Logf("work left: budget %.3g", w)
}

// TestLMPLevelShares is a measurement run only on request
// (PRIVOPT_LEVELDIAG_BUSES = bus IDs, e.g. "121,173,63";
// PRIVOPT_LEVELDIAG_SHARES = per-bus work shares, e.g. "5e7,1e8,2e8";
// PRIVOPT_LEVELDIAG_MODES = "t1" (one tightening pass per part, half of a
// part's share to it, half to its MIP), "t3" (three passes), "m0" (no
// tightening, the part's share to its MIP), "m0all" (no tightening, every
// part MIP may use the whole share left); PRIVOPT_LEVELDIAG_K the level's
// size, default 20: the cutoff is the (K+1)-th bound). After the default
// tightening it splits each bus with each share and mode against the
// level's cutoff, from the same bounds, and reports the bound and the
// work used: how much work a bus needs to reach the cutoff.
func TestLMPLevelShares(t *testing.T) {
	busSpec := os.Getenv("PRIVOPT_LEVELDIAG_BUSES")
	if busSpec == "" {
		t.Skip("a measurement: set PRIVOPT_LEVELDIAG_BUSES")
	}
	var shares []float64
	for _, s := range strings.Split(os.Getenv("PRIVOPT_LEVELDIAG_SHARES"), ",") {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		shares = append(shares, v)
	}
	modes := strings.Split(os.Getenv("PRIVOPT_LEVELDIAG_MODES"), ",")
	k := 20
	if s := os.Getenv("PRIVOPT_LEVELDIAG_K"); s != "" {
		k, _ = strconv.Atoi(s)
	}
	n, dom, rules, ev := diagEvidence(t)
	m, _, mlp := marketLPSolver(t, n, dom, rules)
	mlp.Close()
	need := priceNeed(m)
	hopt := highs.Options{}
	hopt.Threads = 1
	sel, cutoff, _ := patternSplitSet(m.vars, ev.PriceHi, k, 0)
	t.Logf("level of %d buses: cutoff %.6g; %d above it", k, cutoff, len(sel))
	type job struct {
		id    int
		mode  string
		share float64
		bound float64
		used  float64
		log   bytes.Buffer
	}
	var jobs []*job
	for _, s := range strings.Split(busSpec, ",") {
		id, _ := strconv.Atoi(s)
		for _, mode := range modes {
			for _, sh := range shares {
				jobs = append(jobs, &job{id: id, mode: mode, share: sh})
			}
		}
	}
	ctx := context.Background()
	runOrdered(len(jobs), func(q int) {
		j := jobs[q]
		i := n.BusIndex[j.id]
		jev := *ev
		jev.Candidates = nil
		l, size, parts, used, err := n.patternBranch(ctx, dom, rules, hopt, &jev, ev.PriceLo, ev.PriceHi, i)
		if err != nil || l < 0 {
			j.bound, j.used = math.NaN(), used
			return
		}
		part := (j.share - used) / float64(parts)
		passes, tighten, mip := 1, part/2, part/2
		switch j.mode {
		case "t3":
			passes = 3
		case "m0":
			passes, tighten, mip = 0, 0, part
		case "m0all":
			passes, tighten, mip = 0, 0, j.share-used
		}
		b, u, err := n.patternPartBound(ctx, dom, rules, hopt, &jev, ev.PriceLo, ev.PriceHi, need, m, i, l, passes, tighten, cutoff, int64(mip/size), 0, &j.log)
		if err != nil {
			t.Error(err)
		}
		j.bound, j.used = b, used+u
	})
	for _, j := range jobs {
		i := n.BusIndex[j.id]
		reached := j.bound <= cutoff
		t.Logf("bus %d (bound %.6g) mode %s share %.3g: → %.6g (reached %v), %.3g work used", j.id, ev.PriceHi[i], j.mode, j.share, j.bound, reached, j.used)
		for _, line := range strings.Split(strings.TrimSpace(j.log.String()), "\n") {
			if strings.Contains(line, "MIP with cutoff") {
				t.Logf("    %s", strings.TrimPrefix(line, "lmp-bound: "))
			}
		}
	}
}
