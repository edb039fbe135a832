package ipm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/internal/arena"
	"github.com/privopt/privopt/internal/ldl"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// psdBytes estimates the dense memory of the PSD blocks in the KKT system,
// with newKKT's elimination rule (eliminatePSD): an eliminated block needs
// at most the d×nc, nc×d and nc×nc matrices of its Schur complement (the
// dense rule, which the sparse one can fall back to; the sparse rule itself
// keeps A_p sparse and needs no nc×d matrix); any other block is a dense d×d
// part of the factor.
func psdBytes(p *solver.Problem, set *Settings) float64 {
	var at *sparse.CSC
	var total float64
	row := 0
	var mark, cols []int
	for ci, c := range p.Cones {
		d := float64(c.Dim)
		if c.Kind == cone.PSD {
			bytes := 8 * d * d
			if !set.DisablePSDElimination {
				if at == nil {
					at = p.A.Transpose()
					mark = make([]int, p.A.Cols)
					for i := range mark {
						mark[i] = -1
					}
				}
				cols = blockCols(cols[:0], at, row, c.Dim, mark, ci)
				nc := len(cols)
				if eliminatePSD(c.Dim, nc, set) {
					n := float64(nc)
					bytes = 8 * (2*d*n + n*n)
				}
			}
			total += bytes
		}
		row += c.Dim
	}
	return total
}

// newWorkspace reduces, equilibrates and analyzes p; stop is polled between
// equilibration passes and during the symbolic analysis of the KKT matrix
// (an error wrapping ldl.ErrInterrupted when it fires).
func newWorkspace(p *solver.Problem, set *Settings, stop func() bool) (*workspace, error) {
	if set.MaxFactorBytes > 0 {
		dense := psdBytes(p, set) // bytes, in float64 to avoid overflow
		if dense > float64(set.MaxFactorBytes) {
			return nil, fmt.Errorf("%w: the PSD blocks of the KKT matrix need about %.3g GB, more than MaxFactorBytes = %d", ErrTooLarge, dense/1e9, set.MaxFactorBytes)
		}
	}
	red := reduce(p)
	w := &workspace{set: set, red: red, orig: p, n: len(red.q), m: len(red.b)}
	n, m := w.n, w.m
	w.normQ, w.normB = normInf(red.q), normInf(red.b)
	// internal cones and equilibration blocks
	// the cones' vectors as slices of one allocation
	nc, nb := 0, 0
	for _, c := range red.cones {
		switch c.Kind {
		case cone.Zero:
		case cone.Nonnegative:
			nc += nonnegFloats * c.Dim
		case cone.SecondOrder:
			nc += socFloats * c.Dim
			nb++
		default:
			nb++
		}
	}
	blocks := make([][2]int, 0, nb)
	hasPSD := false // a PSD block among the cones
	cbuf := make([]float64, nc)
	cl := func(k int) []float64 { return arena.Cut(&cbuf, k) }
	w.cones = make([]conic, 0, len(red.cones))
	w.offs = make([]int, 0, len(red.cones))
	off := 0
	for _, c := range red.cones {
		var k conic
		switch c.Kind {
		case cone.Zero:
			k = &zeroCone{d: c.Dim}
		case cone.Nonnegative:
			k = newNonneg(c.Dim, cl(nonnegFloats*c.Dim))
		case cone.SecondOrder:
			k = newSOC(c.Dim, cl(socFloats*c.Dim))
		case cone.PSD:
			if c.Dim == 1 {
				// a 1×1 block (SDPA's diagonal blocks) is
				// the nonnegative half-line: skip the dense machinery
				k = newNonneg(1, nil)
				break
			}
			k = newPSD(c.Dim)
		case cone.Exponential:
			k = &nonsymCone{f: expBarriers{}}
		case cone.Power:
			k = &nonsymCone{f: powBarriers{alpha: c.Alpha}}
		default:
			return nil, fmt.Errorf("ipm: unsupported cone %v", c)
		}
		if c.Dim == 0 {
			continue
		}
		if c.Kind != cone.Zero && c.Kind != cone.Nonnegative && !(c.Kind == cone.PSD && c.Dim == 1) {
			blocks = append(blocks, [2]int{off, off + c.Dim})
		}
		_, psd := k.(*psdCone)
		hasPSD = hasPSD || psd
		w.nonsym = w.nonsym || !k.symmetric()
		w.cones = append(w.cones, k)
		w.offs = append(w.offs, off)
		w.nu += k.degree()
		off += c.Dim
	}
	w.offs = append(w.offs, off) // the end of the last cone (block)
	w.noEarlyRefine = hasPSD || w.nonsym
	// scaled data: reduce's copies of q, b, P and A are the solver's own,
	// scaled in place (red keeps only the rotated rows' positions in use)
	w.p, w.a, w.q, w.b = red.p, red.a, red.q, red.b
	// (noEarlyRefine is set above exactly for PSD blocks and non-symmetric
	// cones, where the equilibration keeps all its passes)
	w.sc = equilibrate(w.p, w.a, w.q, w.b, blocks, set, !w.noEarlyRefine, stop)
	wellScaled := w.sc.rowSpread() <= earlyRefineSpread
	w.noEarlyRefine = w.noEarlyRefine || !wellScaled
	w.nonsymEarly = w.nonsym && !hasPSD && wellScaled
	if stop != nil && stop() {
		return nil, fmt.Errorf("ipm: equilibration: %w", ldl.ErrInterrupted)
	}
	kkt, err := newKKT(w.p, w.a, w.cones, set, stop)
	if err != nil {
		return nil, err
	}
	w.kkt = kkt
	// The work vectors as slices of one allocation (each with its capacity
	// cut at its length, so no append can run into its neighbour).
	total := 8*n + 12*m + 2*kkt.fdim + max(m, n)
	if w.nonsym {
		total += n + 4*m
	}
	wbuf := arena.Floats.Get(total)
	w.slab = wbuf
	alloc := func(k int) []float64 { return arena.Cut(&wbuf, k) }
	w.x, w.s, w.z = alloc(n), alloc(m), alloc(m)
	w.dx, w.ds, w.dz = alloc(n), alloc(m), alloc(m)
	w.rx, w.rz = alloc(n), alloc(m)
	w.px, w.atz, w.ax = alloc(n), alloc(n), alloc(m)
	w.x2, w.z2, w.x1, w.z1 = alloc(n), alloc(m), alloc(n), alloc(m)
	w.rhs, w.sol = alloc(kkt.fdim), alloc(kkt.fdim)
	w.off, w.rS, w.work = alloc(m), alloc(m), alloc(max(m, n))
	w.adx = alloc(m)
	w.dX, w.dZ = alloc(n), alloc(m)
	if w.nonsym {
		w.dsAff, w.dzAff = alloc(m), alloc(m)
		w.dxKeep, w.dsKeep, w.dzKeep = alloc(n), alloc(m), alloc(m)
	}
	return w, nil
}

// release hands the setup's largest arrays (the work vectors, the KKT
// pattern and work arrays, the symbolic analysis and the factor of a sparse
// LDLᵀ) to the next solve's setup (the internal/arena pools); w must not be
// used afterwards. The returned solution owns its own arrays (finish and
// point allocate them), so nothing it holds is released.
func (w *workspace) release() {
	arena.Floats.Release(w.slab)
	w.slab = nil
	if ks := w.kkt; ks != nil {
		if s, ok := ks.solver.(*sparseLDL); ok {
			if s.f != nil {
				s.f.Release()
				s.f = nil
			}
			if s.sym != nil {
				s.sym.Release()
				s.sym = nil
			}
		}
		arena.Ints.Release(ks.islab)
		arena.Floats.Release(ks.fslab)
		w.kkt = nil
	}
}

// checkConvex reports an error wrapping ErrNotConvex when the LDLᵀ
// factorization of P + δI has a negative pivot, and one wrapping
// ldl.ErrInterrupted when stop fired during the sparse analysis or
// factorization.
func checkConvex(p *sparse.CSC, dense bool, stop func() bool) error {
	if p == nil || p.Nnz() == 0 {
		return nil
	}
	n := p.Cols
	var mx float64
	for _, v := range p.Val {
		mx = math.Max(mx, math.Abs(v))
	}
	delta := 1e-9 * math.Max(1, mx)
	t := sparse.NewTriplets(n, n, p.Nnz()+n)
	for j := 0; j < n; j++ {
		for k := p.ColPtr[j]; k < p.ColPtr[j+1]; k++ {
			t.Append(p.RowIdx[k], j, p.Val[k])
		}
		t.Append(j, j, delta)
	}
	ps := t.ToCSC()
	// make sure every diagonal is present (ToCSC drops exact zeros)
	for j := 0; j < n; j++ {
		if ps.At(j, j) == 0 {
			return fmt.Errorf("%w: diagonal entry (%d,%d) is %v", ErrNotConvex, j, j, -delta)
		}
	}
	signs := make([]int8, n)
	for i := range signs {
		signs[i] = 1
	}
	var neg int
	if dense || n <= 64 {
		f := &denseLDL{signs: signs, reg: ldl.Regularization{Eps: math.Inf(-1), Delta: 1}}
		if err := f.factor(ps); err != nil {
			return fmt.Errorf("%w: %v", ErrNotConvex, err)
		}
		for _, d := range f.d {
			if d < 0 {
				neg++
			}
		}
	} else {
		opts := ldl.Options{Interrupt: stop}
		if n <= kktMinimumDegreeOrder {
			opts.Ordering = ldl.MinimumDegree // as for small KKT matrices
		}
		sym, err := ldl.Analyze(ps, opts)
		if err != nil {
			return fmt.Errorf("ipm: analyzing P: %w", err)
		}
		f, err := sym.Factor(ps, nil, ldl.Regularization{})
		if errors.Is(err, ldl.ErrInterrupted) {
			return fmt.Errorf("ipm: factorizing P: %w", err)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrNotConvex, err)
		}
		_, neg, _ = f.Inertia()
		f.Release()
		sym.Release()
	}
	if neg > 0 {
		return fmt.Errorf("%w: the LDLᵀ factorization of P + %g·I has %d negative pivots", ErrNotConvex, delta, neg)
	}
	return nil
}

