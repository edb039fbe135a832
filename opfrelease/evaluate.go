package opfrelease

import (
	"context"
	"fmt"

	"github.com/privopt/privopt/query"
	"github.com/privopt/privopt/solver"
)

// Evaluation compares program perturbation with the output and input
// perturbation baselines over simulated releases (Dvorkin et al., Section
// 4.1), with query's definitions of infeasibility, optimality loss and CVaR
// (query.Evaluation). It is a private diagnostic: it uses the unperturbed data.
// A baseline that does not apply to the release's mechanism (input
// perturbation, one noise value per varying load, with the scalar-only
// truncated Laplace mechanism) is returned with its NotApplicable reason
// ("not applicable: …") and zero numbers; the other strategies still run.
type Evaluation struct {
	Program, Output, Input *query.Evaluation
}

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// N simulated releases per strategy (≥ 1).
	N int
	// InputN caps the input-perturbation realizations (each is one OPF solve);
	// 0 means N.
	InputN int
	// Seed makes the simulation reproducible (simulation draws are never
	// released).
	Seed     uint64
	Progress func(done, total int)
	// ProgramOnly skips the output and input baselines.
	ProgramOnly bool
}

// Evaluate simulates N releases of each strategy on the program's data: the
// program perturbation's decision rule, output perturbation of the nominal
// optimum with the same noise, and input perturbation (every varying bus load
// perturbed by the same mechanism calibrated to α, the OPF re-solved). Losses
// are relative to the optimal cost of the OPF with the market rules.
func (pr *Program) Evaluate(ctx context.Context, eo EvalOptions) (*Evaluation, error) {
	if eo.N < 1 {
		return nil, fmt.Errorf("opfrelease: EvalOptions.N is %d, must be ≥ 1", eo.N)
	}
	if eo.InputN < 0 {
		return nil, fmt.Errorf("opfrelease: EvalOptions.InputN is %d, must be ≥ 0", eo.InputN)
	}
	full := *pr
	prog := pr.sol
	if pr.lazy {
		// The evaluation counts violations of every limit, outside the noise
		// interval too: evaluate the program with every limit (same optimal
		// value and noise; its decision rule may differ where the LP has ties).
		full.lazy, full.monitored = false, nil
		sol, err := full.solve(ctx, nil)
		if err != nil {
			return nil, err
		}
		prog = sol
	}
	all := map[int]bool{}
	full.activateAll(all)
	if err := full.build(ctx, nil, all, nil, pr.cuts); err != nil {
		return nil, err
	}
	p := full.can.Problem
	opts := query.EvalOptions{N: eo.N, Seed: eo.Seed, Settings: pr.opt.Settings, Solver: pr.opt.Solver, Progress: eo.Progress}
	base, err := solveNominal(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	ref := base.Objective
	opts.Reference = &ref
	ev := &Evaluation{}
	if ev.Program, err = prog.Evaluate(ctx, opts); err != nil {
		return nil, err
	}
	if eo.ProgramOnly {
		return ev, nil
	}
	if ev.Output, err = query.OutputPerturbation(ctx, p, full.spec.Query, pr.privacy, opts); err != nil {
		return nil, err
	}
	vars := pr.dom.Variable()
	if len(vars) == 0 {
		return ev, nil
	}
	in := pr.privacy
	in.Sensitivity = query.Sensitivity{Value: pr.opt.Alpha, Norm: 1, Source: query.Declared}
	build := func(draw []float64) (*solver.Problem, error) {
		load := append([]float64(nil), pr.load...)
		for t, i := range vars {
			load[i] += draw[t]
		}
		cp := full
		if err := cp.build(ctx, load, all, nil, pr.cuts); err != nil {
			return nil, err
		}
		return cp.can.Problem, nil
	}
	io := opts
	if eo.InputN > 0 && eo.InputN < eo.N {
		io.N = eo.InputN
	}
	io.Progress = nil
	if ev.Input, err = query.InputPerturbationQuery(ctx, p, full.spec.Query, len(vars), in, build, io); err != nil {
		return nil, err
	}
	return ev, nil
}

func solveNominal(ctx context.Context, p *solver.Problem, o query.EvalOptions) (*solver.Solution, error) {
	s := o.Solver
	if s == nil {
		var err error
		if s, err = solver.ByName("auto"); err != nil {
			return nil, err
		}
	}
	sol, err := s.Solve(ctx, p, o.Settings)
	if err != nil {
		return nil, err
	}
	if !sol.Status.OK() {
		return nil, fmt.Errorf("opfrelease: nominal OPF with market rules: %v", sol.Status)
	}
	return sol, nil
}
