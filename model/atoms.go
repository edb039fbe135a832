package model

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// The atoms, named after CVXPY's (Diamond and Boyd, "CVXPY: a
// Python-embedded modeling language for convex optimization", JMLR 2016).
// docs/ATOMS.md tabulates their curvature, sign, monotonicity and the cone of
// their canonicalization; the canonicalizations are the standard ones of the
// MOSEK Modeling Cookbook (2024), §§2–6, with the cone conventions of package
// cone: K_exp = cl{(x,y,z) : y·exp(x/y) ≤ z, y > 0}, K_pow(α) = {x^α·y^(1−α) ≥
// |z|, x, y ≥ 0}, rotated SOC 2uv ≥ ‖x‖².

// ---- shape, sign and monotonicity helpers ----

func shapeOf(k int) func(f *fnode) (int, int, error) {
	return func(f *fnode) (int, int, error) { return f.args[k].rows, f.args[k].cols, nil }
}

func shapeScalar(f *fnode) (int, int, error) { return 1, 1, nil }

func signNonneg(*fnode) Sign  { return Nonneg }
func signUnknown(*fnode) Sign { return UnknownSign }
func signOf(k int) func(f *fnode) Sign {
	return func(f *fnode) Sign { return f.args[k].sign }
}

func monoAll(m Monotonicity) func(*fnode, int) Monotonicity {
	return func(*fnode, int) Monotonicity { return m }
}

// elementwise applies g to every entry.
func elementwise(g func(float64) float64) func(f *fnode, a [][]float64) []float64 {
	return func(f *fnode, a [][]float64) []float64 {
		out := make([]float64, len(a[0]))
		for i, v := range a[0] {
			out[i] = g(v)
		}
		return out
	}
}

// fold reduces the entries of the single argument to one value.
func fold(init float64, g func(acc, v float64) float64) func(f *fnode, a [][]float64) []float64 {
	return func(f *fnode, a [][]float64) []float64 {
		acc := init
		for _, v := range a[0] {
			acc = g(acc, v)
		}
		return []float64{acc}
	}
}

// absBound adds t ≥ x and t ≥ −x (t broadcast when of length 1).
func (m *Model) absBound(name string, t, x Expr) {
	m.GreaterEq(name+"_pos", t, x)
	m.GreaterEq(name+"_neg", t, x.Neg())
}

// ---- Sum (affine) ----

var atomSum = &atomDef{
	name: "Sum", curv: Affine, shape: shapeScalar, sign: signOf(0), mono: monoAll(Increasing),
	eval:  fold(0, func(s, v float64) float64 { return s + v }),
	canon: func(m *Model, f *fnode, a []Expr) Expr { return a[0].Sum() },
}

// ---- Abs, Pos ----

var atomAbs = &atomDef{
	name: "Abs", curv: Convex, shape: shapeOf(0), sign: signNonneg, mono: monoAll(SignDependent),
	eval: elementwise(math.Abs),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("Abs", f.rows, f.cols)
		m.absBound(name, t.Expr(), a[0])
		return t.Expr()
	},
}

// Abs returns |x| elementwise: convex, ≥ 0, increasing for x ≥ 0 and
// decreasing for x ≤ 0. Canonicalization: t ≥ x, t ≥ −x (LP rows).
func Abs(x Arg) Fn { return applyAtom(atomAbs, nil, x) }

var atomPos = &atomDef{
	name: "Pos", curv: Convex, shape: shapeOf(0), sign: signNonneg, mono: monoAll(Increasing),
	eval: elementwise(func(v float64) float64 { return math.Max(v, 0) }),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("Pos", f.rows, f.cols)
		m.GreaterEq(name+"_x", t.Expr(), a[0])
		m.GreaterEq(name+"_0", t.Expr(), Const(0))
		return t.Expr()
	},
}

// Pos returns max(x, 0) elementwise: convex, ≥ 0, increasing. Canonicalization:
// t ≥ x, t ≥ 0.
func Pos(x Arg) Fn { return applyAtom(atomPos, nil, x) }