// block returns the slice of v belonging to cone i. The cones are
// contiguous, so the slice ends where cone i+1 starts (w.offs has a final
// entry): no call of the cone's dim method, which in a loop over the cones
// of a small exp-cone problem cost as much as the work done on each block.
func (w *workspace) block(v []float64, i int) []float64 {
	return v[w.offs[i]:w.offs[i+1]]
}

// initialize sets the starting point (Clarabel, Section 4.2): for symmetric
// cones the solutions of
//
//	[P Aᵀ; A −I][x; z] = [0; b]  (s = −z)  and  [P Aᵀ; A −I][x; z] = [−q; 0]
//
// shifted into the cones; otherwise the central point of every cone, x = 0.
func (w *workspace) initialize() bool {
	w.tau, w.kappa = 1, 1
	if w.nonsym {
		clear(w.x)
		for i, c := range w.cones {
			c.unitInit(w.block(w.s, i), w.block(w.z, i))
		}
		return true
	}
	if err := w.kkt.factorIdentity(); err != nil {
		return false
	}
	n := w.n
	clear(w.rhs)
	copy(w.rhs[n:n+w.m], w.b)
	w.kkt.solve(w.sol, w.rhs)
	copy(w.x, w.sol[:n])
	for i := range w.s {
		w.s[i] = -w.sol[n+i]
	}
	clear(w.rhs)
	for j := 0; j < n; j++ {
		w.rhs[j] = -w.q[j]
	}
	w.kkt.solve(w.sol, w.rhs)
	copy(w.z, w.sol[n:n+w.m])
	w.shiftToCone(w.s)
	w.shiftToCone(w.z)
	for i, c := range w.cones {
		if _, ok := c.(*zeroCone); ok {
			clear(w.block(w.s, i))
		}
	}
	return true
}

// shiftToCone moves v into the interior of K by one common shift,
// v += (1 − α)e with α the smallest eigenvalue over all cones, when α is not
// clearly positive (CVXOPT's coneqp initialization; Vandenberghe 2010, §7.3).
func (w *workspace) shiftToCone(v []float64) {
	a := math.Inf(1)
	var nv float64 = 1
	for i, c := range w.cones {
		a = math.Min(a, c.margin(w.block(v, i)))
	}
	nv = math.Max(nv, normInf(v))
	if math.IsInf(a, 1) || a > 1e-8*nv {
		return
	}
	for i, c := range w.cones {
		c.addE(w.block(v, i), 1-a)
	}
}

// residualNorms are the norms and inner products the termination rules read
// at an iterate, formed by residuals in the passes that form the residuals
// (no second pass over the vectors): the ∞-norms of E⁻¹r_z, E⁻¹Ax, E⁻¹s
// (rowRes, rowAx, rowS; E⁻¹ undoes the row equilibration) and of D⁻¹r_x,
// D⁻¹Px, D⁻¹Aᵀz (colRes, colPx, colATz), for measure; the ∞-norms of Aᵀz,
// Px and Ax + s on the equilibrated data, for the infeasibility tests; and
// sᵀz, for μ. Each maximum follows normInf's rule (a NaN entry makes it NaN).
type residualNorms struct {
	rowRes, rowAx, rowS   float64
	colRes, colPx, colATz float64
	atz, px, axs          float64
	sz                    float64
}

// maxAbs returns max(m, |v|), NaN when either is NaN (normInf's rule).
func maxAbs(m, v float64) float64 {
	if a := math.Abs(v); a > m || a != a {
		return a
	}
	return m
}

// residuals computes, at the current iterate,
//
//	rx = Px + Aᵀz + qτ,  rz = Ax + s − bτ,  rτ = qᵀx + bᵀz + κ + xᵀPx/τ,
//
// and, in the same passes, the norms and products of residualNorms.
func (w *workspace) residuals() {
	symMulVec(w.px, w.p, w.x)
	w.a.MulTransVecTo(w.atz, 1, w.z, 0)
	w.a.MulVecTo(w.ax, 1, w.x, 0)
	tau := w.tau
	var nr residualNorms
	var xpx, qx float64
	x, q, px, atz, rx, dinv := w.x, w.q, w.px, w.atz, w.rx, w.sc.dinv
	for j := range rx {
		pj, aj := px[j], atz[j]
		xpx += x[j] * pj
		qx += q[j] * x[j]
		r := pj + aj + q[j]*tau
		rx[j] = r
		dj := dinv[j]
		nr.colRes = maxAbs(nr.colRes, dj*r)
		nr.colPx = maxAbs(nr.colPx, dj*pj)
		nr.colATz = maxAbs(nr.colATz, dj*aj)
		nr.px = maxAbs(nr.px, pj)
		nr.atz = maxAbs(nr.atz, aj)
	}
	var bz, sz float64
	b, z, s, ax, rz, einv := w.b, w.z, w.s, w.ax, w.rz, w.sc.einv
	for i := range rz {
		zi, si, ai := z[i], s[i], ax[i]
		bz += b[i] * zi
		sz += si * zi
		r := ai + si - b[i]*tau
		rz[i] = r
		ei := einv[i]
		nr.rowRes = maxAbs(nr.rowRes, ei*r)
		nr.rowAx = maxAbs(nr.rowAx, ei*ai)
		nr.rowS = maxAbs(nr.rowS, ei*si)
		nr.axs = maxAbs(nr.axs, ai+si)
	}
	nr.sz = sz
	w.xpx, w.qx, w.bz, w.norms = xpx, qx, bz, nr
	w.rtau = qx + bz + w.kappa + xpx/tau
}

// measure fills w.info with objectives and relative residuals in the units of
// the reduced (unequilibrated) problem, from the quantities residuals formed.
func (w *workspace) measure() {
	sc := w.sc
	tau := w.tau
	c := sc.c
	in := &w.info
	nr := &w.norms
	in.pobj = (0.5*w.xpx/(tau*tau)+w.qx/tau)/c + w.orig.R
	in.dobj = (-0.5*w.xpx/(tau*tau)-w.bz/tau)/c + w.orig.R
	in.gap = math.Abs(in.pobj - in.dobj)
	in.relgap = in.gap / math.Max(1, math.Min(math.Abs(in.pobj-w.orig.R), math.Abs(in.dobj-w.orig.R)))
	in.pres = nr.rowRes / tau / (1 + math.Max(w.normB, math.Max(nr.rowAx, nr.rowS)/tau))
	in.dres = nr.colRes / (c * tau) / (1 + math.Max(w.normQ, math.Max(nr.colPx, nr.colATz)/(c*tau)))
	if math.IsNaN(in.pres) || math.IsNaN(in.dres) || math.IsNaN(in.gap) {
		in.pres, in.dres, in.gap, in.relgap = math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	}
}

func (w *workspace) converged(feas, gap float64) bool {
	in := &w.info
	return in.pres <= feas && in.dres <= feas && (in.gap <= gap || in.relgap <= gap)
}

// primalInfeasible: bᵀz < 0 and ‖Aᵀz‖∞ ≤ InfeasTol·(−bᵀz) on the
// equilibrated data.
func (w *workspace) primalInfeasible() bool {
	return w.bz < 0 && w.norms.atz <= w.set.InfeasTol*(-w.bz)
}

// dualInfeasible: qᵀx < 0, ‖Px‖∞ ≤ InfeasTol·(−qᵀx) and
// ‖Ax + s‖∞ ≤ InfeasTol·(−qᵀx) on the equilibrated data.
func (w *workspace) dualInfeasible() bool {
	if !(w.qx < 0) {
		return false
	}
	lim := w.set.InfeasTol * (-w.qx)
	return w.norms.px <= lim && w.norms.axs <= lim
}

