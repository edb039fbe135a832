package ledger

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/privopt/privopt/accounting"
)

// TestMemoryStoreConcurrent: 8 goroutines spend ε = 1/64 against ε = 1 on
// the in-memory store: exactly 64 admitted, the chain verifies.
func TestMemoryStoreConcurrent(t *testing.T) {
	ctx := context.Background()
	l := New(NewMemoryStore())
	must(t, l.Init(ctx, "d", accounting.Budget{Epsilon: 1}))
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				err := l.Spend(ctx, "d", entry("q", 1.0/64, 0))
				if errors.Is(err, ErrBudgetExceeded) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st, err := l.Status(ctx, "d")
	if err != nil || n != 64 || len(st.Releases) != 64 || st.Spent.Epsilon != 1 {
		t.Fatalf("%v: admitted %d, logged %d, spent %v", err, n, len(st.Releases), st.Spent.Epsilon)
	}
}
