package grid

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// RowsOptions configure PTDFRows and FlowRanges.
type RowsOptions struct {
	// Workers is the number of goroutines (0: runtime.GOMAXPROCS(0)). They share
	// the network's factorization (its solves are safe for concurrent use).
	Workers int
	// Progress, when set, is called with the number of rows done and the total,
	// at most every ProgressEvery rows and once at the end, from one goroutine
	// at a time.
	Progress func(done, total int)
	// ProgressEvery is the reporting interval in rows (0: 256).
	ProgressEvery int
}

// Validate rejects negative counts.
func (o *RowsOptions) Validate() error {
	if o.Workers < 0 {
		return fmt.Errorf("grid: RowsOptions.Workers is %d, must be ≥ 0", o.Workers)
	}
	if o.ProgressEvery < 0 {
		return fmt.Errorf("grid: RowsOptions.ProgressEvery is %d, must be ≥ 0", o.ProgressEvery)
	}
	return nil
}

// PTDFRows computes, for every branch l in branches (all branches when nil), the
// PTDF row PTDF[l, ·] (length NumBuses: the flow change on l per MW injected at
// each bus and withdrawn at its island's reference bus; 0 at reference buses)
// and calls fn(l, row). Each row is one solve with the shared factorization of
// the reduced susceptance matrix,
//
//	PTDF[l, ·]ᵀ = [0; B_red⁻¹ (Bfᵀ e_l)_red],   Bfᵀ e_l = B_l (e_from − e_to),
//
// so all rows cost NumBranches solves and O(NumBuses) memory per worker —
// never the dense NumBranches × NumBuses matrix. Rows are computed by
// opt.Workers goroutines: fn is called concurrently and must be safe for it;
// row is the worker's buffer, valid only during the call. The first error
// returned by fn, or the context's error when ctx is cancelled, stops the
// workers and is returned.
func (n *Network) PTDFRows(ctx context.Context, branches []int, opt RowsOptions, fn func(l int, row []float64) error) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	if branches == nil {
		branches = make([]int, n.NumBranches())
		for l := range branches {
			branches[l] = l
		}
	}
	for i, l := range branches {
		if l < 0 || l >= n.NumBranches() {
			return fmt.Errorf("grid: PTDFRows: branches[%d] is %d, must be in [0, %d)", i, l, n.NumBranches())
		}
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, len(branches)))
	every := opt.ProgressEvery
	if every == 0 {
		every = 256
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next, done atomic.Int64
		mu         sync.Mutex // guards firstErr and Progress calls
		firstErr   error
		wg         sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	total := len(branches)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := make([]float64, n.fact.n())
			row := make([]float64, n.NumBuses())
			for {
				if ctx.Err() != nil {
					return
				}
				k := int(next.Add(1)) - 1
				if k >= total {
					return
				}
				l := branches[k]
				n.ptdfRowInto(l, x, row)
				if err := fn(l, row); err != nil {
					fail(err)
					return
				}
				if d := int(done.Add(1)); opt.Progress != nil && (d%every == 0 || d == total) {
					mu.Lock()
					opt.Progress(d, total)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil && int(done.Load()) < total {
		return fmt.Errorf("grid: PTDFRows: %w", err)
	}
	return nil
}

// ptdfRowInto writes PTDF[l, ·] into row using x (length fact.n()) as
// workspace.
func (n *Network) ptdfRowInto(l int, x, row []float64) {
	clear(x)
	if r := n.reduced[n.From[l]]; r >= 0 {
		x[r] += n.B[l]
	}
	if r := n.reduced[n.To[l]]; r >= 0 {
		x[r] -= n.B[l]
	}
	n.fact.solve(x)
	for i, r := range n.reduced {
		row[i] = 0
		if r >= 0 {
			row[i] = x[r]
		}
	}
}

// FlowRanges returns, for every branch, the smallest and largest DC flow
// (MW) when the generators produce pg (MW per generator) and the bus loads
// range independently over the box [loadLo, loadHi] (MW per bus), the
// reference bus of each island absorbing the difference (the DC power flow of
// PowerFlow). The flow is affine in the loads d,
//
//	f_l(d) = f_l(c) − PTDF[l, ·] (d − c),   c = (loadLo + loadHi)/2,
//
// so its range over the box is f_l(c) ± Σ_i |PTDF[l, i]| (loadHi_i − loadLo_i)/2,
// attained at a vertex: one PTDF row per branch (PTDFRows, in parallel with
// progress and cancellation as opt says) and one power flow. This is the
// per-branch bound a sensitivity certificate over a load box needs.
func (n *Network) FlowRanges(ctx context.Context, pg, loadLo, loadHi []float64, opt RowsOptions) (lo, hi []float64, err error) {
	nb := n.NumBuses()
	if len(pg) != n.NumGens() {
		return nil, nil, fmt.Errorf("grid: FlowRanges: pg has length %d, want NumGens = %d", len(pg), n.NumGens())
	}
	if len(loadLo) != nb || len(loadHi) != nb {
		return nil, nil, fmt.Errorf("grid: FlowRanges: load bounds have lengths %d and %d, want NumBuses = %d", len(loadLo), len(loadHi), nb)
	}
	half := make([]float64, nb)
	center := make([]float64, nb)
	for i := range half {
		if !(loadLo[i] <= loadHi[i]) || math.IsInf(loadLo[i], 0) || math.IsInf(loadHi[i], 0) {
			return nil, nil, fmt.Errorf("grid: FlowRanges: load box at bus %d is [%v, %v], must be finite with lo ≤ hi", n.BusID[i], loadLo[i], loadHi[i])
		}
		half[i] = (loadHi[i] - loadLo[i]) / 2
		center[i] = (loadHi[i] + loadLo[i]) / 2
	}
	inj := make([]float64, nb)
	for i := range inj {
		inj[i] = -center[i] - n.Pbusinj[i]
	}
	for g, bi := range n.GenBus {
		inj[bi] += pg[g]
	}
	theta := n.SolveAngles(inj)
	fc := n.Bf.MulVecTo(nil, 1, theta, 0)
	lo, hi = make([]float64, n.NumBranches()), make([]float64, n.NumBranches())
	err = n.PTDFRows(ctx, nil, opt, func(l int, row []float64) error {
		var r float64
		for i, v := range row {
			r += math.Abs(v) * half[i]
		}
		f := fc[l] + n.Pfinj[l]
		lo[l], hi[l] = f-r, f+r
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return lo, hi, nil
}