// solveNewton solves the Newton system of the embedding for the right-hand
// sides (dX, dZ, dτ, dS, dκ):
//
//	PΔx + AᵀΔz + qΔτ = −dX
//	AΔx + Δs − bΔτ = −dZ
//	qᵀΔx + bᵀΔz + Δκ + 2ξᵀPΔx − ξᵀPξ·Δτ = −dτ,  ξ = x/τ
//	Δs + HΔz = −offset(dS)
//	κΔτ + τΔκ = −dκ
//
// by one KKT solve plus the constant one (x₂, z₂) = K⁻¹[−q; b] (Clarabel,
// Section 5.1). The step is left in w.dx, w.ds, w.dz, w.dtau, w.dkappa.
func (w *workspace) solveNewton(dX, dZ []float64, dTau float64, dS []float64, dKappa float64) bool {
	n, m := w.n, w.m
	offs := w.offs
	for i, c := range w.cones {
		o, d := w.off[offs[i]:offs[i+1]], dS[offs[i]:offs[i+1]]
		if _, ok := c.(*nonsymCone); ok {
			copy(o, d) // its dsOffset, without the interface call
			continue
		}
		c.dsOffset(o, d)
	}
	clear(w.rhs)
	// (local slices of equal lengths: the loops run without reloads and
	// bounds checks; the same operations)
	rx, rz := w.rhs[:n], w.rhs[n:n+m]
	dXn, dZm, offm := dX[:len(rx)], dZ[:len(rz)], w.off[:len(rz)]
	for j := range rx {
		rx[j] = -dXn[j]
	}
	for i := range rz {
		rz[i] = offm[i] - dZm[i]
	}
	w.kkt.solve(w.sol, w.rhs)
	copy(w.x1, w.sol[:n])
	copy(w.z1, w.sol[n:n+m])
	tau, kappa := w.tau, w.kappa
	// ξᵀP v = (Px)ᵀv/τ
	num := dKappa/tau - dTau - dot(w.q, w.x1) - dot(w.b, w.z1) - 2*dot(w.px, w.x1)/tau
	den := dot(w.q, w.x2) + dot(w.b, w.z2) - kappa/tau + 2*dot(w.px, w.x2)/tau - w.xpx/(tau*tau)
	dt := num / den
	if math.IsNaN(dt) || math.IsInf(dt, 0) {
		return false
	}
	dx, dz := w.dx[:n], w.dz[:m]
	x1, x2, z1, z2 := w.x1[:len(dx)], w.x2[:len(dx)], w.z1[:len(dz)], w.z2[:len(dz)]
	for j := range dx {
		dx[j] = x1[j] + dt*x2[j]
	}
	for i := range dz {
		dz[i] = z1[i] + dt*z2[i]
	}
	// Δs from the linearized complementarity, Δs = −offset − HΔz, except in
	// blocks where H is large (inactive constraints, s ≫ z): there HΔz
	// amplifies the solve's round-off, and Δs is taken from the primal
	// equation Δs = −dZ − AΔx + bΔτ, which is accurate to the precision of Δx.
	// AΔx is computed at its first use only: a Newton solve in which no
	// block takes Δs from the primal equation skips the product (measured
	// on the smallconic exp family at n = 50: 10 of 205 solves).
	adxDone := false
	lin := func(k int) float64 {
		if !adxDone {
			w.a.MulVecTo(w.adx, 1, w.dx, 0)
			adxDone = true
		}
		return -dZ[k] - w.adx[k] + w.b[k]*dt
	}
	for i, c := range w.cones {
		ds := w.block(w.ds, i)
		off := w.offs[i]
		if w.kkt.slots[i].elim != nil {
			// In an eliminated PSD block HΔz = AΔx − rhs holds by
			// construction (Δz = H⁻¹(AΔx − rhs)), so the primal equation
			// gives Δs without the round trip through H⁻¹ and H (and
			// without the two dense products of HΔz).
			for k := range ds {
				ds[k] = lin(off + k)
			}
			continue
		}
		if nc, ok := c.(*nonsymCone); ok {
			nc.mulH(ds, w.block(w.dz, i)) // a direct call
		} else {
			c.mulH(ds, w.block(w.dz, i))
		}
		o := w.block(w.off, i)
		o = o[:len(ds)]
		for k := range ds {
			ds[k] = -ds[k] - o[k]
		}
		switch cc := c.(type) {
		case *nonnegCone:
			for k := range ds {
				if cc.w[k] > 1 {
					ds[k] = lin(off + k)
				}
			}
		case *socCone:
			if cc.eta > 1 {
				for k := range ds {
					ds[k] = lin(off + k)
				}
			}
		}
	}
	w.dtau = dt
	w.dkappa = -(dKappa + kappa*dt) / tau
	if nd := normInf(dX); nd > 0 {
		if w.dirRes == nil {
			w.dirRes = make([]float64, n)
		}
		e := w.dirRes
		symMulVec(e, w.p, w.dx)
		w.a.MulTransVecTo(e, 1, w.dz, 1)
		for j := range e {
			e[j] += w.q[j]*dt + dX[j]
		}
		w.dirErr = math.Max(w.dirErr, normInf(e)/nd)
	}
	return true
}

// stepLength returns the largest α ≤ amax keeping τ, κ, s and z in their
// cones.
func (w *workspace) stepLength(amax float64) float64 {
	a := amax
	if w.dtau < 0 {
		a = min(a, -w.tau/w.dtau)
	}
	if w.dkappa < 0 {
		a = min(a, -w.kappa/w.dkappa)
	}
	for i, c := range w.cones {
		az, as := c.stepLength(w.block(w.dz, i), w.block(w.ds, i), w.block(w.z, i), w.block(w.s, i), a)
		a = min(a, min(az, as))
	}
	return max(a, 0)
}

// centrality returns the barrier-based proximity measure of Clarabel for the
// point at step α:
//
//	Ψ(α) = (ν+1)·log μ(α) − log τ(α) − log κ(α) + Σ_K [f(s(α)) + f*(z(α))],
//
// which is 0 on the central path of symmetric cones.
func (w *workspace) centrality(a float64) float64 {
	tau := w.tau + a*w.dtau
	kappa := w.kappa + a*w.dkappa
	if !(tau > 0 && kappa > 0) {
		return math.Inf(1)
	}
	var sz float64
	sv := w.s
	ds, zv, dz := w.ds[:len(sv)], w.z[:len(sv)], w.dz[:len(sv)]
	for i := range sv {
		sz += (sv[i] + a*ds[i]) * (zv[i] + a*dz[i])
	}
	mu := (sz + tau*kappa) / (w.nu + 1)
	if !(mu > 0) {
		return math.Inf(1)
	}
	b := (w.nu+1)*math.Log(mu) - math.Log(tau) - math.Log(kappa)
	for i, c := range w.cones {
		b += c.barrier(w.block(w.z, i), w.block(w.s, i), w.block(w.dz, i), w.block(w.ds, i), a)
	}
	return b
}

// adaptStaticReg reduces the static regularization ε of the KKT matrix when
// the refined solves of the current factorization leave a relative residual
// above kktSolveTol and kktSolveRel times the merit of the iterate: ε is
// then large against the smallest eigenvalues of the reduced system
// (ill-conditioned constraints such as finite-difference operators in QPs
// or SDPs), and iterative refinement converges slowly
// or not at all. The iteration is then redone with ε shrunk by staticRegCut
// at a time, down to Settings.MinStaticReg, while the solves do not get more
// than regDescentSlack times worse than the best seen (the residual often stays
// flat until ε is small enough: finite-difference QPs of order 10⁴ need
// 1e-14); the ε with the most
// accurate solves is kept for the rest of the solve. That choice is revoked
// when the solves later become regRevokeFactor times worse than those that
// started the descent (near a degenerate solution a small ε no longer
// stabilizes the factorization): the initial ε is tried on the same iterate
// and kept for good only if its solves are regDescentSlack times more
// accurate; otherwise the reduced ε stays (a revoked ε that solves no
// better — measured: 1.5e-3 against 1.9e-3 — perturbs the dual equation
// and stalled the dual residual at 5e-7, a numerical error).
//
// The solve residual alone misses one failure: ε in the x-block perturbs the
// dual equation P Δx + AᵀΔz + qΔτ = −r_x directly, and when the dual
// residual is what remains (r_x small against the other rows, so the
// relative solve residual looks fine) the directions can leave most of r_x in
// place while μ keeps falling — SDPs with ill-conditioned constraints
// stalled this way for 30 to 70 iterations. solveNewton therefore records dirErr, the
// directions' relative error in that equation; when it exceeds dirErrTol,
// the solves are above round-off (kktSolveTol), and the dual residual
// dominates the iterate's merit (dresDominance), ε is cut as well — also
// after an earlier descent has settled it —, this time only while the
// solves get strictly more accurate; a descent that does not improve them
// shows that the error is not the regularization's, and dirErr starts no
// further one. It reports whether the iteration must be redone.
func (w *workspace) adaptStaticReg() bool {
	e := w.kkt.solveErr
	ks := w.kkt
	if w.regDescending {
		if e < w.regBestErr {
			w.regBest, w.regBestErr = ks.eps, e
		}
		slack := float64(regDescentSlack)
		if w.regStrict {
			slack = 1
		}
		if w.canCutReg() && e <= slack*w.regBestErr {
			ks.setStaticReg(ks.eps * staticRegCut)
			return true
		}
		w.regDescending, w.regLocked = false, true
		if w.regStrict && w.regBest == w.regStart {
			// a smaller ε did not make the solves more accurate: the
			// directions' error is not the regularization's
			w.dirGaveUp = true
		}
		if ks.eps != w.regBest {
			ks.setStaticReg(w.regBest)
			return true
		}
		return false
	}
	if w.revokeFrom > 0 {
		// the trial of a revocation: the initial ε is kept only if its
		// solves are regDescentSlack times more accurate than those of the
		// reduced ε it replaces
		from, fromErr := w.revokeFrom, w.revokeFromErr
		w.revokeFrom = 0
		if !(e*regDescentSlack <= fromErr) {
			ks.setStaticReg(from)
			return true
		}
	}
	if w.regFirst > 0 && ks.eps < w.regFirst && !(e <= regRevokeFactor*w.regFirstErr) {
		// The solves with the reduced ε have become much worse than those
		// with the initial ε were when the reduction started: the initial ε
		// is tried on the same iterate (once per solve).
		w.revokeFrom, w.revokeFromErr = ks.eps, e
		ks.setStaticReg(w.regFirst)
		w.regFirst = 0
		return true
	}
	in := &w.info
	dirBad := !w.dirGaveUp && w.dirErr > dirErrTol && !(e <= kktSolveTol) && e <= dirSolveMax && in.dres > w.set.FeasTol &&
		in.dres >= dresDominance*math.Max(in.pres, math.Min(in.gap, in.relgap))
	if w.dirErr > dirErrSevere && e <= kktSolveTol && w.severeCuts < maxSevereCuts && w.canCutReg() &&
		!w.converged(w.set.FeasTol, w.set.GapTol) {
		// The solves are at round-off, yet a direction made the dual
		// equation worse than no step at all: ε is cut once more, without
		// a descent (the solve residual cannot rank the choices here).
		w.severeCuts++
		w.dirErr = 0
		ks.setStaticReg(ks.eps * staticRegCut)
		return true
	}
	w.dirErr = 0
	inaccurate := !(e <= math.Max(kktSolveTol, kktSolveRel*w.merit())) && !w.regLocked && !w.expSolveAtFloor(e)
	if (inaccurate || dirBad) && w.canCutReg() {
		w.regStrict = !inaccurate
		if inaccurate {
			// the anchor of the revocation; a descent started by the
			// directions' error keeps the earlier one
			w.regFirst, w.regFirstErr = ks.eps, e
		}
		w.regStart = ks.eps
		w.regBest, w.regBestErr = ks.eps, e
		w.regDescending = true
		ks.setStaticReg(ks.eps * staticRegCut)
		return true
	}
	return false
}