// ---- Maximum, Minimum (elementwise over arguments), Max, Min (over entries) ----

func shapeBroadcast(f *fnode) (int, int, error) {
	rows, cols, n := 1, 1, 1
	for k, a := range f.args {
		if a.n == 1 {
			continue
		}
		if n != 1 && a.n != n {
			return 0, 0, fmt.Errorf("argument %d has length %d, earlier ones %d (only length-1 arguments broadcast)", k+1, a.n, n)
		}
		rows, cols, n = a.rows, a.cols, a.n
	}
	if len(f.args) == 0 {
		return 0, 0, fmt.Errorf("needs at least one argument")
	}
	return rows, cols, nil
}

func evalExtreme(sign float64) func(f *fnode, a [][]float64) []float64 {
	return func(f *fnode, a [][]float64) []float64 {
		out := make([]float64, f.n)
		for i := range out {
			out[i] = math.Inf(-int(sign))
			for _, v := range a {
				out[i] = sign * math.Max(sign*out[i], sign*v[min(i, len(v)-1)])
			}
		}
		return out
	}
}

// extremeSign is the sign rule of an elementwise maximum (max) or minimum:
// one argument of the dominating sign decides, all arguments of the other
// sign give that sign.
func extremeSign(max bool) func(f *fnode) Sign {
	dom, other := Nonneg, Nonpos
	if !max {
		dom, other = Nonpos, Nonneg
	}
	return func(f *fnode) Sign {
		all := true
		for _, a := range f.args {
			if a.sign == dom {
				return dom
			}
			all = all && a.sign == other
		}
		if all {
			return other
		}
		return UnknownSign
	}
}

// extremeAtom returns the elementwise maximum of its arguments (max) or
// minimum, or, with entries set, the largest (smallest) entry of one
// argument: t ≥ each argument (convex) or t ≤ each (concave).
func extremeAtom(name string, max, entries bool) *atomDef {
	sign, curv := 1.0, Convex
	if !max {
		sign, curv = -1, Concave
	}
	d := &atomDef{name: name, curv: curv, shape: shapeBroadcast, sign: extremeSign(max), mono: monoAll(Increasing), eval: evalExtreme(sign)}
	if entries {
		d.shape, d.sign = shapeScalar, signOf(0)
		d.eval = fold(math.Inf(-int(sign)), func(v, x float64) float64 { return sign * math.Max(sign*v, sign*x) })
	}
	d.canon = func(m *Model, f *fnode, a []Expr) Expr {
		t, base := m.epigraph(name, f.rows, f.cols)
		for k, x := range a {
			if max {
				m.GreaterEq(fmt.Sprintf("%s_%d", base, k), t.Expr(), x)
			} else {
				m.LessEq(fmt.Sprintf("%s_%d", base, k), t.Expr(), x)
			}
		}
		return t.Expr()
	}
	return d
}

var (
	atomMaximum = extremeAtom("Maximum", true, false)
	atomMinimum = extremeAtom("Minimum", false, false)
	atomMax     = extremeAtom("Max", true, true)
	atomMin     = extremeAtom("Min", false, true)
)

// Maximum returns the elementwise maximum max(a₁, a₂, …) of its arguments
// (equal lengths, or length 1 broadcast): convex, increasing in every
// argument, ≥ 0 if one argument is. Canonicalization: t ≥ aₖ for every k.
func Maximum(args ...Arg) Fn { return applyAtom(atomMaximum, nil, args...) }

// Minimum returns the elementwise minimum of its arguments: concave,
// increasing. Canonicalization: t ≤ aₖ for every k.
func Minimum(args ...Arg) Fn { return applyAtom(atomMinimum, nil, args...) }

// Max returns the largest entry maxᵢ xᵢ (CVXPY's max): convex, increasing.
// Canonicalization: t ≥ xᵢ for every i.
func Max(x Arg) Fn { return applyAtom(atomMax, nil, x) }

// Min returns the smallest entry minᵢ xᵢ: concave, increasing.
// Canonicalization: t ≤ xᵢ for every i.
func Min(x Arg) Fn { return applyAtom(atomMin, nil, x) }

