package main

// Generated H∞ synthesis LMIs (-set hinfgen): instances with the structure of
// SDPLIB's hinf1…hinf15 on random plants, so that a change tuned on the
// library can be checked on problems it was not tuned on.
//
// SDPLIB's README says hinf1…15 are "linear matrix inequalities from control
// systems engineering … taken from the SDPPACK web site … originally
// developed by P. Gahinet". Their block structure is that of the
// Gahinet–Apkarian LMIs (P. Gahinet and P. Apkarian, "A linear matrix
// inequality approach to H∞ control", Int. J. Robust Nonlinear Control 4
// (1994) 421–448, Theorem 4.3): with m = n(n+1) + 1 variables (γ and the
// symmetric R, S of order n) and blocks of orders n + p1 − m2 + m1,
// n + m1 − p2 + p1 and 2n. Reading which diagonal entries only γ touches
// gives, assuming [B2ᵀ D12ᵀ] and [C2 D21] of full row rank, the plant
// dimensions (n, m1, m2, p1, p2) of hinfLibShapes.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// setHinfGen is the set name of the generated H∞ instances.
const setHinfGen = "hinfgen"

// halfGenerated is the half of every generated instance: no rule was chosen on
// them.
const halfGenerated = "generated"

// dmat is a small dense row-major matrix that may have zero rows or columns
// (gonum's Dense may not).
type dmat struct {
	r, c int
	v    []float64
}

func newDmat(r, c int) dmat { return dmat{r, c, make([]float64, r*c)} }

func (a dmat) at(i, j int) float64     { return a.v[i*a.c+j] }
func (a dmat) set(i, j int, x float64) { a.v[i*a.c+j] = x }

// mul returns a·b.
func (a dmat) mul(b dmat) dmat {
	if a.c != b.r {
		panic(fmt.Sprintf("hinfgen: product of %d×%d and %d×%d", a.r, a.c, b.r, b.c))
	}
	out := newDmat(a.r, b.c)
	for i := 0; i < a.r; i++ {
		for k := 0; k < a.c; k++ {
			if x := a.at(i, k); x != 0 {
				for j := 0; j < b.c; j++ {
					out.v[i*b.c+j] += x * b.at(k, j)
				}
			}
		}
	}
	return out
}

// t returns aᵀ.
func (a dmat) t() dmat {
	out := newDmat(a.c, a.r)
	for i := 0; i < a.r; i++ {
		for j := 0; j < a.c; j++ {
			out.set(j, i, a.at(i, j))
		}
	}
	return out
}

// dense returns a as a gonum matrix (a must have no zero dimension).
func (a dmat) dense() *mat.Dense { return mat.NewDense(a.r, a.c, append([]float64(nil), a.v...)) }

// put copies b into a with its top-left corner at (i0, j0), scaled by s.
func (a dmat) put(i0, j0 int, b dmat, s float64) {
	for i := 0; i < b.r; i++ {
		for j := 0; j < b.c; j++ {
			a.set(i0+i, j0+j, s*b.at(i, j))
		}
	}
}

// hinfPlant is a generalized plant for H∞ synthesis (the notation of Doyle,
// Glover, Khargonekar and Francis 1989 and of Gahinet–Apkarian 1994), with
// D22 = 0:
//
//	ẋ = A x + B1 w + B2 u,   z = C1 x + D11 w + D12 u,   y = C2 x + D21 w,
//
// x ∈ Rⁿ, w ∈ R^m1 (disturbance), u ∈ R^m2 (control), z ∈ R^p1 (error),
// y ∈ R^p2 (measurement). m2 = p2 = 0 is the analysis problem: the LMI's
// optimum is then the H∞ norm of (A, B1, C1, D11) when A is Hurwitz.
type hinfPlant struct {
	N, M1, M2, P1, P2                int
	A, B1, B2, C1, C2, D11, D12, D21 dmat
}

// Plant families of the generator (hinfGenShape).
const (
	hinfFamilyLib      = "lib"      // the dimensions of an SDPLIB hinf instance, generic D12, D21
	hinfFamilyRegular  = "regular"  // D12 tall of full column rank, D21 wide of full row rank
	hinfFamilySquare   = "square"   // D12, D21 square and invertible: the plant has invariant zeros
	hinfFamilyAnalysis = "analysis" // m2 = p2 = 0, A Hurwitz: the optimum is the H∞ norm
)

// hinfLibShapes are the plant dimensions (n, m1, m2, p1, p2) of SDPLIB's
// hinf1, hinf2–9, hinf10, hinf11, hinf12, hinf13, hinf14, hinf15, read from
// their block orders and γ-only diagonal entries (the comment at the top of
// this file).
var hinfLibShapes = [][5]int{{3, 1, 1, 1, 1}, {3, 1, 1, 2, 1}, {4, 1, 2, 2, 2}, {5, 1, 2, 2, 2}, {6, 1, 3, 2, 3},
	{7, 1, 3, 2, 1}, {8, 1, 3, 2, 1}, {9, 1, 4, 2, 1}}