// canCutReg reports whether ε·staticRegCut is still at least
// Settings.MinStaticReg (up to round-off: 1e-8 reaches 1e-14 in three cuts).
func (w *workspace) canCutReg() bool {
	return w.kkt.eps*staticRegCut >= w.set.MinStaticReg*(1-1e-9)
}

// dirErrTol: the static regularization is also reduced when the Newton
// directions of the last iteration left more than this fraction of the dual
// residual they were to remove (see adaptStaticReg).
const dirErrTol = 0.1

// dirErrSevere and maxSevereCuts: a direction whose dual-equation error
// exceeds dirErrSevere times the residual it was to remove, while the solves
// are at round-off (kktSolveTol), cuts ε by staticRegCut, at most
// maxSevereCuts times per solve. dirErrSevere = 1 is derived: such a
// direction removes none of the dual residual (error ≥ 100%), so the
// iteration cannot make progress on the dual equation with this ε.
// maxSevereCuts = 1 is measured: one cut turned a gap stalled at 4.5e-8
// into an optimum (22 iterations) and moved an objective from outside to
// inside its published digits; the cut also lengthened two solves (48 → 141
// and 22 → 31 iterations, same grades), so a second one is not allowed
// (BENCHMARKS.md, "Solver trust, round 2: IPM tuning history").
const (
	dirErrSevere  = 1
	maxSevereCuts = 1
)

// dirSolveMax: dirErr starts no descent of ε when the solves' own relative
// residual is above this: they are then far off for reasons a smaller ε
// does not cure. Measured: a descent started at a solve residual of 3e-3
// ended in a revoked ε and a numerical error where the solve used to end
// almost optimal. 1e-4 is the power of ten nearest the geometric mean of
// that 3e-3 and the 1e-5 at which the Schur rule counts a solve as failed
// (solveAccuracy).
const dirSolveMax = 1e-4

// dresDominance: dirErr starts a descent of ε only when the relative dual
// residual exceeds this multiple of the primal residual and of the gap (it is
// the dual equation that the directions fail; one order of magnitude is the
// stated margin for "dominates", not a tuned value. Measured: where the gap
// dominated, cutting ε only lengthened the solves).
const dresDominance = 10

// regDescentSlack: the descent of adaptStaticReg continues while the solve
// residual stays within this factor of the best one seen. Derived: one cut
// divides ε by 1/staticRegCut = 100, and a residual that is dominated by
// the regularization falls with ε; a rise of a factor 10 (the square root
// of one cut) is then round-off, not the trend.
const regDescentSlack = 10

// kktSolveTol is the largest relative residual of the refined KKT solves
// accepted before the static regularization is reduced (see
// adaptStaticReg), and kktSolveRel that residual relative to the merit
// max(pres, dres, gap) of the iterate: solves much more accurate than the
// residuals they reduce are good enough. Derived: kktSolveTol is a tenth
// of the default feasibility tolerance (FeasTol 1e-8), so a solve that
// meets it cannot by itself keep an iterate above the tolerance;
// kktSolveRel = 1e-3 lets the direction of an iterate reduce its merit by
// three orders of magnitude, more than the best IPM step does.
const (
	kktSolveTol = 1e-9
	kktSolveRel = 1e-3
)

// regRevokeFactor: a reduced static regularization is given up when the
// solves leave residuals this many times larger than those that started the
// reduction (see adaptStaticReg). Derived: 1000 = 10·(1/staticRegCut), a
// full cut's worth of worsening beyond the descent's slack regDescentSlack.
const regRevokeFactor = 1000

// staticRegCut is the factor applied to the static regularization ε when the
// KKT solves are inaccurate, down to Settings.MinStaticReg. Derived: three
// cuts take the default ε = 1e-8 to the default MinStaticReg = 1e-14, so a
// descent costs at most three redone iterations.
const staticRegCut = 0.01

// earlyRefineStop returns the relative residual ‖b − K₀x‖∞/(1 + ‖b‖∞) at
// which the refinement of this iteration's KKT solves may stop:
// refineRelMerit times the merit of the iterate (an inexact Newton step: a
// direction that leaves a residual a ten-thousandth of the residuals it
// removes reduces them as far as the exact one within the step's own
// precision; Dembo, Eisenstat and Steihaug, SIAM J. Numer. Anal. 19(2),
// 1982; for interior-point methods Gondzio, Comput. Optim. Appl. 51, 2012,
// §2). Solves stop at round-off (0) as before when the problem has PSD
// blocks or non-symmetric cones (their tails depend on the rounding of the
// solves: measured, an exponential-cone instance of CBLIB needed 59 instead
// of 40 iterations when the refinement changed), for badly scaled problems
// (earlyRefineSpread), and once the static
// regularization has been adapted in this solve (adaptStaticReg compares
// the refined residuals of different ε).
//
// Well-scaled problems with non-symmetric cones and no PSD block
// (nonsymEarly) stop at nonsymRefineFrac times the smaller of FeasTol and
// GapTol when the merit rule allows less: see nonsymRefineFrac.
func (w *workspace) earlyRefineStop() float64 {
	if w.regFirst > 0 || w.regDescending || w.revokeFrom > 0 || w.regLocked || w.severeCuts > 0 || w.loop.regRetries > 0 {
		return 0
	}
	if w.nonsymEarly {
		return math.Min(refineRelMerit*w.merit(), nonsymRefineFrac*math.Min(w.set.FeasTol, w.set.GapTol))
	}
	if w.noEarlyRefine {
		return 0
	}
	return refineRelMerit * w.merit()
}

// earlyRefineSpread: a problem whose row equilibration factors span more
// than this ratio (scaling.rowSpread) is badly scaled, and its solves are
// refined to round-off in every iteration (earlyRefineStop): the solve
// residual is measured globally, and a residual small against the merit can
// still be large against a row of small terms. Measured on the mixed-scale
// property benchmark (bench/mixedscale: row blocks scaled by 10^U(−6, 6)),
// where early stops turned optimal answers of the IPM into numerical errors
// (LP 400 → 398 optimal, one small row 399 → 393) and a stop at 10⁻⁶ times
// the merit still one; two orders of magnitude is the stated bound for "well
// scaled". The row factors alone are measured: the spread of D and E
// together (the rule until round 8) also classed problems whose columns only
// differ in scale — every generated unbounded SOCP, through the columns of
// its improving ray — as badly scaled. The row spread of the 1,600
// mixed-scale instances is at least 8.5·10⁵ (BENCHMARKS.md, "Small
// problems, round 8"; TestEarlyRefineRuleClassesMixedScale).
const earlyRefineSpread = 100

// nonsymRefineFrac: on well-scaled problems with exponential or power cones
// (and no PSD block) a KKT solve's refinement stops once its relative
// residual ‖b − K₀x‖∞/(1 + ‖b‖∞) is below this fraction of the solver's
// tolerance min(FeasTol, GapTol) (and refineRelMerit times the merit), and
// its residual check is skipped when the factorization's measured backward
// error predicts that (solveReduced). Measured (BENCHMARKS.md, "Small
// exp-cone problems, round 9"): a fixed bound in the tolerance, not the
// merit, keeps the tails of these problems, whose iterates depend on the
// rounding of the solves near the optimum (see earlyRefineStop). At 1 (the
// tolerance itself) the bench/smallconic exp and entropy families keep their
// iteration counts and statuses and move their objectives by ≤ 7·10⁻⁹
// relative; CBLIB keeps its pass count in both halves (0.01 measured no
// faster than 1).
const nonsymRefineFrac = 1

