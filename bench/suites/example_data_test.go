package main

import (
	"math"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

func examplePSD() *solver.Problem {
	t := sparse.NewTriplets(3, 1, 3)
	t.Append(0, 0, -1)
	t.Append(1, 0, -math.Sqrt2)
	t.Append(2, 0, -1)
	return &solver.Problem{Q: []float64{1}, A: t.ToCSC(), B: []float64{-1, 0, -1}, Cones: []cone.Cone{cone.NewPSD(2)}}
}
