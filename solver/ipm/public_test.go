package ipm_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/cbf"
	"github.com/privopt/privopt/internal/shareddata"
	"github.com/privopt/privopt/mathprog"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
)

// TestNoWrongOptimalPublic solves the public instances on which the IPM once
// reported "optimal" at a wrong objective (demb763: 2.9e-6 off with an
// equality residual of 5e-7; hinf1: 1e-4 off, an SDP without a strictly
// feasible dual point) and checks that an Optimal status now always comes with the
// published value, and any other OK status with a diagnostic.
func TestNoWrongOptimalPublic(t *testing.T) {
	cases := []struct {
		file string
		ref  float64 // published optimum
		tol  float64 // the benchmark's pass rule
	}{
		{"cblib/demb763.cbf.gz", 1.1579029605625948, 1e-6 * 1.158}, // CVXOPT, tight tolerances
		{"sdplib/hinf1.cbf.gz", 2.0326, 0.5e-4},                    // SDPLIB 1.2 README, 5 digits
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			sol, obj := solvePublic(t, c.file)
			t.Logf("status %v, objective %.10g (published %.10g), %v", sol.Status, obj, c.ref, sol.Accuracy)
			switch {
			case sol.Status == solver.Optimal && math.Abs(obj-c.ref) > c.tol:
				t.Errorf("wrong optimum: %.10g, published %.10g (|error| %.2g > %.2g)", obj, c.ref, math.Abs(obj-c.ref), c.tol)
			case sol.Status != solver.Optimal && sol.Diagnostic == "":
				t.Errorf("status %v without a diagnostic", sol.Status)
			}
			if sol.Status == solver.Optimal && !sol.Accuracy.Meets(1e-8) {
				t.Errorf("optimal, but the re-check says %v", sol.Accuracy)
			}
		})
	}
}

// TestSDPLIBSparseSchur solves SDPLIB instances whose Schur complements are
// assembled by the sparse formulas (mcp124-1: diagonal data matrices, F3;
// theta2: two-entry ones; gpp124-1: one dense data matrix, F1, and the
// dense-rule fallback late in the solve) and checks them against the
// published optima (SDPLIB 1.2 README, to the printed digits).
func TestSDPLIBSparseSchur(t *testing.T) {
	cases := []struct {
		name     string
		ref, tol float64 // published optimum, half a unit of its last digit
	}{
		{"mcp124-1", 141.9905, 0.5e-4},
		{"theta2", 32.87917, 0.5e-5},
		{"gpp124-1", -7.3431, 0.5e-4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sol, obj := solvePublic(t, "sdplib/"+c.name+".cbf.gz")
			if !sol.Status.OK() || math.Abs(obj-c.ref) > c.tol {
				t.Errorf("status %v objective %.10g, published %.10g (tolerance %.1g)", sol.Status, obj, c.ref, c.tol)
			}
			if sol.Status == solver.Optimal && !sol.Accuracy.Meets(1e-8) {
				t.Errorf("optimal, but the re-check says %v", sol.Accuracy)
			}
		})
	}
}

// TestSDPLIBControl solves SDPLIB's control problems, whose dual residual
// stalled for tens of iterations while μ fell (control5: 66 iterations,
// control7: 104, CSDP 25–27): the static regularization ε = 1e-8 of the
// x-block left the Newton directions' dual equation with an error as large as
// the residual they were to remove, below the solve-accuracy test that
// triggers a smaller ε. adaptStaticReg now also measures the directions' own
// dual-equation error. control1 must end Optimal (it ended almost-optimal
// after 33 iterations before), every case within the published digits
// (SDPLIB 1.2 README, with the benchmark's rule 1e-6·|ref|; control4 ended
// 3.4e-5 off with an ε cut that waited for the reduced tolerances).
func TestSDPLIBControl(t *testing.T) {
	cases := []struct {
		name    string
		ref     float64 // published optimum
		optimal bool
	}{
		{"control1", 17.78463, true},
		{"control2", 8.3, false},
		{"control4", 19.79423, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sol, obj := solvePublic(t, "sdplib/"+c.name+".cbf.gz")
			tol := 1e-6 * math.Abs(c.ref) // the benchmark's pass rule (reference.json)
			t.Logf("status %v, %d iterations, objective %.10g (published %.10g)", sol.Status, sol.Iterations, obj, c.ref)
			if !sol.Status.OK() || math.Abs(obj-c.ref) > tol {
				t.Errorf("status %v objective %.10g, published %.10g (tolerance %.2g)", sol.Status, obj, c.ref, tol)
			}
			if c.optimal && sol.Status != solver.Optimal {
				t.Errorf("status %v (%s), want optimal", sol.Status, sol.Diagnostic)
			}
			if sol.Status == solver.Optimal && !sol.Accuracy.Meets(1e-8) {
				t.Errorf("optimal, but the re-check says %v", sol.Accuracy)
			}
		})
	}
}

