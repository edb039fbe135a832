package pglibcase_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/privopt/privopt/bench/internal/pglibcase"
)

// A case named with a scale suffix: the three-bus case of grid's tests,
// laid out as the shared data directory holds PGLib's cases, loaded with
// its 90 MW load at bus 3 doubled.
func Example() {
	dir, _ := os.MkdirTemp("", "pglibcase")
	defer os.RemoveAll(dir)
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "grid", "testdata", "case3_congested.m"))
	if err != nil {
		fmt.Println(err)
		return
	}
	os.MkdirAll(filepath.Join(dir, "pglib"), 0o755)
	os.WriteFile(filepath.Join(dir, "pglib", "pglib_opf_case3_congested.m"), src, 0o644)
	net, err := pglibcase.Load(dir, "3_congestedx2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(net.NumBuses(), net.Load)
	// Output: 3 [0 0 180]
}
