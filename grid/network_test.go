package grid

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/internal/shareddata"
)

// TestPowerFlowLoop checks the hand solution of testdata/case3_loop.m: 90 MW from
// bus 1 to bus 3 splits 2:1 between the direct path (x = 0.1) and 1–2–3 (x = 0.2).
func TestPowerFlowLoop(t *testing.T) {
	c, err := ReadCase("testdata/case3_loop.m")
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theta, flow := n.PowerFlow([]float64{90})
	want := []float64{30, 60, 30}
	for l := range want {
		if !near(flow[l], want[l], 1e-12) {
			t.Errorf("flow %d = %v, want %v", l, flow[l], want[l])
		}
	}
	// θ3 = −f13·x/base = −0.06 rad.
	if !near(theta[2], -0.06, 1e-12) || theta[0] != 0 {
		t.Errorf("theta = %v", theta)
	}
	// r-aware susceptance scales every branch equally here: same flows.
	nr, _ := NewNetwork(c, DCOptions{Susceptance: SusceptanceRX})
	_, fr := nr.PowerFlow([]float64{90})
	if !near(fr[1], 60, 1e-12) {
		t.Errorf("r-aware flow %v", fr)
	}
}

// TestPhaseShifterLoop: a shift φ on one branch of a loop of three equal branches
// with no injections drives the circulating flow f = −Bφ/3 (the angle drops around
// the loop sum to zero: 3f/B + φ = 0).
func TestPhaseShifterLoop(t *testing.T) {
	c, err := ReadCase("testdata/case3_loop.m")
	if err != nil {
		t.Fatal(err)
	}
	c.Buses[2].Pd = 0
	c.Branches[0].Angle = 6 // degrees, on branch 1→2
	// Orient the loop 1→2→3→1: branch 2 is 1→3, flow on 3→1 is its negative.
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, flow := n.PowerFlow([]float64{0})
	B := 100 / 0.1
	f := -B * (6 * math.Pi / 180) / 3
	want := []float64{f, -f, f}
	for l := range want {
		if !near(flow[l], want[l], 1e-12) {
			t.Errorf("flow %d = %v, want %v", l, flow[l], want[l])
		}
	}
}

// TestPTDFAgainstDenseInverse compares PTDF columns and PTDFᵀμ (sparse LDLᵀ with
// approximate minimum-degree ordering) with a dense inverse of the reduced Bbus computed by
// gonum, on cases with taps, shifts and a negative-reactance branch (300_ieee).
func TestPTDFAgainstDenseInverse(t *testing.T) {
	for _, name := range []string{"pglib_opf_case14_ieee", "pglib_opf_case89_pegase", "pglib_opf_case300_ieee"} {
		c, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := NewNetwork(c, DCOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nb, m := n.NumBuses(), n.NumBranches()
		ref := n.RefBus[0]
		red := make([]int, 0, nb-1)
		for i := 0; i < nb; i++ {
			if i != ref {
				red = append(red, i)
			}
		}
		bd := n.Bbus.Dense()
		Br := mat.NewDense(nb-1, nb-1, nil)
		for a, i := range red {
			for b, j := range red {
				Br.Set(a, b, bd[i][j])
			}
		}
		var inv mat.Dense
		if err := inv.Inverse(Br); err != nil {
			t.Fatal(err)
		}
		bf := n.Bf.Dense()
		all := make([]int, nb)
		for i := range all {
			all[i] = i
		}
		cols := n.PTDFColumns(all)
		var worst float64
		for b, j := range red {
			for l := 0; l < m; l++ {
				var want float64
				for a, i := range red {
					want += bf[l][i] * inv.At(a, b)
				}
				worst = math.Max(worst, math.Abs(cols[j][l]-want))
			}
		}
		for l := 0; l < m; l++ {
			if cols[ref][l] != 0 {
				t.Fatalf("%s: reference column not zero", name)
			}
		}
		if worst > 1e-9 {
			t.Errorf("%s: PTDF max abs error %.3g", name, worst)
		}
		mu := make([]float64, m)
		for l := range mu {
			mu[l] = math.Sin(float64(l) + 1)
		}
		got := n.PTDFTransMul(mu)
		for i := 0; i < nb; i++ {
			var want float64
			for l := 0; l < m; l++ {
				want += cols[i][l] * mu[l]
			}
			if math.Abs(got[i]-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: PTDFᵀμ[%d] = %v, want %v", name, i, got[i], want)
				break
			}
		}
	}
}

// TestSingularSusceptance makes bus 3 of testdata/case3_loop.m hang on two
// parallel branches with x = 0.2 and x = −0.2, whose susceptances cancel: the
// network is connected but the reduced Bbus is singular (row and column of bus 3
// are zero), which NewNetwork must report as a data error naming bus 3.
func TestSingularSusceptance(t *testing.T) {
	c, err := ReadCase("testdata/case3_loop.m")
	if err != nil {
		t.Fatal(err)
	}
	c.Branches[1].InService = false // 1–3
	c.Branches[2].X = 0.2           // 2–3
	neg := c.Branches[2]
	neg.X = -0.2
	c.Branches = append(c.Branches, neg)
	_, err = NewNetwork(c, DCOptions{})
	var fe *FormatError
	if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FormatError", err)
	}
	if fe.Matrix != "bus" || fe.Row != 3 || !strings.Contains(err.Error(), "zero pivot at bus 3") {
		t.Errorf("err = %v (matrix %q row %d), want bus row 3", err, fe.Matrix, fe.Row)
	}
}