// ---- norms ----

var atomNorm1 = &atomDef{
	name: "Norm1", curv: Convex, shape: shapeScalar, sign: signNonneg, mono: monoAll(SignDependent),
	eval: fold(0, func(s, v float64) float64 { return s + math.Abs(v) }),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		s, name := m.epigraph("Norm1", a[0].Len(), 1)
		m.absBound(name, s.Expr(), a[0])
		return s.Expr().Sum()
	},
}

// Norm1 returns ‖x‖₁ = Σ|xᵢ|: convex, ≥ 0, increasing for x ≥ 0.
// Canonicalization: sᵢ ≥ ±xᵢ, value Σ sᵢ.
func Norm1(x Arg) Fn { return applyAtom(atomNorm1, nil, x) }

var atomNorm2 = &atomDef{
	name: "Norm2", curv: Convex, shape: shapeScalar, sign: signNonneg, mono: monoAll(SignDependent),
	eval: fold(0, math.Hypot),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("Norm2", 1, 1)
		m.NormLessEq(name, a[0], t.Expr())
		return t.Expr()
	},
}

// Norm2 returns the Euclidean norm ‖x‖₂ (of all entries; for a matrix, the
// Frobenius norm): convex, ≥ 0, increasing for x ≥ 0. Canonicalization: the
// second-order cone (t, x).
func Norm2(x Arg) Fn { return applyAtom(atomNorm2, nil, x) }

var atomNormInf = &atomDef{
	name: "NormInf", curv: Convex, shape: shapeScalar, sign: signNonneg, mono: monoAll(SignDependent),
	eval: fold(0, func(s, v float64) float64 { return math.Max(s, math.Abs(v)) }),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("NormInf", 1, 1)
		m.absBound(name, t.Expr(), a[0])
		return t.Expr()
	},
}

// NormInf returns ‖x‖∞ = maxᵢ|xᵢ|: convex, ≥ 0, increasing for x ≥ 0.
// Canonicalization: t ≥ ±xᵢ.
func NormInf(x Arg) Fn { return applyAtom(atomNormInf, nil, x) }

// ---- quadratic terms as atoms ----

var atomQuadratic = &atomDef{
	name: "SumSquares", curv: Convex, shape: shapeScalar, sign: signNonneg,
	mono: func(f *fnode, k int) Monotonicity {
		if f.data.(*Quadratic).kind == quadForm {
			return Nonmonotone
		}
		return SignDependent
	},
	eval: func(f *fnode, a [][]float64) []float64 {
		t := f.data.(*Quadratic)
		v, s := a[0], 0.0
		if t.kind == quadForm {
			for i := range v {
				for j := range v {
					s += v[i] * t.q.At(i, j) * v[j]
				}
			}
		} else {
			for _, x := range v {
				s += x * x
			}
		}
		return []float64{t.scale * s}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		q := f.data.(*Quadratic)
		x := a[0]
		if q.kind == quadForm && x.Len() > 0 {
			// Q = V Λ Vᵀ ⪰ 0, xᵀQx = ‖Λ^{1/2}Vᵀx‖².
			var eig mat.EigenSym
			eig.Factorize(q.q, true)
			var V mat.Dense
			eig.VectorsTo(&V)
			lam := eig.Values(nil)
			n := len(lam)
			L := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					L.Set(i, j, math.Sqrt(math.Max(lam[i], 0))*V.At(j, i))
				}
			}
			x = MulDense(L, x)
		}
		t, name := m.epigraph("SumSquares", 1, 1)
		m.RotatedCone(name, t.Expr().Scale(0.5), Const(1), x)
		return t.Expr().Scale(q.scale)
	},
}

func (t Quadratic) fnode() *fnode {
	q := t
	f := applyAtom(atomQuadratic, &q, t.e).f
	if t.kind == quadForm {
		f.text = "QuadForm(" + f.args[0].text + ")"
	}
	if t.scale != 1 {
		f.text = fmt.Sprintf("%g*%s", t.scale, f.text)
	}
	if f.err == nil {
		f.err = t.err
	}
	return f
}

