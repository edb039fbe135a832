package grid

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/privopt/privopt/internal/shareddata"
)

func pglibNet(t testing.TB, name string, scale float64) *Network {
	t.Helper()
	dir, err := shareddata.Dir()
	if err != nil {
		t.Skipf("shared data absent (%v): the PGLib cases are needed", err)
	}
	c, err := ReadCase(filepath.Join(dir, "pglib", "pglib_opf_case"+name+".m"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err = c.PiecewiseCosts(20)
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewNetwork(c, DCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.Load {
		n.Load[i] *= scale
	}
	return n
}

func TestLMPBoundDev(t *testing.T) {
	name := os.Getenv("LMPCASE")
	if name == "" {
		t.Skip("dev")
	}
	n := pglibNet(t, name, 1)
	for _, band := range []float64{0.1, 0.3} {
		dom, _ := n.LoadBand(band)
		t0 := time.Now()
		c, err := n.CertifyLMPBound(context.Background(), dom, 1, DefaultMarketRules(), LMPBoundOptions{Progress: os.Stderr, TimeLimit: 60 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(t0)
		var extra [][]float64
		if c.LMP != nil && c.LMP.IncumbentLoad != nil {
			extra = append(extra, c.LMP.IncumbentLoad)
		}
		s, err := n.SearchLMPChange(context.Background(), dom, 1, DefaultMarketRules(), LMPSearchOptions{Extra: extra})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s ±%v: %s per_mw %.4g reason %q (%.1fs); found %.4g (lmp %.4g, %d evals) ratio %.3g", name, band, c.Method, c.PerMW, c.Reason, el.Seconds(), s.PerMW, s.LMP, s.Evaluations, c.PerMW/s.PerMW)
	}
}
