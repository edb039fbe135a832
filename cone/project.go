package cone

import (
	"errors"
	"fmt"
	"math"
)

// ErrDimension is wrapped by the errors reporting a vector whose length does not
// match the cone's dimension.
var ErrDimension = errors.New("cone: dimension mismatch")

// ErrNotFinite is wrapped by the errors reporting a NaN or infinite coordinate.
var ErrNotFinite = errors.New("cone: coordinate is not finite")

// check validates c and s for the point-wise operations.
func (c Cone) check(s []float64) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if len(s) != c.Dim {
		return fmt.Errorf("%w: vector has length %d, %v needs %d", ErrDimension, len(s), c, c.Dim)
	}
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: s[%d] is %v", ErrNotFinite, i, v)
		}
	}
	return nil
}

// Contains reports whether s lies within Euclidean distance tol of the cone,
//
//	dist(s, K) = min_{p ∈ K} ‖s − p‖₂ ≤ tol.
//
// tol = 0 asks for exact membership (up to rounding in the distance). It reports
// false, rather than panicking, when the cone is invalid, len(s) ≠ c.Dim or s has a
// NaN or infinite entry.
func (c Cone) Contains(s []float64, tol float64) bool {
	d, err := c.Distance(s)
	return err == nil && d <= tol
}

// Distance returns the Euclidean distance dist(s, K) = ‖s − Π_K(s)‖₂, the
// violation measure behind Contains. Closed forms (no projection is formed):
//
//	Zero          ‖s‖₂            Free   0
//	Nonnegative   ‖min(s, 0)‖₂
//	SecondOrder   0 if ‖x‖ ≤ t;  ‖s‖ if ‖x‖ ≤ −t;  (‖x‖ − t)/√2 otherwise
//	Rotated SOC   the SecondOrder formula after the orthogonal map of RotatedToSOC
//	PSD           ‖min(λ(S), 0)‖₂ over the eigenvalues of S = smat(s)
//
// The exponential and power cones and their duals use the projection of Project.
func (c Cone) Distance(s []float64) (float64, error) {
	if err := c.check(s); err != nil {
		return 0, err
	}
	switch c.Kind {
	case Free:
		return 0, nil
	case Zero:
		return norm2(s), nil
	case Nonnegative:
		var ss float64
		for _, v := range s {
			if v < 0 {
				ss += v * v
			}
		}
		return math.Sqrt(ss), nil
	case SecondOrder:
		return socDistance(s[0], norm2(s[1:]), norm2(s)), nil
	case RotatedSecondOrder:
		t, r := (s[0]+s[1])/math.Sqrt2, (s[0]-s[1])/math.Sqrt2
		nx := math.Hypot(r, norm2(s[2:]))
		return socDistance(t, nx, math.Hypot(t, nx)), nil
	case PSD:
		vals, _, err := psdEigen(s, false)
		if err != nil {
			return 0, err
		}
		var ss float64
		for _, l := range vals {
			if l < 0 {
				ss += l * l
			}
		}
		return math.Sqrt(ss), nil
	}
	var p [3]float64
	if err := c.project3(p[:], s); err != nil {
		return 0, err
	}
	return math.Sqrt(sq(s[0]-p[0]) + sq(s[1]-p[1]) + sq(s[2]-p[2])), nil
}

// socDistance is dist((t, x), SOC) given nx = ‖x‖ and ns = ‖(t, x)‖.
func socDistance(t, nx, ns float64) float64 {
	switch {
	case nx <= t:
		return 0
	case nx <= -t:
		return ns
	}
	return (nx - t) / math.Sqrt2
}

