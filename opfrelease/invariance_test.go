package opfrelease

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/internal/invariance"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/noise"
	"github.com/privopt/privopt/query"
)

// The Go API obeys the adjacency relation the CLI sweep checks: for
// adjacent loads (one bus ±α inside the domain: corners, interior points,
// scaled references, zero-load buses) and the same seed, the Release's
// JSON is identical except released_value and estimate, the plan's JSON is
// not changed by releasing, the ledger's exported entries are identical
// except timestamps, and the released values differ by at most the
// certified sensitivity plus one grid step.
func TestGoAPIAdjacencyInvariance(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		noise string
		delta float64
		meth  chance.Method
	}{
		{"14_ieee", "laplace", 0, chance.Vertex},
		{"30_ieee", "analytic-gaussian", 1e-5, chance.Bonferroni},
	} {
		t.Run(c.name+" "+c.noise, func(t *testing.T) {
			net := loadNet(t, c.name)
			pub, loads, err := Split(net)
			if err != nil {
				t.Fatal(err)
			}
			ref := loads.Values()
			dom, _ := grid.ReferenceBand(ref, 0.3)
			for i, v := range ref {
				if v == 0 {
					dom.Hi[i] = 5
				}
			}
			opt := DefaultOptions()
			opt.Domain, opt.DomainSource = &dom, "test domain"
			opt.Mechanism, opt.Delta, opt.Method, opt.ChanceSeed = query.Mechanism(c.noise), c.delta, c.meth, 21
			plan, err := NewPlan(ctx, pub, opt)
			if err != nil {
				t.Fatal(err)
			}
			planBefore, _ := json.Marshal(plan)
			pairs := invariance.OPFPairs(net, dom, ref, 1, 12, rand.New(rand.NewPCG(5, 6)))
			var leds [2]*ledger.Ledger
			for s := range leds {
				if leds[s], err = ledger.Open(ctx, filepath.Join(t.TempDir(), "l.db"), ledger.Options{Create: true}); err != nil {
					t.Fatal(err)
				}
				defer leds[s].Close()
				if err := leds[s].Init(ctx, "grid", accounting.Budget{Epsilon: 1e6, Delta: 0.5}); err != nil {
					t.Fatal(err)
				}
			}
			worst := 0.0
			for k, p := range pairs {
				var js [2][]byte
				var rel [2]float64
				for s, d := range [][]float64{p.A, p.B} {
					l, err := NewLoads(pub, d)
					if err != nil {
						t.Fatal(err)
					}
					r, err := plan.Release(ctx, l, ReleaseOptions{Label: "h", Source: noise.NewSeededSource(uint64(40 + k)), Ledger: leds[s], Dataset: "grid"})
					if err != nil {
						t.Fatalf("pair %d side %d refused: %v", k, s, err)
					}
					js[s], _ = json.Marshal(r)
					rel[s] = r.ReleasedValue
				}
				diff, err := invariance.DiffJSON(js[0], js[1], "released_value", "estimate")
				if err != nil {
					t.Fatal(err)
				}
				if len(diff) > 0 {
					t.Errorf("pair %d (%s): the releases differ beyond the values at %v", k, p.Where, diff)
				}
				r := math.Abs(rel[0]-rel[1]) / (plan.Sensitivity + plan.ReleaseGrid)
				worst = math.Max(worst, r)
				if r > 1 {
					t.Errorf("pair %d (%s): |Δ released| = %v > sensitivity %v + grid %v", k, p.Where, math.Abs(rel[0]-rel[1]), plan.Sensitivity, plan.ReleaseGrid)
				}
			}
			if after, _ := json.Marshal(plan); !bytes.Equal(after, planBefore) {
				t.Error("releasing changed the plan's public JSON")
			}
			var ex [2][]byte
			for s := range leds {
				var b bytes.Buffer
				if err := leds[s].Export(ctx, &b); err != nil {
					t.Fatal(err)
				}
				ex[s] = b.Bytes()
			}
			diff, err := invariance.DiffJSON(ex[0], ex[1], "time", "hash", "created")
			if err != nil {
				t.Fatal(err)
			}
			if len(diff) > 0 {
				t.Errorf("ledger exports differ at %v", diff)
			}
			if n := bytes.Count(ex[0], []byte(`"label": "h"`)); n != len(pairs) {
				t.Errorf("the ledger holds %d labelled entries, want %d", n, len(pairs))
			}
			if !(worst > 0) {
				t.Error("no released value moved: the relation cannot tell anything")
			}
			t.Logf("%d pairs, max |Δ released|/(sensitivity + grid) %.3f", len(pairs), worst)
		})
	}
}