// hinfGenShape returns the family and the dimensions (n, m1, m2, p1, p2) of
// generated instance seed ≥ 1, a stated rule: the family cycles with the
// seed (lib, regular, square, analysis); seeds 1–28 have n = 3…9 (the lib
// family the shapes of hinf1…hinf14 in turn), seeds 29–40 have
// n = 12 + 4⌊(seed − 29)/4⌋ (the lib family hinf15's inputs and outputs);
// a seed s > 40 has the family and n of ((s − 1) mod 40) + 1 (and is an
// unstable plant: hinfUnstable). The input/output counts of the regular and
// square families are drawn from the seed's generator (1 or 2; analysis
// 1–3).
func hinfGenShape(seed int) (family string, d [5]int) {
	base := (seed-1)%40 + 1
	k := (base - 1) / 4
	n := 3 + k%7
	if base >= 29 {
		n = 12 + 4*((base-29)/4)
	}
	rng := hinfRand(seed, 1)
	pick := func(lo, hi int) int { return lo + int(rng.Uint64()%uint64(hi-lo+1)) }
	switch (base - 1) % 4 {
	case 0:
		if base >= 29 {
			d = hinfLibShapes[len(hinfLibShapes)-1]
			d[0] = n
		} else {
			d = hinfLibShapes[k%7]
		}
		return hinfFamilyLib, d
	case 1:
		m2, p2 := pick(1, 2), pick(1, 2)
		return hinfFamilyRegular, [5]int{n, p2 + 1, m2, m2 + 1, p2}
	case 2:
		m2, p2 := pick(1, 2), pick(1, 2)
		return hinfFamilySquare, [5]int{n, p2, m2, m2, p2}
	default:
		return hinfFamilyAnalysis, [5]int{n, pick(1, 3), 0, pick(1, 3), 0}
	}
}

// hinfRand is the generator of seed's stream (PCG, a fixed algorithm: the
// instances do not change with the Go release).
func hinfRand(seed, stream int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15^uint64(stream)))
}

// uniform returns an r×c matrix of independent entries uniform on
// [−scale, scale], from the generator's raw 53-bit draws.
func uniform(rng *rand.Rand, r, c int, scale float64) dmat {
	a := newDmat(r, c)
	for i := range a.v {
		a.v[i] = scale * (2*float64(rng.Uint64()>>11)/(1<<53) - 1)
	}
	return a
}

// hinfUnstable reports whether seed's synthesis plant is strongly unstable
// (seed > 40: the spectral abscissa of A uniform on [0.5, 1.5] instead of
// [−0.3, 0.3]; γ* then reaches the hundreds of SDPLIB's hinf4–7).
func hinfUnstable(seed int) bool { return seed > 40 }

// newHinfPlant draws the plant of generated instance seed (hinfGenShape): A
// with entries uniform on [−√3/√n, √3/√n] (variance 1/n, spectral radius
// about 1) shifted by a multiple of I to a spectral abscissa uniform on
// [−0.3, 0.3] (stable or mildly unstable; [0.5, 1.5] when hinfUnstable),
// B and C entries uniform on
// [−1, 1], D12 and D21 uniform on [−1, 1] (generic: of full rank), D11 = 0;
// the analysis family's abscissa is uniform on [−0.5, −0.1] (A Hurwitz) and
// its D11 uniform on [−0.3, 0.3].
func newHinfPlant(seed int) (*hinfPlant, string) {
	fam, d := hinfGenShape(seed)
	n, m1, m2, p1, p2 := d[0], d[1], d[2], d[3], d[4]
	rng := hinfRand(seed, 2)
	p := &hinfPlant{N: n, M1: m1, M2: m2, P1: p1, P2: p2}
	p.A = uniform(rng, n, n, math.Sqrt(3/float64(n)))
	p.B1 = uniform(rng, n, m1, 1)
	p.B2 = uniform(rng, n, m2, 1)
	p.C1 = uniform(rng, p1, n, 1)
	p.C2 = uniform(rng, p2, n, 1)
	p.D11 = newDmat(p1, m1)
	p.D12 = uniform(rng, p1, m2, 1)
	p.D21 = uniform(rng, p2, m1, 1)
	// the spectral abscissa α(A): uniform on [−0.5, −0.1] (analysis) or on
	// [−0.3, 0.3] (the others: stable and mildly unstable plants)
	var e mat.Eigen
	e.Factorize(p.A.dense(), mat.EigenNone)
	abs := math.Inf(-1)
	for _, l := range e.Values(nil) {
		abs = math.Max(abs, real(l))
	}
	u := float64(rng.Uint64()>>11) / (1 << 53)
	target := -0.3 + 0.6*u
	if hinfUnstable(seed) {
		target = 0.5 + u
	}
	if fam == hinfFamilyAnalysis {
		target = -0.5 + 0.4*u
		p.D11 = uniform(rng, p1, m1, 0.3)
	}
	for i := 0; i < n; i++ {
		p.A.set(i, i, p.A.at(i, i)-abs+target)
	}
	return p, fam
}

// nullBasis returns an orthonormal basis (columns) of the null space of the
// r×c matrix a (rank by singular values above 1e-12·σ₁·max(r, c)); the
// identity when r = 0.
func nullBasis(a dmat) dmat {
	if a.r == 0 {
		id := newDmat(a.c, a.c)
		for i := 0; i < a.c; i++ {
			id.set(i, i, 1)
		}
		return id
	}
	var svd mat.SVD
	if !svd.Factorize(a.dense(), mat.SVDFull) {
		panic("hinfgen: SVD failed")
	}
	s := svd.Values(nil)
	rank := 0
	for _, x := range s {
		if x > 1e-12*s[0]*float64(max(a.r, a.c)) {
			rank++
		}
	}
	var v mat.Dense
	svd.VTo(&v)
	out := newDmat(a.c, a.c-rank)
	for i := 0; i < a.c; i++ {
		for j := rank; j < a.c; j++ {
			out.set(i, j-rank, v.At(i, j))
		}
	}
	return out
}

// hstack returns [a b].
func hstack(a, b dmat) dmat {
	out := newDmat(a.r, a.c+b.c)
	out.put(0, 0, a, 1)
	out.put(0, a.c, b, 1)
	return out
}

// blockDiagI returns blockdiag(nb, I_k).
func blockDiagI(nb dmat, k int) dmat {
	out := newDmat(nb.r+k, nb.c+k)
	out.put(0, 0, nb, 1)
	for i := 0; i < k; i++ {
		out.set(nb.r+i, nb.c+i, 1)
	}
	return out
}

