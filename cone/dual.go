package cone

// NewFree returns the free cone ℝ^d, the dual of the zero cone {0}^d.
func NewFree(d int) Cone { return Cone{Kind: Free, Dim: d} }

// NewDualExponential returns the dual exponential cone
//
//	K*_exp = cl{(u, v, w) : u < 0, −u·exp(v/u) ≤ e·w}
//	       = {(u, v, w) : u < 0, −u·exp(v/u) ≤ e·w} ∪ {(0, v, w) : v, w ≥ 0}
//
// in the coordinate order of the exponential cone of this package (CBF's EXP*).
func NewDualExponential() Cone { return Cone{Kind: DualExponential, Dim: 3} }

// NewDualPower returns the dual of the power cone with exponent alpha,
//
//	K*_α = {(u, v, w) : (u/α)^α · (v/(1−α))^(1−α) ≥ |w|, u, v ≥ 0}   (CBF's POW*).
func NewDualPower(alpha float64) Cone { return Cone{Kind: DualPower, Dim: 3, Alpha: alpha} }

// Dual returns the dual cone K* = {y : ⟨s, y⟩ ≥ 0 for all s ∈ K} as a Cone of the
// same dimension (and α). Nonnegative, second-order, rotated second-order and PSD
// (in scaled svec coordinates) are self-dual; Zero and Free are dual to each other;
// the exponential and power cones are dual to DualExponential and DualPower and
// back (K** = K for closed convex cones).
//
// Derivation for the exponential cone in this package's order
// K = cl{(x, y, z) : y > 0, y·exp(x/y) ≤ z}: the boundary rays are
// y·(ρ, 1, e^ρ), ρ ∈ ℝ, plus the face {(x, 0, z) : x ≤ 0, z ≥ 0}. For (u, v, w)
// with u < 0 and w > 0, min_ρ ⟨(ρ, 1, e^ρ), (u, v, w)⟩ = ρu + v + w·e^ρ is attained
// at e^ρ = −u/w and equals u·log(−u/w) + v − u, which is ≥ 0 exactly when
// −u·exp(v/u) ≤ e·w. (MOSEK's cookbook states the same cone in the reversed
// coordinate order x₁ ≥ x₂·exp(x₃/x₂).)
//
// Dual of the power cone: by weighted AM–GM, x^α y^(1−α) ≥ |z| and
// (u/α)^α (v/(1−α))^(1−α) ≥ |w| imply xu + yv ≥ (xu/α)^α (yv/(1−α))^(1−α) ≥ |zw|.
func (c Cone) Dual() Cone {
	switch c.Kind {
	case Zero:
		c.Kind = Free
	case Free:
		c.Kind = Zero
	case Exponential:
		c.Kind = DualExponential
	case DualExponential:
		c.Kind = Exponential
	case Power:
		c.Kind = DualPower
	case DualPower:
		c.Kind = Power
	}
	return c
}

// SelfDual reports whether K* = K for the kind (nonnegative, second-order,
// rotated second-order, PSD).
func (k Kind) SelfDual() bool {
	return k == Nonnegative || k == SecondOrder || k == RotatedSecondOrder || k == PSD
}

// ContainsDual reports whether y lies in the dual cone K* up to tol; it is
// c.Dual().Contains(y, tol). For a Zero cone K* is the whole space, so every
// finite y of the right length is contained.
func (c Cone) ContainsDual(y []float64, tol float64) bool {
	return c.Dual().Contains(y, tol)
}
