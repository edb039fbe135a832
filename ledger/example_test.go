package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/ledger"
)

// Check-and-spend before drawing noise: the third release of ε = 0.4 against
// a budget of ε = 1 is refused and names what is left.
func Example() {
	dir, _ := os.MkdirTemp("", "ledger")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(dir, "budget.db"), ledger.Options{Create: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()
	if err := l.Init(ctx, "grid", accounting.Budget{Epsilon: 1}); err != nil {
		fmt.Println(err)
		return
	}
	for i := 1; i <= 3; i++ {
		err := l.Spend(ctx, "grid", ledger.Entry{
			Query: fmt.Sprintf("daily cost %d", i), Mechanism: "laplace",
			Params: map[string]float64{"scale": 2.5}, Cost: accounting.Cost{Epsilon: 0.4},
			Sensitivity: "1 declared, not verified", Guarantee: "(0.4, 0)-DP assuming sensitivity 1 (declared, not verified)",
		})
		var be *ledger.BudgetError
		if errors.As(err, &be) {
			fmt.Printf("release %d refused: remaining ε %.1f\n", i, be.Remaining.Epsilon)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("release %d recorded; now draw the noise\n", i) // e.g. noise.Mechanism.Release
	}
	st, _ := l.Status(ctx, "grid")
	fmt.Printf("spent ε %.1f of %.0f in %d releases\n", st.Spent.Epsilon, st.Budget.Epsilon, len(st.Releases))
	// Output:
	// release 1 recorded; now draw the noise
	// release 2 recorded; now draw the noise
	// release 3 refused: remaining ε 0.2
	// spent ε 0.8 of 1 in 2 releases
}
