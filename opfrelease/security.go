package opfrelease

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
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
// 3–4 s of CPU instead of 17 (BENCHMARKS.md, "N-1 at scale, round 3").
//
// Sensitivity. The price-cap bound still holds: serving α more MW at a bus
// by its shedding unit leaves every injection, hence every base and
// post-contingency flow, unchanged. The merit-order bound does not (it
// ignores contingencies) and is not used. The price-cap bound is often
// exact: on 300_ieee (post-factor 1 and 1.5) and 118_ieee (post-factor 1)
// over the ±10% reference domain the N-1 optimum sheds load at the domain's
// midpoint, so moving one bus load by α changes the cost by α·PriceCap
// (BENCHMARKS.md, "N-1 at scale, round 3"). Feasibility for every load vector
// also holds (all load shed and all minimum output absorbed locally: zero
// flows before and after any outage).
// With Options.LMPBound the plan certifies the N-1 program itself
// (grid.Network.CertifyN1LMPBound: the post-contingency rows that cannot
// bind are screened out, the rest enter the KKT bound); it keeps the price
// cap when that bound is not below it.
type Security struct {
	// PostFactor scales the post-contingency limits (0: 1, the normal rating).
	// (There is no round limit: the cut loop always ends, every round adding
	// a new cut from a finite set, and a limit would make the release refuse
	// depending on the data.)
	PostFactor float64
	// MaxMemoryBytes guards the memory of the N-1 structures (0: no guard).
	// The plan estimates their peak from public sizes only (MemoryEstimate:
	// buses, branches, outages and the sampled LODF fill, never the loads),
	// stores the LODF columns sparsely when the dense estimate exceeds the
	// guard, and refuses the plan (ErrMemoryGuard) — before its midpoint solve
	// and before any private value is read — when even the sparse estimate
	// exceeds it. Dense and sparse storage give the same cuts and statistic
	// (see contingencyViolations), so the guard never changes a release.
	MaxMemoryBytes int64
	// Progress, when not nil, receives one line per contingency-cut round of
	// the plan's public midpoint solve (round, cuts, elapsed time). Releases
	// print no rounds: their round counts depend on the private loads.
	Progress io.Writer
}

// ErrMemoryGuard is returned by NewPlan when the estimated peak memory of
// the N-1 structures exceeds Security.MaxMemoryBytes even with sparse LODF
// storage. It is a plan-time refusal: no private value has been read.
var ErrMemoryGuard = errors.New("opfrelease: N-1 memory guard")

// MemoryEstimate is the plan's estimate of the peak memory (bytes) of an
// N-1 plan and its releases, from public sizes only:
//
//	peak = 48 MiB + 32 KiB·(buses + branches) + LODF storage + outages·branches·8
//
// The first two terms cover the process, the network and the B-θ program;
// the last is the cut loop's allowance (the cuts and the solver's working
// set grow with the candidate set outages × branches); the LODF storage is
// outages·branches·8 dense, or, sparse, 12 bytes per kept entry (magnitude
// ≥ 1e-4, the fill measured on 64 evenly spaced columns) plus 64 per
// column. The coefficients are calibrated against the peak resident set
// size of `privopt opf --n-1` (plan + one release) on 300_ieee, 1354_pegase,
// 2383wp_k and 10000_goc; the estimate was 1.3–2.0× the measured peak
// (BENCHMARKS.md, "N-1 memory guard"): an upper estimate, not a bound.
type MemoryEstimate struct {
	// Outages counts the non-islanding branch outages checked.
	Outages int `json:"outages"`
	// DenseLODFBytes and SparseLODFBytes estimate the LODF storage.
	DenseLODFBytes  int64 `json:"dense_lodf_bytes"`
	SparseLODFBytes int64 `json:"sparse_lodf_bytes"`
	// PeakDenseBytes and PeakSparseBytes estimate the peak with each storage.
	PeakDenseBytes  int64 `json:"peak_dense_bytes"`
	PeakSparseBytes int64 `json:"peak_sparse_bytes"`
}

// memorySampleColumns is how many LODF columns the sparse estimate samples.
const memorySampleColumns = 64

// estimateMemory returns the memory estimate of the N-1 structures of n
// with the given outages (a function of the public network only).
func estimateMemory(n *grid.Network, outages []int) MemoryEstimate {
	m := int64(n.NumBranches())
	e := MemoryEstimate{Outages: len(outages)}
	e.DenseLODFBytes = int64(len(outages)) * m * 8
	kept, sampled := int64(0), int64(0)
	if len(outages) > 0 {
		s := min(len(outages), memorySampleColumns)
		for i := range s {
			col := n.LODFColumn(outages[i*len(outages)/s])
			sampled++
			for _, v := range col {
				if math.Abs(v) >= sparseLODFDrop { // a NaN column keeps nothing
					kept++
				}
			}
		}
		kept = (kept*int64(len(outages)) + sampled - 1) / sampled
	}
	e.SparseLODFBytes = kept*12 + int64(len(outages))*64
	base := int64(48<<20) + int64(32<<10)*int64(n.NumBuses()+n.NumBranches()) + e.DenseLODFBytes
	e.PeakDenseBytes = base + e.DenseLODFBytes
	e.PeakSparseBytes = base + e.SparseLODFBytes
	return e
}