// refineRelMerit is the factor of earlyRefineStop. Derived: it is
// kktSolveRel/10, an order of magnitude inside the accuracy adaptStaticReg
// accepts (kktSolveRel times the merit), so that an early stop never makes
// a solve count as inaccurate there.
const refineRelMerit = kktSolveRel / 10

// thirdOrderRetryStep: when the combined step with the third-order
// correction of the non-symmetric cones is shorter than this, the step
// without it is tried too (see run). Derived: a step below one half leaves
// more than half of the residuals, so a second step computation (one more
// solve with the same factorization) is cheap against the iteration it can
// save.
const thirdOrderRetryStep = 0.5

// combinedStep computes the combined (corrector) direction for the centring
// parameter σ and returns its step length (after the centrality backtracking
// of the dual scaling); third selects the third-order correction of the
// non-symmetric cones. For non-symmetric problems the predictor direction is
// read from w.dsAff, w.dzAff, else from w.ds, w.dz (overwritten).
func (w *workspace) combinedStep(sigma, mu, dtauAff, dkappaAff float64, third bool) (float64, bool) {
	sm := sigma * mu
	dsA, dzA := w.ds, w.dz
	if w.nonsym {
		dsA, dzA = w.dsAff, w.dzAff
	}
	for i, c := range w.cones {
		if ns, ok := c.(*nonsymCone); ok {
			ns.noThird = !third
		}
		shift := w.block(w.work[:w.m], i)
		c.combinedDsShift(shift, w.block(dzA, i), w.block(dsA, i), sm)
		rs := w.block(w.rS, i)
		c.affineDs(rs, w.block(w.s, i))
		for k := range rs {
			rs[k] += shift[k]
		}
	}
	f := 1 - sigma
	dX, dZ := w.dX, w.dZ
	rx, rz := w.rx[:len(dX)], w.rz[:len(dZ)]
	for j := range dX {
		dX[j] = f * rx[j]
	}
	for i := range dZ {
		dZ[i] = f * rz[i]
	}
	dKappa := w.tau*w.kappa + dtauAff*dkappaAff - sm
	if !w.solveNewton(dX, dZ, f*w.rtau, w.rS, dKappa) {
		return 0, false
	}
	a := w.stepLength(1)
	if w.nonsym && w.dualScaling {
		for k := 0; k < 50 && a > 1e-10; k++ {
			if w.centrality(a) < centralityLimit {
				break
			}
			a *= 0.8
		}
	}
	return a, true
}

// keepStep saves the current direction; restoreStep brings it back.
func (w *workspace) keepStep() {
	copy(w.dxKeep, w.dx)
	copy(w.dsKeep, w.ds)
	copy(w.dzKeep, w.dz)
	w.dtauKeep, w.dkappaKeep = w.dtau, w.dkappa
}

func (w *workspace) restoreStep() {
	copy(w.dx, w.dxKeep)
	copy(w.ds, w.dsKeep)
	copy(w.dz, w.dzKeep)
	w.dtau, w.dkappa = w.dtauKeep, w.dkappaKeep
}

func (w *workspace) takeStep(a float64) {
	x, s, z := w.x, w.s, w.z
	dx, ds, dz := w.dx[:len(x)], w.ds[:len(s)], w.dz[:len(s)]
	z = z[:len(s)]
	for j := range x {
		x[j] += a * dx[j]
	}
	for i := range s {
		s[i] += a * ds[i]
		z[i] += a * dz[i]
	}
	w.tau += a * w.dtau
	w.kappa += a * w.dkappa
}

func (w *workspace) logHeader() {
	lw := w.set.Log
	if lw == nil {
		return
	}
	fmt.Fprintf(lw, "ipm: n = %d, m = %d, cones = %d, ν = %g, KKT dim = %d, nnz(KKT) = %d\n",
		w.n, w.m, len(w.cones), w.nu, w.kkt.dim, w.kkt.k.Nnz())
	fmt.Fprintf(lw, "%4s  %13s  %13s  %9s  %9s  %9s  %9s  %9s  %7s\n",
		"iter", "pcost", "dcost", "gap", "pres", "dres", "k/t", "μ", "step")
}

func (w *workspace) logIter(it int) {
	if it <= w.logged {
		return // an iteration redone after a change of scaling
	}
	w.logged = it
	in := &w.info
	if f := w.set.Progress; f != nil {
		step := in.step
		if it == 0 {
			step = 0
		}
		f(Iteration{Iteration: it, PrimalObjective: in.pobj, DualObjective: in.dobj, Gap: in.gap,
			RelativeGap: in.relgap, PrimalResidual: in.pres, DualResidual: in.dres, Mu: in.mu, Step: step})
	}
	lw := w.set.Log
	if lw == nil {
		return
	}
	if it == 0 {
		fmt.Fprintf(lw, "%4d  %+13.6e  %+13.6e  %9.2e  %9.2e  %9.2e  %9.2e  %9.2e  %7s\n",
			it, in.pobj, in.dobj, in.gap, in.pres, in.dres, w.kappa/w.tau, in.mu, "---")
		return
	}
	fmt.Fprintf(lw, "%4d  %+13.6e  %+13.6e  %9.2e  %9.2e  %9.2e  %9.2e  %9.2e  %7.4f\n",
		it, in.pobj, in.dobj, in.gap, in.pres, in.dres, w.kappa/w.tau, in.mu, in.step)
}

// run is the main loop: residuals → termination → scaling → factorization →
// predictor → corrector → step.
func (w *workspace) run(ctx context.Context) *solver.Solution {
	set := w.set
	// Long factorizations poll the context and the time limit (checked
	// between iterations as well, below).
	stop := func() bool {
		return ctx.Err() != nil || (set.TimeLimit > 0 && time.Since(w.start) > set.TimeLimit)
	}
	w.kkt.interrupt = stop
	if sl, ok := w.kkt.solver.(*sparseLDL); ok {
		sl.interrupt = stop
		if sl.sym != nil {
			sl.sym.SetInterrupt(stop)
		}
	}
	w.logHeader()
	switch set.NonsymScaling {
	case NonsymScalingDual:
		w.setDualScaling(true)
	case NonsymScalingAuto:
		if w.nonsym {
			w.dualSwitch = nonsymDualSwitch
		}
	}
	if !w.initialize() {
		switch {
		case ctx.Err() != nil:
			return w.finish(solver.Cancelled, 0)
		case stop():
			return w.finish(solver.TimeLimit, 0)
		}
		return w.finish(solver.NumericalError, 0)
	}
	if w.warm != nil {
		w.applyWarm()
	}
	status := solver.StatusUnknown
	w.best.merit = math.Inf(1)
	w.tailMerit = math.Inf(1)
	w.correctors = 0
	if !set.DisableCentralityCorrectors {
		w.correctors = w.correctorCount()
	}
	w.tailRule = len(w.kkt.elims) > 0
	w.logged = -1
	it := 0
	w.loop = loopState{}
	w.muHist = make([]float64, set.Termination.TailWindow+1)
	for ; ; it++ {
		if st, stop := w.checkTermination(ctx, it); stop {
			status = st
			break
		}
		mu := w.info.mu
		if st, redo := w.factor(ctx, mu); redo {
			it-- // the iteration is redone (adapted static regularization)
			continue
		} else if st != solver.StatusUnknown {
			status = st
			break
		}
		sigma, dtauAff, dkappaAff, ok := w.predict()
		if !ok && w.retryLargerReg() {
			it-- // the iteration is redone with a larger static regularization
			continue
		}
		if !ok {
			status = solver.NumericalError
			break
		}
		a, st, redo := w.correct(sigma, mu, dtauAff, dkappaAff)
		if redo {
			it-- // the iteration is redone with the other scaling
			continue
		}
		if st != solver.StatusUnknown {
			status = st
			break
		}
		w.takeStep(a)
	}
	return w.fallback(status, it)
}

// retryLargerReg is the fallback of a predictor whose Newton system gave no
// finite direction (the factorization lost all accuracy, typically at μ
// below 10⁻⁸ on LPs with free variables): the static regularization ε is
// multiplied by regRetryFactor and the iteration redone, at most
// maxRegRetries times per solve. It reports whether to redo the iteration.
func (w *workspace) retryLargerReg() bool {
	if w.loop.regRetries >= maxRegRetries {
		return false
	}
	w.loop.regRetries++
	w.kkt.setStaticReg(w.kkt.eps * regRetryFactor)
	w.regLocked = true // the adaptation must not cut it again at once
	return true
}

// regRetryFactor and maxRegRetries bound retryLargerReg. Derived: a factor
// of 100 undoes one cut of adaptStaticReg (staticRegCut); two retries take
// the smallest ε, MinStaticReg = 1e-14, back to 1e-10 and the default 1e-8
// to 1e-4. The count is not derived: two retries sufficed wherever the
// retry acted (the random sparse LPs of BENCHMARKS.md, "IPM termination
// rules"), and the bound keeps a failing solve from retrying without end.
const (
	regRetryFactor = 100
	maxRegRetries  = 2
)

