package highs

/*
#include <stdint.h>
#include "callback.h"
// Declarations from interfaces/highs_c_api.h (HiGHS 1.10), which only capi.go
// may include (it defines constants).
HighsInt Highs_changeColIntegrality(void* highs, const HighsInt col, const HighsInt integrality);
HighsInt Highs_getDoubleInfoValue(const void* highs, const char* info, double* value);
HighsInt Highs_getInt64InfoValue(const void* highs, const char* info, int64_t* value);
HighsInt Highs_startCallback(void* highs, const int callback_type);
HighsInt Highs_stopCallback(void* highs, const int callback_type);
*/
import "C"

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/solver"
)

// MIPResult is the outcome of LP.SolveMIP.
//
// DualBound is the branch-and-bound's proven bound on the optimal value (for
// a maximization: no integer-feasible point has a larger objective; HiGHS
// info "mip_dual_bound"). It is valid whatever the status (time limit,
// cancellation), as long as Status is not Infeasible (then no point exists and
// DualBound is −Inf for a maximization, +Inf for a minimization). Objective and
// X are the best integer-feasible point found (the incumbent), a lower bound
// for a maximization only: a certified upper bound must use DualBound.
type MIPResult struct {
	Status    solver.Status
	Objective float64   // incumbent objective; NaN when no incumbent
	DualBound float64   // proven bound (see above)
	Gap       float64   // HiGHS's relative gap "mip_gap"
	X         []float64 // incumbent; nil when none
	Nodes     int       // branch-and-bound nodes
	// LPIterations is HiGHS's "mip_total_lp_iterations": the simplex
	// iterations of the whole search, the unit of MIPLimits.MaxLPIterations.
	LPIterations int64
	// Stop says which rule ended the search (see MIPStop).
	Stop MIPStop
	Time time.Duration
}

// MIPStop names the rule that ended a MIP search.
type MIPStop string

// The rules that end a MIP search. HiGHS's MIP solver is deterministic for
// fixed options, random seed and thread count (the HiGHS documentation and
// its developers: runs are repeatable, a different random_seed gives a
// different but again repeatable run); in its MIP search HiGHS reads the
// clock only for its time limit. A search that ends by MIPStopGap,
// MIPStopWork or MIPStopNodes (or with infeasibility) therefore ends at the
// same point, with the same bound, on every run and under any machine load;
// one that ends by MIPStopTime or MIPStopCancelled does not.
const (
	MIPStopGap        MIPStop = "gap"        // solved to the relative gap (Status Optimal)
	MIPStopInfeasible MIPStop = "infeasible" // no integer-feasible point
	MIPStopWork       MIPStop = "work"       // MIPLimits.MaxLPIterations reached
	MIPStopNodes      MIPStop = "nodes"      // MIPLimits.MaxNodes reached
	MIPStopTime       MIPStop = "time"       // MIPLimits.TimeLimit (wall clock) reached
	MIPStopCancelled  MIPStop = "cancelled"  // ctx cancelled
	MIPStopOther      MIPStop = "other"      // another HiGHS status (numerical trouble)
)

// Reproducible reports whether the stopping rule is one of the deterministic
// ones (see MIPStop).
func (s MIPStop) Reproducible() bool {
	switch s {
	case MIPStopGap, MIPStopInfeasible, MIPStopWork, MIPStopNodes:
		return true
	}
	return false
}

// MIPLimits are the stopping rules of LP.SolveMIP. The zero value runs to
// HiGHS's default relative gap 1e-4 without limits.
type MIPLimits struct {
	// RelGap is the relative gap at which the search stops (HiGHS
	// mip_rel_gap; 0: HiGHS's default 1e-4).
	RelGap float64
	// MaxLPIterations is a deterministic work budget (0: none): the search
	// stops at HiGHS's first limit check (its MIP interrupt callback, called
	// between nodes and between the root's cut rounds) after the search's
	// simplex iterations (mip_total_lp_iterations) reach it. It may overrun
	// by the iterations of one node or one cut round.
	MaxLPIterations int64
	// MaxNodes is HiGHS's mip_max_nodes (0: none), also deterministic.
	MaxNodes int
	// TimeLimit is a wall-clock limit (0: none), meant as a safety net: when
	// it ends the search, Stop is MIPStopTime and the bound depends on the
	// machine's speed and load.
	TimeLimit time.Duration
}