// TestConcurrentSolves computes PTDF columns and power flows of 300_ieee from
// several goroutines at once (the factorization's workspace must not be shared)
// and checks that every result equals the sequential one bit for bit.
func TestConcurrentSolves(t *testing.T) {
	c, err := ReadCase(shareddata.Path(t, "pglib/pglib_opf_case300_ieee.m"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, n.NumBuses())
	for i := range all {
		all[i] = i
	}
	want := n.PTDFColumns(all)
	pg := make([]float64, n.NumGens())
	for g := range pg {
		pg[g] = n.Pmax[g] / 2
	}
	_, wantFlow := n.PowerFlow(pg)
	const workers = 4
	got := make([][][]float64, workers)
	gotFlow := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w] = n.PTDFColumns(all)
			_, gotFlow[w] = n.PowerFlow(pg)
		}()
	}
	wg.Wait()
	for w := 0; w < workers; w++ {
		for i := range want {
			for l := range want[i] {
				if got[w][i][l] != want[i][l] {
					t.Fatalf("worker %d: PTDF[%d][%d] = %v, want %v", w, l, i, got[w][i][l], want[i][l])
				}
			}
		}
		for l := range wantFlow {
			if gotFlow[w][l] != wantFlow[l] {
				t.Fatalf("worker %d: flow %d = %v, want %v", w, l, gotFlow[w][l], wantFlow[l])
			}
		}
	}
}

func BenchmarkNetwork(b *testing.B) {
	for _, name := range []string{"pglib_opf_case300_ieee", "pglib_opf_case2383wp_k"} {
		c, err := ReadCase(shareddata.Path(b, "pglib/"+name+".m"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := NewNetwork(c, DCOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSolves times the solves with the factored reduced Bbus: PTDF columns of
// every bus (one solve per column) over network sizes.
func BenchmarkSolves(b *testing.B) {
	for _, name := range []string{"pglib_opf_case300_ieee", "pglib_opf_case2383wp_k"} {
		c, err := ReadCase(shareddata.Path(b, "pglib/"+name+".m"))
		if err != nil {
			b.Fatal(err)
		}
		n, err := NewNetwork(c, DCOptions{})
		if err != nil {
			b.Fatal(err)
		}
		all := make([]int, n.NumBuses())
		for i := range all {
			all[i] = i
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				n.PTDFColumns(all)
			}
		})
	}
}