// loopState is the state of run's termination rules carried between
// iterations.
type loopState struct {
	stalls    int       // consecutive steps below Termination.StallStep
	diverging int       // iterations past the divergence test
	dualCert  []float64 // x at the first dual infeasibility detection
	// dualCertIt is the iteration of that detection.
	dualCertIt int
	// feasPoint is a primal feasible point found next to the ray
	// (feasibleAlongRay), on the caller's data; nil when none.
	feasPoint  []float64
	regRetries int // retryLargerReg's retries so far
}

// checkTermination is the first step of an iteration: it computes the
// residuals of the current iterate, logs it, and applies the termination
// rules in order — verified optimum, refinement without verification
// (Termination.MaxUnverified), divergence (DivergenceFactor, DivergenceGrace),
// the tail plateau (TailWindow, TailProgress, TailPlateau), primal
// infeasibility, dual infeasibility after DualInfeasibleGrace more iterations,
// the iteration and
// time limits and cancellation. It returns the status and true when a rule
// ends the solve.
func (w *workspace) checkTermination(ctx context.Context, it int) (solver.Status, bool) {
	set := w.set
	w.residuals()
	w.measure()
	w.info.mu = (w.norms.sz + w.tau*w.kappa) / (w.nu + 1)
	w.logIter(it)
	if set.iterates != nil {
		x, s, _ := w.point()
		set.iterates(x, s)
	}
	if w.converged(set.FeasTol, set.GapTol) {
		// The internal residuals are measured on the presolved,
		// equilibrated problem; stop only when the point also meets the
		// tolerances on the caller's data, else keep refining it (the
		// stall and divergence guards below end a hopeless refinement).
		if w.verified(set.tol()) {
			return solver.Optimal, true
		}
		if w.unverified++; w.unverified > set.Termination.MaxUnverified {
			// Refining does not reach the tolerances on the caller's data:
			// the best iterate is evaluated (and re-checked) below.
			return solver.NumericalError, true
		}
	}
	if w.converged(set.ReducedFeasTol, set.ReducedGapTol) {
		w.keepCandidate(it)
	}
	if m := w.merit(); m < w.best.merit {
		w.saveBest(m)
		if m <= w.tailMerit/set.Termination.TailProgress {
			w.tailMerit, w.tailIt = m, it
		}
	} else if w.gapBetter() {
		w.keepGapBetter()
	} else if m > set.Termination.DivergenceFactor*w.best.merit && w.best.merit < set.ReducedFeasTol {
		// The residuals grow again near the solution: either the KKT
		// solves have lost accuracy, or the iterates turn towards an
		// infeasibility certificate (a problem infeasible or unbounded by
		// a small margin: τ → 0). Allow DivergenceGrace more iterations
		// for a certificate to form; then stop, and the best iterate is
		// evaluated below.
		w.loop.diverging++
		if w.loop.diverging > set.Termination.DivergenceGrace {
			return solver.NumericalError, true
		}
	}
	w.muHist[it%len(w.muHist)] = w.info.mu
	muOld := w.muHist[(it+1)%len(w.muHist)] // μ TailWindow iterations ago
	if w.tailRule && w.best.reduced && it-w.tailIt >= set.Termination.TailWindow && !(w.info.mu <= muOld/set.Termination.TailProgress) &&
		w.merit() <= set.Termination.TailPlateau*w.best.merit && w.loop.dualCert == nil {
		// The best iterate meets the reduced tolerances and the last
		// TailWindow iterations have reduced neither its merit nor μ by
		// TailProgress:
		// the round-off plateau that the guards above would end only
		// after many more iterations (see Termination). Stop; the best
		// iterate is evaluated below.
		w.tailStopped = true
		return solver.NumericalError, true
	}
	if w.primalInfeasible() {
		return solver.PrimalInfeasible, true
	}
	if w.loop.dualCert == nil && w.dualInfeasible() {
		// A problem can be primal and dual infeasible at once; then
		// "unbounded" would wrongly claim a feasible point. Keep the
		// certificate and iterate up to DualInfeasibleGrace more times:
		// if a primal certificate forms, the problem is infeasible
		// (HiGHS's convention), else it is dual infeasible.
		w.loop.dualCert, w.loop.dualCertIt = append([]float64(nil), w.x...), it
	}
	if w.loop.dualCert != nil {
		// A primal feasible point next to the ray proves unboundedness at
		// once; without one the grace iterations look for a primal
		// certificate.
		if w.loop.feasPoint = w.feasibleAlongRay(); w.loop.feasPoint != nil || it-w.loop.dualCertIt >= set.Termination.dualInfeasibleGrace() {
			return solver.DualInfeasible, true
		}
	}
	if it >= set.MaxIterations {
		return solver.IterationLimit, true
	}
	if set.TimeLimit > 0 && time.Since(w.start) > set.TimeLimit {
		return solver.TimeLimit, true
	}
	if ctx.Err() != nil {
		return solver.Cancelled, true
	}
	return solver.StatusUnknown, false
}

// factor is the second step: it updates the cones' scalings at μ, factors
// the KKT matrix and solves for the constant part (x₂, z₂) = K⁻¹[−q; b].
// It returns a status other than StatusUnknown when the solve must end, and
// redo when the static regularization was adapted and the iteration must be
// redone.
func (w *workspace) factor(ctx context.Context, mu float64) (status solver.Status, redo bool) {
	// scaling and factorization
	if w.dualSwitch > 0 && !w.dualScaling && !w.scalingLocked {
		// NonsymScalingAuto: the dual scaling for the last digits.
		if in := &w.info; math.Max(in.pres, math.Max(in.dres, in.relgap)) < w.dualSwitch {
			w.setDualScaling(true)
			w.dualSwitch = 0
		}
	}
	ok := true
	for i, c := range w.cones {
		if !c.updateScaling(w.block(w.s, i), w.block(w.z, i), mu) {
			ok = false
			break
		}
	}
	if !ok {
		return solver.NumericalError, false
	}
	if err := w.kkt.update(); err != nil {
		status := solver.NumericalError
		if errors.Is(err, ldl.ErrInterrupted) {
			status = solver.Cancelled
			if ctx.Err() == nil {
				status = solver.TimeLimit
			}
		}
		return status, false
	}
	w.kkt.refineRel = w.earlyRefineStop()
	// constant part (x₂, z₂) = K⁻¹[−q; b]
	clear(w.rhs)
	for j := 0; j < w.n; j++ {
		w.rhs[j] = -w.q[j]
	}
	copy(w.rhs[w.n:w.n+w.m], w.b)
	w.kkt.solve(w.sol, w.rhs)
	copy(w.x2, w.sol[:w.n])
	copy(w.z2, w.sol[w.n:w.n+w.m])
	if w.adaptStaticReg() {
		return solver.StatusUnknown, true
	}

	return solver.StatusUnknown, false
}

// predict is the third step: the affine-scaling (predictor) direction, its
// step length and the centering parameter σ = (1 − α_aff)³ (Mehrotra). It
// returns false when the Newton system cannot be solved.
func (w *workspace) predict() (sigma, dtauAff, dkappaAff float64, ok bool) {
	// predictor
	for i, c := range w.cones {
		c.affineDs(w.block(w.rS, i), w.block(w.s, i))
	}
	if !w.solveNewton(w.rx, w.rz, w.rtau, w.rS, w.tau*w.kappa) {
		return 0, 0, 0, false
	}
	aAff := w.stepLength(1)
	sigma = math.Pow(1-aAff, 3)
	sigma = math.Min(math.Max(sigma, 0), 1)
	dtauAff, dkappaAff = w.dtau, w.dkappa

	return sigma, dtauAff, dkappaAff, true
}

// correct is the fourth step: the combined (corrector) direction with the
// third-order retry of the non-symmetric cones, the centrality correctors,
// the step length, the switch between the non-symmetric cones' scalings
// (redo: the iteration is redone with the other scaling) and the stall rules
// (Termination.TailTinyStep, TailTinySteps, StallStep, StallSteps). It returns the step length, or a
// status other than StatusUnknown when the solve must end.
func (w *workspace) correct(sigma, mu, dtauAff, dkappaAff float64) (a float64, status solver.Status, redo bool) {
	set := w.set
	// corrector
	if w.nonsym {
		copy(w.dsAff, w.ds)
		copy(w.dzAff, w.dz)
	}
	a, ok := w.combinedStep(sigma, mu, dtauAff, dkappaAff, true)
	if ok && w.nonsym && a < thirdOrderRetryStep {
		// The third-order term of the non-symmetric cones can shorten
		// the step far from the central path: retry without it and keep
		// the longer of the two steps.
		w.keepStep()
		if a2, ok2 := w.combinedStep(sigma, mu, dtauAff, dkappaAff, false); ok2 && a2 > a {
			a = a2
		} else {
			w.restoreStep()
		}
	}
	if !ok {
		return 0, solver.NumericalError, false
	}
	if w.correctors > 0 {
		a = w.centralityCorrect(a, sigma*mu)
	}
	a *= set.MaxStepFraction
	if w.nonsym && !w.scalingLocked {
		switch {
		case !w.dualScaling && a < minSwitchStep:
			// The primal–dual scaling of the non-symmetric cones gave a
			// poor direction: fall back to the dual scaling and redo the
			// iteration (Clarabel's strategy).
			w.setDualScaling(true)
			return 0, solver.StatusUnknown, true
		case w.dualScaling && a < minDualStep:
			// The dual scaling stalls (typically when z approaches the
			// boundary of K*, as for infeasibility certificates): use the
			// primal–dual scaling for the rest of the solve.
			w.setDualScaling(false)
			w.scalingLocked = true
			return 0, solver.StatusUnknown, true
		}
	}
	w.info.step, w.info.sigma = a, sigma
	if a < set.Termination.TailTinyStep {
		w.tinySteps++
	} else {
		w.tinySteps = 0
	}
	if w.tailRule && w.best.reduced && w.tinySteps >= set.Termination.TailTinySteps && w.loop.dualCert == nil {
		// The best iterate meets the reduced tolerances and the
		// directions no longer move the point: the round-off plateau
		// again (see Termination.TailTinyStep). Stop; the best iterate is evaluated
		// below.
		w.tailStopped = true
		return 0, solver.NumericalError, false
	}
	if a < set.Termination.StallStep {
		w.loop.stalls++
		if w.loop.stalls >= set.Termination.StallSteps {
			return 0, solver.NumericalError, false
		}
	} else {
		w.loop.stalls = 0
	}
	return a, solver.StatusUnknown, false
}