// LMI returns the Gahinet–Apkarian H∞ synthesis LMIs of p (Theorem 4.3 of
// the 1994 paper) as a conic problem in the standard form of ReadSDPA:
//
//	minimize γ over x = (γ, R, S), R, S symmetric n×n (their lower
//	triangles, column by column, one variable per entry), subject to
//
//	T₁ᵀ [AR+RAᵀ  RC1ᵀ  B1 ; C1R  −γI  D11 ; B1ᵀ  D11ᵀ  −γI] T₁ ⪯ 0,  T₁ = blockdiag(N_R, I_m1),
//	T₂ᵀ [AᵀS+SA  SB1  C1ᵀ ; B1ᵀS  −γI  D11ᵀ ; C1  D11  −γI] T₂ ⪯ 0,  T₂ = blockdiag(N_S, I_p1),
//	[R  I ; I  S] ⪰ 0,
//
// N_R, N_S orthonormal bases of the null spaces of [B2ᵀ D12ᵀ] and
// [C2 D21]: three PSD blocks, s = b − Ax = (−svec L₁(x), −svec L₂(x),
// svec [R I; I S]). The infimum of γ is the optimal closed-loop H∞ norm over
// all stabilizing controllers (the strict LMIs' feasibility for γ is the
// existence of a controller reaching γ); with m2 = p2 = 0 and A Hurwitz it is
// the H∞ norm of (A, B1, C1, D11).
func (p *hinfPlant) LMI() *solver.Problem {
	n, m1, p1 := p.N, p.M1, p.P1
	nr := nullBasis(hstack(p.B2.t(), p.D12.t())) // (n+p1) × k1
	ns := nullBasis(hstack(p.C2, p.D21))         // (n+m1) × k2
	t1, t2 := blockDiagI(nr, m1), blockDiagI(ns, p1)
	o1, o2, o3 := t1.c, t2.c, 2*n
	d1, d2, d3 := o1*(o1+1)/2, o2*(o2+1)/2, o3*(o3+1)/2
	nsym := n * (n + 1) / 2
	nv := 1 + 2*nsym
	tr := sparse.NewTriplets(d1+d2+d3, nv, 0)
	b := make([]float64, d1+d2+d3)
	// add writes sign·svec(Tᵀ M T) into column col (−1: b) at row offset off.
	add := func(off int, tm dmat, m dmat, col int, sign float64) {
		if tm.r != 0 {
			m = tm.t().mul(m).mul(tm)
		}
		big := 0.0
		for _, x := range m.v {
			big = math.Max(big, math.Abs(x))
		}
		for j := 0; j < m.c; j++ {
			for i := j; i < m.r; i++ {
				x := m.at(i, j)
				if math.Abs(x) <= 1e-15*big || x == 0 {
					continue
				}
				if i != j {
					x *= math.Sqrt2
				}
				row := off + cone.SVecIndex(m.r, i, j)
				if col < 0 {
					b[row] += sign * x
				} else {
					tr.Append(row, col, sign*x)
				}
			}
		}
	}
	eye := func(k int, s float64) dmat {
		a := newDmat(k, k)
		for i := 0; i < k; i++ {
			a.set(i, i, s)
		}
		return a
	}
	// constants
	m10 := newDmat(n+p1+m1, n+p1+m1)
	m10.put(0, n+p1, p.B1, 1)
	m10.put(n+p1, 0, p.B1.t(), 1)
	m10.put(n, n+p1, p.D11, 1)
	m10.put(n+p1, n, p.D11.t(), 1)
	add(0, t1, m10, -1, -1)
	m20 := newDmat(n+m1+p1, n+m1+p1)
	m20.put(0, n+m1, p.C1.t(), 1)
	m20.put(n+m1, 0, p.C1, 1)
	m20.put(n, n+m1, p.D11.t(), 1)
	m20.put(n+m1, n, p.D11, 1)
	add(d1, t2, m20, -1, -1)
	m30 := newDmat(2*n, 2*n)
	m30.put(0, n, eye(n, 1), 1)
	m30.put(n, 0, eye(n, 1), 1)
	add(d1+d2, dmat{}, m30, -1, 1)
	// γ
	m1g := newDmat(n+p1+m1, n+p1+m1)
	m1g.put(n, n, eye(p1+m1, -1), 1)
	add(0, t1, m1g, 0, 1)
	m2g := newDmat(n+m1+p1, n+m1+p1)
	m2g.put(n, n, eye(m1+p1, -1), 1)
	add(d1, t2, m2g, 0, 1)
	// R and S, entry (i, j), i ≥ j, column by column
	col := 1
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			e := newDmat(n, n)
			e.set(i, j, 1)
			e.set(j, i, 1)
			ae := p.A.mul(e)
			mr := newDmat(n+p1+m1, n+p1+m1)
			mr.put(0, 0, addm(ae, ae.t()), 1)
			ce := p.C1.mul(e)
			mr.put(n, 0, ce, 1)
			mr.put(0, n, ce.t(), 1)
			add(0, t1, mr, col, 1)
			m3 := newDmat(2*n, 2*n)
			m3.put(0, 0, e, 1)
			add(d1+d2, dmat{}, m3, col, -1)

			ea := e.mul(p.A)
			ms := newDmat(n+m1+p1, n+m1+p1)
			ms.put(0, 0, addm(ea, ea.t()), 1)
			eb := e.mul(p.B1)
			ms.put(0, n, eb, 1)
			ms.put(n, 0, eb.t(), 1)
			add(d1, t2, ms, col+nsym, 1)
			m3 = newDmat(2*n, 2*n)
			m3.put(n, n, e, 1)
			add(d1+d2, dmat{}, m3, col+nsym, -1)
			col++
		}
	}
	q := make([]float64, nv)
	q[0] = 1
	return &solver.Problem{Q: q, A: tr.ToCSC(), B: b, Cones: []cone.Cone{cone.NewPSD(o1), cone.NewPSD(o2), cone.NewPSD(o3)}}
}

