package pgstore_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/ledger/pgstore"
)

// Connecting a ledger to PostgreSQL; a malformed connection string fails
// before anything is written.
func Example() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, "postgres://user@host:notaport/db")
	if err != nil {
		fmt.Println("open failed:", errors.Unwrap(err) != nil)
		return
	}
	l := ledger.New(s) // then l.Init, l.Spend as with the SQLite store
	defer l.Close()
	// Output:
	// open failed: true
}
