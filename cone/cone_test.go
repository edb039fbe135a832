package cone

import "testing"

func TestValidateDimensions(t *testing.T) {
	ok := []Cone{NewZero(0), NewNonnegative(5), NewSecondOrder(1), NewRotatedSecondOrder(2), NewPSD(1), NewPSD(4), NewExponential(), NewPower(0.3)}
	for _, c := range ok {
		if err := c.Validate(); err != nil {
			t.Errorf("%v: %v", c, err)
		}
	}
	bad := []Cone{NewNonnegative(-1), NewSecondOrder(0), NewRotatedSecondOrder(1), {Kind: PSD, Dim: 5}, {Kind: PSD}, {Kind: Exponential, Dim: 2}, NewPower(0), NewPower(1), {Kind: Power, Dim: 4, Alpha: 0.5}, {Kind: Kind(42), Dim: 1}}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("%v: accepted", c)
		}
	}
}

func TestPSDOrder(t *testing.T) {
	for n := 0; n < 200; n++ {
		if got := PSDOrder(n * (n + 1) / 2); got != n {
			t.Errorf("PSDOrder(%d) = %d, want %d", n*(n+1)/2, got, n)
		}
	}
	for _, d := range []int{2, 4, 5, 7, 8, 9, -1} {
		if PSDOrder(d) != -1 {
			t.Errorf("PSDOrder(%d) accepted a non-triangular number", d)
		}
	}
}

func TestNamesAndTotal(t *testing.T) {
	if NewPower(0.25).String() != "power(3, α=0.25)" || NewSecondOrder(4).String() != "second-order(4)" {
		t.Error("String")
	}
	if Kind(99).String() != "Kind(99)" {
		t.Error("unknown kind name")
	}
	if TotalDim([]Cone{NewZero(2), NewPSD(3), NewExponential()}) != 11 {
		t.Error("TotalDim")
	}
	if !PSD.Symmetric() || Exponential.Symmetric() || Power.Symmetric() {
		t.Error("Symmetric")
	}
}
