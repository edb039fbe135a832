package arena

import "testing"

// TestPoolReuse checks that Get returns zeroed slices of the asked length
// whatever the released buffer held, that a released buffer of the same
// class is handed out again (same backing array) when no collection ran in
// between, and that lengths and capacities outside the classes bypass the
// pool.
func TestPoolReuse(t *testing.T) {
	var p Pool[float64]
	a := p.Get(100)
	if len(a) != 100 || cap(a) != 128 {
		t.Fatalf("Get(100): len %d cap %d, want 100 and 128", len(a), cap(a))
	}
	for i := range a {
		a[i] = float64(i + 1)
	}
	p.Release(a)
	b := p.Get(120) // class 7 again
	if len(b) != 120 {
		t.Fatalf("Get(120): len %d", len(b))
	}
	for i, v := range b {
		if v != 0 {
			t.Fatalf("Get(120)[%d] = %v after a release, want 0", i, v)
		}
	}
	// sync.Pool may drop a buffer at any time (a collection), so reuse is
	// reported, not required
	if &b[0] != &a[0] {
		t.Logf("the released buffer was not reused (a collection ran)")
	}
	if c := p.Get(200); cap(c) != 256 {
		t.Errorf("Get(200): cap %d, want 256", cap(c))
	}
	small := p.Get(poolMin - 1)
	if len(small) != poolMin-1 || cap(small) != poolMin-1 {
		t.Errorf("Get(%d): len %d cap %d, want a plain allocation", poolMin-1, len(small), cap(small))
	}
	if big := p.Get(poolMax + 1); cap(big) != poolMax+1 {
		t.Errorf("Get(%d): cap %d, want an exact plain allocation", poolMax+1, cap(big))
	}
	p.Release(make([]float64, 100)) // capacity 100: not a class, dropped
	if d := p.Get(100); cap(d) != 128 {
		t.Errorf("after releasing a capacity-100 buffer Get(100) has cap %d, want 128", cap(d))
	}
	for _, k := range []int{64, 65, 128, 129, 1 << 20} {
		if c := class(k); 1<<c < k || (c > 0 && 1<<(c-1) >= k) {
			t.Errorf("class(%d) = %d", k, c)
		}
	}
}
