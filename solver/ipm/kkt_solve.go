package ipm

import (
	"math"
)

// solve solves the full KKT system K·x = b (layout x, z, extra rows). With
// eliminated blocks assembled by the sparse rule, b is reduced onto the kept
// rows (b_x += A_pᵀH_p⁻¹b_p), the reduced system is solved and refined
// against its exact operator (mulReducedExact: the Schur complements applied
// as A_pᵀH_p⁻¹A_p, not as their assembled matrices, so refinement also
// removes the rounding of the assembly), and the eliminated z rows are
// recovered from x, z_p = H_p⁻¹(A_p x − b_p): each refinement step costs one
// product with H_p⁻¹ per block and a solve with the factorization. With the
// dense rule, refinement runs on the full system (mulFull).
func (ks *kktSystem) solve(x, b []float64) {
	if len(ks.elims) == 0 {
		ks.solveReduced(x, b, ks.refine)
		return
	}
	if !ks.sparseSchur() {
		// dense rule: refinement on the full system, whose z_p rows
		// (A_p x − H_p z_p, two dense products per block) also correct the
		// recovered z_p — the accuracy the tail of a near-degenerate solve
		// needs, once the sparse rule has been abandoned (measured on a
		// QAP relaxation: 64 instead of 36 iterations with the reduced
		// refinement alone)
		ks.solveElim(x, b)
		if ks.refine > 0 {
			if ks.fres == nil {
				ks.fres, ks.fdx = make([]float64, ks.fdim), make([]float64, ks.fdim)
			}
			r := refineSolution(x, b, ks.fres, ks.fdx, ks.refine, ks.mulFull, ks.solveElim)
			ks.solveErr = math.Max(ks.solveErr, r/(1+normInf(b)))
		}
		return
	}
	br, xr := ks.br, ks.xr
	for _, eb := range ks.elims {
		eb.hok = false
	}
	ks.reduce(br, b)
	ks.solver.solve(xr, br)
	r := 0.0
	if ks.refine > 0 {
		r = refineSolution(xr, br, ks.res, ks.dx, ks.refine, ks.mulReducedExact, ks.solver.solve)
	} else if !finite(xr) {
		r = math.NaN()
	}
	if !(r <= solveAccuracy*(1+normInf(br))) && ks.useDenseSchur() {
		// A refined solve that failed (or is not finite) despite a
		// factorization without regularized pivots (update's test): the
		// same remedy, the dense rule for the rest of the solve.
		if ks.update() == nil {
			ks.solve(x, b)
			return
		}
	}
	ks.solveErr = math.Max(ks.solveErr, r/(1+normInf(br)))
	ks.recover(x, xr, b)
}

// solveAccuracy is the relative residual ‖b − K_red·x‖∞/(1 + ‖b‖∞) of a
// refined reduced solve above which the sparse Schur assembly is abandoned
// for the dense rule: a clearly failed solve. It lies three orders of
// magnitude above the worst residual of solves that the next iterations
// survive: refined solves with a sound factorization reach about 1e-13,
// slowly converging ones 1e-8 (measured on the SDPLIB instances,
// BENCHMARKS.md, "Solver trust, round 2: IPM tuning history"), while the dense rule costs m²d/2 per iteration.
const solveAccuracy = 1e-5

// setStaticReg replaces the static regularization ε by eps: in the stored
// x-block diagonal now, in the cone blocks at the next update.
func (ks *kktSystem) setStaticReg(eps float64) {
	d := eps - ks.eps
	k := ks.k
	for j := 0; j < ks.n; j++ {
		for q := k.ColPtr[j]; q < k.ColPtr[j+1]; q++ {
			if k.RowIdx[q] == j {
				ks.xbase[q] += d
			}
		}
	}
	ks.eps = eps
}

// finite reports whether every entry of v is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// mulFull computes out = K₀·x for the full (unreduced, unregularized) system.
func (ks *kktSystem) mulFull(out, x []float64) {
	n := ks.n
	xr := ks.xr
	copy(xr[:n], x[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			xr[r] = x[n+i]
		}
	}
	copy(xr[n+ks.mr:], x[n+ks.m:])
	ks.mulK(ks.res, xr)
	copy(out[:n], ks.res[:n])
	for i, r := range ks.zidx {
		if r >= 0 {
			out[n+i] = ks.res[r]
		}
	}
	copy(out[n+ks.m:], ks.res[n+ks.mr:])
	for ci := range ks.slots {
		eb := ks.slots[ci].elim
		if eb == nil {
			continue
		}
		off := ks.slots[ci].off
		d := eb.cone.d
		zp := x[n+off : n+off+d]
		for c, j := range eb.cols {
			eb.xc[c] = x[j]
		}
		// x rows: remove the Schur term, add A_pᵀ z_p
		nc := len(eb.cols)
		sx := eb.sx
		if nc > 0 {
			eb.mulSC()
		}
		eb.mulApT(eb.xt, zp)
		for a, ja := range eb.cols {
			out[ja] += eb.xt[a] - sx[a]
		}
		// z_p rows: A_p x − H_p z_p
		if ks.identity {
			copy(eb.w, zp)
		} else {
			eb.cone.mulH(eb.w, zp)
		}
		eb.mulAp(eb.v, eb.xc)
		for r := 0; r < d; r++ {
			out[n+off+r] = eb.v[r] - eb.w[r]
		}
	}
}

