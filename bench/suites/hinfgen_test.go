package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/fnv"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// TestHinfGenDeterministic: the same seed gives the same SDPA file, another
// seed another file, and the plant data drawn directly from the generator's
// raw bits (every entry but A's diagonal, which carries a shift computed from
// A's eigenvalues) has a fixed FNV-1a hash, so a change of the generator's
// algorithm fails here.
func TestHinfGenDeterministic(t *testing.T) {
	sdpa := func(seed int) []byte {
		g, err := generateHinf(seed)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteSDPA(&b, g.Problem); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, seed := range []int{1, 2, 3, 4, 30} {
		if a, b := sdpa(seed), sdpa(seed); !bytes.Equal(a, b) {
			t.Errorf("seed %d: two generations differ", seed)
		}
	}
	if bytes.Equal(sdpa(6), sdpa(10)) {
		t.Errorf("seeds 6 and 10 give the same file")
	}
	p, _ := newHinfPlant(2)
	h := fnv.New64a()
	var buf []byte
	for k, m := range []dmat{p.A, p.B1, p.B2, p.C1, p.C2, p.D12, p.D21} {
		for i, v := range m.v {
			if k == 0 && i%(p.N+1) == 0 {
				continue // A's diagonal carries the shift, computed from its eigenvalues
			}
			buf = binary.LittleEndian.AppendUint64(buf[:0], math.Float64bits(v))
			h.Write(buf)
		}
	}
	if got := h.Sum64(); got != hinfGenPlant2Hash {
		t.Errorf("seed 2's plant hashes to %#x, want %#x", got, hinfGenPlant2Hash)
	}
}

// hinfGenPlant2Hash is the FNV-1a hash of seed 2's plant data (see
// TestHinfGenDeterministic).
const hinfGenPlant2Hash = 0x702a4358aa711b1c

// TestHinfGenShapes: the lib family reproduces the block orders and
// variable counts of SDPLIB's hinf1 (4, 4, 6; 13 variables), hinf2–9
// (5, 5, 6), hinf10 (5, 5, 8; 21), hinf11 (6, 6, 10; 31), hinf12 (6, 6, 12;
// 43), hinf13 (7, 9, 14; 57), hinf14 (8, 10, 16; 73), read from the SDPLIB
// files' headers.
func TestHinfGenShapes(t *testing.T) {
	want := map[int][4]int{1: {4, 4, 6, 13}, 5: {5, 5, 6, 13}, 9: {5, 5, 8, 21}, 13: {6, 6, 10, 31},
		17: {6, 6, 12, 43}, 21: {7, 9, 14, 57}, 25: {8, 10, 16, 73}}
	for seed, w := range want {
		g, err := generateHinf(seed)
		if err != nil {
			t.Fatal(err)
		}
		var got [4]int
		for k, c := range g.Problem.Cones {
			got[k] = cone.PSDOrder(c.Dim)
		}
		got[3] = g.Problem.NumVars()
		if g.Family != hinfFamilyLib || got != w {
			t.Errorf("seed %d (%s %v): blocks and variables %v, want %v", seed, g.Family, g.Dims, got, w)
		}
	}
}

// TestHinfNormSweep: hinfNorm's bounds bracket the largest σ_max(G(jω)) of
// a dense logarithmic frequency sweep (which can only be lower) and the
// sweep comes within 1e-3 relative of them, on the analysis plants of
// seeds 4 and 8; and a first-order lag 1/(s + a) has the norm 1/a.
func TestHinfNormSweep(t *testing.T) {
	for _, seed := range []int{4, 8} {
		p, fam := newHinfPlant(seed)
		if fam != hinfFamilyAnalysis {
			t.Fatalf("seed %d is %s", seed, fam)
		}
		a, b, c, d := p.A.dense(), p.B1.dense(), p.C1.dense(), p.D11.dense()
		lo, hi, err := hinfNorm(a, b, c, d, 1e-10)
		if err != nil {
			t.Fatal(err)
		}
		best := 0.0
		for k := 0; k <= 20000; k++ {
			w := math.Pow(10, -3+6*float64(k)/20000)
			best = math.Max(best, sigmaMax(a, b, c, d, w))
		}
		if best > hi*(1+1e-12) || best < lo*(1-1e-3) {
			t.Errorf("seed %d: sweep max %.12g outside [%.12g·(1−1e-3), %.12g]", seed, best, lo, hi)
		}
	}
	a := mat.NewDense(1, 1, []float64{-0.25})
	one := mat.NewDense(1, 1, []float64{1})
	lo, hi, err := hinfNorm(a, one, one, mat.NewDense(1, 1, []float64{0}), 1e-10)
	if err != nil || lo > 4 || hi < 4 || hi-lo > 1e-8 {
		t.Errorf("‖1/(s+0.25)‖∞: [%v, %v] (%v), want 4", lo, hi, err)
	}
}

// TestHinfGenAnalysisIPM: the generated analysis LMI (m2 = p2 = 0) of seeds
// 4 and 8, solved by the IPM, gives the H∞ norm computed independently by
// Hamiltonian bisection (hinfNorm) to 1e-5 relative.
func TestHinfGenAnalysisIPM(t *testing.T) {
	for _, seed := range []int{4, 8} {
		g, err := generateHinf(seed)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := ipm.New().Solve(context.Background(), g.Problem, solver.Settings{TimeLimit: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		ref := (g.NormLo + g.NormHi) / 2
		if !sol.Status.OK() || math.Abs(sol.Objective-ref) > 1e-5*ref {
			t.Errorf("%s: IPM %v %.10g, H∞ norm %.10g (relative error %.2g)", g.Name, sol.Status, sol.Objective, ref,
				math.Abs(sol.Objective-ref)/ref)
		}
	}
}

// TestHinfGenRecession checks the degeneracy rule on the LMI itself: for
// seed 17 (SDPLIB hinf12's shape, D12 of rank 2 < m2 = 3) the direction
// d = (0, B2ggᵀB2ᵀ, 0), D12g = 0, has qᵀd = 0 and −Ad in the cone (every
// block's smallest eigenvalue ≥ −1e-12·‖Ad‖): the feasible set is unbounded
// at constant γ. For the regular seed 2 the same construction is not
// available (D12 has full column rank) and degeneracy is empty.
func TestHinfGenRecession(t *testing.T) {
	p, _ := newHinfPlant(17)
	if len(p.degeneracy()) == 0 {
		t.Fatalf("seed 17: no degeneracy found")
	}
	g := nullBasis(p.D12) // m2 × (m2 − rank)
	if g.c == 0 {
		t.Fatalf("seed 17: D12 has full column rank")
	}
	v := p.B2.mul(newDmatCol(g, 0))
	prob := p.LMI()
	n := p.N
	d := make([]float64, prob.NumVars())
	col := 1
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			d[col] = v.at(i, 0) * v.at(j, 0) // R_ij = (vvᵀ)_ij
			col++
		}
	}
	ad := make([]float64, prob.NumRows())
	prob.A.MulVecTo(ad, 1, d, 0)
	scale := 0.0
	for _, x := range ad {
		scale = math.Max(scale, math.Abs(x))
	}
	if scale == 0 {
		t.Fatal("Ad = 0")
	}
	off := 0
	for k, c := range prob.Cones {
		s := make([]float64, c.Dim)
		for i := range s {
			s[i] = -ad[off+i]
		}
		m, err := cone.SMat(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		var e mat.EigenSym
		e.Factorize(m, false)
		if lo := e.Values(nil)[0]; lo < -1e-12*scale {
			t.Errorf("block %d of −Ad has the eigenvalue %g (‖Ad‖∞ %g)", k, lo, scale)
		}
		off += c.Dim
	}
	if d[0] != 0 || prob.Q[0] != 1 {
		t.Errorf("qᵀd = %g", d[0]*prob.Q[0])
	}
	if q, _ := newHinfPlant(2); len(q.degeneracy()) != 0 || nullBasis(q.D12).c != 0 {
		t.Errorf("seed 2 (regular): degeneracy %v", q.degeneracy())
	}
}

// newDmatCol returns column j of a as an a.r × 1 matrix.
func newDmatCol(a dmat, j int) dmat {
	out := newDmat(a.r, 1)
	for i := 0; i < a.r; i++ {
		out.set(i, 0, a.at(i, j))
	}
	return out
}

// TestHinfGenRiccatiIPM: on the regular plants of seeds 2 and 6 and the
// square plant of seed 3 (invariant zeros in the open left half-plane: the
// degenerate kind), the IPM's optimum of the Gahinet–Apkarian LMI agrees to
// 1e-5 relative with the optimal γ computed independently from the Riccati
// conditions (hinfRiccatiOpt); and the IPM's value is not below it by more
// than that (its point is feasible, so it bounds the infimum from above).
func TestHinfGenRiccatiIPM(t *testing.T) {
	for _, seed := range []int{2, 3, 6} {
		g, err := generateHinf(seed)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(g.Riccati) {
			t.Fatalf("%s: no Riccati optimum", g.Name)
		}
		sol, err := ipm.New().Solve(context.Background(), g.Problem, solver.Settings{TimeLimit: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if !sol.Status.OK() || math.Abs(sol.Objective-g.Riccati) > 1e-5*g.Riccati {
			t.Errorf("%s: IPM %v %.10g, Riccati %.10g (relative error %.2g)", g.Name, sol.Status, sol.Objective, g.Riccati,
				math.Abs(sol.Objective-g.Riccati)/g.Riccati)
		}
	}
}

// TestHinfGenUnequilibrated: the strongly unstable regular plant of seed 42
// (n = 3; entries of the LMI over many orders of magnitude) ends
// numerical-error with the IPM's equilibration and is answered by the
// re-solve without it (ipm.Solver.Solve), within 1e-6 relative of the
// Riccati optimum (1693.1857; CSDP: almost-optimal 1693.1843). Before the
// re-solve the answer was numerical-error (34 iterations). The problem is
// solved as the suite solves it, read back from its SDPA file: the
// generator's own data differ in the last bits, and on them both solves end
// numerical-error (these plants are at the edge of what double precision
// resolves; over the 80 generated instances the re-solve turns 7 of 19
// numerical errors into answers: BENCHMARKS.md, "Optimal sets at infinity,
// round 14").
func TestHinfGenUnequilibrated(t *testing.T) {
	g, err := generateHinf(42)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(g.Riccati) {
		t.Fatalf("%s: no Riccati optimum", g.Name)
	}
	// through the SDPA file, as the suite solves it
	var b bytes.Buffer
	if err := WriteSDPA(&b, g.Problem); err != nil {
		t.Fatal(err)
	}
	p, err := ReadSDPA(&b)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{TimeLimit: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Status.OK() || math.Abs(sol.Objective-g.Riccati) > 1e-6*g.Riccati {
		t.Errorf("%s: IPM %v %.10g, Riccati %.10g (%s)", g.Name, sol.Status, sol.Objective, g.Riccati, sol.Diagnostic)
	}
	if !strings.Contains(sol.Diagnostic, "re-solved without the equilibration") {
		t.Errorf("%s: the diagnostic does not say the problem was re-solved: %q", g.Name, sol.Diagnostic)
	}
}

// TestHinfGenSet: the set's references come from the stated sources — the
// Riccati optimum for a regular plant (seed 2), the H∞ norm for an analysis
// plant (seed 4), the regularized bound for a singular one whose bound
// converges (seed 9: D21 rank-deficient), csdp for a singular one whose
// bound does not (seed 57, γ* ≈ 0; no reference when csdp is not installed)
// — and the generated file reads back to the generated problem's sizes.
func TestHinfGenSet(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	seeds := []int{2, 4, 9, 57}
	ins, peers, err := hinfGenSet(seeds, dir, time.Minute, &log)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"riccati", "hamiltonian", "riccati-eps", "csdp"}
	if peers[ins[3].Name].CSDPStatus == "not-installed" {
		want[3] = ""
	}
	for k, in := range ins {
		src := ""
		if in.Reference != nil {
			src = in.Reference.Source
		}
		if src != want[k] {
			t.Errorf("%s: reference source %q, want %q (csdp %q)", in.Name, src, want[k], peers[in.Name].CSDPStatus)
		}
		p := readSDPAFile(t, filepath.Join(dir, in.File))
		g, _ := generateHinf(seeds[k])
		if p.NumVars() != g.Problem.NumVars() || p.NumRows() != g.Problem.NumRows() {
			t.Errorf("%s: read back %d×%d, generated %d×%d", in.Name, p.NumRows(), p.NumVars(), g.Problem.NumRows(), g.Problem.NumVars())
		}
	}
}

// TestHinfRegularized: the regularized optimum bounds the optimum from above
// and tends to it — on the regular plant of seed 2 (optimum known from the
// Riccati conditions) γ(ε) ≥ γ* for ε = 1e-2, 1e-3, 1e-4 and γ(1e-4) is within
// 1e-6 relative of it; on the singular plant of seed 9 (D21 rank-deficient)
// γ(ε) does not increase as ε falls (where finite) and hinfRegularizedOpt
// returns the smallest with a last decrease below 1e-6 relative.
func TestHinfRegularized(t *testing.T) {
	p, _ := newHinfPlant(2)
	opt := p.hinfRiccatiOpt(1e-10)
	for _, eps := range []float64{1e-2, 1e-3, 1e-4} {
		g := p.regularized(eps).hinfRiccatiOpt(1e-10)
		if !(g >= opt*(1-1e-9)) {
			t.Errorf("seed 2: γ(%g) = %.10g below the optimum %.10g", eps, g, opt)
		}
		if eps == 1e-4 && g-opt > 1e-6*opt {
			t.Errorf("seed 2: γ(1e-4) = %.10g, optimum %.10g", g, opt)
		}
	}
	q, _ := newHinfPlant(9)
	if rankOf(q.D21) == q.P2 {
		t.Fatal("seed 9: D21 has full row rank")
	}
	best, step := q.hinfRegularizedOpt()
	prev, lowest := math.Inf(1), math.Inf(1)
	for _, eps := range []float64{1e-2, 1e-3, 1e-4, 1e-5, 1e-6} {
		g := q.regularized(eps).hinfRiccatiOpt(1e-10)
		if math.IsNaN(g) {
			continue
		}
		if g > prev*(1+1e-9) {
			t.Errorf("seed 9: γ(%g) = %.10g above γ at the larger ε, %.10g", eps, g, prev)
		}
		prev, lowest = g, math.Min(lowest, g)
	}
	if best != lowest || !(step >= 0 && step <= 1e-6*best) {
		t.Errorf("seed 9: bound %.10g (smallest γ(ε) %.10g), last decrease %g", best, lowest, step)
	}
}
