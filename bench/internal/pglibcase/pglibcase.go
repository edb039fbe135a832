// Package pglibcase loads the PGLib cases of the LMP-bound benchmarks: the
// case file from the shared data directory, quadratic costs as 20 secant
// segments, the PowerModels DC model, and the loads times a scale given as
// a suffix "xS" of the name (e.g. "118_ieeex1.336": PGLib's nominal loads
// × 1.336, the published reference profile).
package pglibcase

import (
	"fmt"
	"os"
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

// Each calls fn for every case of the comma-separated list cases (Load from
// dir) and every domain half-width of the comma-separated list bands (the
// box ±band around the case's loads, grid.Network.LoadBand). A case that
// does not load is reported on stderr and skipped; a band that does not parse
// is an error, returned before any case is loaded.
func Each(dir, cases, bands string, fn func(name string, net *grid.Network, band float64, dom grid.LoadDomain)) error {
	var bs []float64
	for _, s := range strings.Split(bands, ",") {
		b, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("band %q: %w", s, err)
		}
		bs = append(bs, b)
	}
	for _, name := range strings.Split(cases, ",") {
		net, err := Load(dir, name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		for _, b := range bs {
			dom, _ := net.LoadBand(b)
			fn(name, net, b, dom)
		}
	}
	return nil
}