// addm returns a + b.
func addm(a, b dmat) dmat {
	out := newDmat(a.r, a.c)
	for i := range a.v {
		out.v[i] = a.v[i] + b.v[i]
	}
	return out
}

// degeneracy lists the plant properties that give the LMI a recession
// direction d ≠ 0 with γ-component 0 (qᵀd = 0, −Ad in the cone): along it
// the feasible set is unbounded at constant γ, so the dual (SDPA's X) has no
// interior point — the hinf kind of problem. With dR = VPVᵀ, the block-1
// form on the null space of [B2ᵀ D12ᵀ] is uᵀ(ZP + PZᵀ)u where
// AV − VZ = B2G, C1V = D12G; so (derivation in BENCHMARKS.md):
//
//   - D12 of column rank < m2: D12g = 0 gives dR = B2ggᵀB2ᵀ (Z = 0 on the
//     null space, the form vanishes);
//   - an invariant zero s of (A, B2, C1, D12) with Re s ≤ 0: Z carries it and
//     a Lyapunov P ≻ 0 with ZP + PZᵀ ⪯ 0 exists;
//
// and dually for S: D21 of row rank < p2, or an invariant zero of
// (A, B1, C2, D21) with Re s ≤ 0. Zeros are computed when D12 (D21) is
// square and invertible (the eigenvalues of A − B2D12⁻¹C1, A − B1D21⁻¹C2);
// a tall D12 (p1 > m2) or wide D21 of full rank has generically no zeros.
// An empty list: no such property (the regular kind).
func (p *hinfPlant) degeneracy() []string {
	var out []string
	stableZeros := func(a, bb, c, d dmat) int {
		// eig(A − B D⁻¹ C)
		var lu mat.LU
		lu.Factorize(d.dense())
		var x mat.Dense
		if err := lu.SolveTo(&x, false, c.dense()); err != nil {
			return -1
		}
		var f mat.Dense
		f.Mul(bb.dense(), &x)
		f.Sub(a.dense(), &f)
		var e mat.Eigen
		e.Factorize(&f, mat.EigenNone)
		k := 0
		for _, l := range e.Values(nil) {
			if real(l) <= 0 {
				k++
			}
		}
		return k
	}
	if p.M2 > 0 {
		if r := rankOf(p.D12); r < p.M2 {
			out = append(out, fmt.Sprintf("D12 rank %d < m2 = %d", r, p.M2))
		} else if p.P1 == p.M2 {
			if k := stableZeros(p.A, p.B2, p.C1, p.D12); k != 0 {
				out = append(out, fmt.Sprintf("%d zeros of (A,B2,C1,D12) in Re s ≤ 0", k))
			}
		}
	}
	if p.P2 > 0 {
		if r := rankOf(p.D21); r < p.P2 {
			out = append(out, fmt.Sprintf("D21 rank %d < p2 = %d", r, p.P2))
		} else if p.P2 == p.M1 {
			if k := stableZeros(p.A, p.B1, p.C2, p.D21); k != 0 {
				out = append(out, fmt.Sprintf("%d zeros of (A,B1,C2,D21) in Re s ≤ 0", k))
			}
		}
	}
	return out
}

// rankOf returns the numerical rank of a: its singular values above
// 1e-12·σ₁·max(r, c).
func rankOf(a dmat) int {
	if a.r == 0 || a.c == 0 {
		return 0
	}
	var svd mat.SVD
	svd.Factorize(a.dense(), mat.SVDNone)
	s := svd.Values(nil)
	k := 0
	for _, x := range s {
		if x > 1e-12*s[0]*float64(max(a.r, a.c)) {
			k++
		}
	}
	return k
}

// hinfGenName is the instance name of seed: family, n and the kind
// ("deg" when degeneracy is not empty, "reg" otherwise; prefixed "u" for an
// unstable synthesis plant), e.g. "hg07-square-n4-deg", "hg47-square-n4-udeg".
func hinfGenName(seed int, fam string, n int, degenerate bool) string {
	k := "reg"
	if degenerate {
		k = "deg"
	}
	if hinfUnstable(seed) && fam != hinfFamilyAnalysis {
		k = "u" + k
	}
	return fmt.Sprintf("hg%02d-%s-n%d-%s", seed, fam, n, k)
}

// sigmaMax returns the largest singular value of G(jω) = C(jωI − A)⁻¹B + D,
// from the real system [−A −ωI; ωI −A][Xr; Xi] = [B; 0] (X = Xr + jXi) and
// the singular values of the real form [Gr −Gi; Gi Gr] (each of G's twice).
func sigmaMax(a, b, c, d *mat.Dense, w float64) float64 {
	n, _ := a.Dims()
	_, m := b.Dims()
	p, _ := c.Dims()
	k := mat.NewDense(2*n, 2*n, nil)
	rhs := mat.NewDense(2*n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			k.Set(i, j, -a.At(i, j))
			k.Set(n+i, n+j, -a.At(i, j))
		}
		k.Set(i, n+i, -w)
		k.Set(n+i, i, w)
		for j := 0; j < m; j++ {
			rhs.Set(i, j, b.At(i, j))
		}
	}
	var x mat.Dense
	if err := x.Solve(k, rhs); err != nil {
		return math.Inf(1)
	}
	g := mat.NewDense(2*p, 2*m, nil)
	for i := 0; i < p; i++ {
		for j := 0; j < m; j++ {
			var gr, gi float64
			for l := 0; l < n; l++ {
				gr += c.At(i, l) * x.At(l, j)
				gi += c.At(i, l) * x.At(n+l, j)
			}
			gr += d.At(i, j)
			g.Set(i, j, gr)
			g.Set(p+i, m+j, gr)
			g.Set(i, m+j, -gi)
			g.Set(p+i, j, gi)
		}
	}
	var svd mat.SVD
	svd.Factorize(g, mat.SVDNone)
	return svd.Values(nil)[0]
}

