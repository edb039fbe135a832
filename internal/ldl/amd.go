package ldl

// amdOrder returns an approximate minimum degree ordering of the symmetric
// pattern whose upper triangle is (colPtr, rowIdx), and the number of dense rows.
// TEMPORARY: natural order until the quotient-graph implementation lands.
func amdOrder(n int, colPtr, rowIdx []int, denseFactor float64) ([]int, int) {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p, 0
}