var atomQuadOverLin = &atomDef{
	name: "QuadOverLin", curv: Convex, sign: signNonneg,
	shape: func(f *fnode) (int, int, error) {
		if f.args[1].n != 1 {
			return 0, 0, fmt.Errorf("y has length %d, must be 1", f.args[1].n)
		}
		return 1, 1, nil
	},
	mono: func(f *fnode, k int) Monotonicity {
		if k == 1 {
			return Decreasing
		}
		return SignDependent
	},
	eval: func(f *fnode, a [][]float64) []float64 {
		s := 0.0
		for _, v := range a[0] {
			s += v * v
		}
		return []float64{s / a[1][0]}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("QuadOverLin", 1, 1)
		m.RotatedCone(name, t.Expr().Scale(0.5), a[1], a[0])
		return t.Expr()
	},
}

// QuadOverLin returns ‖x‖₂²/y for a length-1 y > 0: convex, ≥ 0, increasing
// in x for x ≥ 0, decreasing in y. Canonicalization: the rotated cone
// 2·(t/2)·y ≥ ‖x‖².
func QuadOverLin(x, y Arg) Fn { return applyAtom(atomQuadOverLin, nil, x, y) }

var atomHuber = &atomDef{
	name: "Huber", curv: Convex, shape: shapeOf(0), sign: signNonneg, mono: monoAll(SignDependent),
	eval: func(f *fnode, a [][]float64) []float64 {
		M := f.data.(float64)
		return elementwise(func(v float64) float64 {
			if math.Abs(v) <= M {
				return v * v
			}
			return 2*M*math.Abs(v) - M*M
		})(f, a)
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		// huber(x) = min_s s² + 2M|x − s| (minimizer s = clip(x, ±M)).
		M := f.data.(float64)
		n := f.n
		name := m.auxName("Huber")
		s := m.Vector(name+"_s", n)
		w := m.Vector(name+"_w", n)
		v := m.Vector(name+"_v", n)
		d := a[0].Sub(s.Expr())
		m.GreaterEq(name+"_pos", v.Expr(), d)
		m.GreaterEq(name+"_neg", v.Expr(), d.Neg())
		for i := 0; i < n; i++ {
			m.RotatedCone(fmt.Sprintf("%s_sq%d", name, i), w.At(i).Scale(0.5), Const(1), s.At(i))
		}
		return w.Expr().AddScaled(2*M, v.Expr())
	},
}

// Huber returns the Huber function of x elementwise with threshold M > 0:
// x² for |x| ≤ M, 2M|x| − M² beyond (CVXPY's huber): convex, ≥ 0, increasing
// for x ≥ 0. Canonicalization: huber(x) = min_s s² + 2M|x − s|, with one
// rotated cone per entry for s² and LP rows for |x − s|.
func Huber(x Arg, M float64) Fn {
	f := applyAtom(atomHuber, M, x)
	if !(M > 0) || math.IsInf(M, 0) {
		f.f.err = errf(ErrInvalidArgument, "Huber: M is %v, must be finite and > 0", M)
	}
	return f
}

// ---- exponential-cone atoms ----

var atomLogSumExp = &atomDef{
	name: "LogSumExp", curv: Convex, shape: shapeScalar, sign: signUnknown, mono: monoAll(Increasing),
	eval: func(f *fnode, a [][]float64) []float64 {
		mx := math.Inf(-1)
		for _, v := range a[0] {
			mx = math.Max(mx, v)
		}
		s := 0.0
		for _, v := range a[0] {
			s += math.Exp(v - mx)
		}
		return []float64{mx + math.Log(s)}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("LogSumExp", 1, 1)
		u := m.Vector(name+"_u", a[0].Len())
		m.LessEq(name+"_sum", u.Expr().Sum(), Const(1))
		m.ExpCone(name+"_exp", a[0].Sub(t.Expr()), Const(1), u.Expr())
		return t.Expr()
	},
}