// hinfNorm returns bounds lo ≤ ‖G‖∞ ≤ hi of G(s) = C(sI − A)⁻¹B + D, A
// Hurwitz, with hi = (1 + 2·rel)·lo, by the two-step algorithm of Bruinsma
// and Steinbuch ("A fast algorithm to compute the H∞-norm of a transfer
// function matrix", Systems & Control Letters 14 (1990) 287–293): lo is
// always a value σ_max(G(jω)) at some ω (a true lower bound); γ is a
// singular value of G(jω) iff jω is an eigenvalue of the Hamiltonian
// (Boyd, Balakrishnan and Kabamba 1989)
//
//	H(γ) = [A − BR⁻¹DᵀC   −γBR⁻¹Bᵀ ; γCᵀS⁻¹C   −Aᵀ + CᵀDR⁻¹Bᵀ],  R = DᵀD − γ²I, S = DDᵀ − γ²I,
//
// so with no imaginary eigenvalue at γ = (1 + 2·rel)·lo the norm is below
// it; otherwise lo rises to the largest σ_max at the midpoints of the
// imaginary eigenvalues' frequencies. An eigenvalue λ counts as imaginary
// when |Re λ| ≤ 1e-8·max(1, |λ|).
func hinfNorm(a, b, c, d *mat.Dense, rel float64) (lo, hi float64, err error) {
	n, _ := a.Dims()
	_, m := b.Dims()
	p, _ := c.Dims()
	var ea mat.Eigen
	if !ea.Factorize(a, mat.EigenNone) {
		return 0, 0, fmt.Errorf("hinfnorm: eigenvalues of A failed")
	}
	cand := []float64{0}
	for _, l := range ea.Values(nil) {
		if real(l) >= 0 {
			return 0, 0, fmt.Errorf("hinfnorm: A is not Hurwitz (eigenvalue %v)", l)
		}
		cand = append(cand, math.Abs(imag(l)), cmplx.Abs(l))
	}
	var sd mat.SVD
	sd.Factorize(d, mat.SVDNone)
	lo = sd.Values(nil)[0]
	for _, w := range cand {
		lo = math.Max(lo, sigmaMax(a, b, c, d, w))
	}
	for it := 0; it < 200; it++ {
		g := (1 + 2*rel) * lo
		// H(γ)
		r := mat.NewDense(m, m, nil)
		r.Mul(d.T(), d)
		s := mat.NewDense(p, p, nil)
		s.Mul(d, d.T())
		for i := 0; i < m; i++ {
			r.Set(i, i, r.At(i, i)-g*g)
		}
		for i := 0; i < p; i++ {
			s.Set(i, i, s.At(i, i)-g*g)
		}
		var ri, si mat.Dense
		if err := ri.Inverse(r); err != nil {
			return 0, 0, err
		}
		if err := si.Inverse(s); err != nil {
			return 0, 0, err
		}
		var brd, t11, t12, t21 mat.Dense
		brd.Mul(b, &ri)
		var dtc mat.Dense
		dtc.Mul(d.T(), c)
		t11.Mul(&brd, &dtc)
		t11.Sub(a, &t11)
		t12.Mul(&brd, b.T())
		t12.Scale(-g, &t12)
		var sc mat.Dense
		sc.Mul(&si, c)
		t21.Mul(c.T(), &sc)
		t21.Scale(g, &t21)
		h := mat.NewDense(2*n, 2*n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				h.Set(i, j, t11.At(i, j))
				h.Set(i, n+j, t12.At(i, j))
				h.Set(n+i, j, t21.At(i, j))
				h.Set(n+i, n+j, -t11.At(j, i))
			}
		}
		var eh mat.Eigen
		if !eh.Factorize(h, mat.EigenNone) {
			return 0, 0, fmt.Errorf("hinfnorm: Hamiltonian eigenvalues failed")
		}
		var ws []float64
		for _, l := range eh.Values(nil) {
			if math.Abs(real(l)) <= 1e-8*math.Max(1, cmplx.Abs(l)) {
				ws = append(ws, imag(l))
			}
		}
		if len(ws) == 0 {
			return lo, g, nil
		}
		sort.Float64s(ws)
		prev := lo
		for i := 0; i+1 < len(ws); i++ {
			lo = math.Max(lo, sigmaMax(a, b, c, d, math.Abs(ws[i]+ws[i+1])/2))
		}
		if lo <= prev { // no progress: the crossing is a double root at γ
			return lo, g, nil
		}
	}
	return 0, 0, fmt.Errorf("hinfnorm: no convergence")
}

// hinfGenInstance is one generated instance: its problem, family, plant
// dimensions, degeneracy (hinfPlant.degeneracy) and, for the analysis
// family, the H∞ norm's bounds (hinfNorm at rel = 1e-10; 0 otherwise), and
// for a synthesis plant with D12 of full column rank and D21 of full row
// rank the optimal γ by the Riccati conditions (hinfRiccatiOpt at rel =
// 1e-10; NaN otherwise).
type hinfGenInstance struct {
	Seed       int
	Name       string
	Family     string
	Dims       [5]int
	Degeneracy []string
	NormLo     float64
	NormHi     float64
	Riccati    float64
	// RegBound and RegStep: for a singular synthesis plant (D12 or D21
	// rank-deficient), hinfRegularizedOpt's upper bound and its last
	// decrease (NaN otherwise).
	RegBound float64
	RegStep  float64
	Problem  *solver.Problem
}