// Project stores the Euclidean projection Π_K(s) = argmin_{p ∈ K} ‖p − s‖₂ in dst
// and returns it. dst is reused when len(dst) = c.Dim (it may be s itself),
// otherwise a new slice is allocated. Methods:
//
//	Zero 0;  Free s;  Nonnegative max(s, 0)
//	SecondOrder   s if ‖x‖ ≤ t;  0 if ‖x‖ ≤ −t;  ((t+‖x‖)/2)·(1, x/‖x‖) otherwise
//	              (Boyd & Vandenberghe, Convex Optimization, exercise 8.3(c))
//	Rotated SOC   R·Π_SOC(R·s) with the orthogonal, involutive map R of RotatedToSOC
//	PSD           V·max(Λ, 0)·Vᵀ from the eigendecomposition S = VΛVᵀ (gonum EigenSym)
//	Exponential   the Moreau decomposition s = a·(ρ, 1, e^ρ) + b·(1, 1−ρ, −e^{−ρ}),
//	              a, b > 0, reduced to one root of an increasing function of ρ solved
//	              by bisection to machine precision (H. A. Friberg, "Projection onto
//	              the exponential cone: a univariate root-finding problem",
//	              Optimization Methods & Software, 2021); closed forms in the cases
//	              s ∈ K, −s ∈ K*, and x ≤ 0, y ≤ 0
//	Power(α)      (φ₁(r), φ₂(r), sign(z)·r) with φ₁(r) = (x + √(x² + 4αr(|z|−r)))/2,
//	              φ₂(r) = (y + √(y² + 4(1−α)r(|z|−r)))/2 and r ∈ (0, |z|) the root of
//	              φ₁^α φ₂^(1−α) = r by bisection (L. T. K. Hien, "Differential
//	              properties of Euclidean projection onto power cone", Math. Methods
//	              Oper. Res. 82, 2015)
//	Dual cones    Moreau: Π_{K*}(s) = s + Π_K(−s), since (K*)° = −K
//
// It returns an error when the cone is invalid, len(s) ≠ c.Dim, or s has a NaN or
// infinite entry.
func (c Cone) Project(dst, s []float64) ([]float64, error) {
	if err := c.check(s); err != nil {
		return dst, err
	}
	if len(dst) != c.Dim {
		dst = make([]float64, c.Dim)
	}
	switch c.Kind {
	case Free:
		copy(dst, s)
	case Zero:
		for i := range dst {
			dst[i] = 0
		}
	case Nonnegative:
		for i, v := range s {
			dst[i] = math.Max(v, 0)
		}
	case SecondOrder:
		projectSOC(dst, s)
	case RotatedSecondOrder:
		copy(dst, s)
		RotatedToSOC(dst[:2], dst[:2])
		projectSOC(dst, dst)
		RotatedToSOC(dst[:2], dst[:2])
	case PSD:
		vals, vecs, err := psdEigen(s, true)
		if err != nil {
			return dst, err
		}
		n := len(vals)
		k := 0
		for j := 0; j < n; j++ {
			for i := j; i < n; i++ {
				var v float64
				for l, lam := range vals {
					if lam > 0 {
						v += lam * vecs.At(i, l) * vecs.At(j, l)
					}
				}
				if i != j {
					v *= math.Sqrt2
				}
				dst[k] = v
				k++
			}
		}
	default:
		if err := c.project3(dst, s); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// project3 projects onto the 3-dimensional non-symmetric cones.
func (c Cone) project3(dst, s []float64) error {
	v := [3]float64{s[0], s[1], s[2]}
	switch c.Kind {
	case Exponential:
		p, _ := projectExp(v)
		copy(dst, p[:])
	case Power:
		p, _ := projectPower(v, c.Alpha)
		copy(dst, p[:])
	case DualExponential:
		// Π_{K*}(v) = v + Π_K(−v) = Π_K(−v) − (−v), the residual of projecting −v.
		_, r := projectExp([3]float64{-v[0], -v[1], -v[2]})
		copy(dst, r[:])
	case DualPower:
		_, r := projectPower([3]float64{-v[0], -v[1], -v[2]}, c.Alpha)
		copy(dst, r[:])
	default:
		return fmt.Errorf("cone: no projection for kind %v", c.Kind)
	}
	return nil
}

// projectSOC projects s onto the second-order cone; dst may alias s.
func projectSOC(dst, s []float64) {
	t := s[0]
	nx := norm2(s[1:])
	switch {
	case nx <= t:
		copy(dst, s)
	case nx <= -t:
		for i := range dst {
			dst[i] = 0
		}
	default:
		a := (t + nx) / 2
		for i := 1; i < len(s); i++ {
			dst[i] = a * s[i] / nx
		}
		dst[0] = a
	}
}

// RotatedToSOC applies the orthogonal map R(u, v) = ((u+v)/√2, (u−v)/√2) to the
// first two coordinates of a rotated second-order cone block, storing the result
// in dst (which may alias src; both have length 2). R is symmetric and R·R = I, so
// the same call maps back. (u, v, x) ∈ RotatedSecondOrder exactly when
// (R(u, v), x) ∈ SecondOrder, because ((u+v)² − (u−v)²)/2 = 2uv and u + v ≥ 0.
func RotatedToSOC(dst, src []float64) {
	u, v := src[0], src[1]
	dst[0], dst[1] = (u+v)/math.Sqrt2, (u-v)/math.Sqrt2
}

// ProductContains reports whether s, split into consecutive blocks of the cones'
// dimensions, has every block within Euclidean distance tol of its cone. It is
// false when len(s) ≠ TotalDim(cones) or any block fails Contains.
func ProductContains(cones []Cone, s []float64, tol float64) bool {
	if len(s) != TotalDim(cones) {
		return false
	}
	off := 0
	for _, c := range cones {
		if !c.Contains(s[off:off+c.Dim], tol) {
			return false
		}
		off += c.Dim
	}
	return true
}

// ProductDistance returns dist(s, K₁ × … × K_p) = √(Σᵢ dist(sᵢ, Kᵢ)²) for the
// consecutive blocks sᵢ of s.
func ProductDistance(cones []Cone, s []float64) (float64, error) {
	if len(s) != TotalDim(cones) {
		return 0, fmt.Errorf("%w: vector has length %d, cones cover %d", ErrDimension, len(s), TotalDim(cones))
	}
	var ss float64
	off := 0
	for i, c := range cones {
		d, err := c.Distance(s[off : off+c.Dim])
		if err != nil {
			return 0, fmt.Errorf("cone %d (%v): %w", i, c, err)
		}
		ss += d * d
		off += c.Dim
	}
	return math.Sqrt(ss), nil
}

// ProjectProduct stores the projection of s onto K₁ × … × K_p (block by block) in
// dst and returns it; dst is reused when its length is TotalDim(cones) and may
// alias s.
func ProjectProduct(dst []float64, cones []Cone, s []float64) ([]float64, error) {
	m := TotalDim(cones)
	if len(s) != m {
		return dst, fmt.Errorf("%w: vector has length %d, cones cover %d", ErrDimension, len(s), m)
	}
	if len(dst) != m {
		dst = make([]float64, m)
	}
	off := 0
	for i, c := range cones {
		if _, err := c.Project(dst[off:off+c.Dim], s[off:off+c.Dim]); err != nil {
			return dst, fmt.Errorf("cone %d (%v): %w", i, c, err)
		}
		off += c.Dim
	}
	return dst, nil
}

// norm2 is the Euclidean norm, computed without overflow for large entries.
func norm2(x []float64) float64 {
	var scale, ssq float64 = 0, 1
	for _, v := range x {
		if v == 0 {
			continue
		}
		a := math.Abs(v)
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	return scale * math.Sqrt(ssq)
}

func sq(x float64) float64 { return x * x }
