package grid

import (
	_ "embed" // the bundled demo network
	"strings"
)

//go:embed cases/demo6.m
var demo6 string

// DemoCase returns demo6, a six-bus network bundled with the package for demos
// and examples (written for privopt, not taken from a benchmark library): four
// generators with linear costs 12, 20, 35 and 50 $/MWh, 360 MW of load on three
// buses, and a 1–4 corridor rated 80 MW that congests.
func DemoCase() *Case {
	c, err := ParseMATPOWER(strings.NewReader(demo6))
	if err != nil {
		panic("grid: bundled demo case does not parse: " + err.Error()) // a build defect, covered by tests
	}
	return c
}