// TestMarosS268Optimal solves Maros–Mészáros S268 (optimum 0, terms of order
// 1e5), which ended almost-optimal at a gap of 4.5e-8 when one Newton
// direction at iteration 18 made the dual equation 14 times worse while the
// KKT solves were at round-off: the severe-direction cut of the static
// regularization (dirErrSevere) must leave it Optimal on the re-check, at
// the published value within the benchmark's rule.
func TestMarosS268Optimal(t *testing.T) {
	sol, obj := solvePublic(t, "maros/S268.SIF.gz")
	const ref = 5.7310705e-07 // Maros–Mészáros, with the objective constant
	t.Logf("status %v, %d iterations, objective %.6g, %v", sol.Status, sol.Iterations, obj, sol.Accuracy)
	if sol.Status != solver.Optimal {
		t.Errorf("status %v (%s), want optimal", sol.Status, sol.Diagnostic)
	}
	if math.Abs(obj-ref) > 1e-6 {
		t.Errorf("objective %.6g, published %.6g", obj, ref)
	}
}

// publicCase is a public benchmark instance with its published optimum and
// the benchmark's pass tolerance.
type publicCase struct {
	file string
	ref  float64
	tol  float64
}

// solvePublic reads a shared benchmark file (CBF or QPS), solves it with the
// IPM's defaults and returns the solution with the objective in the file's
// sense; it skips when the shared data or the file is absent.
func solvePublic(t *testing.T, file string) (*solver.Solution, float64) {
	t.Helper()
	return solvePublicWith(t, file, ipm.Settings{})
}

// solvePublicWith is solvePublic with the IPM's settings set.
func solvePublicWith(t *testing.T, file string, set ipm.Settings) (*solver.Solution, float64) {
	t.Helper()
	dir, err := shareddata.Dir()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	path := filepath.Join(dir, "conic-bench", file)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not in the shared data", file)
	}
	var p *solver.Problem
	maximize := false
	if filepath.Ext(filepath.Base(path)) == ".gz" && filepath.Ext(path[:len(path)-3]) == ".cbf" {
		f, err := cbf.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, maximize = f.Problem, f.Maximize
	} else {
		m, err := mathprog.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, err := m.Standard()
		if err != nil {
			t.Fatal(err)
		}
		p, maximize = s.Problem, s.Maximize
	}
	sv, err := ipm.NewWithSettings(set)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sv.Solve(context.Background(), p, solver.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	obj := sol.Objective
	if maximize {
		obj = -obj
	}
	return sol, obj
}

// TestExpConeIterationsPublic: CBLIB geometric programs that needed 73–200
// iterations with the old second-order corrector (gp_dave_1 stopped at the
// limit) are solved to Optimal at the reference value (CVXOPT's cp solver
// with tight tolerances, reference.json) in at most 40 iterations with the
// third-order corrector of Dahl & Andersen (2022).
func TestExpConeIterationsPublic(t *testing.T) {
	for _, c := range []publicCase{
		{"cblib/gp_dave_1.cbf.gz", 5.506526516484312, 1e-6 * 5.51},
		{"cblib/car.cbf.gz", 3.279447745571197, 1e-6 * 3.28},
		{"cblib/demb761.cbf.gz", 22.310862817557478, 1e-6 * 22.3},
		{"cblib/jha88.cbf.gz", 10.389427942953484, 1e-6 * 10.4},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			sol, obj := solvePublic(t, c.file)
			if sol.Status != solver.Optimal || math.Abs(obj-c.ref) > c.tol || sol.Iterations > 40 {
				t.Errorf("status %v, objective %.10g (reference %.10g), %d iterations (want Optimal within %.2g in ≤ 40): %s",
					sol.Status, obj, c.ref, sol.Iterations, c.tol, sol.Diagnostic)
			}
		})
	}
}