// SetIntegral marks the columns cols as integer variables (with their bounds
// [0, 1] this makes them binary). The LP then solves as a MIP with SolveMIP.
func (lp *LP) SetIntegral(cols []int) error {
	if err := lp.ok(); err != nil {
		return err
	}
	nc := lp.in.numCol()
	for _, j := range cols {
		if j < 0 || j >= nc {
			return fmt.Errorf("highs: integer column %d out of range [0, %d)", j, nc)
		}
		if C.Highs_changeColIntegrality(lp.in.h, C.HighsInt(j), 1) == hsStatusError {
			return fmt.Errorf("highs: cannot mark column %d integer", j)
		}
	}
	return nil
}

// SolveMIP runs HiGHS's branch-and-cut MIP solver on the LP with its integer
// columns under the limits lim, stopping also when ctx is cancelled (through
// HiGHS's MIP interrupt callback), and returns the proven dual bound next to
// the incumbent, with the rule that stopped the search.
func (lp *LP) SolveMIP(ctx context.Context, lim MIPLimits) (*MIPResult, error) {
	if err := lp.ok(); err != nil {
		return nil, err
	}
	if lim.MaxLPIterations < 0 || lim.MaxNodes < 0 || lim.TimeLimit < 0 || !(lim.RelGap >= 0 && lim.RelGap < 1) {
		return nil, fmt.Errorf("highs: MIP limits %+v: each must be ≥ 0 (RelGap < 1)", lim)
	}
	in := lp.in
	if lim.TimeLimit > 0 {
		if err := in.setDouble("time_limit", lim.TimeLimit.Seconds()); err != nil {
			return nil, err
		}
	}
	if lim.RelGap > 0 {
		if err := in.setDouble("mip_rel_gap", lim.RelGap); err != nil {
			return nil, err
		}
	}
	nodes := math.MaxInt32 // HiGHS's "no limit"
	if lim.MaxNodes > 0 {
		nodes = lim.MaxNodes
	}
	if err := in.setInt("mip_max_nodes", nodes); err != nil {
		return nil, err
	}
	C.privopt_set_mip_budget(in.cb, C.int64_t(lim.MaxLPIterations))
	defer C.privopt_set_mip_budget(in.cb, 0)
	C.Highs_startCallback(in.h, C.int(mipInterruptCallback))
	defer C.Highs_stopCallback(in.h, C.int(mipInterruptCallback))
	res := &MIPResult{Objective: math.NaN()}
	_, ms, el := in.run(ctx)
	res.Time = el
	res.Status = mapStatus(ms, ctx)
	res.DualBound = in.doubleInfo("mip_dual_bound")
	res.Gap = in.doubleInfo("mip_gap")
	res.Nodes = in.intInfo64("mip_node_count")
	res.LPIterations = int64(in.intInfo("simplex_iteration_count")) // HiGHS copies mip_total_lp_iterations there
	switch {
	case ms == hsOptimal:
		res.Stop = MIPStopGap
	case ms == hsInfeasible:
		res.Stop = MIPStopInfeasible
	case ms == hsInterrupt && in.cb.work_stop != 0 && ctx.Err() == nil:
		res.Stop, res.Status = MIPStopWork, solver.IterationLimit
	case ms == hsSolutionLimit && lim.MaxNodes > 0 && res.Nodes >= lim.MaxNodes:
		res.Stop, res.Status = MIPStopNodes, solver.IterationLimit
	case ms == hsTimeLimit:
		res.Stop = MIPStopTime
	case ctx.Err() != nil:
		res.Stop = MIPStopCancelled
	default:
		res.Stop = MIPStopOther
	}
	if ms == hsInfeasible {
		return res, nil
	}
	if in.intInfo("primal_solution_status") == 2 { // kHighsSolutionStatusFeasible
		res.X = make([]float64, in.numCol())
		if err := in.solution(res.X, nil, nil, nil); err != nil {
			res.X = nil
		} else {
			res.Objective = in.doubleInfo("objective_function_value")
		}
	}
	if math.IsNaN(res.DualBound) {
		return nil, fmt.Errorf("highs: MIP solve returned no dual bound (model status %d)", ms)
	}
	return res, nil
}

// mipInterruptCallback is kHighsCallbackMipInterrupt (HiGHS 1.10).
const mipInterruptCallback = 6

func (in *instance) doubleInfo(name string) float64 {
	c, free := cstr(name)
	defer free()
	var v C.double
	if C.Highs_getDoubleInfoValue(in.h, c, &v) == hsStatusError {
		return math.NaN()
	}
	return float64(v)
}

func (in *instance) intInfo64(name string) int {
	c, free := cstr(name)
	defer free()
	var v C.int64_t
	if C.Highs_getInt64InfoValue(in.h, c, &v) == hsStatusError {
		return 0
	}
	return int(v)
}