// LogSumExp returns log Σᵢ exp(xᵢ): convex, increasing. Canonicalization:
// Σ uᵢ ≤ 1, (xᵢ − t, 1, uᵢ) ∈ K_exp.
func LogSumExp(x Arg) Fn { return applyAtom(atomLogSumExp, nil, x) }

var atomExp = &atomDef{
	name: "Exp", curv: Convex, shape: shapeOf(0), sign: signNonneg, mono: monoAll(Increasing),
	eval: elementwise(math.Exp),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("Exp", f.rows, f.cols)
		m.ExpCone(name, a[0], Const(1), t.Expr())
		return t.Expr()
	},
}

// Exp returns exp(x) elementwise: convex, ≥ 0, increasing. Canonicalization:
// (x, 1, t) ∈ K_exp.
func Exp(x Arg) Fn { return applyAtom(atomExp, nil, x) }

var atomLog = &atomDef{
	name: "Log", curv: Concave, shape: shapeOf(0), sign: signUnknown, mono: monoAll(Increasing),
	eval: elementwise(func(v float64) float64 {
		if v < 0 {
			return math.Inf(-1)
		}
		return math.Log(v)
	}),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("Log", f.rows, f.cols)
		m.ExpCone(name, t.Expr(), Const(1), a[0])
		return t.Expr()
	},
}

// Log returns log(x) elementwise (domain x > 0): concave, increasing.
// Canonicalization: (t, 1, x) ∈ K_exp.
func Log(x Arg) Fn { return applyAtom(atomLog, nil, x) }

var atomEntr = &atomDef{
	name: "Entr", curv: Concave, shape: shapeOf(0), sign: signUnknown, mono: monoAll(Nonmonotone),
	eval: elementwise(func(v float64) float64 {
		switch {
		case v == 0:
			return 0
		case v < 0:
			return math.Inf(-1)
		}
		return -v * math.Log(v)
	}),
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		t, name := m.epigraph("Entr", f.rows, f.cols)
		m.ExpCone(name, t.Expr(), a[0], Const(1))
		return t.Expr()
	},
}

// Entr returns the entropy −x·log x elementwise (domain x ≥ 0, 0 at 0):
// concave, nonmonotone. Canonicalization: (t, x, 1) ∈ K_exp.
func Entr(x Arg) Fn { return applyAtom(atomEntr, nil, x) }

// ---- power cone: GeoMean ----

var atomGeoMean = &atomDef{
	name: "GeoMean", curv: Concave, shape: shapeScalar, sign: signNonneg, mono: monoAll(Increasing),
	eval: func(f *fnode, a [][]float64) []float64 {
		w := f.data.([]float64)
		s := 0.0
		for i, v := range a[0] {
			if v < 0 {
				return []float64{math.Inf(-1)}
			}
			s += w[i] * math.Log(v)
		}
		return []float64{math.Exp(s)}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		// t ≤ Πxᵢ^wᵢ as a chain of 3-dimensional power cones:
		// |z₀| ≤ x₀^α₀ y₀^(1−α₀), |y₀| ≤ x₁^α₁ y₁^(1−α₁), …, with
		// αₖ = wₖ/(wₖ + … + w_{n−1}) and the last y the last x.
		w := f.data.([]float64)
		x := a[0]
		n := x.Len()
		if n == 1 {
			return x
		}
		t, name := m.epigraph("GeoMean", 1, 1)
		z := t.Expr()
		rest := 1.0
		for k := 0; k < n-1; k++ {
			alpha := w[k] / rest
			rest -= w[k]
			var y Expr
			if k == n-2 {
				y = x.At(n - 1)
				alpha = w[k] / (w[k] + w[n-1])
			} else {
				y = m.Scalar(fmt.Sprintf("%s_y%d", name, k)).Expr()
			}
			m.PowerCone(fmt.Sprintf("%s_%d", name, k), x.At(k), y, z, alpha)
			z = y
		}
		return t.Expr()
	},
}

