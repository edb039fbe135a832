package grid

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/privopt/privopt/internal/shareddata"
)

func ptdfTestNetwork(t *testing.T, name string) *Network {
	t.Helper()
	c, err := ReadCase(shareddata.Path(t, "pglib/"+name+".m"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, PowerModelsDC())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPTDFRows: the rows computed in parallel equal the columns of
// PTDFColumns (a different solve: injection at a bus) transposed.
func TestPTDFRows(t *testing.T) {
	n := ptdfTestNetwork(t, "pglib_opf_case118_ieee")
	buses := make([]int, n.NumBuses())
	for i := range buses {
		buses[i] = i
	}
	cols := n.PTDFColumns(buses)
	var mu sync.Mutex
	seen := 0
	var last int
	err := n.PTDFRows(context.Background(), nil, RowsOptions{Workers: 3, ProgressEvery: 50, Progress: func(d, total int) { last = d }},
		func(l int, row []float64) error {
			mu.Lock()
			defer mu.Unlock()
			seen++
			for i, v := range row {
				if math.Abs(v-cols[i][l]) > 1e-10 {
					t.Errorf("PTDF[%d, %d] = %v from the row, %v from the column", l, i, v, cols[i][l])
					return nil
				}
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if seen != n.NumBranches() || last != n.NumBranches() {
		t.Errorf("%d rows, last progress %d, want %d", seen, last, n.NumBranches())
	}
}

// TestPTDFRowsCancel: a cancelled context and an error from fn stop the workers.
func TestPTDFRowsCancel(t *testing.T) {
	n := ptdfTestNetwork(t, "pglib_opf_case118_ieee")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := n.PTDFRows(ctx, nil, RowsOptions{}, func(int, []float64) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	stop := errors.New("stop")
	if err := n.PTDFRows(context.Background(), nil, RowsOptions{Workers: 2}, func(l int, _ []float64) error {
		if l == 5 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Errorf("fn error: %v", err)
	}
}

// TestFlowRanges: random loads in the box give power flows inside the ranges,
// and the vertex chosen by the sign of each PTDF row attains the bound.
func TestFlowRanges(t *testing.T) {
	n := ptdfTestNetwork(t, "pglib_opf_case30_ieee")
	lo, hi := make([]float64, n.NumBuses()), make([]float64, n.NumBuses())
	for i, d := range n.Load {
		lo[i], hi[i] = 0.8*d, 1.2*d+1
	}
	pg := make([]float64, n.NumGens())
	for g := range pg {
		pg[g] = (n.Pmin[g] + n.Pmax[g]) / 2
	}
	flo, fhi, err := n.FlowRanges(context.Background(), pg, lo, hi, RowsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flow := func(d []float64) []float64 {
		m := *n
		m.Load = d
		_, f := m.PowerFlow(pg)
		return f
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		d := make([]float64, len(lo))
		for i := range d {
			d[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
		}
		for l, f := range flow(d) {
			if f < flo[l]-1e-9 || f > fhi[l]+1e-9 {
				t.Fatalf("trial %d: branch %d flow %v outside [%v, %v]", trial, l, f, flo[l], fhi[l])
			}
		}
	}
	rows := map[int][]float64{}
	var mu sync.Mutex
	_ = n.PTDFRows(context.Background(), nil, RowsOptions{}, func(l int, row []float64) error {
		mu.Lock()
		rows[l] = append([]float64(nil), row...)
		mu.Unlock()
		return nil
	})
	for l := 0; l < n.NumBranches(); l++ {
		d := make([]float64, len(lo))
		for i, v := range rows[l] {
			d[i] = lo[i] // the flow decreases in d_i when PTDF[l, i] > 0
			if v < 0 {
				d[i] = hi[i]
			}
		}
		if f := flow(d)[l]; math.Abs(f-fhi[l]) > 1e-8*math.Max(1, math.Abs(f)) {
			t.Errorf("branch %d: vertex flow %v, upper bound %v", l, f, fhi[l])
		}
	}
}
