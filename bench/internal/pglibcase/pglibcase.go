// Package pglibcase loads the PGLib cases of the LMP-bound benchmarks: the
// case file from the shared data directory, quadratic costs as 20 secant
// segments, the PowerModels DC model, and the loads times a scale given as
// a suffix "xS" of the name (e.g. "118_ieeex1.336": PGLib's nominal loads
// × 1.336, the published reference profile).
package pglibcase

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/privopt/privopt/grid"
)

// Load returns the network of the named case (e.g. "5_pjm", "118_ieeex1.336")
// from dir (the shared data directory).
func Load(dir, name string) (*grid.Network, error) {
	scale, base := 1.0, name
	if k := strings.LastIndex(name, "x"); k > 0 {
		if s, err := strconv.ParseFloat(name[k+1:], 64); err == nil {
			base, scale = name[:k], s
		}
	}
	c, err := grid.ReadCase(filepath.Join(dir, "pglib", "pglib_opf_case"+base+".m"))
	if err != nil {
		return nil, err
	}
	pw, _, err := c.PiecewiseCosts(20)
	if err != nil {
		return nil, err
	}
	net, err := grid.NewNetwork(pw, grid.PowerModelsDC())
	if err != nil {
		return nil, err
	}
	for i := range net.Load {
		net.Load[i] *= scale
	}
	return net, nil
}
