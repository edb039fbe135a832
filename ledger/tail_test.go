package ledger

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privopt/privopt/accounting"
)

// spy records the tail length every Append hands to prepare.
type spy struct {
	*MemoryStore
	maxTail int
}

func (s *spy) Append(ctx context.Context, ds string, prepare func(Dataset, []Entry) ([]Entry, error)) error {
	return s.MemoryStore.Append(ctx, ds, func(d Dataset, tail []Entry) ([]Entry, error) {
		s.maxTail = max(s.maxTail, len(tail))
		return prepare(d, tail)
	})
}

// A spend sees at most TailLen entries however long the log (O(1)), the
// running totals it continues from agree with a full replay, and an entry
// edited deep in the log is caught by Status (the full audit).
func TestSpendReadsOnlyTheTail(t *testing.T) {
	ctx := context.Background()
	s := &spy{MemoryStore: NewMemoryStore()}
	l := New(s)
	must(t, l.Init(ctx, "d", accounting.Budget{Epsilon: 1000}))
	for i := 0; i < 500; i++ {
		must(t, l.Spend(ctx, "d", entry("q", 0.1, 0)))
	}
	if s.maxTail != TailLen {
		t.Fatalf("prepare saw %d entries, want at most %d", s.maxTail, TailLen)
	}
	b, err := l.Budget(ctx, "d")
	must(t, err)
	st, err := l.Status(ctx, "d")
	must(t, err)
	if b.Spent != st.Spent || b.Count != 500 || b.Remaining != st.Remaining {
		t.Fatalf("budget %+v, status %+v", b, st)
	}
	s.logs["d"][100].Cost.Epsilon = 0 // edit entry 101
	if _, err := l.Status(ctx, "d"); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("edited entry 101: %v", err)
	}
	s.logs["d"][100].Cost.Epsilon = 0.1
	s.logs["d"][499].State = "1;0;0" // newest running totals reset: caught by the spend
	if err := l.Spend(ctx, "d", entry("q", 0.1, 0)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("spend on edited running totals: %v", err)
	}
}

// CurveOf derives the curves the RDP and Gaussian-DP filters need from
// what a release records.
func TestCurveOf(t *testing.T) {
	g := CurveOf(Entry{Mechanism: "analytic-gaussian", Params: map[string]float64{"sensitivity": 2, "noise_std": 8}})
	l := CurveOf(Entry{Mechanism: "laplace", Cost: accounting.Cost{Epsilon: 0.3}})
	own := &accounting.Curve{Kind: "gaussian", Value: 0.5}
	if g == nil || g.Kind != "gaussian" || g.Value != 0.25 || l == nil || l.Kind != "laplace" || l.Value != 0.3 ||
		CurveOf(Entry{Mechanism: "laplace", Curve: own}) != own || CurveOf(Entry{Mechanism: "optimal", Cost: accounting.Cost{Epsilon: 1}}) != nil {
		t.Fatalf("curves %+v %+v", g, l)
	}
	// Under rdp(alpha=8) with (ε 2, δ 1e-6): B = 2 − ln(1e6)/7; Gaussian
	// releases of μ = 0.25 cost 8·μ²/2 = 0.25 each.
	ctx := context.Background()
	led := New(NewMemoryStore())
	must(t, led.InitFilter(ctx, "r", accounting.Budget{Epsilon: 2, Delta: 1e-6}, "rdp(alpha=8)"))
	n := 0
	for ; n < 100; n++ {
		err := led.Spend(ctx, "r", Entry{Query: "q", Mechanism: "gaussian", Params: map[string]float64{"sensitivity": 2, "noise_std": 8}, Cost: accounting.Cost{Epsilon: 0.9, Delta: 1e-8}})
		if errors.Is(err, ErrBudgetExceeded) {
			break
		}
		must(t, err)
	}
	if want := int(math.Floor((2 - math.Log(1e6)/7) / 0.25)); n != want {
		t.Fatalf("rdp filter admitted %d, want %d", n, want)
	}
}
