package grid

import (
	"bytes"
	"context"
	"io"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// LMPPatternSplit records one congestion-pattern split of the default
// route (patternSplitStep): bus Bus's price bound went from Before to
// After (the largest of the parts' proven bounds, patternPartBound) by the
// parts of the branch From–To, whose part MIPs ran with the row π ≥ Cutoff
// (the largest bound of the buses not split); Work is the work units it
// used. Verification re-runs the same step with the same budget
// (LMPEvidence.PatternSplitWork), so the records are a trace, not a proof.
type LMPPatternSplit struct {
	Bus    int     `json:"bus"`
	From   int     `json:"from"`
	To     int     `json:"to"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Cutoff float64 `json:"cutoff"`
	Work   float64 `json:"work"`
}

// patternSplitMaxBuses is the number of buses the split step works on:
// the varying buses with the largest price bounds. Measured on 300_ieee
// ±10% (BENCHMARKS.md, "End of round 11"): with 8 the cutoff is the 9th
// bound, 489.9; with 20 it is the 21st, 356.9, and one tightening pass per
// part brings 19 of the 20 buses to it at about 4·10⁸ work units each.
const patternSplitMaxBuses = 20

// patternSplitStep lowers the price bounds piHi of the buses holding the
// largest bounds by the congestion-pattern split of lmppattern.go, within
// the deterministic work budget work (work units as TighteningWork). The
// set S: the patternSplitMaxBuses varying buses with the largest bounds
// (fewer when fewer exceed the cutoff); the cutoff: the largest bound of
// the varying buses outside S (at least KnownPrice). The buses of S are
// split in the rounds of patternSplitLevel: part MIPs first, then one and
// three tightening passes per part for the buses still above the cutoff.
//
// Levels: when every bus of S ends at most the cutoff (the certified
// maximum is then the cutoff) and the work left is at least
// patternSplitGrowth times the work the level used, the step runs again
// with twice the buses: S the 2k varying buses with the largest bounds
// now, the cutoff the bound of the (2k+1)-th (patternSplitLevel). Buses
// split before are split again against the lower cutoff, starting from
// their lowered bounds. It stops at a level some bus of S does not reach
// (or that it gives up, patternSplitGiveUp), or when the cutoff would not
// fall. With a target (LMPBoundOptions.PatternSplitTarget = τ) the step
// runs one level instead (patternTargetLevel). Measured on 118_ieee ±30% (BENCHMARKS.md,
// "End of round 12"): the first level ends at its cutoff, the 21st bound
// 837.757, with two thirds of the budget left.
//
// Branch: the one carrying the bus's relaxed price, the largest congestion
// dual share |μ_l · PTDF_l,i| at the maximizer of the linear relaxation of
// the bus's KKT program (own load at its upper end). A part MIP proven
// infeasible bounds the part by the cutoff, one stopped by its budget by
// max(cutoff, its proven dual bound) (patternPartBound); either is a bound
// on π_i at every KKT point over the domain (the parts cover them,
// lmppattern.go), so the new piHi[i] = min(old, largest part bound) is
// sound; the certified maximum never falls below the cutoff (a bus bound
// outside S). Only LP bounds and proven MIP dual bounds enter. It runs
// only for max π (sign +1) (in a checkable proof, ev.rec, the checkable
// split of lmppatternproof.go runs instead), not on the
// N-1 program and not in a box of the spatial split.
func (n *Network) patternSplitStep(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, need []bool, m *marketLP, known, work float64, opt LMPBoundOptions) error {
	if work <= 0 || n.n1Program || opt.parent != nil || len(m.vars) < 2 {
		return nil
	}
	if ev.rec != nil {
		return n.patternSplitCheckable(ctx, dom, rules, hopt, ev, piLo, piHi, m, known, opt) // lmppatternproof.go
	}
	left := work
	top := math.Inf(1) // the largest bound of a varying bus after the previous level
	if opt.PatternSplitTarget > 1 && known > 0 {
		return n.patternTargetLevel(ctx, dom, rules, hopt, ev, piLo, piHi, need, m, known, work, opt)
	}
	k0 := patternSplitMaxBuses
	if opt.splitBuses > 0 {
		k0 = opt.splitBuses
	}
	for k := k0; ; k *= 2 {
		sel, cutoff, all := patternSplitSet(m.vars, piHi, k, known)
		if cutoff <= 0 || math.IsInf(cutoff, 0) || cutoff >= top {
			return nil
		}
		ev.PatternSplitWork = work
		if len(sel) == 0 {
			return nil
		}
		start := left
		reached, err := n.patternSplitLevel(ctx, dom, rules, hopt, ev, piLo, piHi, need, m, sel, cutoff, &left, opt)
		if err != nil || !reached {
			return err
		}
		// Every bus of the level is at most the cutoff: the certified
		// maximum is now the cutoff. The next level doubles the buses (the
		// cutoff falls to the bound of the (2k+1)-th); it starts only when
		// the work left is at least twice this level's.
		top = cutoff
		if all || left < patternSplitGrowth*(start-left) {
			return nil
		}
	}
}

// patternTargetLevel is the split with a target τ
// (LMPBoundOptions.PatternSplitTarget): one level, at the cutoff τ·p with p
// from patternTargetFloor, over every varying bus whose (finite) bound is
// above it, largest first, within work units, in the rounds of
// patternSplitLevel. When every bus ends at most the cutoff, the certified
// maximum is τ·p.
func (n *Network) patternTargetLevel(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, need []bool, m *marketLP, known, work float64, opt LMPBoundOptions) error {
	ev.PatternSplitTarget, ev.PatternSplitWork = opt.PatternSplitTarget, work
	cutoff, err := n.patternTargetFloor(ctx, dom, rules, ev, known, opt)
	if err != nil {
		return err
	}
	var sel []int
	for _, i := range m.vars {
		if piHi[i] > cutoff && !math.IsInf(piHi[i], 0) {
			sel = append(sel, i)
		}
	}
	sort.SliceStable(sel, func(a, b int) bool { return piHi[sel[a]] > piHi[sel[b]] })
	progress(opt.Progress, "lmp-bound: pattern split target level: cutoff %.6g = %.6g × the price found %.6g, %d buses above it", cutoff, opt.PatternSplitTarget, cutoff/opt.PatternSplitTarget, len(sel))
	if len(sel) == 0 {
		return nil
	}
	left := work
	_, err = n.patternSplitLevel(ctx, dom, rules, hopt, ev, piLo, piHi, need, m, sel, cutoff, &left, opt)
	return err
}

// patternTargetSearch are the options of the search that patternTargetFloor
// runs before the target's level (deterministic, no time limit): the
// congestion vertices, the flow starts and a climb per varying bus, from the
// load vectors the bound has seen (ev.Candidates: the tightening LPs'
// maximizers and the part MIPs' incumbents).
var patternTargetSearch = LMPSearchOptions{Seed: 1, Steps: 200, Climbs: 5, Congestion: true, PerBus: 50, FlowStarts: true}

// patternTargetFloor returns PatternSplitTarget × p, p the larger of known
// and the largest |π| at a varying bus that a search (patternTargetSearch)
// from ev.Candidates finds. The search sees only the public domain and
// points derived from it, so the floor is public; p is a price the market
// LP takes at a load vector of the domain, so the target keeps its meaning
// (the certified value at most τ times a price that occurs).
func (n *Network) patternTargetFloor(ctx context.Context, dom LoadDomain, rules MarketRules, ev *LMPEvidence, known float64, opt LMPBoundOptions) (float64, error) {
	so := patternTargetSearch
	so.Extra = ev.Candidates
	t := time.Now()
	s, err := n.SearchLMPChange(ctx, dom, 1, rules, so)
	if err != nil {
		return 0, err
	}
	p := math.Max(known, s.LMP)
	progress(opt.Progress, "lmp-bound: pattern split target: a search from %d load vectors the bound has seen finds |π| %.6g $/MWh (known before: %.6g; %d evaluations, %.1f s)", len(ev.Candidates), s.LMP, known, s.Evaluations, time.Since(t).Seconds())
	return opt.PatternSplitTarget * p, nil
}

// patternSplitTightenShare is the share of the split's budget
// (PatternSplitWork) that the split with a target moves to the bound
// tightening before it (splitTighteningShare). Measured on 300_ieee ±10%
// at a split budget of 4.8·10¹⁰ with the target 1.5 (BENCHMARKS.md, "Split
// target, round 15"): with the default tightening work (1.44·10⁹, 5
// passes) 57 buses stay above the target's cutoff and the split uses
// 9.56·10⁹ units (395 CPU s in all); with 2.88·10⁹ (14 passes) 39 buses
// and 3.72·10⁹ units (210 CPU s); with 5.76·10⁹ (33 passes) 33 buses and
// 2.74·10⁹ units (242 CPU s): each further pass lowers the largest bounds
// by about 5% but costs as much as splitting one or two buses.
const patternSplitTightenShare = 1.0 / 32

// splitTighteningShare returns the work units the bound tightening gets on
// top of its default when a split with a target will run after it (a
// split budget, a target above 1 and a known price, no checkable proof, not
// the N-1 program, not a box of the spatial split, at least two varying
// buses): patternSplitTightenShare of the split's budget, taken from it.
// Fewer buses then stay above the target's cutoff, and the buses that do
// have tighter programs (see patternSplitTightenShare). Re-derivation
// passes the recorded tightening work, so it is not applied twice.
func (n *Network) splitTighteningShare(opt LMPBoundOptions, ev *LMPEvidence, m *marketLP) float64 {
	if opt.PatternSplitWork <= 0 || !(opt.PatternSplitTarget > 1) || opt.KnownPrice <= 0 || ev.rec != nil || opt.Checkable ||
		n.n1Program || opt.parent != nil || len(m.vars) < 2 {
		return 0
	}
	return patternSplitTightenShare * opt.PatternSplitWork
}

// patternSplitSet returns the buses a split level works on, the varying
// buses (vars) among the k with the largest bounds piHi whose bound is
// finite and above the cutoff, and the cutoff: the (k+1)-th largest bound,
// at least known (k at most len(vars) − 1; all reports that k reached it).
func patternSplitSet(vars []int, piHi []float64, k int, known float64) (sel []int, cutoff float64, all bool) {
	vars = append([]int(nil), vars...)
	sort.SliceStable(vars, func(a, b int) bool { return piHi[vars[a]] > piHi[vars[b]] })
	k = min(k, len(vars)-1)
	cutoff = math.Max(known, piHi[vars[k]])
	for _, i := range vars[:k] {
		if piHi[i] > cutoff && !math.IsInf(piHi[i], 0) {
			sel = append(sel, i)
		}
	}
	return sel, cutoff, k == len(vars)-1
}

// patternSplitGrowth is the ratio of the work left to the last level's
// work at which the split step starts a level with twice the buses (each
// bus of a level with a lower cutoff costs at least as much as before).
const patternSplitGrowth = 2

// patternSplitPasses are the tightening passes of each part in the rounds
// of a split level (patternSplitLevel), and patternSplitShares the share
// of the work left at a round's start that the round may spend (the
// last: all of it). Round 0 runs each part's MIP (with the row π_i ≥
// cutoff) on the part's relaxation without tightening it first, each part
// MIP with an LP-iteration limit of the bus's whole share: measured on
// 300_ieee ±10% at the 21st bound as the cutoff (BENCHMARKS.md, "Split
// schedule on 300 buses, round 14"), such a MIP needs 14,000–34,000 LP
// iterations at its root (10⁸–3.5·10⁸ work units per bus) and then proves
// the cutoff in 1–36 nodes for four of the six buses with the largest
// bounds (121, 63, 173, 120), where one tightening pass per part with half of each part's
// share to its MIP did not reach the cutoff with 4·10⁸ units for three of
// them. Round 0 may spend a third of the work left, leaving
// patternSplitGrowth times its work for the next level. The buses still
// above the cutoff get one tightening pass per part in round 1 (with half
// of each part's share to its tightening, half to its MIP: enough for all
// buses of the first level of 300_ieee ±10% at 4.5·10⁸ units per bus in
// round 11) and three in round 2 (the work left).
var (
	patternSplitPasses = [...]int{0, 1, 3}
	patternSplitShares = [...]float64{1.0 / (1 + patternSplitGrowth), 0.75, 1}
)

// patternSplitGiveUp: a level whose first round (its part MIPs) leaves
// more than this share of its buses (of those it split) above the cutoff
// is given up before its tightening rounds (the step ends there; the certified maximum stays
// the previous level's). Measured on 300_ieee ±10% and 118_ieee ±30%
// (BENCHMARKS.md, "Split schedule on 300 buses, round 14"): the levels
// that reached their cutoff left at most 2 of the 20 or 40 buses above
// it after the first round; the levels that did not left 12 of 40 and 42
// of 80 and spent 7·10⁹ and 1.1·10¹⁰ work units in their later rounds for
// no bound at the certified maximum.
const patternSplitGiveUp = 0.25

// patternSplitWave is the number of buses of a round split at the same
// time, from the same bounds (patternSplitLevel). It is a constant, not the
// number of cores, so that the bounds do not depend on the machine.
const patternSplitWave = 2

// patternSplitJob is the outcome of one bus's split in a round of
// patternSplitLevel, kept until the round's jobs are merged in order.
type patternSplitJob struct {
	bus, branch int
	bound, used float64
	cands       [][]float64
	stopped     bool
	log         bytes.Buffer
	err         error
}

// patternSplitLevel splits the buses sel (largest bound first) with the
// cutoff in the two rounds of patternSplitPasses within *left work units
// (decreased by the work used), and reports whether every bus of sel ended
// at most the cutoff.
//
// Round 0 takes the buses of sel, round 1 those still above the cutoff,
// nearest the cutoff first (the work a bus leaves unused passes to the
// buses after it, so the farthest gets the most). A round's buses are
// interleaved (the q-th of the first half, then the q-th of the second)
// and split in waves of patternSplitWave: the buses of a wave are split
// concurrently (at most runtime.GOMAXPROCS(0) at a time) from the bounds
// at the wave's start, each with the round's work left (its share
// patternSplitShares of the work left at its start, less what its earlier
// waves used) divided by the round's buses not yet split; the results (bounds, records, progress lines, search
// candidates) are merged in the wave's order once all have ended. The
// interleaving puts buses with equal bounds (neighbours, which often lower
// each other's programs) in different waves. A bus's work depends only on
// the bounds at its wave's start and its share, so bounds, records and
// work are the same for any GOMAXPROCS and any timing (except when a part
// MIP stops by its wall-clock net, which marks the evidence not
// reproducible).
func (n *Network) patternSplitLevel(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, need []bool, m *marketLP, sel []int, cutoff float64, left *float64, opt LMPBoundOptions) (bool, error) {
	failed := 0 // buses split in round 0 that ended above the cutoff
	for round, passes := range patternSplitPasses {
		start := *left
		var todo []int
		for _, i := range sel {
			if piHi[i] > cutoff {
				todo = append(todo, i)
			}
		}
		if round == 1 && float64(failed) > patternSplitGiveUp*float64(len(sel)) {
			// Too many buses of the level above the cutoff after their
			// part MIPs: the level is given up, its work kept.
			progress(opt.Progress, "lmp-bound: pattern split level with cutoff %.6g given up: %d of its %d buses above the cutoff after their part MIPs", cutoff, failed, len(sel))
			return false, nil
		}
		if round > 0 {
			sort.SliceStable(todo, func(a, b int) bool { return piHi[todo[a]] < piHi[todo[b]] })
		}
		order := make([]int, 0, len(todo))
		h := (len(todo) + 1) / 2
		for q := 0; q < h; q++ {
			order = append(order, todo[q])
			if q+h < len(todo) {
				order = append(order, todo[q+h])
			}
		}
		for w := 0; w < len(order) && *left > 0; w += patternSplitWave {
			wave := order[w:min(w+patternSplitWave, len(order))]
			// The round's work: its share of the work left at its start
			// (start), less what its earlier waves used.
			per := (*left - start*(1-patternSplitShares[round])) / float64(len(order)-w)
			if per <= 0 {
				break
			}
			snap := append([]float64(nil), piHi...)
			jobs := make([]patternSplitJob, len(wave))
			runOrdered(len(wave), func(q int) {
				jobs[q] = n.patternSplitBus(ctx, dom, rules, hopt, ev, piLo, snap, need, m, wave[q], cutoff, passes, per, opt)
			})
			for q := range jobs {
				j := &jobs[q]
				if opt.Progress != nil {
					opt.Progress.Write(j.log.Bytes())
				}
				*left -= j.used
				ev.Candidates = append(ev.Candidates, j.cands...)
				ev.splitStopped = ev.splitStopped || j.stopped
				if j.err != nil {
					return false, j.err
				}
				if j.branch < 0 {
					continue
				}
				i, l := j.bus, j.branch
				before := piHi[i]
				if j.bound < piHi[i] { // never a NaN
					piHi[i] = j.bound
				}
				if round == 0 && piHi[i] > cutoff {
					failed++
				}
				ev.PatternSplits = append(ev.PatternSplits, LMPPatternSplit{Bus: n.BusID[i], From: n.BusID[n.From[l]], To: n.BusID[n.To[l]], Before: before, After: piHi[i], Cutoff: cutoff, Work: j.used})
				progress(opt.Progress, "lmp-bound: pattern split of bus %d by branch %d–%d (cutoff %.6g, %d tightening passes per part): price bound %.6g → %.6g ($/MWh), %.3g work units",
					n.BusID[i], n.BusID[n.From[l]], n.BusID[n.To[l]], cutoff, passes, before, piHi[i], j.used)
			}
		}
	}
	for _, i := range sel {
		if piHi[i] > cutoff {
			return false, nil
		}
	}
	return true, nil
}

// patternSplitBus splits bus i in one round of patternSplitLevel with per
// work units and the given tightening passes, reading the bounds piLo,
// piHi and the evidence ev without changing them: the branch
// (patternBranch), then for p non-empty parts each part gets a 1/(2p)
// share of the work left for its own tightening and a 1/(2p) share as its
// MIP's LP-iteration limit (the share divided by the KKT program's rows
// plus columns); without tightening passes every part MIP's limit is the
// bus's whole work left (a bus may then use up to p times its share: the
// work used is counted, so the budget is a deterministic soft limit, as
// the tightening's).
func (n *Network) patternSplitBus(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, need []bool, m *marketLP, i int, cutoff float64, passes int, per float64, opt LMPBoundOptions) (j patternSplitJob) {
	j.bus, j.branch, j.bound = i, -1, piHi[i]
	var w io.Writer
	if opt.Progress != nil {
		w = &j.log
	}
	jev := *ev // the split's own evidence: candidates and stop flag are merged later
	jev.Candidates, jev.splitStopped, jev.PatternSplits = nil, false, nil
	l, size, parts, used, err := n.patternBranch(ctx, dom, rules, hopt, &jev, piLo, piHi, i)
	j.used = used
	if err != nil || l < 0 {
		j.err = err
		return j
	}
	share := (per - used) / float64(2*parts)
	if share <= 0 {
		return j
	}
	tighten, mip := share, share
	if passes == 0 {
		tighten, mip = 0, per-used
	}
	b, u, err := n.patternPartBound(ctx, dom, rules, hopt, &jev, piLo, piHi, need, m, i, l, passes, tighten, cutoff, int64(mip/size), patternSplitSafety(opt), w)
	j.used += u
	j.cands, j.stopped = jev.Candidates, jev.splitStopped
	if err != nil {
		j.err = err
		return j
	}
	j.branch, j.bound = l, b
	return j
}

// runOrdered calls f(0), …, f(count−1) on min(GOMAXPROCS, count)
// goroutines and returns when all have returned; f(q) writes only its own
// results, which the caller merges in the order of q.
func runOrdered(count int, f func(q int)) {
	workers := min(runtime.GOMAXPROCS(0), count)
	if workers <= 1 {
		for q := 0; q < count; q++ {
			f(q)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				q := int(next.Add(1)) - 1
				if q >= count {
					return
				}
				f(q)
			}
		}()
	}
	wg.Wait()
}

// patternBranch solves the linear relaxation of bus i's KKT program (own
// load at its upper end) and returns the branch with the largest
// congestion dual share |μ_l · PTDF_l,i| at its maximizer (−1: none), the
// program's rows plus columns, its number of non-empty pattern parts and
// the work used.
func (n *Network) patternBranch(ctx context.Context, dom LoadDomain, rules MarketRules, hopt highs.Options, ev *LMPEvidence,
	piLo, piHi []float64, i int) (int, float64, int, float64, error) {
	k, err := n.buildKKT(dom, rules, ev, piLo, piHi, 1, nil, []int{i})
	if err != nil {
		return -1, 0, 0, 0, err
	}
	fixOwnLoads(k, dom, 1)
	k.b.integer = nil
	size := float64(len(k.b.cost) + len(k.b.rlo))
	lp, err := buildMax(k.b, hopt)
	if err != nil {
		return -1, 0, 0, 0, err
	}
	r, err := lp.Solve(ctx)
	lp.Close()
	if err != nil {
		return -1, 0, 0, 0, err
	}
	used := float64(r.Iterations) * size
	if r.Status != solver.Optimal || r.X == nil {
		return -1, size, 0, used, nil
	}
	ptdf := n.PTDFColumns([]int{i})[0]
	best, bestShare := -1, 0.0
	for l := range k.muUp {
		for _, col := range []int{k.muUp[l], k.muLo[l]} {
			if col < 0 {
				continue
			}
			if s := math.Abs(r.X[col] * ptdf[l]); s > bestShare+1e-9 {
				best, bestShare = l, s
			}
		}
	}
	if best < 0 {
		return -1, size, 0, used, nil
	}
	parts := 1
	if k.zUp[best] >= 0 {
		parts++
	}
	if k.zLo[best] >= 0 {
		parts++
	}
	return best, size, parts, used, nil
}

// patternSplitSafety is the wall-clock net of a part MIP: the joint MIP's
// (LMPBoundOptions.MIPTimeLimit, else four times TimeLimit). HiGHS counts
// only simplex iterations against MaxLPIterations; its presolve, cuts and
// heuristics are not capped by them (the part's tightening LPs are capped
// by the work left instead: a part of 300_ieee ×0.8 ±10% once ran over six
// CPU minutes in one tightening LP). A stop by the net keeps the proven
// bound at that moment (sound) and marks the evidence not reproducible.
func patternSplitSafety(opt LMPBoundOptions) time.Duration {
	if opt.MIPTimeLimit > 0 {
		return opt.MIPTimeLimit
	}
	return 4 * max(opt.TimeLimit, 60*time.Second)
}
