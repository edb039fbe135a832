package grid

import (
	"context"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/privopt/privopt/lpdual"
)

// TestLMPClampAnatomy is a measurement (about half a CPU minute on the
// default case), run only on request (PRIVOPT_LMPCLAMP=1; the case and band
// as diagCase reads them, default 300_ieee ±10%): it certifies with a
// checkable proof and, at every tightening claim the producer's live check
// lowers by more than repairTol (relative), logs the claim, the bound its
// dual proves over the checker's copy of the relaxation, the LP optimum the
// claim came from (the claim less the producer's margin 10⁻⁶(1 + |v|)),
// the row part Σ max(yᵢ RowLoᵢ, yᵢ RowHiᵢ) of the safe bound and its
// largest column terms max(r_j Lo_j, r_j Hi_j) (r = c − Aᵀy, the dual's
// residual) by kind of column, with the boxes that multiply them. It asserts
// that the proof the producer returns checks.
func TestLMPClampAnatomy(t *testing.T) {
	if os.Getenv("PRIVOPT_LMPCLAMP") == "" {
		t.Skip("a measurement: set PRIVOPT_LMPCLAMP=1 to run it")
	}
	n, dom := diagCase(t)
	rules := DefaultMarketRules()
	shown := 0
	clampHook = func(r *replayer, what string, obj, y lpdual.Sparse, claim, proven float64) {
		rel := math.Abs(claim-proven) / (1 + math.Abs(proven))
		if rel <= repairTol || shown >= 8 {
			return
		}
		shown++
		kind := clampColumnKinds(r.k, r.lp.NumCols())
		v := math.Abs(claim) // the LP optimum, within the margin
		t.Logf("%s: claim %.10g, the dual proves %.10g (%.3g relative); LP optimum about %.10g ± %.3g",
			what, claim, proven, rel, claim, 1e-6*(1+v))
		lp := r.lp
		rows := 0.0
		s := make([]float64, lp.NumCols())
		for q, i := range y.Idx {
			yi := y.Val[q]
			b := lp.RowHi[i]
			if yi < 0 {
				b = lp.RowLo[i]
			}
			if yi == 0 || math.IsInf(b, 0) {
				continue
			}
			rows += yi * b
			for p := lp.RowPtr[i]; p < lp.RowPtr[i+1]; p++ {
				s[lp.Col[p]] += lp.Val[p] * yi
			}
		}
		c := make([]float64, lp.NumCols())
		for q, j := range obj.Idx {
			c[j] += obj.Val[q]
		}
		type term struct {
			j          int
			r, lo, hi  float64
			term       float64
			kind       string
			zeroResMag float64
		}
		var terms []term
		byKind := map[string]float64{}
		total := rows
		for j := range s {
			rj := c[j] - s[j]
			if rj == 0 {
				continue
			}
			tm := math.Max(rj*lp.Lo[j], rj*lp.Hi[j])
			total += tm
			byKind[kind[j]] += tm
			terms = append(terms, term{j: j, r: rj, lo: lp.Lo[j], hi: lp.Hi[j], term: tm, kind: kind[j]})
		}
		sort.Slice(terms, func(a, b int) bool { return math.Abs(terms[a].term) > math.Abs(terms[b].term) })
		t.Logf("  bound (max of the objective) = rows %.10g + columns %.10g = %.10g; by kind of column: %v", rows, total-rows, total, byKind)
		// The columns whose residual is tiny (|r| < 10⁻⁶: a solver's
		// rounding, not a reduced cost) and what they add.
		small, smallN := 0.0, 0
		for _, tm := range terms {
			if math.Abs(tm.r) < 1e-6 {
				small += tm.term
				smallN++
			}
		}
		t.Logf("  %d columns with |residual| < 1e-6 add %.6g in total", smallN, small)
		var x []float64
		if r.rec != nil && len(r.rec.x) <= lp.NumCols() {
			x = r.rec.x
		}
		for _, tm := range terms[:min(12, len(terms))] {
			xs := "?"
			if tm.j < len(x) {
				xs = strconv.FormatFloat(x[tm.j], 'g', 8, 64)
			}
			t.Logf("    column %d (%s): residual %.3g, box [%.6g, %.6g], term %.6g, the LP's x %s", tm.j, tm.kind, tm.r, tm.lo, tm.hi, tm.term, xs)
		}
		if x == nil {
			return
		}
		// Complementarity: the bound minus the objective at the LP's point
		// is Σ_j (max(r_j Lo_j, r_j Hi_j) − r_j x_j) + Σ_i (max(y_i RowLo_i,
		// y_i RowHi_i) − y_i a_i x), each term ≥ 0 at a point inside the
		// checker's boxes; a point outside them shows a program mismatch.
		obj0, colGap, rowGap, outside := 0.0, 0.0, 0.0, 0
		colGapKind := map[string]float64{}
		for j := range x {
			obj0 += c[j] * x[j]
			if x[j] < lp.Lo[j]-1e-6*(1+math.Abs(lp.Lo[j])) || x[j] > lp.Hi[j]+1e-6*(1+math.Abs(lp.Hi[j])) {
				outside++
				if outside <= 5 {
					t.Logf("    the LP's x_%d (%s) = %.10g outside the checker's box [%.10g, %.10g]", j, kind[j], x[j], lp.Lo[j], lp.Hi[j])
				}
			}
		}
		gaps := make([]float64, len(terms))
		for q, tm := range terms {
			g := tm.term - tm.r*x[tm.j]
			colGap += g
			colGapKind[tm.kind] += g
			gaps[q] = g
		}
		idx := make([]int, len(terms))
		for q := range idx {
			idx[q] = q
		}
		sort.Slice(idx, func(a, b int) bool { return gaps[idx[a]] > gaps[idx[b]] })
		for _, q := range idx[:min(5, len(idx))] {
			tm := terms[q]
			t.Logf("    gap of column %d (%s %s): %.6g = term %.6g − residual %.6g × the LP's x %.10g (box [%.6g, %.6g])", tm.j, tm.kind, clampBinaryName(r.k, tm.j), gaps[q], tm.term, tm.r, x[tm.j], tm.lo, tm.hi)
		}
		worstRow, worstGap := -1, 0.0
		for q, i := range y.Idx {
			yi := y.Val[q]
			b := lp.RowHi[i]
			if yi < 0 {
				b = lp.RowLo[i]
			}
			if yi == 0 || math.IsInf(b, 0) {
				continue
			}
			ax := 0.0
			for p := lp.RowPtr[i]; p < lp.RowPtr[i+1]; p++ {
				if lp.Col[p] < len(x) {
					ax += lp.Val[p] * x[lp.Col[p]]
				}
			}
			g := yi*b - yi*ax
			rowGap += g
			if math.Abs(g) > math.Abs(worstGap) {
				worstRow, worstGap = i, g
			}
		}
		t.Logf("  at the LP's point: objective %.10g; gaps: columns %.6g %v, rows %.6g (largest row %d: %.6g); %d columns outside the checker's boxes",
			obj0, colGap, colGapKind, rowGap, worstRow, worstGap, outside)
	}
	defer func() { clampHook = nil }()
	ev, reason, err := n.lmpBound(context.Background(), dom, rules, LMPBoundOptions{Checkable: true, Progress: os.Stderr})
	if err != nil || ev == nil {
		t.Fatalf("lmpBound: %v %s", err, reason)
	}
	if ev.Proof == nil {
		t.Fatalf("no proof: %s", ev.ProofNote)
	}
	chk, err := n.CheckLMPProof(context.Background(), dom, rules, ev.Proof)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the proof checks: %.6g $/MWh, %d LP bounds, %.2f s", chk.PerMW, chk.Steps, chk.Seconds)
}