// TestIllConditionedKKTPublic: instances whose refined KKT solves stall with
// the default static regularization ε = 1e-8 (LISWET: difference operators,
// smallest eigenvalues of AP⁻¹Aᵀ near 1e-14; SDPLIB control1) end with the
// published value once ε adapts. LISWET8's published 7.1447006e+03 carries a
// misprinted exponent (HiGHS finds a feasible point of value 714.4700591),
// so its digits are used with the exponent 2.
func TestIllConditionedKKTPublic(t *testing.T) {
	for _, c := range []publicCase{
		{"maros/LISWET8.SIF.gz", 714.47006, 0.5e-5},
		{"maros/LISWET12.SIF.gz", 1736.9274, 1e-6 * 1737},
		{"sdplib/control1.cbf.gz", 17.78463, 0.5e-5},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			sol, obj := solvePublic(t, c.file)
			if !sol.Status.OK() || math.Abs(obj-c.ref) > c.tol {
				t.Errorf("status %v, objective %.10g (published %.10g, tolerance %.2g): %s", sol.Status, obj, c.ref, c.tol, sol.Diagnostic)
			}
			if sol.Status == solver.Optimal && !sol.Accuracy.Meets(1e-8) {
				t.Errorf("optimal, but the re-check says %v", sol.Accuracy)
			}
		})
	}
	// Without the adaptation (MinStaticReg = StaticReg) LISWET8 stalls: the
	// mechanism, not something else, is what solves it.
	t.Run("LISWET8 fixed ε", func(t *testing.T) {
		sol, obj := solvePublicWith(t, "maros/LISWET8.SIF.gz", ipm.Settings{MinStaticReg: 1e-8})
		if sol.Status == solver.Optimal || (sol.Status.OK() && math.Abs(obj-714.47006) <= 0.5e-5) {
			t.Errorf("with ε fixed at 1e-8: status %v, objective %.10g; the stall it documents is gone", sol.Status, obj)
		}
	})
}

