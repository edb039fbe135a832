package grid

import (
	"context"
	"math"
	"reflect"
	"runtime"
	"testing"
)

// TestLMPLevelDeterministic checks that the split step's result does not
// depend on how many goroutines split the buses of a round: on 30_ieee
// ±10% with a first level of 3 buses (several levels, several buses per
// round), runs with GOMAXPROCS 1 and 2 must give identical split records
// (bus, branch, bounds, cutoff, work) and identical price bounds, bit for
// bit.
func TestLMPLevelDeterministic(t *testing.T) {
	n, dom, rules := splitCase30(t)
	opt := LMPBoundOptions{TighteningPasses: 1, TighteningWork: 2e6, MIPWork: 2e6, PatternSplitWork: 2e8, splitBuses: 3}
	run := func(procs int) *LMPEvidence {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		ev, reason, err := n.lmpBound(context.Background(), dom, rules, opt)
		if err != nil || ev == nil {
			t.Fatalf("lmpBound (GOMAXPROCS %d): %v %s", procs, err, reason)
		}
		return ev
	}
	one, two := run(1), run(2)
	if len(one.PatternSplits) < 6 {
		t.Fatalf("%d split records, want several rounds of several buses", len(one.PatternSplits))
	}
	if !reflect.DeepEqual(one.PatternSplits, two.PatternSplits) {
		for q := range min(len(one.PatternSplits), len(two.PatternSplits)) {
			if one.PatternSplits[q] != two.PatternSplits[q] {
				t.Errorf("record %d: %+v with 1 goroutine, %+v with 2", q, one.PatternSplits[q], two.PatternSplits[q])
				break
			}
		}
		t.Fatalf("the split records differ (%d and %d records)", len(one.PatternSplits), len(two.PatternSplits))
	}
	for i := range one.PriceHi {
		if math.Float64bits(one.PriceHi[i]) != math.Float64bits(two.PriceHi[i]) {
			t.Errorf("bus %d: price bound %v with 1 goroutine, %v with 2", n.BusID[i], one.PriceHi[i], two.PriceHi[i])
		}
	}
	if one.MaxPrice != two.MaxPrice || one.Reproducible != two.Reproducible {
		t.Errorf("certified %v (reproducible %v) with 1 goroutine, %v (%v) with 2", one.MaxPrice, one.Reproducible, two.MaxPrice, two.Reproducible)
	}
	t.Logf("%d split records, certified max π %.6g in both runs", len(one.PatternSplits), one.MaxPrice)
}