// clampColumnKinds names the columns of a KKT relaxation by kind.
func clampColumnKinds(k *kktModel, ncol int) []string {
	kind := make([]string, ncol)
	for j := range kind {
		kind[j] = "other"
	}
	set := func(cols []int, name string) {
		for _, j := range cols {
			if j >= 0 && j < ncol {
				kind[j] = name
			}
		}
	}
	for j := 0; j < k.primalCols && j < ncol; j++ {
		kind[j] = "primal"
	}
	set(k.m.theta, "theta")
	set(k.pi, "pi")
	set(k.muUp, "mu")
	set(k.muLo, "mu")
	set(k.mcW, "mccormick")
	set(k.nu, "nu")
	set(k.segZ, "binary")
	set(k.segA, "binary")
	set(k.zUp, "binary")
	set(k.zLo, "binary")
	set(k.shedE, "binary")
	set(k.curtE, "binary")
	return kind
}

// clampBinaryName names a binary column of a KKT relaxation (its rule and
// segment, bus or branch index), or "".
func clampBinaryName(k *kktModel, j int) string {
	for _, g := range []struct {
		name string
		cols []int
	}{{"segment z", k.segZ}, {"segment a", k.segA}, {"branch z_up", k.zUp}, {"branch z_lo", k.zLo}, {"shedding e", k.shedE}, {"curtailment e", k.curtE}} {
		for i, c := range g.cols {
			if c == j {
				return g.name + " " + strconv.Itoa(i)
			}
		}
	}
	return ""
}
