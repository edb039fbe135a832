package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/privopt/privopt/bench/internal/cvxoptjson"
)

// TestDumpExpFamilies writes the six instances of BenchmarkExpFamilies (exp
// and entropy at n = 20, 50, 200; seed 1, the first draw) as the text files
// the peer drivers read (cvxoptjson.WriteText, as runTextPeer does), into the
// directory named by SMALLCONIC_DUMP, so that a peer solves under callgrind
// exactly the instance the Go benchmark solves (BENCHMARKS.md "Small exp-cone
// solves against ECOS, round 12"). Skipped when SMALLCONIC_DUMP is unset.
func TestDumpExpFamilies(t *testing.T) {
	dir := os.Getenv("SMALLCONIC_DUMP")
	if dir == "" {
		t.Skip("SMALLCONIC_DUMP unset")
	}
	for _, f := range []string{"exp", "entropy"} {
		for _, n := range []int{20, 50, 200} {
			rng := rand.New(rand.NewPCG(1, 26))
			p, err := generate(rng, f, n)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s_%03d", f, n)
			if err := cvxoptjson.WriteText(filepath.Join(dir, name), name, p); err != nil {
				t.Fatal(err)
			}
		}
	}
}
