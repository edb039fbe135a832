package opfrelease

import (
	"fmt"
	"math"
	"sort"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/query"
)

// Security makes the released program N-1 secure (a security-constrained
// DC-OPF): after the outage of any non-bridge branch k, every branch flow
// f_l + LODF_{l,k}·f_k stays within PostFactor times its limits, for the
// dispatch behind every release (both ends of the noise interval, hence the
// whole interval: the rows are linear). Cuts are generated lazily, as in
// grid.Network.SolveSCOPF: solve, check every outage with the LODFs on both
// copies, add the most violated cut per outage and copy, repeat. The final
// program holds every cut its optimum needs, so its value is that of the
// program with all N-1 constraints. Each round restarts HiGHS's dual
// simplex method from the previous round's basis (solver.Settings.Warm; a
// release's first round from the plan's public midpoint basis), and the
// first round that finds cuts frees every backstop unit (see
// Program.solve): on 2383wp_k at post-factor 1 the plan's cut loop takes
// 5 s of CPU instead of 17–35 (BENCHMARKS.md, "N-1 at scale, round 3").
//
// Sensitivity. The price-cap bound still holds: serving α more MW at a bus
// by its shedding unit leaves every injection, hence every base and
// post-contingency flow, unchanged. The merit-order bound does not (it
// ignores contingencies) and is not used. Feasibility for every load vector
// also holds (all load shed and all minimum output absorbed locally: zero
// flows before and after any outage).
type Security struct {
	// PostFactor scales the post-contingency limits (0: 1, the normal rating).
	// (There is no round limit: the cut loop always ends, every round adding
	// a new cut from a finite set, and a limit would make the release refuse
	// depending on the data.)
	PostFactor float64
}

// securityState caches the outages and their LODF columns.
type securityState struct {
	outages   []int       // non-bridge branches
	islanding []int       // bridges (skipped)
	lodf      [][]float64 // per outage
	factor    float64
}

// cut is one post-contingency limit: monitored branch l after outage k.
type cut struct{ l, k int }

func (pr *Plan) initSecurity() {
	n := pr.priv
	st := &securityState{factor: pr.opt.Security.PostFactor}
	if st.factor == 0 {
		st.factor = 1
	}
	for k, b := range n.Bridges() {
		if b {
			st.islanding = append(st.islanding, k)
			continue
		}
		st.outages = append(st.outages, k)
		st.lodf = append(st.lodf, n.LODFColumn(k))
	}
	pr.sec = st
}

// flows returns the branch flows of dispatch p (per priv generator) at the
// given loads (nil: the network's).
func flows(n *grid.Network, p, load []float64) []float64 { return n.FlowsAt(p, load) }

// contingencyViolations checks both ends of the decision rule and returns
// the new cuts (most violated per outage and end) and the largest
// post-contingency violation in MW.
func (pr *Program) contingencyViolations(sol *query.Solution, load []float64, have map[cut]bool) ([]cut, float64) {
	st, n := pr.sec, pr.priv
	box := sol.Counterpart.Guarantee.Box
	var out []cut
	worstAll := 0.0
	seen := map[cut]bool{}
	for _, z := range []float64{box[0].Lo, box[0].Hi} {
		x := sol.Rule.Apply(nil, []float64{z})
		p := make([]float64, n.NumGens())
		for g := range p {
			p[g] = x[pr.opf.P.Col(g)]
		}
		f := flows(n, p, load)
		for t, k := range st.outages {
			col := st.lodf[t]
			best, bestV := -1, 0.0
			for l, fl := range f {
				if l == k || col[l] == 0 || math.IsNaN(col[l]) {
					continue
				}
				post := fl + col[l]*f[k]
				lo, hi := st.factor*n.FlowMin[l], st.factor*n.FlowMax[l]
				v := math.Max(post-hi, lo-post)
				tol := 1e-6 * math.Max(1, math.Abs(hi))
				if v > tol {
					worstAll = math.Max(worstAll, v)
					if c := (cut{l, k}); !have[c] && !seen[c] && v > bestV {
						best, bestV = l, v
					}
				}
			}
			if best >= 0 {
				seen[cut{best, k}] = true
				out = append(out, cut{best, k})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k || (out[i].k == out[j].k && out[i].l < out[j].l) })
	return out, worstAll
}

// addCuts adds the cuts to the built OPF.
func (pr *Program) addCuts(o *grid.OPF, cuts []cut) error {
	if len(cuts) == 0 {
		return nil
	}
	st, n := pr.sec, pr.priv
	idx := map[int]int{}
	for t, k := range st.outages {
		idx[k] = t
	}
	for _, c := range cuts {
		w := st.lodf[idx[c.k]][c.l]
		if err := o.AddFlowLimit([]int{c.l, c.k}, []float64{1, w}, st.factor*n.FlowMin[c.l], st.factor*n.FlowMax[c.l], fmt.Sprintf("n1_%d_%d", c.l, c.k)); err != nil {
			return fmt.Errorf("opfrelease: contingency cut: %w", err)
		}
	}
	return nil
}
