package arena

import (
	"math/bits"
	"sync"
)

// Pool holds buffers released by one solve for the next, so that a stream of
// small solves does not allocate (and have the garbage collector reclaim) the
// same setup arrays again and again. A buffer is kept in the class of its
// capacity, a power of two; Get hands out a buffer of the class that fits,
// cleared, or allocates one of that class's capacity. Only lengths from
// poolMin to poolMax take part: the setup arrays of small problems, where the
// allocation is a noticeable share of the solve; larger buffers are exact
// plain allocations, left to the garbage collector (a pool would keep them
// alive between solves, and the rounding up would cost memory). The classes
// are sync.Pools: safe for concurrent use, and emptied by the garbage
// collector when unused. The zero Pool is ready to use.
type Pool[T any] struct {
	classes [bits.UintSize]sync.Pool // class c: *[]T of capacity 1<<c
	// boxes holds emptied *[]T headers for Release to reuse: a pointer
	// goes into a sync.Pool without an allocation, a fresh one would not
	boxes sync.Pool
}

// The pools of the solvers' setup arrays.
var (
	Floats Pool[float64]
	Ints   Pool[int]
	Words  Pool[uint64]
)

// poolMin and poolMax bound the lengths Get takes from a pool: below poolMin
// the pool's bookkeeping costs about as much as the allocation; above poolMax
// (512 kB of float64) the allocation is a negligible share of the solve that
// needs the buffer.
const (
	poolMin = 64
	poolMax = 1 << 16
)

// class is the capacity class of a buffer of length k ≥ 1: the smallest c
// with 1<<c ≥ k.
func class(k int) int { return bits.Len(uint(k - 1)) }

// Get returns a slice of length k whose elements are all zero (as
// make([]T, k)'s), taken from the buffers given to Release when one of its
// class is there; its capacity may be larger than k (at most twice).
func (p *Pool[T]) Get(k int) []T {
	if k < poolMin || k > poolMax {
		return make([]T, k)
	}
	c := class(k)
	if v, ok := p.classes[c].Get().(*[]T); ok {
		b := (*v)[:k]
		*v = nil
		p.boxes.Put(v)
		clear(b)
		return b
	}
	return make([]T, k, 1<<c)
}

// Release hands b to a later Get. The caller must not use b, nor any slice
// of it, afterwards. Buffers that Get did not take from a class (capacity not
// a power of two, or outside [poolMin, poolMax]) are left to the garbage
// collector.
func (p *Pool[T]) Release(b []T) {
	c := cap(b)
	if c < poolMin || c > poolMax || c&(c-1) != 0 {
		return
	}
	v, ok := p.boxes.Get().(*[]T)
	if !ok {
		v = new([]T)
	}
	*v = b[:c]
	p.classes[class(c)].Put(v)
}