// solveElim is one elimination pass without refinement: reduce b, solve the
// reduced system, recover the eliminated z rows.
func (ks *kktSystem) solveElim(x, b []float64) {
	ks.reduce(ks.br, b)
	ks.solver.solve(ks.xr, ks.br)
	ks.recover(x, ks.xr, b)
}

// solveReduced solves K₀·x = b for the matrix as stored, with the regularized
// factorization and iterative refinement (at most ks.refine steps, stopping
// when the residual is at round-off level or stops decreasing).
//
// With an early stop (refineRel > 0) the residual check itself is skipped
// when the first solve with this factorization (the constant system of the
// iteration, always checked) needed no correction and its backward error
// ‖b − K₀x‖∞/‖x‖∞ times ‖x‖∞ of this solve is below skipCheckMargin times
// the early-stop residual: the solve's residual estimated from the
// factorization's measured backward error, as for a backward-stable solve
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §7.1),
// instead of measured by a product with K₀.
func (ks *kktSystem) solveReduced(x, b []float64, refine int) {
	ks.solver.solve(x, b)
	if refine == 0 {
		return
	}
	nb := normInf(b)
	enough := ks.refineRel * (1 + nb)
	first := ks.nsolves == 0
	ks.nsolves++
	if !first && ks.backErr > 0 && enough > 0 && ks.backErr*normInf(x) <= skipCheckMargin*enough {
		return
	}
	r, steps := refineSolutionNorm(x, b, nb, enough, ks.res, ks.dx, refine, ks.mulK, ks.solver.solve)
	ks.solveErr = math.Max(ks.solveErr, r/(1+nb))
	if first && steps == 0 {
		if nx := normInf(x); nx > 0 && r <= enough {
			ks.backErr = math.Max(r, math.SmallestNonzeroFloat64) / nx
		}
	}
}

// skipCheckMargin is the factor of solveReduced's skipped residual check.
// Derived: one order of magnitude inside the early-stop residual (itself
// an order inside the accuracy adaptStaticReg accepts), for the variation
// of the backward error between right-hand sides.
const skipCheckMargin = 0.1

// refineSolution improves an approximate solution x of K·x = b by at most
// steps rounds of iterative refinement: res = b − K·x with mul (the exact
// operator), dx from solve (the regularized factorization), x += dx. It stops
// when the residual reaches round-off level (1e-12 + 1e-13·‖b‖∞) or stops
// halving, and undoes a correction that made the residual larger. res and dx
// are workspaces of len(x). It returns ‖b − K·x‖∞ of the returned x (when the
// steps run out, the residual before the last, unchecked correction), NaN
// when the solve produced non-finite values.
func refineSolution(x, b, res, dx []float64, steps int, mul, solve func(dst, src []float64)) float64 {
	r, _ := refineSolutionNorm(x, b, normInf(b), 0, res, dx, steps, mul, solve)
	return r
}

// refineSolutionNorm is refineSolution with ‖b‖∞ given (nb) and a residual
// enough, at which it stops as well; it also returns the number of
// corrections kept in x.
func refineSolutionNorm(x, b []float64, nb, enough float64, res, dx []float64, steps int, mul, solve func(dst, src []float64)) (float64, int) {
	tol := math.Max(1e-12+1e-13*nb, enough)
	prev := math.Inf(1)
	dx = dx[:len(x)]
	for it := 0; it < steps; it++ {
		mul(res, x)
		// res = b − res and its ∞-norm in one pass (normInf's rule: a NaN
		// entry makes the norm NaN)
		var r float64
		b := b[:len(res)]
		if haveMulKAsm && len(res) > 0 {
			r = subNormInfAsm(&res[0], &b[0], len(res))
		} else {
			for i, v := range res {
				d := b[i] - v
				res[i] = d
				if a := math.Abs(d); a > r || math.IsNaN(a) {
					r = a
				}
			}
		}
		if r > prev {
			// the last correction made things worse: undo it
			for i := range x {
				x[i] -= dx[i]
			}
			return prev, it - 1
		}
		if r <= tol || !(r < prev/2) {
			return r, it
		}
		prev = r
		solve(dx, res)
		for i := range x {
			x[i] += dx[i]
		}
	}
	return prev, steps
}
