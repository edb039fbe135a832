// Package pgtest finds the PostgreSQL server that tests run against: the
// URL in the environment variable PRIVOPT_TEST_PG_URL, which `make test`
// (scripts/with-postgres.sh) sets after starting a throwaway local server.
//
// Without the variable a test skips with a message naming it — except when
// the variable CI is set (CI must run the PostgreSQL tests), where it fails.
package pgtest

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// EnvURL is the name of the environment variable holding the server's URL.
const EnvURL = "PRIVOPT_TEST_PG_URL"

// URL returns the test server's URL; without one it skips t (outside CI) or
// fails it (CI set).
func URL(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	msg := EnvURL + " is not set: no PostgreSQL server to test against (make test starts one: bash scripts/with-postgres.sh go test ./...)"
	if os.Getenv("CI") != "" {
		t.Fatal(msg + "; CI is set, so the PostgreSQL tests must run")
	}
	t.Skip(msg)
	return ""
}

// Name returns a fresh dataset name with the given prefix, unique across
// the processes that share the test server.
func Name(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), time.Now().UnixNano())
}
