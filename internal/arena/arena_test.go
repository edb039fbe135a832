package arena

import "testing"

// TestCutDisjoint checks that consecutive cuts cover the buffer in order
// without overlap and that a cut beyond the buffer panics.
func TestCutDisjoint(t *testing.T) {
	buf := make([]int, 10)
	for i := range buf {
		buf[i] = i
	}
	a, b := Cut(&buf, 4), Cut(&buf, 6)
	if a[0] != 0 || a[3] != 3 || b[0] != 4 || b[5] != 9 || cap(a) != 4 || cap(b) != 6 || len(buf) != 0 {
		t.Fatalf("cuts %v (cap %d), %v (cap %d), rest %v", a, cap(a), b, cap(b), buf)
	}
	defer func() {
		if recover() == nil {
			t.Error("a cut of 1 from an empty buffer did not panic")
		}
	}()
	Cut(&buf, 1)
}