// LODFStorage returns how an N-1 plan stores its LODF columns: "dense",
// "sparse" (above 256 MiB dense, or when Security.MaxMemoryBytes asks for
// it), or "" without Options.Security. Both give the same releases.
func (p *Plan) LODFStorage() string {
	switch {
	case p.sec == nil:
		return ""
	case p.sec.dense:
		return "dense"
	}
	return "sparse"
}

// mib formats bytes in MiB for messages.
func mib(b int64) string { return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20)) }

// securityState caches the outages and their LODF columns: dense when the
// matrix takes at most denseLODFBytes, otherwise each column's entries of
// magnitude ≥ sparseLODFDrop with the largest magnitude dropped (see
// contingencyViolations for how the check stays exact).
type securityState struct {
	outages   []int       // non-bridge branches
	islanding []int       // bridges (skipped)
	lodf      [][]float64 // per outage (dense storage), or nil
	sparse    []lodfColumn
	factor    float64
	dense     bool // LODF storage (Plan.LODFStorage)
}

// lodfColumn is one LODF column stored sparsely: the kept entries (rows
// idx, values val, exact), drop the largest magnitude of the others, and
// nan when the column is undefined (LODFColumn's NaN column).
type lodfColumn struct {
	idx  []int32
	val  []float64
	drop float64
	nan  bool
}

// denseLODFBytes is the size up to which the LODF columns are stored dense
// (2383wp_k: 52 MB; 10000_goc: 1.0 GB, stored sparsely).
var denseLODFBytes = 256 << 20

// sparseLODFDrop is the magnitude below which sparse storage drops an entry.
const sparseLODFDrop = 1e-4

// weight returns LODF entry l of outage t: stored, or, for an entry that
// sparse storage dropped, recomputed (the same floating-point value).
func (st *securityState) weight(n *grid.Network, t, l int) float64 {
	if st.lodf != nil {
		return st.lodf[t][l]
	}
	c := st.sparse[t]
	if i, ok := slices.BinarySearch(c.idx, int32(l)); ok {
		return c.val[i]
	}
	return n.LODFColumn(st.outages[t])[l]
}

// cut is one post-contingency limit: monitored branch l after outage k.
type cut struct{ l, k int }

// initSecurity finds the outages, estimates the memory (Plan.Memory),
// applies Security.MaxMemoryBytes and stores the LODF columns.
func (pr *Plan) initSecurity() error {
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
	}
	est := estimateMemory(n, st.outages)
	pr.Memory = &est
	dense := est.DenseLODFBytes <= int64(denseLODFBytes)
	if g := pr.opt.Security.MaxMemoryBytes; g > 0 {
		if est.PeakSparseBytes > g && (!dense || est.PeakDenseBytes > g) {
			return fmt.Errorf("%w: the estimated peak memory of the N-1 structures is %s with sparse LODF storage (%s dense), above the guard %s (%d outages × %d branches; raise the guard or drop N-1)",
				ErrMemoryGuard, mib(est.PeakSparseBytes), mib(est.PeakDenseBytes), mib(g), est.Outages, n.NumBranches())
		}
		dense = dense && est.PeakDenseBytes <= g
	}
	st.dense = dense
	for _, k := range st.outages {
		col := n.LODFColumn(k)
		if dense {
			st.lodf = append(st.lodf, col)
			continue
		}
		var c lodfColumn
		for l, v := range col {
			switch {
			case math.IsNaN(v):
				c.nan = true
			case math.Abs(v) >= sparseLODFDrop:
				c.idx, c.val = append(c.idx, int32(l)), append(c.val, v)
			default:
				c.drop = math.Max(c.drop, math.Abs(v))
			}
		}
		if c.nan {
			c.idx, c.val, c.drop = nil, nil, 0
		}
		c.idx, c.val = slices.Clip(c.idx), slices.Clip(c.val)
		st.sparse = append(st.sparse, c)
	}
	pr.sec = st
	if w := pr.opt.Security.Progress; w != nil {
		peak := est.PeakSparseBytes
		if dense {
			peak = est.PeakDenseBytes
		}
		fmt.Fprintf(w, "N-1 plan: %d outages (%d islanding skipped), %s LODF storage, estimated peak %s\n", len(st.outages), len(st.islanding), pr.LODFStorage(), mib(peak))
	}
	return nil
}

// flows returns the branch flows of dispatch p (per priv generator) at the
// given loads (nil: the network's).
func flows(n *grid.Network, p, load []float64) []float64 { return n.FlowsAt(p, load) }