// fallback is the last step: it maps the iterate at which the loop stopped
// to the answer — the dual infeasibility certificate kept since its
// detection, or, when the loop ended without an optimum or a certificate, the
// best iterate seen (by merit), reported Optimal or AlmostOptimal when it
// meets the full or the reduced tolerances.
func (w *workspace) fallback(status solver.Status, it int) *solver.Solution {
	set := w.set
	dualCert := w.loop.dualCert
	if dualCert != nil && status != solver.PrimalInfeasible {
		// The iterations after the detection ended without a primal
		// certificate (or stopped): report the dual one found.
		copy(w.x, dualCert)
		status = solver.DualInfeasible
	}
	if !status.OK() && status != solver.PrimalInfeasible && status != solver.DualInfeasible {
		// Fall back on the kept iterate (the smallest merit max(pres,
		// dres, relative gap), or a later one of much smaller gap:
		// gapBetter), which may meet the full or the reduced tolerances.
		if w.best.x != nil && w.best.merit < w.merit() && !w.gapBetter() {
			w.restoreBest()
		}
		why := fmt.Sprintf("stopped by %v", status)
		if w.tailStopped {
			t := &set.Termination
			why = fmt.Sprintf("stopped without progress (neither the merit nor μ fell by a factor %g in %d iterations, or %d steps below %g in a row)", t.TailProgress, t.TailWindow, t.TailTinySteps, t.TailTinyStep)
		}
		if status == solver.Cancelled {
			return w.finish(status, it)
		}
		var sol *solver.Solution
		switch {
		case w.converged(set.FeasTol, set.GapTol):
			sol = w.finish(solver.Optimal, it)
		case w.converged(set.ReducedFeasTol, set.ReducedGapTol):
			in := &w.info
			sol = w.finish(solver.AlmostOptimal, it)
			sol.Diagnostic = fmt.Sprintf("ipm: %s after %d iterations; the best iterate meets only the reduced tolerances (primal residual %.2g, dual residual %.2g, relative gap %.2g)",
				why, it, in.pres, in.dres, math.Min(in.gap, in.relgap))
		default:
			sol = w.finish(status, it)
		}
		if p := w.preferCandidate(sol, why, it); p != nil {
			return p
		}
		return sol
	}
	return w.finish(status, it)
}

// candidatePoint is the candidate iterate kept by keepCandidate.
type candidatePoint struct {
	savedIterate
	it     int
	objErr float64 // its estimate of Gap + Sensitivity (objErrEstimate)
}

// objErrEstimate estimates, on the internal residuals, the objective error
// bound that solver.Measure computes on the caller's data: the relative gap
// plus the sensitivity (|y|ᵀ|r_p| + |x|ᵀ|r_d|)/max(1, min(|pobj|, |dobj|))
// (see solver.Accuracy). The products are invariant under the
// equilibration: x_j = d_j x̃_j/τ and r_d,j = rx_j/(d_j c τ), so |x_j r_d,j| =
// |x̃_j rx_j|/(c τ²), and likewise |y_i r_p,i| = |z̃_i rz_i|/(c τ²).
func (w *workspace) objErrEstimate() float64 {
	var sum float64
	for j, r := range w.rx {
		sum += math.Abs(w.x[j] * r)
	}
	for i, r := range w.rz {
		sum += math.Abs(w.z[i] * r)
	}
	in := &w.info
	scale := math.Max(1, math.Min(math.Abs(in.pobj), math.Abs(in.dobj)))
	return in.gap/scale + sum/(w.sc.c*w.tau*w.tau)/scale
}

// keepCandidate keeps the current iterate, which meets the reduced tolerances on
// the internal residuals, as the candidate w.cand when its estimated
// objective error bound (objErrEstimate) is at most the kept candidate's. The
// candidate is re-checked on the caller's data only when the loop ends
// without an answer that passes the re-check (preferCandidate), so a solve that
// ends normally pays one O(n + m) pass per such iterate and no measurement.
//
// Why: the best iterate by merit max(pres, dres, gap) is not always one the
// re-check passes. When the optimal set is at infinity (no optimal x: the
// iterates grow like 1/τ as τ → 0), the objective sensitivity |x|ᵀ|r_d|
// grows with ‖x‖ once the dual residual stops falling, so a late iterate of
// smaller merit can fail the re-check that an earlier one passes (measured
// on such an SDP: gap 6.8e-6 and sensitivity 1.2e-3 at one iterate, which
// passes at the reduced tolerance, sensitivity 1.5 at the iterate of
// smallest merit fifteen iterations later, which fails; BENCHMARKS.md,
// "Optimal sets at infinity, round 14").
func (w *workspace) keepCandidate(it int) {
	e := w.objErrEstimate()
	p := &w.cand
	if math.IsNaN(e) || p.x != nil && e > p.objErr {
		return
	}
	p.save(w)
	p.it, p.objErr = it, e
}

// statusRank orders the grades of a re-check: Optimal 2, AlmostOptimal 1,
// any other 0.
func statusRank(st solver.Status) int {
	switch st {
	case solver.Optimal:
		return 2
	case solver.AlmostOptimal:
		return 1
	}
	return 0
}

// preferCandidate returns the candidate kept by keepCandidate instead of sol, the
// answer fallback is about to return, when the re-check on the caller's data
// (solver.CertifyMeasured) grades the candidate above sol; nil keeps sol. why
// names the rule that ended the loop, for the diagnostic.
func (w *workspace) preferCandidate(sol *solver.Solution, why string, it int) *solver.Solution {
	p := &w.cand
	if p.x == nil {
		return nil
	}
	grade := func(st solver.Status, acc solver.Accuracy) solver.Status {
		if !st.OK() {
			return solver.NumericalError
		}
		g := &solver.Solution{Status: st}
		solver.CertifyMeasured(g, acc, w.set.tol(), w.set.reducedTol())
		return g.Status
	}
	var acc solver.Accuracy
	if sol.Status.OK() {
		if w.finalChecked {
			acc = w.checked.acc
		} else if a, err := solver.Measure(w.orig, sol.X, sol.S, sol.Y); err == nil {
			// kept for Solve's re-check of sol when the candidate is not taken
			acc = a
			w.checked = checkedPoint{x: sol.X, s: sol.S, y: sol.Y, acc: a, ok: true}
			w.finalChecked = true
		}
	}
	now := grade(sol.Status, acc)
	if now == solver.Optimal {
		return nil
	}
	// the candidate, measured on the caller's data
	p.load(w)
	x, s, y := w.point()
	pacc, err := solver.Measure(w.orig, x, s, y)
	if err != nil {
		return nil
	}
	st := solver.AlmostOptimal
	if w.converged(w.set.FeasTol, w.set.GapTol) {
		st = solver.Optimal
	}
	if g := grade(st, pacc); statusRank(g) <= statusRank(now) {
		return nil
	}
	w.checked = checkedPoint{x: x, s: s, y: y, acc: pacc, ok: true}
	out := w.finish(st, it)
	which := "the final iterate"
	if sol.Status.OK() {
		which = "the iterate of smallest merit"
	}
	out.Diagnostic = fmt.Sprintf("ipm: %s after %d iterations; %s fails the re-check on the caller's data (%v); returned iteration %d, the iterate meeting the reduced tolerances with the smallest first-order estimate of its objective error (gap + sensitivity %.2g relative)",
		why, it, which, acc, p.it, pacc.Gap+pacc.Sensitivity)
	return out
}

// merit is max(pres, dres, min(gap, relative gap)) of the current iterate.
func (w *workspace) merit() float64 {
	in := &w.info
	return math.Max(math.Max(in.pres, in.dres), math.Min(in.gap, in.relgap))
}

// savedIterate is a copy of the homogeneous iterate (x, s, z, τ, κ).
type savedIterate struct {
	x, s, z    []float64
	tau, kappa float64
}

// save copies w's iterate, allocating the vectors (one allocation) the
// first time.
func (c *savedIterate) save(w *workspace) {
	if c.x == nil {
		v := make([]float64, w.n+2*w.m)
		c.x, c.s, c.z = v[:w.n:w.n], v[w.n:w.n+w.m:w.n+w.m], v[w.n+w.m:]
	}
	copy(c.x, w.x)
	copy(c.s, w.s)
	copy(c.z, w.z)
	c.tau, c.kappa = w.tau, w.kappa
}

