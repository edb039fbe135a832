package pgtest_test

import (
	"fmt"
	"strings"

	"github.com/privopt/privopt/ledger/pgstore/pgtest"
)

// Dataset names for tests sharing one server are unique per process and call.
func ExampleName() {
	a, b := pgtest.Name("budget"), pgtest.Name("budget")
	fmt.Println(strings.HasPrefix(a, "budget-"), a != b, pgtest.EnvURL)
	// Output:
	// true true PRIVOPT_TEST_PG_URL
}