// contingencyViolations checks both ends of the decision rule and returns
// the new cuts (most violated per outage and end) and the largest
// post-contingency violation in MW.
//
// With sparse LODF storage the check is the same: a dropped entry l of
// outage k has |LODF_lk| ≤ drop_k, so its post-contingency flow lies within
// f_l ± drop_k·|f_k| and its violation is at most v_l + drop_k·|f_k| (v_l the
// base flow's violation of the post-contingency limits). Only when that can
// exceed the tolerance for some dropped entry is the exact column
// recomputed and checked in full; otherwise the kept entries (exact values)
// are the only candidates. The cuts found are those of the dense check.
func (pr *Program) contingencyViolations(sol *query.Solution, load []float64, have map[cut]bool) ([]cut, float64) {
	st, n := pr.sec, pr.priv
	box := sol.Counterpart.Guarantee.Box
	var out []cut
	worstAll := 0.0
	seen := map[cut]bool{}
	var mark []bool // sparse storage: the kept entries of the current column
	if st.lodf == nil {
		mark = make([]bool, n.NumBranches())
	}
	for _, z := range []float64{box[0].Lo, box[0].Hi} {
		x := sol.Rule.Apply(nil, []float64{z})
		p := make([]float64, n.NumGens())
		for g := range p {
			p[g] = x[pr.opf.P.Col(g)]
		}
		f := flows(n, p, load)
		// check scans the entries l of column col (all of them when idx is
		// nil) for outage t and records the most violated new cut.
		check := func(t int, col []float64, idx []int32) {
			k := st.outages[t]
			best, bestV := -1, 0.0
			entry := func(l int, w float64) {
				if l == k || w == 0 || math.IsNaN(w) {
					return
				}
				post := f[l] + w*f[k]
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
			if idx == nil {
				for l, w := range col {
					entry(l, w)
				}
			} else {
				for i, l := range idx {
					entry(int(l), col[i])
				}
			}
			if best >= 0 {
				seen[cut{best, k}] = true
				out = append(out, cut{best, k})
			}
		}
		if st.lodf != nil {
			for t := range st.outages {
				check(t, st.lodf[t], nil)
			}
			continue
		}
		// room[l]: how far the base flow may move before it can violate the
		// post-contingency limits by more than the tolerance; order sorts it.
		room := make([]float64, len(f))
		order := make([]int, len(f))
		for l, fl := range f {
			lo, hi := st.factor*n.FlowMin[l], st.factor*n.FlowMax[l]
			room[l] = 1e-6*math.Max(1, math.Abs(hi)) - math.Max(fl-hi, lo-fl)
			order[l] = l
		}
		sort.SliceStable(order, func(i, j int) bool { return room[order[i]] < room[order[j]] })
		for t, c := range st.sparse {
			if c.nan {
				continue
			}
			k := st.outages[t]
			reach := c.drop * math.Abs(f[k])
			for _, l := range c.idx {
				mark[l] = true
			}
			exact := false
			for _, l := range order {
				// (a relative margin covers the rounding of the bound)
				if !(room[l] < reach*(1+1e-9)+1e-9) {
					break
				}
				if !mark[l] && l != k {
					exact = true
					break
				}
			}
			for _, l := range c.idx {
				mark[l] = false
			}
			if exact {
				check(t, n.LODFColumn(k), nil)
			} else {
				check(t, c.val, c.idx)
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
		w := st.weight(n, idx[c.k], c.l)
		if err := o.AddFlowLimit([]int{c.l, c.k}, []float64{1, w}, st.factor*n.FlowMin[c.l], st.factor*n.FlowMax[c.l], fmt.Sprintf("n1_%d_%d", c.l, c.k)); err != nil {
			return fmt.Errorf("opfrelease: contingency cut: %w", err)
		}
	}
	return nil
}

// checkN1Certificate checks that a given certificate covers the program's
// security setting: an N-1 release needs the price-cap bound or an
// "lmp-bound-n1" certificate computed at its post factor (0 and 1 are the
// same); a release without N-1 cannot use an "lmp-bound-n1" one.
func checkN1Certificate(c *grid.CostCertificate, sec *Security) error {
	if sec == nil {
		if c.Method == "lmp-bound-n1" {
			return fmt.Errorf("opfrelease: the given certificate (%s) covers the N-1 program only; this release is not N-1 secure", c.Method)
		}
		return nil
	}
	switch c.Method {
	case "price-cap":
		return nil
	case "lmp-bound-n1":
		want := sec.PostFactor
		if want == 0 {
			want = 1
		}
		if c.N1 == nil || c.N1.PostFactor != want {
			got := math.NaN()
			if c.N1 != nil {
				got = c.N1.PostFactor
			}
			return fmt.Errorf("opfrelease: the given N-1 certificate is for post factor %v; this release has %v", got, want)
		}
		return nil
	}
	return fmt.Errorf("opfrelease: the given certificate (%s) covers the base case only; an N-1 release needs the price-cap bound or an lmp-bound-n1 certificate", c.Method)
}
