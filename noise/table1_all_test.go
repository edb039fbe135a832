package noise

import (
	"bufio"
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readPercentTable reads a tab-separated table of percentages (# comments; a
// header row "epsilon δ₁ δ₂ …"; rows "ε v₁ v₂ …").
func readPercentTable(t *testing.T, path string) (cells [][3]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var deltas []float64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		parts := strings.Split(line, "\t")
		vals := make([]float64, 0, len(parts))
		for _, p := range parts[1:] {
			v, err := strconv.ParseFloat(p, 64)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, p, err)
			}
			vals = append(vals, v)
		}
		if parts[0] == "epsilon" {
			deltas = vals
			continue
		}
		eps, err := strconv.ParseFloat(parts[0], 64)
		if err != nil || len(vals) != len(deltas) {
			t.Fatalf("%s: row %q: %v", path, line, err)
		}
		for j, v := range vals {
			cells = append(cells, [3]float64{eps, deltas[j], v})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cells
}

// TestTable1AllCells recomputes every cell of Table 1 of Selvi, Liu &
// Wiesemann with δ < ½ whose best benchmark B_UB (truncated Laplace or
// analytic Gaussian E|X|) is below 1: there O ≤ the optimum ≤ B_UB < 1, so
// max(O, 1) = 1 and the cell is 100·(B_UB − B_LB) without any LP. B_LB is
// the paper's variant of the Geng et al. bound (gengPaperL1). The other 41
// cells (small ε and δ, where O > 1) are TestTable1SmallEpsilon's, with O
// from the LP bounds. The cells at δ ≥ ½ evaluate the truncated Laplace
// outside its range δ < ½ and are not reproducible.
//
// Cells within ±0.6 points: all but those where the paper's B_LB uses a
// smaller term count n than ⌈n*⌉ (gengPaperL1's rule); for those the test
// checks that n = ⌈n*⌉ − 1 reproduces the paper's value instead.
func TestTable1AllCells(t *testing.T) {
	cells := readPercentTable(t, "testdata/dpdro_table1.tsv")
	matched, other, lp := 0, 0, 0
	for _, c := range cells {
		p := Params{Epsilon: c[0], Delta: c[1], Sensitivity: 1}
		if p.Delta >= 0.5 {
			continue
		}
		ub := bestBenchmarkL1(t, p)
		if ub >= 1 {
			lp++
			continue
		}
		got := 100 * (ub - gengPaperL1(p))
		if math.Abs(got-c[2]) <= 0.6 {
			matched++
			continue
		}
		// The smaller term count.
		n := int(math.Ceil(gengTermsReal(p))) - 1
		a := (p.Delta + math.Expm1(p.Epsilon)/2) * math.Exp(-p.Epsilon)
		alt := 100 * (ub - 2*a*gengMoment(p.Epsilon, n))
		t.Logf("(ε,δ) = (%g,%g): %.2f%% with n = ⌈n*⌉, %.2f%% with n − 1, paper %.2f%%", p.Epsilon, p.Delta, got, alt, c[2])
		if math.Abs(alt-c[2]) > 0.6 {
			t.Errorf("(ε,δ) = (%g,%g): %.2f%% (n = ⌈n*⌉) and %.2f%% (n − 1), paper %.2f%%", p.Epsilon, p.Delta, got, alt, c[2])
		}
		other++
	}
	t.Logf("%d cells within ±0.6 points, %d with the smaller n, %d need the LP's O", matched, other, lp)
	if matched+other+lp != 80 {
		t.Errorf("%d cells with δ < ½, want 80", matched+other+lp)
	}
}

// gengPaperTerms returns the paper's B_LB with n terms: 2aΔ·Σ_{k<n} k·b^k
// at the original a (see gengPaperL1, which takes n = ⌈n*⌉).
func gengPaperTerms(p Params, n int) float64 {
	a := (p.Delta + math.Expm1(p.Epsilon)/2) * math.Exp(-p.Epsilon)
	return 2 * a * gengMoment(p.Epsilon, n) * p.Sensitivity
}

// TestTable1SmallEpsilon recomputes the 41 cells of Table 1 of Selvi, Liu &
// Wiesemann with δ < ½ and B_UB ≥ 1 (ε ≤ ½), where the table divides by the
// optimal noise's E|X|, O > 1: 100·(B_UB − B_LB)/O. O comes from Optimize's
// certified bounds [LowerBound, UpperBound] (80 cells, the lower bound's event
// region from LowerSupportRule), and the test asserts that every value of
// 100·(B_UB − B_LB)/O with O anywhere in that interval is within ±0.6 points
// of the paper — a statement about the optimum itself, not about a midpoint.
// B_LB is the paper's Geng et al. value with n = ⌈n*⌉ terms; in the cells
// where the paper used n = ⌈n*⌉ − 1 (12 of the 41; TestTable1AllCells finds
// the same convention in some LP-free cells) that value is checked instead,
// and the cell is logged. The certified gaps are below 1% in every cell, and
// the valid Geng bound may not exceed the certified lower bound.
func TestTable1SmallEpsilon(t *testing.T) {
	if testing.Short() {
		t.Skip("41 optimal-noise solves (about 2 s of LPs); skipped with -short")
	}
	cells := readPercentTable(t, "testdata/dpdro_table1.tsv")
	ctx := context.Background()
	checked, smallerN := 0, 0
	for _, c := range cells {
		p := Params{Epsilon: c[0], Delta: c[1], Sensitivity: 1}
		if p.Delta >= 0.5 {
			continue
		}
		ub := bestBenchmarkL1(t, p)
		if ub < 1 {
			continue // TestTable1AllCells
		}
		r, err := Optimize(ctx, p, OptimalOptions{Symmetric: true, Intervals: 80})
		if err != nil {
			t.Fatalf("(ε,δ) = (%g,%g): %v", p.Epsilon, p.Delta, err)
		}
		if !r.Certificate.Certified {
			t.Fatalf("(ε,δ) = (%g,%g): density not certified", p.Epsilon, p.Delta)
		}
		if r.Gap >= 0.01 {
			t.Errorf("(ε,δ) = (%g,%g): certified gap %.3f%% ≥ 1%% (UB %.5f, LB %.5f)", p.Epsilon, p.Delta, 100*r.Gap, r.UpperBound, r.LowerBound)
		}
		if valid, _ := GengLowerBoundL1(p); valid > r.LowerBound*(1+1e-9) {
			t.Errorf("(ε,δ) = (%g,%g): Geng bound %.5f above the certified lower bound %.5f", p.Epsilon, p.Delta, valid, r.LowerBound)
		}
		// The cell as an interval over O ∈ [LB, UB] (O > 1 here).
		span := func(blb float64) (lo, hi float64) {
			return 100 * (ub - blb) / math.Max(r.UpperBound, 1), 100 * (ub - blb) / math.Max(r.LowerBound, 1)
		}
		within := func(lo, hi float64) bool { return lo >= c[2]-0.6 && hi <= c[2]+0.6 }
		n := int(math.Ceil(gengTermsReal(p)))
		lo, hi := span(gengPaperTerms(p, n))
		t.Logf("(ε,δ) = (%g,%g): O ∈ [%.5f, %.5f] (gap %.3f%%, k = %d, Λ = %d, Λ_L = %d) → [%.2f, %.2f]%%, paper %.2f%%", p.Epsilon, p.Delta, r.LowerBound, r.UpperBound, 100*r.Gap, r.Granularity, r.Support, r.LowerSupport, lo, hi, c[2])
		if !within(lo, hi) {
			lo1, hi1 := span(gengPaperTerms(p, n-1))
			t.Logf("(ε,δ) = (%g,%g): [%.2f, %.2f]%% with n = ⌈n*⌉ = %d, [%.2f, %.2f]%% with n − 1, paper %.2f%%", p.Epsilon, p.Delta, lo, hi, n, lo1, hi1, c[2])
			if !within(lo1, hi1) {
				t.Errorf("(ε,δ) = (%g,%g): [%.2f, %.2f]%% (n = %d) and [%.2f, %.2f]%% (n − 1), paper %.2f%% ±0.6", p.Epsilon, p.Delta, lo, hi, n, lo1, hi1, c[2])
			}
			smallerN++
		}
		checked++
	}
	t.Logf("%d cells with O > 1 checked (%d with the smaller n)", checked, smallerN)
	if checked != 41 {
		t.Errorf("checked %d cells, want 41", checked)
	}
}

// The lower bound's event region (LowerSupportRule): at (ε, δ) = (0.1, 0.05),
// k = 4, the paper's Λ_L = Λ = 8 leaves a 10.6% gap, the automatic
// Λ_L = ⌈2A⌉ + 1 = 16 a gap of 0.14% (same upper bound); a bound on a larger
// region is never smaller.
func TestLowerSupportRuleTightens(t *testing.T) {
	p := Params{Epsilon: 0.1, Delta: 0.05, Sensitivity: 1}
	lam := SupportRule(p)
	if got := LowerSupportRule(p); got != 16 || lam != 8 {
		t.Fatalf("Λ = %d, Λ_L = %d, want 8 and 16", lam, got)
	}
	paper := optimizeT(t, p, OptimalOptions{Symmetric: true, Granularity: 4, LowerSupportMultiple: lam})
	auto := optimizeT(t, p, OptimalOptions{Symmetric: true, Granularity: 4})
	mid := optimizeT(t, p, OptimalOptions{Symmetric: true, Granularity: 4, LowerSupportMultiple: 12})
	t.Logf("Λ_L = %d: LB %.5f (gap %.2f%%); 12: %.5f; %d: %.5f (gap %.2f%%); UB %.5f", lam, paper.LowerBound, 100*paper.Gap, mid.LowerBound, LowerSupportRule(p), auto.LowerBound, 100*auto.Gap, auto.UpperBound)
	if paper.Gap < 0.05 || auto.Gap > 0.005 {
		t.Errorf("gaps %.3f%% (Λ_L = Λ) and %.3f%% (automatic), want > 5%% and < 0.5%%", 100*paper.Gap, 100*auto.Gap)
	}
	if !(paper.LowerBound <= mid.LowerBound && mid.LowerBound <= auto.LowerBound) {
		t.Errorf("lower bounds not nondecreasing in Λ_L: %v, %v, %v", paper.LowerBound, mid.LowerBound, auto.LowerBound)
	}
}
