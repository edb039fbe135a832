package cone_test

import (
	"fmt"
	"math"

	"github.com/privopt/privopt/cone"
)

// Project a point onto the second-order cone {(t, x) : t ≥ ‖x‖}, check membership,
// and use the dual cone.
func Example() {
	soc := cone.NewSecondOrder(3)
	s := []float64{0, 3, 4}
	p, err := soc.Project(nil, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := soc.Distance(s)
	fmt.Printf("projection %v, distance %.4f\n", p, d)
	fmt.Println("contains s:", soc.Contains(s, 1e-9), " contains p:", soc.Contains(p, 1e-9))

	// K*_exp in (x, y, z) order: (−1, 0, 1/e) is on its boundary.
	exp := cone.NewExponential()
	fmt.Println(exp.Dual(), exp.ContainsDual([]float64{-1, 0, 1 / math.E}, 1e-12))
	// Output:
	// projection [2.5 1.5 2], distance 3.5355
	// contains s: false  contains p: true
	// dual-exponential(3) true
}

// The PSD cone works in scaled svec coordinates: projecting [[0,1],[1,0]]
// (eigenvalues ±1) keeps the eigenvalue 1.
func ExampleCone_Project_psd() {
	psd := cone.NewPSD(2)
	s := []float64{0, math.Sqrt2, 0} // svec([[0,1],[1,0]])
	p, _ := psd.Project(nil, s)
	m, _ := cone.SMat(nil, p)
	fmt.Printf("%.2f %.2f\n%.2f %.2f\n", m.At(0, 0), m.At(0, 1), m.At(1, 0), m.At(1, 1))
	// Output:
	// 0.50 0.50
	// 0.50 0.50
}
