// Package arena cuts many short-lived arrays from one allocation.
//
// A solver's setup forms dozens of index and value arrays whose lengths are
// all known up front (the KKT pattern, the symbolic analysis, the cone
// vectors). Allocating them as slices of one buffer replaces dozens of heap
// allocations by one; each slice has its capacity cut at its length, so an
// append to one of them reallocates instead of writing into its neighbour.
//
// The buffers themselves can come from a Pool (Floats, Ints, Words), to which
// a solver releases them when its solve is over: a stream of small solves
// then reuses the same memory instead of allocating it anew each time and
// leaving it to the garbage collector.
package arena

// Cut returns the first k elements of *buf as a slice of length and
// capacity k and advances *buf past them. It panics when *buf holds fewer
// than k elements (the caller sized the buffer wrongly).
func Cut[T any](buf *[]T, k int) []T {
	v := (*buf)[:k:k]
	*buf = (*buf)[k:]
	return v
}
