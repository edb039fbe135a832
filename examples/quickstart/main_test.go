package main

// The README's example, run as a test: the LP's optimum is x = (3, 1) with
// objective 3·3 + 2·1 = 11 (the vertex where x ≤ 3 and x + y ≤ 4 bind).
func Example_main() {
	main()
	// Output: optimal 11 [3 1]
}
