package lindecision

import "math"

// Affine is the affine function v ↦ Const + Σ_t Val[t]·v[Idx[t]] of the lifted
// decision vector v. Indices may repeat (values add up); an empty Idx means a
// constant.
type Affine struct {
	Const float64
	Idx   []int
	Val   []float64
}

// Eval returns the value of a at v.
func (a Affine) Eval(v []float64) float64 {
	s := a.Const
	for t, i := range a.Idx {
		s += a.Val[t] * v[i]
	}
	return s
}

// IsConstant reports whether a has no variable terms (every coefficient zero).
func (a Affine) IsConstant() bool {
	for _, c := range a.Val {
		if c != 0 {
			return false
		}
	}
	return true
}

// IsZero reports whether a is identically zero.
func (a Affine) IsZero() bool { return a.Const == 0 && a.IsConstant() }

func (a *Affine) reset() {
	a.Const = 0
	a.Idx = a.Idx[:0]
	a.Val = a.Val[:0]
}

func (a *Affine) add(i int, v float64) {
	if v == 0 {
		return
	}
	a.Idx = append(a.Idx, i)
	a.Val = append(a.Val, v)
}

// RandomAffine is the random-affine function
//
//	f(v; ζ) = F0(v) + Σ_j F[j](v)·ζ_j
//
// with coefficients F0, F[j] affine in the lifted decision vector v. It is the
// random slack of one constraint row of a lifted program.
type RandomAffine struct {
	F0 Affine
	F  []Affine // length k
}

// Eval returns f(v; ζ).
func (r *RandomAffine) Eval(v, zeta []float64) float64 {
	s := r.F0.Eval(v)
	for j := range r.F {
		if zeta[j] != 0 {
			s += r.F[j].Eval(v) * zeta[j]
		}
	}
	return s
}

// Coefficients evaluates the coefficients at v: f0 = F0(v) and f[j] = F[j](v),
// so that f(v; ζ) = f0 + fᵀζ. f is written to dst (allocated if nil).
func (r *RandomAffine) Coefficients(dst []float64, v []float64) (f0 float64, f []float64) {
	if dst == nil {
		dst = make([]float64, len(r.F))
	}
	for j := range r.F {
		dst[j] = r.F[j].Eval(v)
	}
	return r.F0.Eval(v), dst
}

// RandomSupport returns the components j whose coefficient F[j] is not
// identically zero: the only components that can move this row.
func (r *RandomAffine) RandomSupport(dst []int) []int {
	dst = dst[:0]
	for j := range r.F {
		if !r.F[j].IsZero() {
			dst = append(dst, j)
		}
	}
	return dst
}

// IsDeterministic reports whether no noise component enters the row.
func (r *RandomAffine) IsDeterministic() bool {
	for j := range r.F {
		if !r.F[j].IsZero() {
			return false
		}
	}
	return true
}

func (r *RandomAffine) reset(k int) {
	r.F0.reset()
	if cap(r.F) < k {
		r.F = make([]Affine, k)
	}
	r.F = r.F[:k]
	for j := range r.F {
		r.F[j].reset()
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
