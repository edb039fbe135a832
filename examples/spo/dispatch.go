package main

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/privopt/privopt/model"
)

// Dispatch is the energy example's downstream problem: meet a fixed demand
// D with generators of capacities Cap at least cost,
//
//	minimize cᵀg  subject to  Σ_k g_k = D,  0 ≤ g ≤ Cap,
//
// where the marginal costs c (fuel prices, availability) are predicted from
// features (weather, calendar). S is the set of feasible dispatches.
type Dispatch struct {
	Demand float64
	Cap    []float64
}

// NewDispatch returns the example's fleet: 10 units of capacities 10, 12,
// …, 28 MW serving D = 100 MW (Σ Cap = 190).
func NewDispatch() *Dispatch {
	d := &Dispatch{Demand: 100}
	for k := 0; k < 10; k++ {
		d.Cap = append(d.Cap, 10+2*float64(k))
	}
	return d
}

// Diameter bounds ‖g − g′‖₂ over S: g, g′ ≥ 0 give ‖g − g′‖² ≤ ‖g‖² +
// ‖g′‖², and ‖g‖² ≤ max Cap·Σg = max Cap·D, so diam₂(S) ≤ √(2·D·max Cap).
func (d *Dispatch) Diameter() float64 {
	mx := 0.0
	for _, c := range d.Cap {
		mx = math.Max(mx, c)
	}
	return math.Sqrt(2 * d.Demand * mx)
}

// MeritOrder dispatches units in increasing order of cost until the
// demand is met (optimal for this LP with any real costs: a fractional
// knapsack with an equality).
type MeritOrder struct{ D *Dispatch }

// Solve returns the merit-order dispatch for costs c.
func (o MeritOrder) Solve(c []float64) ([]float64, error) {
	idx := make([]int, len(c))
	for k := range idx {
		idx[k] = k
	}
	sort.SliceStable(idx, func(a, b int) bool { return c[idx[a]] < c[idx[b]] })
	g := make([]float64, len(c))
	left := o.D.Demand
	for _, k := range idx {
		g[k] = math.Min(o.D.Cap[k], left)
		left -= g[k]
	}
	if left > 1e-9 {
		return nil, fmt.Errorf("spo: demand %v exceeds the fleet's capacity", o.D.Demand)
	}
	return g, nil
}

// DispatchLP solves the dispatch LP through privopt's model layer and its
// default solver (HiGHS).
type DispatchLP struct{ D *Dispatch }

// Solve builds and solves the LP.
func (o DispatchLP) Solve(c []float64) ([]float64, error) {
	m := model.New("dispatch")
	g := m.Vector("g", len(c))
	lo := make([]float64, len(c))
	g.SetBounds(lo, o.D.Cap)
	m.Equal("demand", g.Expr().Sum(), model.Const(o.D.Demand))
	m.Minimize(g.Expr().Dot(c))
	res, err := m.Solve(context.Background(), model.SolveOptions{})
	if err != nil {
		return nil, err
	}
	if !res.Status.OK() {
		return nil, fmt.Errorf("spo: dispatch LP: status %v", res.Status)
	}
	return res.Value(g), nil
}