// BenchmarkSDPLIBSmall solves SDPLIB instances whose PSD blocks are of order
// below psdFastMinOrder (hinf1: m = 13, blocks 6, 6 and 1... ; control1:
// blocks 10 and 5; truss3), where the per-iteration cost is the fixed cost
// of the small dense factorizations rather than their arithmetic.
func BenchmarkSDPLIBSmall(b *testing.B) {
	dir, err := shareddata.Dir()
	if err != nil {
		b.Skipf("shared data not available: %v", err)
	}
	for _, name := range []string{"hinf1", "hinf10", "control1", "truss3"} {
		path := filepath.Join(dir, "conic-bench", "sdplib", name+".cbf.gz")
		f, err := cbf.ReadFile(path)
		if err != nil {
			b.Skipf("%s not in the shared data: %v", name, err)
		}
		b.Run(name, func(b *testing.B) {
			sv, err := ipm.NewWithSettings(ipm.Settings{})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := sv.Solve(context.Background(), f.Problem, solver.Settings{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestSDPLIBTail: on SDPLIB's gpp124-1 and qap7 the dual residual stalls
// near 1e-8 to 1e-7 while the reduced tolerances (1e-5) are long met; the
// solve used to run 10 to 17 more iterations there until the divergence or
// stall guards ended it with the best iterate. The tail rule stops once
// neither the best merit max(pres, dres, min(gap, relative gap)) nor μ has
// halved in 5 iterations. Checked on the reported iterations: the solve
// ends no later than that point, and the answer keeps the published digits
// (SDPLIB, tolerances of reference.json). The rule is for SDPs with
// eliminated PSD blocks only: Maros–Mészáros QSHARE1B's dual residual
// stalls at 1e-6 for 47 iterations and then converges to Optimal. About
// 3 s; not skipped in short mode (the regression check of the rule).
func TestSDPLIBTail(t *testing.T) {
	cases := []struct {
		file     string
		ref, tol float64
		optimal  bool // must end Optimal (the tail rule must not apply)
	}{
		{"sdplib/gpp124-1.cbf.gz", -7.3431, 5e-5, false},
		{"sdplib/qap7.cbf.gz", -425, 0.5, false},
		{"maros/QSHARE1B.SIF.gz", 720078.32, 0.72, true},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			var trace []ipm.Iteration
			set := ipm.Settings{Progress: func(it ipm.Iteration) { trace = append(trace, it) }}
			sol, obj := solvePublicWith(t, c.file, set)
			t.Logf("status %v, %d iterations, objective %.10g (published %.10g)", sol.Status, sol.Iterations, obj, c.ref)
			if !sol.Status.OK() || math.Abs(obj-c.ref) > c.tol {
				t.Errorf("status %v (%s), objective %.10g, published %.10g (tolerance %.2g)", sol.Status, sol.Diagnostic, obj, c.ref, c.tol)
			}
			if c.optimal {
				if sol.Status != solver.Optimal {
					t.Errorf("status %v (%s), want optimal", sol.Status, sol.Diagnostic)
				}
				return
			}
			// the first iteration at which the tail rule applies
			best, anchor, anchorIt := math.Inf(1), math.Inf(1), 0
			stop := -1
			for k, it := range trace {
				m := math.Max(math.Max(it.PrimalResidual, it.DualResidual), math.Min(it.Gap, it.RelativeGap))
				if m < best {
					best = m
					if m <= anchor/2 {
						anchor, anchorIt = m, k
					}
				}
				if k >= 5 && best <= 1e-5 && k-anchorIt >= 5 && !(it.Mu <= trace[k-5].Mu/2) && m <= 10*best {
					stop = k
					break
				}
			}
			if stop >= 0 && sol.Iterations > stop {
				t.Errorf("%d iterations; the merit and μ stalled at iteration %d (best merit %.2g)", sol.Iterations, stop, best)
			}
		})
	}
}

// TestSDPLIBHinf solves SDPLIB's hinf problems, whose dual has no strictly
// feasible point, and checks each answer against the published value to its
// printed digits (SDPLIB 1.2 README; half a unit of the last digit, the
// benchmark's rule). With their small PSD blocks kept in the KKT matrix (the
// rule before eliminatePSD; DisablePSDElimination) hinf1 ended at 2.032675
// and hinf3 at 56.9536, outside; hinf10 needs the revocation trial of
// adaptStaticReg as well (numerical error without it). The published values
// of hinf5, hinf6 and hinf13 are provably too high (BENCHMARKS.md) and are
// not checked.
func TestSDPLIBHinf(t *testing.T) {
	cases := []struct {
		name     string
		ref, tol float64
	}{
		{"hinf1", 2.0326, 0.5e-4},
		{"hinf2", 10.967, 0.5e-3},
		{"hinf3", 56.9, 0.05},
		{"hinf8", 116, 0.5},
		{"hinf10", 109, 0.5},
		{"hinf14", 13.0, 0.05},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sol, obj := solvePublic(t, "sdplib/"+c.name+".cbf.gz")
			t.Logf("status %v, %d iterations, objective %.10g (published %.10g)", sol.Status, sol.Iterations, obj, c.ref)
			if !sol.Status.OK() || math.Abs(obj-c.ref) > c.tol {
				t.Errorf("status %v (%s), objective %.10g, published %.10g (tolerance %.2g)", sol.Status, sol.Diagnostic, obj, c.ref, c.tol)
			}
			if sol.Status == solver.Optimal && !sol.Accuracy.Meets(1e-8) {
				t.Errorf("optimal, but the re-check says %v", sol.Accuracy)
			}
		})
	}
}
