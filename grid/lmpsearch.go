package grid

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
)

// LMPSearchOptions configure SearchLMPChange.
type LMPSearchOptions struct {
	// Starts is the number of random vertices of the domain tried (0: 20).
	Starts int
	// Steps bounds the coordinate flips of the local search (0: 200).
	Steps int
	// Seed seeds the random vertices.
	Seed uint64
	// Extra are further load vectors to start from (e.g. the KKT program's
	// incumbent, LMPEvidence.IncumbentLoad), clamped into the domain.
	Extra [][]float64
}

// LMPSearchResult is the largest adjacent change SearchLMPChange found.
type LMPSearchResult struct {
	// PerMW = |V(d′) − V(d)| / α for the pair found (d, d′ = d ± α e_Bus, both
	// in the domain): a lower bound on any sound sensitivity per MW.
	PerMW float64
	Bus   int       // bus ID
	Load  []float64 // d (internal bus order)
	// LMP is the largest |π_i| seen at a varying bus (solver duals, not a
	// realized change).
	LMP         float64
	Evaluations int
}

// SearchLMPChange is an adversarial search for a large |V(d′) − V(d)| over
// α-adjacent loads in dom (V the market LP of CertifyLMPBound): it evaluates
// the domain's corners and centre, random vertices and the extra starts,
// follows the bus with the largest |LMP| by greedy flips of the other loads
// between their bounds (keeping a flip when it raises that bus's |LMP|), and
// measures the realized change |V(d ± α e_i) − V(d)| at the best points. The
// result is a lower bound on the true sensitivity, against which a certified
// bound is tested.
func (n *Network) SearchLMPChange(ctx context.Context, dom LoadDomain, alpha float64, rules MarketRules, opt LMPSearchOptions) (*LMPSearchResult, error) {
	if err := rules.Validate(); err != nil {
		return nil, err
	}
	if err := dom.Validate(n); err != nil {
		return nil, err
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return nil, fmt.Errorf("grid: alpha is %v MW, must be > 0 and finite", alpha)
	}
	if opt.Starts <= 0 {
		opt.Starts = 20
	}
	if opt.Steps <= 0 {
		opt.Steps = 200
	}
	b := newLPBuilder()
	m, err := n.newMarketLP(b, dom, rules)
	if err != nil {
		return nil, err
	}
	hopt := highs.Options{}
	hopt.Threads = 1
	lp, err := b.build(hopt)
	if err != nil {
		return nil, err
	}
	defer lp.Close()
	out := &LMPSearchResult{}
	// eval solves at d and returns V and the LMPs.
	eval := func(d []float64) (float64, []float64, error) {
		for _, j := range m.vars {
			if err := lp.SetColumnBounds(m.d[j], d[j], d[j]); err != nil {
				return 0, nil, err
			}
		}
		r, err := lp.Solve(ctx)
		if err != nil {
			return 0, nil, err
		}
		if err := ctx.Err(); err != nil {
			return 0, nil, err
		}
		out.Evaluations++
		if r.Status != solver.Optimal {
			return 0, nil, fmt.Errorf("grid: market LP at a domain point: %v", r.Status)
		}
		pi := make([]float64, len(m.balance))
		for j, row := range m.balance {
			pi[j] = r.RowDual[row]
		}
		return r.Objective, pi, nil
	}
	// realized measures the change at bus i from d.
	realized := func(d []float64, i int) error {
		v0, _, err := eval(d)
		if err != nil {
			return err
		}
		d2 := append([]float64(nil), d...)
		if d[i]+alpha <= dom.Hi[i] {
			d2[i] += alpha
		} else {
			d2[i] = math.Max(dom.Lo[i], d[i]-alpha)
		}
		if d2[i] == d[i] {
			return nil
		}
		v1, _, err := eval(d2)
		if err != nil {
			return err
		}
		if c := math.Abs(v1-v0) / math.Abs(d2[i]-d[i]) * math.Min(1, math.Abs(d2[i]-d[i])/alpha); c > out.PerMW {
			out.PerMW, out.Bus, out.Load = c, n.BusID[i], d
		}
		return nil
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x1a2b))
	var starts [][]float64
	mid := make([]float64, len(dom.Lo))
	for j := range mid {
		mid[j] = (dom.Lo[j] + dom.Hi[j]) / 2
	}
	starts = append(starts, append([]float64(nil), dom.Lo...), append([]float64(nil), dom.Hi...), mid)
	for _, x := range opt.Extra {
		if len(x) != len(dom.Lo) {
			continue
		}
		y := make([]float64, len(x))
		for j := range y {
			y[j] = math.Min(dom.Hi[j], math.Max(dom.Lo[j], x[j]))
		}
		starts = append(starts, y)
	}
	for k := 0; k < opt.Starts; k++ {
		v := append([]float64(nil), dom.Lo...)
		for _, j := range m.vars {
			if rng.IntN(2) == 1 {
				v[j] = dom.Hi[j]
			}
		}
		starts = append(starts, v)
	}
	type cand struct {
		d   []float64
		bus int
		lmp float64
	}
	var cands []cand
	for _, d := range starts {
		_, pi, err := eval(d)
		if err != nil {
			return nil, err
		}
		bi, bv := -1, -1.0
		for _, j := range m.vars {
			if a := math.Abs(pi[j]); a > bv {
				bi, bv = j, a
			}
		}
		cands = append(cands, cand{d, bi, bv})
		out.LMP = math.Max(out.LMP, bv)
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].lmp > cands[b].lmp })
	// Local search from the best few starts.
	steps := opt.Steps
	for c := 0; c < len(cands) && c < 3; c++ {
		d, i, best := append([]float64(nil), cands[c].d...), cands[c].bus, cands[c].lmp
		for improved := true; improved && steps > 0; {
			improved = false
			for _, j := range m.vars {
				if j == i || steps <= 0 {
					continue
				}
				steps--
				old := d[j]
				if d[j] == dom.Hi[j] {
					d[j] = dom.Lo[j]
				} else {
					d[j] = dom.Hi[j]
				}
				_, pi, err := eval(d)
				if err != nil {
					return nil, err
				}
				if a := math.Abs(pi[i]); a > best+1e-9 {
					best, improved = a, true
				} else {
					d[j] = old
				}
			}
		}
		out.LMP = math.Max(out.LMP, best)
		// The realized change at the bus's upper and lower end of its range.
		for _, x := range []float64{dom.Hi[i], dom.Lo[i]} {
			e := append([]float64(nil), d...)
			e[i] = x
			if err := realized(e, i); err != nil {
				return nil, err
			}
		}
		if err := realized(d, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}