// load makes the saved iterate w's current one and recomputes its residuals.
func (c *savedIterate) load(w *workspace) {
	copy(w.x, c.x)
	copy(w.s, c.s)
	copy(w.z, c.z)
	w.tau, w.kappa = c.tau, c.kappa
	w.residuals()
	w.measure()
}

type snapshot struct {
	savedIterate
	// merit is the smallest merit seen; the termination rules compare with
	// it. The kept point is the iterate of that merit, or a later one
	// preferred by gapBetter, whose residual and gap are res and gap.
	merit    float64
	res, gap float64
	reduced  bool // the iterate of the smallest merit meets the reduced tolerances
}

// gapGain is the factor by which a later iterate's gap must be smaller, and
// resSlack the factor by which its residual may exceed the smallest merit
// seen, for gapBetter to keep it instead of the iterate of the smallest merit.
// Derived: one order of magnitude either way keeps the kept point's residual
// within 10× of the best seen (it never compounds: resSlack multiplies the
// smallest merit, not the kept point's residual) and demands the gap gain a
// full order, more than the 1 − α ≈ 0.9 of one healthy step.
const gapGain, resSlack = 10.0, 10.0

// gapBetter reports whether the current iterate should be reported instead
// of the kept one although its merit max(pres, dres, gap) is larger. Only
// with eliminated PSD blocks (w.tailRule; LP/QP/SOCP keep the plain merit):
// there, once both points meet the reduced tolerances, the Schur
// complement's rounding lets the dual residual drift up by a few times 1e-7
// while μ and the gap keep falling by orders of magnitude (measured on
// SDPLIB: dres 6.6e-8 → 5.7e-7 while the gap falls from 1e-7 to 7e-12
// relative), and the objective error of the earlier point is that of its
// larger gap (1.7e-6 relative at the smallest merit, 1e-9 at the later
// point; BENCHMARKS.md "SDPs, round 6").
// The order is lexicographic on measured quantities: a point meeting the
// reduced tolerances whose gap min(gap, relative gap) is gapGain times
// smaller than the kept point's, with max(pres, dres) within resSlack times
// the smallest merit seen, and which passes the re-check on the caller's
// data at the reduced tolerance (solver.Measure, whose objective sensitivity
// bounds the objective error that residuals of a large iterate cause:
// without it a measured SDPLIB run kept a point with dres 7.6e-7 and
// sensitivity 0.12), is preferred.
func (w *workspace) gapBetter() bool {
	b := &w.best
	if !w.tailRule || !b.reduced || b.x == nil {
		return false
	}
	return b.gapPreferred(&w.info) && w.converged(w.set.ReducedFeasTol, w.set.ReducedGapTol) &&
		w.verified(w.set.reducedTol())
}

// gapPreferred is gapBetter's comparison of the measured quantities alone:
// the iterate's gap min(gap, relative gap) is gapGain times smaller than the
// kept point's and its max(pres, dres) within resSlack times the smallest
// merit seen.
func (b *snapshot) gapPreferred(in *iterInfo) bool {
	res, gap := math.Max(in.pres, in.dres), math.Min(in.gap, in.relgap)
	return gap*gapGain <= b.gap && res <= resSlack*b.merit
}

// keepGapBetter replaces the kept point by the current iterate (gapBetter)
// without changing the smallest merit the termination rules compare with.
func (w *workspace) keepGapBetter() {
	b := &w.best
	m, reduced := b.merit, b.reduced
	w.saveBest(m)
	b.reduced = reduced
}

func (w *workspace) saveBest(m float64) {
	b := &w.best
	b.save(w)
	b.merit = m
	in := &w.info
	b.res, b.gap = math.Max(in.pres, in.dres), math.Min(in.gap, in.relgap)
	b.reduced = w.converged(w.set.ReducedFeasTol, w.set.ReducedGapTol)
}

// restoreBest makes the best iterate current and recomputes its residuals.
func (w *workspace) restoreBest() {
	w.best.load(w)
}

func (w *workspace) setDualScaling(on bool) {
	w.dualScaling = on
	for _, c := range w.cones {
		if ns, ok := c.(*nonsymCone); ok {
			ns.dualOnly = on
		}
	}
}

// nonsymDualSwitch is the level of the primal residual, dual residual and
// relative gap below which NonsymScalingAuto switches from the primal–dual
// to the dual scaling: four orders of magnitude above the default
// tolerances (10⁻⁸), so that the last four are made on the central path.
// Tuned on bench/smallconic's exp and entropy families at n = 20 and 50
// (BENCHMARKS.md "Exponential-cone scaling, round 13"): 10⁻⁵ leaves x of
// TestExpClosedForm 1.4·10⁻⁵ off (the switch comes too late), 10⁻⁴ 7.5·10⁻⁸;
// validated on n = 10, 100, 200 and the CBLIB exponential-cone instances.
const nonsymDualSwitch = 1e-4

// centralityLimit bounds Ψ for steps of the non-symmetric cones (Clarabel
// backtracks until its barrier measure is below 1).
const centralityLimit = 1.0

// minSwitchStep is the step length below which the non-symmetric cones switch
// from primal–dual to dual scaling (Clarabel's min_switch_step_length).
const minSwitchStep = 0.1

// minDualStep is the step length below which the dual scaling is abandoned
// for the primal–dual one. Derived: a step of 1e-3 reduces the residuals by
// 0.1%, so a thousand such iterations would be needed for one order of
// magnitude — the scaling has stalled.
const minDualStep = 1e-3

// finish maps the iterate back to the user's problem.
func (w *workspace) finish(status solver.Status, it int) *solver.Solution {
	sc := w.sc
	n, m := w.n, w.m
	sol := &solver.Solution{Status: status, Iterations: it}
	switch status {
	case solver.PrimalInfeasible:
		y := make([]float64, m)
		for i := range y {
			y[i] = sc.e[i] * w.z[i]
		}
		w.red.unrotate(y)
		by := dot(w.orig.B, y)
		for i := range y {
			y[i] /= -by
		}
		sol.Y = y
		sol.Objective, sol.DualObjective = math.Inf(1), math.Inf(1)
		return sol
	case solver.DualInfeasible:
		x := make([]float64, n)
		for j := range x {
			x[j] = sc.d[j] * w.x[j]
		}
		qx := dot(w.orig.Q, x)
		for j := range x {
			x[j] /= -qx
		}
		s := w.orig.A.MulVecTo(nil, -1, x, 0)
		sol.X, sol.S = x, s
		sol.FeasiblePoint = w.loop.feasPoint
		sol.Objective, sol.DualObjective = math.Inf(-1), math.Inf(-1)
		return sol
	}
	sol.X, sol.S, sol.Y, w.finalChecked = w.reuseChecked(w.point())
	px := make([]float64, n)
	symMulVec(px, w.orig.P, sol.X)
	xpx := dot(sol.X, px)
	sol.Objective = 0.5*xpx + dot(w.orig.Q, sol.X) + w.orig.R
	sol.DualObjective = -0.5*xpx - dot(w.orig.B, sol.Y) + w.orig.R
	return sol
}

// verified reports whether the current iterate, mapped back to the caller's
// problem, meets tol as solver.Certify requires of an Optimal answer.
func (w *workspace) verified(tol float64) bool {
	x, s, y := w.point()
	acc, err := solver.Measure(w.orig, x, s, y)
	if err == nil {
		w.checked = checkedPoint{x: x, s: s, y: y, acc: acc, ok: true}
	}
	return err == nil && acc.Meets(tol)
}

// checkedPoint is the last point verified measured on the caller's data, with
// its accuracy: when finish returns that very point, Solve grades it with
// solver.CertifyMeasured instead of measuring it a second time.
type checkedPoint struct {
	x, s, y []float64
	acc     solver.Accuracy
	ok      bool
}

// reuseChecked returns the checked point's vectors and true when they equal
// (x, s, y) entry by entry (a NaN never matches), else (x, s, y) and false.
func (w *workspace) reuseChecked(x, s, y []float64) ([]float64, []float64, []float64, bool) {
	c := &w.checked
	if c.ok && slices.Equal(c.x, x) && slices.Equal(c.s, s) && slices.Equal(c.y, y) {
		return c.x, c.s, c.y, true
	}
	return x, s, y, false
}

// point maps the current iterate back to the caller's problem:
// x = D x̃/τ, s = E⁻¹ s̃/τ, y = E z̃/(c τ), undoing the rotations of presolve.
func (w *workspace) point() (x, s, y []float64) {
	sc := w.sc
	n, m := w.n, w.m
	tau := w.tau
	// one allocation, each slice's capacity cut at its length
	v := make([]float64, n+2*m)
	x, s, y = v[:n:n], v[n:n+m:n+m], v[n+m:]
	for j := range x {
		x[j] = sc.d[j] * w.x[j] / tau
	}
	for i := range s {
		s[i] = sc.einv[i] * w.s[i] / tau
		y[i] = sc.e[i] * w.z[i] / (sc.c * tau)
	}
	for i, c := range w.cones {
		if _, ok := c.(*zeroCone); ok {
			clear(s[w.offs[i] : w.offs[i]+c.dim()])
		}
	}
	w.red.unrotate(s)
	w.red.unrotate(y)
	return x, s, y
}
