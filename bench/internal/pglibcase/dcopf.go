package pglibcase

import (
	"fmt"
	"path/filepath"

	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/solver"
)

// DCOPFFamilies are the DC-OPF LP families of DCOPFLPs: linear costs
// (grid.OPFOptions.LinearCost) in the B-θ and PTDF formulations, and
// 4-segment piecewise-linear costs (grid.Case.PiecewiseCosts) in PTDF and
// B-θ.
var DCOPFFamilies = []string{"dcopf-lin-btheta", "dcopf-lin-ptdf", "dcopf-pwl-ptdf", "dcopf-pwl-btheta"}

// DCOPFLP is one DC-OPF LP of a PGLib case.
type DCOPFLP struct {
	Family  string          // one of DCOPFFamilies
	Buses   int             // the case's number of buses
	Problem *solver.Problem // the canonical problem the model package solves
}

// DCOPFLPs returns the DC-OPF LPs of the named PGLib case (dir's
// pglib/pglib_opf_case<NAME>.m, dir the shared data directory, the case's
// own loads and DC model defaults) in the given families (of
// DCOPFFamilies), built by grid.BuildOPF as the releases build them and
// canonicalized by the model package. A family whose canonical problem is
// not an LP (a cone other than zero and nonnegative, or a quadratic
// objective) is left out and named in skipped.
func DCOPFLPs(dir, name string, families []string) (lps []DCOPFLP, skipped []string, err error) {
	c, err := grid.ReadCase(filepath.Join(dir, "pglib", "pglib_opf_case"+name+".m"))
	if err != nil {
		return nil, nil, err
	}
	pwl, _, err := c.PiecewiseCosts(4)
	if err != nil {
		return nil, nil, err
	}
	build := map[string]struct {
		c   *grid.Case
		opt grid.OPFOptions
	}{
		"dcopf-lin-btheta": {c, grid.OPFOptions{Formulation: grid.BTheta, LinearCost: true}},
		"dcopf-lin-ptdf":   {c, grid.OPFOptions{Formulation: grid.PTDF, LinearCost: true}},
		"dcopf-pwl-ptdf":   {pwl, grid.OPFOptions{Formulation: grid.PTDF}},
		"dcopf-pwl-btheta": {pwl, grid.OPFOptions{Formulation: grid.BTheta}},
	}
	for _, f := range families {
		v, ok := build[f]
		if !ok {
			return nil, nil, fmt.Errorf("case %s: unknown DC-OPF family %q (want one of %v)", name, f, DCOPFFamilies)
		}
		nw, err := grid.NewNetwork(v.c, grid.DCOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("case %s: %w", name, err)
		}
		o, err := nw.BuildOPF(v.opt)
		if err != nil {
			return nil, nil, fmt.Errorf("case %s %s: %w", name, f, err)
		}
		cn, err := o.Model.Canonicalize()
		if err != nil {
			return nil, nil, fmt.Errorf("case %s %s: %w", name, f, err)
		}
		p := cn.Problem
		if !p.IsLinearConic() || (p.P != nil && p.P.Nnz() > 0) {
			skipped = append(skipped, f)
			continue
		}
		lps = append(lps, DCOPFLP{Family: f, Buses: nw.NumBuses(), Problem: p})
	}
	return lps, skipped, nil
}
