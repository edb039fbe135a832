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
	Time      time.Duration
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
// columns, stopping after timeLimit (0: none) or when ctx is cancelled (through
// HiGHS's MIP interrupt callback), and returns the proven dual bound next to
// the incumbent. relGap (0: HiGHS's default 1e-4) is the relative gap at
// which the search stops.
func (lp *LP) SolveMIP(ctx context.Context, timeLimit time.Duration, relGap float64) (*MIPResult, error) {
	if err := lp.ok(); err != nil {
		return nil, err
	}
	in := lp.in
	if timeLimit > 0 {
		if err := in.setDouble("time_limit", timeLimit.Seconds()); err != nil {
			return nil, err
		}
	}
	if relGap > 0 {
		if err := in.setDouble("mip_rel_gap", relGap); err != nil {
			return nil, err
		}
	}
	C.Highs_startCallback(in.h, C.int(mipInterruptCallback))
	defer C.Highs_stopCallback(in.h, C.int(mipInterruptCallback))
	res := &MIPResult{Objective: math.NaN()}
	_, ms, el := in.run(ctx)
	res.Time = el
	res.Status = mapStatus(ms, ctx)
	res.DualBound = in.doubleInfo("mip_dual_bound")
	res.Gap = in.doubleInfo("mip_gap")
	res.Nodes = in.intInfo64("mip_node_count")
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
