package cone

import (
	"fmt"
	"math"
)

// Kind names a closed convex cone family.
type Kind int

// The cone kinds. The order of coordinates inside one cone block is fixed:
//
//	Zero                {0}^d                       (equality rows)
//	Nonnegative         {s : s ≥ 0}                 (inequality rows)
//	SecondOrder         {(t, x) : t ≥ ‖x‖₂}          d ≥ 1, t first
//	RotatedSecondOrder  {(u, v, x) : 2uv ≥ ‖x‖², u, v ≥ 0}   d ≥ 2
//	PSD                 {svec(S) : S ⪰ 0}           d = n(n+1)/2, scaled lower-triangular
//	                    column-major svec: S11, √2·S21, …, √2·Sn1, S22, √2·S32, …, Snn
//	Exponential         cl{(x, y, z) : y > 0, y·exp(x/y) ≤ z}   d = 3
//	Power(α)            {(x, y, z) : x^α · y^(1−α) ≥ |z|, x, y ≥ 0}, α ∈ (0,1), d = 3
//
// The svec scaling makes ⟨svec(A), svec(B)⟩ = tr(AB), so the PSD cone is self-dual
// in svec coordinates. The exponential and power cone conventions are Clarabel's
// and SCS's. The Conic Benchmark Format (CBF) and MOSEK write the same exponential
// cone in the reversed order, u0 ≥ u1·exp(u2/u1), so (x, y, z) = (u2, u1, u0); CBF's
// power cone with weights (a1, a2) is ours with α = a1/(a1+a2) in the same order.
//
// The last three kinds exist so that every cone has its dual cone as a Cone value
// (see Cone.Dual); they are the CBF cones F, EXP* and POW*:
//
//	Free                ℝ^d                         dual of Zero
//	DualExponential     cl{(u, v, w) : u < 0, −u·exp(v/u) ≤ e·w}   d = 3
//	DualPower(α)        {(u, v, w) : (u/α)^α · (v/(1−α))^(1−α) ≥ |w|, u, v ≥ 0}, d = 3
//
// Solver backends need not support them; check Solver.Supports.
const (
	Zero Kind = iota
	Nonnegative
	SecondOrder
	RotatedSecondOrder
	PSD
	Exponential
	Power
	Free
	DualExponential
	DualPower
)

var kindNames = [...]string{
	Zero:               "zero",
	Nonnegative:        "nonnegative",
	SecondOrder:        "second-order",
	RotatedSecondOrder: "rotated-second-order",
	PSD:                "psd",
	Exponential:        "exponential",
	Power:              "power",
	Free:               "free",
	DualExponential:    "dual-exponential",
	DualPower:          "dual-power",
}

// String returns the kind's lower-case name.
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Symmetric reports whether the kind is a symmetric (self-scaled) cone, for which
// Nesterov–Todd scaling exists.
func (k Kind) Symmetric() bool {
	return k == Zero || k == Nonnegative || k == SecondOrder || k == RotatedSecondOrder || k == PSD
}

// Cone is one block of a product cone: a kind, the number of coordinates it
// spans, and the power cone's parameter α (ignored for other kinds).
type Cone struct {
	Kind  Kind
	Dim   int     // number of coordinates (for PSD: n(n+1)/2)
	Alpha float64 // power cone exponent in (0, 1)
}

// NewZero returns the zero cone {0}^d.
func NewZero(d int) Cone { return Cone{Kind: Zero, Dim: d} }

// NewNonnegative returns the nonnegative orthant of dimension d.
func NewNonnegative(d int) Cone { return Cone{Kind: Nonnegative, Dim: d} }

// NewSecondOrder returns the second-order cone {(t,x) : t ≥ ‖x‖} of dimension d.
func NewSecondOrder(d int) Cone { return Cone{Kind: SecondOrder, Dim: d} }

// NewRotatedSecondOrder returns {(u,v,x) : 2uv ≥ ‖x‖², u,v ≥ 0} of dimension d.
func NewRotatedSecondOrder(d int) Cone { return Cone{Kind: RotatedSecondOrder, Dim: d} }

// NewPSD returns the cone of n×n positive semidefinite matrices in svec form
// (dimension n(n+1)/2).
func NewPSD(n int) Cone { return Cone{Kind: PSD, Dim: n * (n + 1) / 2} }

// NewExponential returns the exponential cone (dimension 3).
func NewExponential() Cone { return Cone{Kind: Exponential, Dim: 3} }

// NewPower returns the 3-dimensional power cone with exponent alpha.
func NewPower(alpha float64) Cone { return Cone{Kind: Power, Dim: 3, Alpha: alpha} }

// PSDOrder returns n such that Dim = n(n+1)/2, or -1 if Dim is not triangular.
func PSDOrder(dim int) int {
	if dim < 0 {
		return -1
	}
	n := int(math.Round((math.Sqrt(8*float64(dim)+1) - 1) / 2))
	if n*(n+1)/2 != dim {
		return -1
	}
	return n
}

// Validate reports whether the cone's dimension and parameter are admissible.
func (c Cone) Validate() error {
	switch c.Kind {
	case Zero, Nonnegative, Free:
		if c.Dim < 0 {
			return fmt.Errorf("cone: %v cone has dimension %d, must be ≥ 0", c.Kind, c.Dim)
		}
	case SecondOrder:
		if c.Dim < 1 {
			return fmt.Errorf("cone: second-order cone has dimension %d, must be ≥ 1", c.Dim)
		}
	case RotatedSecondOrder:
		if c.Dim < 2 {
			return fmt.Errorf("cone: rotated second-order cone has dimension %d, must be ≥ 2", c.Dim)
		}
	case PSD:
		if c.Dim < 1 || PSDOrder(c.Dim) < 0 {
			return fmt.Errorf("cone: PSD cone has dimension %d, must be n(n+1)/2 for some n ≥ 1", c.Dim)
		}
	case Exponential, DualExponential:
		if c.Dim != 3 {
			return fmt.Errorf("cone: %v cone has dimension %d, must be 3", c.Kind, c.Dim)
		}
	case Power, DualPower:
		if c.Dim != 3 {
			return fmt.Errorf("cone: %v cone has dimension %d, must be 3", c.Kind, c.Dim)
		}
		if !(c.Alpha > 0 && c.Alpha < 1) {
			return fmt.Errorf("cone: power cone exponent is %v, must be in (0, 1)", c.Alpha)
		}
	default:
		return fmt.Errorf("cone: unknown kind %v", c.Kind)
	}
	return nil
}

// String returns a short description such as "second-order(5)" or "power(3, α=0.3)".
func (c Cone) String() string {
	if c.Kind == Power || c.Kind == DualPower {
		return fmt.Sprintf("%v(%d, α=%g)", c.Kind, c.Dim, c.Alpha)
	}
	return fmt.Sprintf("%v(%d)", c.Kind, c.Dim)
}

// TotalDim returns the sum of the dimensions of cs.
func TotalDim(cs []Cone) int {
	n := 0
	for _, c := range cs {
		n += c.Dim
	}
	return n
}