// GeoMean returns the weighted geometric mean Πᵢ xᵢ^wᵢ of x's entries
// (domain x ≥ 0) with weights w normalized to sum 1 (no weights: equal
// weights 1/n; CVXPY's geo_mean(x, p)): concave, ≥ 0, increasing.
// Canonicalization: a chain of n−1 power cones K_pow(α).
func GeoMean(x Arg, w ...float64) Fn {
	n := argNode(x).n
	if len(w) == 0 {
		w = make([]float64, n)
		for i := range w {
			w[i] = 1
		}
	}
	ws := append([]float64(nil), w...)
	total := 0.0
	var bad error
	for i, v := range ws {
		if !(v > 0) || math.IsInf(v, 0) {
			bad = errf(ErrInvalidArgument, "GeoMean: w[%d] is %v, must be finite and > 0", i, v)
		}
		total += v
	}
	for i := range ws {
		ws[i] /= total
	}
	f := applyAtom(atomGeoMean, ws, x)
	if bad == nil && len(ws) != n {
		bad = errf(ErrDimension, "GeoMean: %d weights for %d entries", len(ws), n)
	}
	if bad == nil && n == 0 {
		bad = errf(ErrDimension, "GeoMean: x has no entries")
	}
	if f.f.err == nil && bad != nil {
		f.f.err = bad
	}
	return f
}

// ---- PSD-cone atoms ----

// shapeSquare checks that argument k is a square matrix, coefficient-wise
// symmetric when sym is set.
func shapeSquare(k int, sym bool, out func(n int) (int, int)) func(f *fnode) (int, int, error) {
	return func(f *fnode) (int, int, error) {
		a := f.args[k]
		if a.rows != a.cols || a.rows == 0 {
			return 0, 0, fmt.Errorf("%s has shape %d×%d, must be square and non-empty", a.text, a.rows, a.cols)
		}
		if sym && a.aff != nil {
			n := a.rows
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					if e := symmetricPair(a.aff, i*n+j, j*n+i); e != "" {
						return 0, 0, fmt.Errorf("%s is not symmetric: entries (%d,%d) and (%d,%d) differ in %s", a.text, i, j, j, i, e)
					}
				}
			}
		}
		r, c := out(a.rows)
		return r, c, nil
	}
}

func one(int) (int, int) { return 1, 1 }

