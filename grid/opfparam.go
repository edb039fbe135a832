package grid

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/privopt/privopt/model"
)

// ptdfRHS returns the right-hand sides of the PTDF formulation for the bus
// loads load: per island Σ_{i in k} (Load_i + Pbusinj_i), and the flow-limit
// sides FlowMax_l + fc_l (rows up) and FlowMin_l + fc_l (rows lo) with
// fc = PTDF (Load + Pbusinj) − Pfinj.
func (n *Network) ptdfRHS(load []float64, up, lo []int) (bal, bup, blo []float64) {
	bal = make([]float64, len(n.RefBus))
	for i, d := range load {
		bal[n.Island[i]] += d + n.Pbusinj[i]
	}
	if len(up) == 0 && len(lo) == 0 {
		return bal, nil, nil
	}
	inj := make([]float64, n.NumBuses())
	for i := range inj {
		inj[i] = -(load[i] + n.Pbusinj[i])
	}
	fl := n.Bf.MulVecTo(nil, 1, n.SolveAngles(inj), 0)
	fc := make([]float64, len(fl))
	for l := range fl {
		fc[l] = -fl[l] - n.Pfinj[l]
	}
	bup = make([]float64, len(up))
	for r, l := range up {
		bup[r] = n.FlowMax[l] + fc[l]
	}
	blo = make([]float64, len(lo))
	for r, l := range lo {
		blo[r] = n.FlowMin[l] + fc[l]
	}
	return bal, bup, blo
}

// bthetaRHS returns the nodal balance right-hand side Load + Pbusinj of the
// B-θ formulation.
func (n *Network) bthetaRHS(load []float64) []float64 {
	rhs := make([]float64, n.NumBuses())
	for i := range rhs {
		rhs[i] = load[i] + n.Pbusinj[i]
	}
	return rhs
}

// ParamOPF is a DC-OPF (see OPF) built and canonicalized once, whose bus
// loads can change between solves: the right-hand sides that depend on the
// loads — the power balance, and in the PTDF formulation the flow limits
// shifted by PTDF·(Load + Pbusinj) — are model parameters
// (model.RHSParam), SetLoad recomputes them from new loads in O(network)
// (one angle solve for PTDF), and Solve re-solves the prepared standard form
// (model.Prepared): without re-canonicalizing, and from the previous HiGHS
// basis when the OPF is an LP (OPFOptions.LinearCost or linear/
// piecewise-linear costs). Quadratic costs make it a QP, which HiGHS solves
// from scratch each time. It is the hourly re-dispatch path: the network,
// costs and limits are fixed and only the loads change.
type ParamOPF struct {
	*OPF
	balance, flowMax, flowMin *model.Param
	prep                      *model.Prepared
	setTime                   time.Duration
}

// BuildParamOPF builds the DC-OPF of the network with parametric loads (see
// ParamOPF); opt as for BuildOPF, except OmitFlowLimits (constraint
// generation adds rows, which a prepared model cannot take).
func (n *Network) BuildParamOPF(opt OPFOptions) (*ParamOPF, error) {
	if opt.OmitFlowLimits {
		return nil, fmt.Errorf("grid: BuildParamOPF: OmitFlowLimits is not supported (rows added by constraint generation would need a new canonicalization)")
	}
	o, err := n.BuildOPF(opt)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	m := o.Model
	po := &ParamOPF{OPF: o}
	po.balance = m.RHSParam("load_balance", o.net.balance)
	if o.net.upper != nil && o.Options.Formulation == PTDF {
		po.flowMax = m.RHSParam("load_flow_max", o.net.upper)
	}
	if o.net.lower != nil && o.Options.Formulation == PTDF {
		po.flowMin = m.RHSParam("load_flow_min", o.net.lower)
	}
	if err := m.Err(); err != nil {
		return nil, fmt.Errorf("grid: BuildParamOPF: %w", err)
	}
	if po.prep, err = m.Prepare(opt.Solve); err != nil {
		return nil, fmt.Errorf("grid: BuildParamOPF: %w", err)
	}
	o.buildTime += time.Since(t0)
	return po, nil
}

// SetLoad sets the bus loads (MW per internal bus, length NumBuses, finite)
// for the next Solve.
func (o *ParamOPF) SetLoad(load []float64) error {
	t0 := time.Now()
	n := o.Network
	if len(load) != n.NumBuses() {
		return fmt.Errorf("grid: SetLoad: load has length %d, want NumBuses = %d", len(load), n.NumBuses())
	}
	for i, v := range load {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("grid: SetLoad: load[%d] is %v, must be finite", i, v)
		}
	}
	if o.Options.Formulation == PTDF {
		bal, bup, blo := n.ptdfRHS(load, o.net.upRows, o.net.loRows)
		if err := o.prep.SetParam(o.balance, bal...); err != nil {
			return err
		}
		if o.flowMax != nil {
			if err := o.prep.SetParam(o.flowMax, bup...); err != nil {
				return err
			}
		}
		if o.flowMin != nil {
			if err := o.prep.SetParam(o.flowMin, blo...); err != nil {
				return err
			}
		}
	} else if err := o.prep.SetParam(o.balance, n.bthetaRHS(load)...); err != nil {
		return err
	}
	o.load = append([]float64(nil), load...)
	o.Options.Load = o.load
	o.setTime = time.Since(t0)
	return nil
}

// WarmStart reports whether re-solves start from the previous HiGHS basis
// (the OPF is an LP).
func (o *ParamOPF) WarmStart() bool { return o.prep.WarmStart() }

// Solve solves the OPF for the loads last set (initially those of the
// options or the network). Time.Build is the time of the last SetLoad (the
// parameter update), Time.Solve the backend's. There is no interior-point
// retry as in OPF.Solve: a numerical error is reported as the status.
func (o *ParamOPF) Solve(ctx context.Context) (*OPFSolution, error) {
	t0 := time.Now()
	res, err := o.prep.Solve(ctx)
	if err != nil {
		return nil, fmt.Errorf("grid: solving DC-OPF: %w", err)
	}
	var solveTime time.Duration
	if res.Solution != nil {
		solveTime = res.Solution.SolveTime
	}
	sol := o.fromResult(res, o.setTime, solveTime)
	sol.Time.Total = o.setTime + time.Since(t0)
	return sol, nil
}

// Close releases the HiGHS instance of a warm-started OPF.
func (o *ParamOPF) Close() error { return o.prep.Close() }