// generateHinf returns generated instance seed (≥ 1), deterministic.
func generateHinf(seed int) (*hinfGenInstance, error) {
	if seed < 1 {
		return nil, fmt.Errorf("hinfgen: seed %d, must be ≥ 1", seed)
	}
	p, fam := newHinfPlant(seed)
	g := &hinfGenInstance{Seed: seed, Family: fam, Dims: [5]int{p.N, p.M1, p.M2, p.P1, p.P2}, Degeneracy: p.degeneracy()}
	g.Name = hinfGenName(seed, fam, p.N, len(g.Degeneracy) > 0)
	g.Riccati, g.RegBound, g.RegStep = math.NaN(), math.NaN(), math.NaN()
	if fam != hinfFamilyAnalysis {
		if rankOf(p.D12) == p.M2 && rankOf(p.D21) == p.P2 {
			g.Riccati = p.hinfRiccatiOpt(1e-10)
		} else {
			g.RegBound, g.RegStep = p.hinfRegularizedOpt()
		}
	}
	if fam == hinfFamilyAnalysis {
		lo, hi, err := hinfNorm(p.A.dense(), p.B1.dense(), p.C1.dense(), p.D11.dense(), 1e-10)
		if err != nil {
			return nil, fmt.Errorf("hinfgen: seed %d: %w", seed, err)
		}
		g.NormLo, g.NormHi = lo, hi
	}
	g.Problem = p.LMI()
	return g, nil
}

// parseSeeds reads a list of seeds "1-20,25,30-32".
func parseSeeds(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		var a, b int
		if k := strings.Index(part, "-"); k > 0 {
			if _, err := fmt.Sscanf(part, "%d-%d", &a, &b); err != nil || a < 1 || b < a {
				return nil, fmt.Errorf("-gen-seeds: range %q, want FIRST-LAST with 1 ≤ FIRST ≤ LAST", part)
			}
		} else {
			if _, err := fmt.Sscanf(part, "%d", &a); err != nil || a < 1 {
				return nil, fmt.Errorf("-gen-seeds: %q is not a seed ≥ 1", part)
			}
			b = a
		}
		for k := a; k <= b; k++ {
			out = append(out, k)
		}
	}
	return out, nil
}

// hinfGenSet generates the instances of seeds into dir (SDPA files, the
// form both privopt and csdp read), runs csdp on each (runCSDP) and returns
// them as instances of setHinfGen with their references, and the csdp
// outcome of each by name. The reference, in order of preference:
//
//   - analysis family: the H∞ norm (the midpoint of hinfNorm's bounds, 2e-10
//     apart relative; source "hamiltonian"), tolerance the pass rule's
//     1e-6·max(1, |ref|);
//   - D12 of full column rank and D21 of full row rank: the Riccati optimum
//     (hinfRiccatiOpt; source "riccati"), the pass rule's tolerance;
//   - D12 or D21 rank-deficient (the singular problems, SDPLIB hinf10–15's
//     shapes): the regularized upper bound (hinfRegularizedOpt; source
//     "riccati-eps") when its last decrease is at most 1e-2·max(1, |bound|),
//     with that decrease as tolerance (at least the pass rule's); else none
//     when csdp's value lies above the bound;
//   - else csdp's objective when it reports success (exit code 0; source
//     "csdp") or reduced accuracy (exit code 3; "csdp-partial"), with the
//     pass rule's tolerance widened to csdp's own gap |primal − dual
//     objective| (on the degenerate kind csdp's "optimal" can be 1e-4 off,
//     its X infeasible enough that the gap is negative);
//   - else none (graded "noref").
//
// Every instance is described on stdout: family, (n, m1, m2, p1, p2), block
// orders, degeneracy, reference, csdp's result, the Riccati optimum and the
// regularized bound.
func hinfGenSet(seeds []int, dir string, limit time.Duration, stdout io.Writer) ([]instance, map[string]outcome, error) {
	var out []instance
	peers := map[string]outcome{}
	for _, seed := range seeds {
		g, err := generateHinf(seed)
		if err != nil {
			return nil, nil, err
		}
		var b bytes.Buffer
		if err := WriteSDPA(&b, g.Problem); err != nil {
			return nil, nil, err
		}
		file := g.Name + ".dat-s"
		if err := os.WriteFile(filepath.Join(dir, file), b.Bytes(), 0o644); err != nil {
			return nil, nil, err
		}
		in := instance{Name: g.Name, Set: setHinfGen, File: file, ExpectedStatus: "optimal"}
		var o outcome
		runCSDP(dir, &in, &o, limit)
		peers[g.Name] = o
		ref, src := math.NaN(), ""
		switch {
		case g.Family == hinfFamilyAnalysis:
			ref, src = (g.NormLo+g.NormHi)/2, "hamiltonian"
		case !math.IsNaN(g.Riccati):
			ref, src = g.Riccati, "riccati"
		case g.RegStep <= 1e-2*math.Max(1, math.Abs(g.RegBound)):
			// the regularized bound, converged: its last decrease as tolerance
			ref, src = g.RegBound, "riccati-eps"
			in.relTol = math.Max(1e-6, g.RegStep/math.Max(1, math.Abs(ref)))
		case !math.IsNaN(g.RegBound) && o.CSDPObjective > g.RegBound:
			// csdp's value lies above an upper bound on the optimum: no reference
		case o.CSDPStatus == "optimal" || o.CSDPStatus == "almost-optimal":
			// the tolerance widens to csdp's own gap
			ref, src = o.CSDPObjective, "csdp"
			if o.CSDPStatus == "almost-optimal" {
				src = "csdp-partial"
			}
			in.relTol = math.Max(1e-6, math.Abs(o.CSDPPrimal-o.CSDPObjective)/math.Max(1, math.Abs(ref)))
		}
		if src != "" {
			in.Reference = &struct {
				Value     float64 `json:"value"`
				Text      string  `json:"text"`
				SigDigits int     `json:"sig_digits"`
				Source    string  `json:"source"`
			}{Value: ref, Source: src}
		}
		tol := math.NaN()
		if in.Reference != nil {
			tol = in.tolerance()
		}
		var orders []string
		for _, c := range g.Problem.Cones {
			orders = append(orders, strconv.Itoa(cone.PSDOrder(c.Dim)))
		}
		deg := strings.Join(g.Degeneracy, "; ")
		if deg == "" {
			deg = "none"
		}
		fmt.Fprintf(stdout, "hinfgen %-26s n,m1,m2,p1,p2 = %v  blocks %s  vars %d  degeneracy: %s  reference %.10g ± %.2g (%s)  csdp %s %.10g / %.10g  riccati %.10g  regularized %.10g (step %.2g)\n",
			g.Name, g.Dims, strings.Join(orders, ","), g.Problem.NumVars(), deg, ref, tol, src, o.CSDPStatus, o.CSDPObjective, o.CSDPPrimal, g.Riccati, g.RegBound, g.RegStep)
		out = append(out, in)
	}
	return out, peers, nil
}