// symEigen returns the eigenvalues (ascending) of the n×n row-major v.
func symEigen(v []float64) []float64 {
	n := int(math.Round(math.Sqrt(float64(len(v)))))
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (v[i*n+j]+v[j*n+i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(s, false) {
		out := make([]float64, n)
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	return eig.Values(nil)
}

var atomLogDet = &atomDef{
	name: "LogDet", curv: Concave, shape: shapeSquare(0, true, one), sign: signUnknown, mono: monoAll(Nonmonotone),
	eval: func(f *fnode, a [][]float64) []float64 {
		s := 0.0
		for _, l := range symEigen(a[0]) {
			if !(l > 0) {
				return []float64{math.Inf(-1)}
			}
			s += math.Log(l)
		}
		return []float64{s}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		// [[X, Z], [Zᵀ, Diag(Z)]] ⪰ 0 with Z lower triangular,
		// t ≤ Σ log Zᵢᵢ through (uᵢ, 1, Zᵢᵢ) ∈ K_exp.
		X := a[0]
		n, _ := X.Shape()
		name := m.auxName("LogDet")
		z := m.Vector(name+"_z", n*(n+1)/2)
		zcol := func(i, j int) int { return triIndex(n, i, j) } // i ≥ j
		N := 2 * n
		b := NewExprBuilder(N * N)
		for i := 0; i < N; i++ {
			for j := 0; j < N; j++ {
				r := i*N + j
				switch {
				case i < n && j < n:
					b.AddExpr(r, X.At(i*n+j), 1)
				case i < n && j >= n && i >= j-n:
					b.AddVar(r, z, zcol(i, j-n), 1)
				case i >= n && j < n && j >= i-n:
					b.AddVar(r, z, zcol(j, i-n), 1)
				case i >= n && i == j:
					b.AddVar(r, z, zcol(i-n, i-n), 1)
				}
			}
		}
		m.PSD(name+"_psd", Reshape(b.Expr(), N, N))
		diag := make([]int, n)
		for i := range diag {
			diag[i] = zcol(i, i)
		}
		u := m.Vector(name+"_u", n)
		m.ExpCone(name+"_exp", u.Expr(), Const(1), z.Expr().Pick(diag))
		return u.Expr().Sum()
	},
}

// LogDet returns log det X for a symmetric affine n×n matrix expression X
// (domain X ≻ 0; e.g. a Symmetric variable): concave. Its argument must be
// affine. Canonicalization (MOSEK Modeling Cookbook §6.2.3): the PSD cone
// [[X, Z], [Zᵀ, Diag(Z)]] ⪰ 0 of order 2n with Z lower triangular, and
// (uᵢ, 1, Zᵢᵢ) ∈ K_exp, value Σ uᵢ.
func LogDet(X Arg) Fn { return applyAtom(atomLogDet, nil, X) }

var atomLambdaMax = &atomDef{
	name: "LambdaMax", curv: Convex, shape: shapeSquare(0, true, one), sign: signUnknown, mono: monoAll(Nonmonotone),
	eval: func(f *fnode, a [][]float64) []float64 {
		l := symEigen(a[0])
		return []float64{l[len(l)-1]}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		X := a[0]
		n, _ := X.Shape()
		t, name := m.epigraph("LambdaMax", 1, 1)
		b := NewExprBuilder(n * n)
		b.AddScaled(-1, X)
		for i := 0; i < n; i++ {
			b.AddVar(i*n+i, t, 0, 1)
		}
		m.PSD(name, Reshape(b.Expr(), n, n))
		return t.Expr()
	},
}

// LambdaMax returns the largest eigenvalue of a symmetric affine matrix
// expression X: convex. Its argument must be affine. Canonicalization: the
// PSD cone t·I − X ⪰ 0.
func LambdaMax(X Arg) Fn { return applyAtom(atomLambdaMax, nil, X) }

var atomMatrixFrac = &atomDef{
	name: "MatrixFrac", curv: Convex, sign: signNonneg, mono: monoAll(Nonmonotone),
	shape: func(f *fnode) (int, int, error) {
		r, c, err := shapeSquare(1, true, one)(f)
		if err == nil && f.args[0].n != f.args[1].rows {
			err = fmt.Errorf("x has length %d, P is %d×%d", f.args[0].n, f.args[1].rows, f.args[1].rows)
		}
		return r, c, err
	},
	eval: func(f *fnode, a [][]float64) []float64 {
		x := a[0]
		n := len(x)
		P := mat.NewDense(n, n, append([]float64(nil), a[1]...))
		var z mat.VecDense
		if err := z.SolveVec(P, mat.NewVecDense(n, append([]float64(nil), x...))); err != nil {
			return []float64{math.Inf(1)}
		}
		s := 0.0
		for i := 0; i < n; i++ {
			s += x[i] * z.AtVec(i)
		}
		return []float64{s}
	},
	canon: func(m *Model, f *fnode, a []Expr) Expr {
		x, P := a[0], a[1]
		n := x.Len()
		t, name := m.epigraph("MatrixFrac", 1, 1)
		N := n + 1
		b := NewExprBuilder(N * N)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				b.AddExpr(i*N+j, P.At(i*n+j), 1)
			}
			b.AddExpr(i*N+n, x.At(i), 1)
			b.AddExpr(n*N+i, x.At(i), 1)
		}
		b.AddVar(n*N+n, t, 0, 1)
		m.PSD(name, Reshape(b.Expr(), N, N))
		return t.Expr()
	},
}

// MatrixFrac returns xᵀP⁻¹x for a vector x and a symmetric n×n matrix P ≻ 0,
// both affine: convex, ≥ 0. Canonicalization: the PSD cone
// [[P, x], [xᵀ, t]] ⪰ 0 (Schur complement).
func MatrixFrac(x, P Arg) Fn { return applyAtom(atomMatrixFrac, nil, x, P) }
