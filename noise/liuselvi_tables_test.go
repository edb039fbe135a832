package noise

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLiuSelviTables7And13 reproduces Tables 7 and 13 of Liu & Selvi
// ("Mixtures of Gaussians in approximate differential privacy", §2.4.1 and
// Appendix 2.C.3) exactly: every one of the 200 entries
// 100·(a − q)/a, with q the quasi-Gaussian mechanism's (Theorem 3,
// Algorithm 4) and a the analytic Gaussian mechanism's E|X| (Table 7) or
// E X² (Table 13) at Δ = 1, rounds to the paper's two decimals (within
// 0.005 plus 10⁻⁶ for the rounding of a value on a boundary). The values
// are typed from the paper in testdata/liu_selvi_tables_7_13.tsv, each row
// with its line in the seed text.
func TestLiuSelviTables7And13(t *testing.T) {
	f, err := os.Open("testdata/liu_selvi_tables_7_13.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	epss := []float64{0.1, 0.25, 0.5, 0.75, 1, 2, 3, 4, 5, 10}
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 13 {
			t.Fatalf("bad row %q", line)
		}
		delta, err := strconv.ParseFloat(fs[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		rows++
		for i, eps := range epss {
			want, err := strconv.ParseFloat(fs[3+i], 64)
			if err != nil {
				t.Fatal(err)
			}
			p := Params{Epsilon: eps, Delta: delta, Sensitivity: 1}
			q, err := QuasiGaussianMechanism(p)
			if err != nil {
				t.Fatal(err)
			}
			a, err := AnalyticGaussianMechanism(p)
			if err != nil {
				t.Fatal(err)
			}
			var got float64
			if fs[0] == "7" {
				got = 100 * (a.Dist.MeanAbs() - q.Dist.MeanAbs()) / a.Dist.MeanAbs()
			} else {
				got = 100 * (a.Dist.Variance() - q.Dist.Variance()) / a.Dist.Variance()
			}
			if math.Abs(got-want) > 0.005+1e-6 {
				t.Errorf("Table %s (seed line %s), (ε, δ) = (%g, %g): %.4f%%, paper %.2f%%", fs[0], fs[1], eps, delta, got, want)
			}
		}
	}
	if rows != 20 {
		t.Fatalf("%d table rows, want 20", rows)
	}
}