// stabilizingRiccati returns the stabilizing solution X of the Riccati
// equation with Hamiltonian h = [F −G; −Q −Fᵀ] (2n×2n): X = X₂X₁⁻¹ for
// the stable invariant subspace span[X₁; X₂] (real basis from the real and
// imaginary parts of the eigenvectors); ok is false when an eigenvalue lies
// within 1e-9·max(1, |λ|) of the imaginary axis, the stable eigenvalues are
// not n, or X₁ is singular (reciprocal condition < 1e-13).
func stabilizingRiccati(h *mat.Dense) (x *mat.Dense, ok bool) {
	n2, _ := h.Dims()
	n := n2 / 2
	var e mat.Eigen
	if !e.Factorize(h, mat.EigenRight) {
		return nil, false
	}
	vals := e.Values(nil)
	var vecs mat.CDense
	e.VectorsTo(&vecs)
	basis := mat.NewDense(n2, n, nil)
	k := 0
	for j := 0; j < len(vals); j++ {
		l := vals[j]
		if math.Abs(real(l)) <= 1e-9*math.Max(1, cmplx.Abs(l)) {
			return nil, false
		}
		if real(l) > 0 {
			continue
		}
		if imag(l) < 0 {
			continue // its conjugate's vector gives both columns
		}
		if k >= n || (imag(l) != 0 && k+1 >= n) {
			return nil, false
		}
		for i := 0; i < n2; i++ {
			basis.Set(i, k, real(vecs.At(i, j)))
		}
		k++
		if imag(l) != 0 {
			for i := 0; i < n2; i++ {
				basis.Set(i, k, imag(vecs.At(i, j)))
			}
			k++
		}
	}
	if k != n {
		return nil, false
	}
	x1 := basis.Slice(0, n, 0, n)
	x2 := basis.Slice(n, n2, 0, n)
	var lu mat.LU
	lu.Factorize(x1)
	if lu.Det() == 0 || 1/lu.Cond() < 1e-13 {
		return nil, false
	}
	// X = X₂X₁⁻¹: solve X₁ᵀXᵀ = X₂ᵀ
	var xt mat.Dense
	if err := lu.SolveTo(&xt, true, x2.T()); err != nil {
		return nil, false
	}
	x = mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			x.Set(i, j, (xt.At(j, i)+xt.At(i, j))/2)
		}
	}
	return x, true
}

// hinfRiccatiX returns X∞ for (A, B = [Bw Bu], C, D = [Dw Du]) at γ: the
// stabilizing solution of
//
//	AᵀX + XA + CᵀC − (XB + CᵀD) R⁻¹ (BᵀX + DᵀC) = 0,  R = DᵀD − diag(γ²I, 0),
//
// (Zhou, Doyle and Glover, "Robust and Optimal Control", 1996, the general
// H∞ Riccati equation; in terms of DᵀD, DᵀC, CᵀC it is invariant under the
// input scaling and output rotation that normalize a full-column-rank Du).
// Its Hamiltonian is [Ã −BR⁻¹Bᵀ; −Cᵀ(I − DR⁻¹Dᵀ)C −Ãᵀ], Ã = A − BR⁻¹DᵀC.
func hinfRiccatiX(a, bw, bu, c, dw, du dmat, g float64) (*mat.Dense, bool) {
	n, mw, mu, p := a.r, bw.c, bu.c, c.r
	b := hstack(bw, bu)
	d := hstack(dw, du)
	r := d.t().mul(d)
	for i := 0; i < mw; i++ {
		r.set(i, i, r.at(i, i)-g*g)
	}
	var ri mat.Dense
	if err := ri.Inverse(r.dense()); err != nil {
		return nil, false
	}
	rinv := dmat{mw + mu, mw + mu, ri.RawMatrix().Data}
	if ri.RawMatrix().Stride != mw+mu {
		return nil, false
	}
	brd := b.mul(rinv)
	at := addm(a, scale(brd.mul(d.t()).mul(c), -1))
	gm := brd.mul(b.t())
	eye := newDmat(p, p)
	for i := 0; i < p; i++ {
		eye.set(i, i, 1)
	}
	q := c.t().mul(addm(eye, scale(d.mul(rinv).mul(d.t()), -1))).mul(c)
	h := newDmat(2*n, 2*n)
	h.put(0, 0, at, 1)
	h.put(0, n, gm, -1)
	h.put(n, 0, q, -1)
	h.put(n, n, at.t(), -1)
	return stabilizingRiccati(h.dense())
}

// scale returns s·a.
func scale(a dmat, s float64) dmat {
	out := newDmat(a.r, a.c)
	for i := range a.v {
		out.v[i] = s * a.v[i]
	}
	return out
}

// hinfRiccatiFeasible reports whether γ is achievable (strictly) for a
// regular plant (D12 of full column rank, D21 of full row rank, D11 = 0, no
// invariant zeros on the imaginary axis, (A, B2) stabilizable, (C2, A)
// detectable) by the general-case Riccati conditions (Glover and Doyle,
// Systems & Control Letters 11 (1988) 167–172; Zhou–Doyle–Glover 1996, in
// the form of hinfRiccatiX): X∞ ⪰ 0 and Y∞ ⪰ 0 exist
// (stabilizing, the latter of the dual data Aᵀ, [C1ᵀ C2ᵀ], B1ᵀ,
// [D11ᵀ D21ᵀ]) and ρ(X∞Y∞) < γ².
func (p *hinfPlant) hinfRiccatiFeasible(g float64) bool {
	x, ok := hinfRiccatiX(p.A, p.B1, p.B2, p.C1, p.D11, p.D12, g)
	if !ok {
		return false
	}
	y, ok := hinfRiccatiX(p.A.t(), p.C1.t(), p.C2.t(), p.B1.t(), p.D11.t(), p.D21.t(), g)
	if !ok {
		return false
	}
	for _, m := range []*mat.Dense{x, y} {
		var e mat.EigenSym
		if !e.Factorize(mat.NewSymDense(p.N, m.RawMatrix().Data), false) {
			return false
		}
		v := e.Values(nil)
		if v[0] < -1e-10*math.Max(1, math.Abs(v[len(v)-1])) {
			return false
		}
	}
	var xy mat.Dense
	xy.Mul(x, y)
	var e mat.Eigen
	if !e.Factorize(&xy, mat.EigenNone) {
		return false
	}
	rho := 0.0
	for _, l := range e.Values(nil) {
		rho = math.Max(rho, cmplx.Abs(l))
	}
	return rho < g*g
}

// hinfRiccatiOpt returns the optimal γ of a regular plant by bisection on
// hinfRiccatiFeasible to the relative width rel (an upper bracket found by
// doubling from 1), or NaN when no γ ≤ 1e8 is feasible.
func (p *hinfPlant) hinfRiccatiOpt(rel float64) float64 {
	lo, hi := 0.0, 1.0
	for !p.hinfRiccatiFeasible(hi) {
		lo, hi = hi, 2*hi
		if hi > 1e8 {
			return math.NaN()
		}
	}
	for hi-lo > rel*hi {
		mid := (lo + hi) / 2
		if p.hinfRiccatiFeasible(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return (lo + hi) / 2
}

// regularized returns p with z augmented by ε·u and w by a measurement noise
// w₂ entering y as ε·w₂ (C1 → [C1; 0], D12 → [D12; εI], B1 → [B1 0],
// D21 → [D21 εI], D11 → 0): D12 then has full column rank and D21 full row
// rank. Every controller's closed loop on p is a block of its closed loop on
// the regularized plant, so the regularized optimum γ(ε) is an upper bound on
// p's, and γ(ε) → p's optimum as ε → 0 (a controller within δ of p's optimum
// is within δ + O(ε) on the regularized plant). p must have D11 = 0.
func (p *hinfPlant) regularized(eps float64) *hinfPlant {
	q := *p
	q.P1, q.M1 = p.P1+p.M2, p.M1+p.P2
	q.C1 = newDmat(q.P1, p.N)
	q.C1.put(0, 0, p.C1, 1)
	q.D12 = newDmat(q.P1, p.M2)
	q.D12.put(0, 0, p.D12, 1)
	for i := 0; i < p.M2; i++ {
		q.D12.set(p.P1+i, i, eps)
	}
	q.B1 = newDmat(p.N, q.M1)
	q.B1.put(0, 0, p.B1, 1)
	q.D21 = newDmat(p.P2, q.M1)
	q.D21.put(0, 0, p.D21, 1)
	for i := 0; i < p.P2; i++ {
		q.D21.set(i, p.M1+i, eps)
	}
	q.D11 = newDmat(q.P1, q.M1)
	return &q
}

// hinfRegularizedOpt bounds the optimum of a singular plant (D12 or D21
// rank-deficient, D11 = 0) from above by the Riccati optima γ(ε) of the
// regularized plants, ε = 1e-2, 1e-3, …, 1e-6 (hinfRiccatiOpt at rel =
// 1e-10): it returns the smallest γ(ε) found and, as the estimate of its
// distance to the limit, the decrease from the previous finite γ(ε) to it
// (NaN, NaN when none is finite; the decrease is NaN when the smallest is the
// first). Rounding makes the Riccati test fail, not pass, at small ε (γ(ε)
// turns NaN or rises), so the smallest value is the tightest bound.
func (p *hinfPlant) hinfRegularizedOpt() (best, step float64) {
	best, step = math.NaN(), math.NaN()
	prev := math.NaN()
	for _, eps := range []float64{1e-2, 1e-3, 1e-4, 1e-5, 1e-6} {
		g := p.regularized(eps).hinfRiccatiOpt(1e-10)
		if math.IsNaN(g) {
			continue
		}
		if math.IsNaN(best) || g < best {
			best, step = g, prev-g
		}
		prev = g
	}
	return best, step
}
