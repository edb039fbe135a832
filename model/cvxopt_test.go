package model_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/privopt/privopt/model"
)

// cvxoptScript solves, with CVXOPT's socp and sdp solvers (an independent
// second solver), the two programs of TestAtomsAgainstCVXOPT written by hand
// in cone form:
//
//	lasso: minimize t + λΣsᵢ  s.t. ‖Ax − b‖₂ ≤ t, −s ≤ x ≤ s
//	eig:   minimize t         s.t. tI − (A₀ + x₁A₁ + x₂A₂) ⪰ 0, x₁ + x₂ = 1
const cvxoptScript = `
import json, sys
from cvxopt import matrix, solvers, spmatrix
solvers.options['show_progress'] = False
solvers.options['abstol'] = 1e-10
solvers.options['reltol'] = 1e-10
solvers.options['feastol'] = 1e-10
d = json.load(sys.stdin)
A, b, lam = d['A'], d['b'], d['lam']
m, n = len(A), len(A[0])
# variables z = (x[n], s[n], t)
N = 2*n + 1
c = matrix([0.0]*n + [lam]*n + [1.0])
Gl, hl = [], []
for i in range(n):
    r = [0.0]*N; r[i] = 1.0; r[n+i] = -1.0; Gl.append(r); hl.append(0.0)
    r = [0.0]*N; r[i] = -1.0; r[n+i] = -1.0; Gl.append(r); hl.append(0.0)
Gq = [[0.0]*N for _ in range(m+1)]
hq = [0.0]*(m+1)
Gq[0][2*n] = -1.0
for i in range(m):
    for j in range(n):
        Gq[i+1][j] = -A[i][j]
    hq[i+1] = -b[i]
sol = solvers.socp(c, Gl=matrix(Gl).T, hl=matrix(hl), Gq=[matrix(Gq).T], hq=[matrix(hq)])
lasso = sol['primal objective']
A0, A1, A2 = d['A0'], d['A1'], d['A2']
k = len(A0)
# variables (x1, x2, t); s = h - G z = t I - A0 - x1 A1 - x2 A2 (column-major vec)
G = [[0.0]*3 for _ in range(k*k)]
h = [0.0]*(k*k)
for i in range(k):
    for j in range(k):
        p = j*k + i
        G[p][0] = A1[i][j]; G[p][1] = A2[i][j]; G[p][2] = -1.0 if i == j else 0.0
        h[p] = -A0[i][j]
sol = solvers.sdp(matrix([0.0, 0.0, 1.0]), Gs=[matrix(G).T], hs=[matrix(h, (k, k))], A=matrix([[1.0], [1.0], [0.0]]), b=matrix([1.0]))
print(json.dumps({'lasso': lasso, 'eig': sol['primal objective']}))
`

// A lasso-type SOCP (Norm2 + Norm1) and a LambdaMax SDP, written with atoms,
// agree with CVXOPT on the same programs written by hand in cone form.
func TestAtomsAgainstCVXOPT(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("skipping: /usr/bin/python3 is absent, so CVXOPT cannot be run as the reference")
	}
	if err := exec.Command(py, "-c", "import cvxopt").Run(); err != nil {
		t.Skip("skipping: python3 cannot import cvxopt (install python3-cvxopt) — no reference solver")
	}
	rng := rand.New(rand.NewPCG(5, 25))
	const m, n, lam, k = 8, 5, 0.7, 4
	A := make([][]float64, m)
	flat := make([]float64, 0, m*n)
	b := make([]float64, m)
	for i := range A {
		A[i] = make([]float64, n)
		for j := range A[i] {
			A[i][j] = rng.NormFloat64()
			flat = append(flat, A[i][j])
		}
		b[i] = rng.NormFloat64()
	}
	sym := func() [][]float64 {
		s := make([][]float64, k)
		for i := range s {
			s[i] = make([]float64, k)
		}
		for i := 0; i < k; i++ {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				s[i][j], s[j][i] = v, v
			}
		}
		return s
	}
	A0, A1, A2 := sym(), sym(), sym()
	in, _ := json.Marshal(map[string]any{"A": A, "b": b, "lam": lam, "A0": A0, "A1": A1, "A2": A2})
	cmd := exec.Command(py, "-c", cvxoptScript)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cvxopt: %v", err)
	}
	var ref struct{ Lasso, Eig float64 }
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("cvxopt output %q: %v", out, err)
	}

	mod := model.New("lasso")
	x := mod.Vector("x", n)
	r := model.MulDense(mat.NewDense(m, n, flat), x.Expr()).Sub(model.Const(b...))
	mod.MinimizeFn(model.Norm2(r).Add(model.Norm1(x).Scale(lam)))
	res := solveOK(t, mod)
	near(t, "lasso objective vs CVXOPT", res.Objective, ref.Lasso, 1e-6)

	mod = model.New("eig")
	z := mod.Vector("z", 2)
	mod.Equal("sum", z.Expr().Sum(), model.Const(1))
	vec := func(s [][]float64) []float64 {
		var v []float64
		for _, row := range s {
			v = append(v, row...)
		}
		return v
	}
	B := mat.NewDense(k*k, 2, nil)
	for p, v := range vec(A1) {
		B.Set(p, 0, v)
	}
	for p, v := range vec(A2) {
		B.Set(p, 1, v)
	}
	X := model.ConstMatrix(mat.NewDense(k, k, vec(A0))).Add(model.MulDense(B, z.Expr()))
	mod.MinimizeFn(model.LambdaMax(X))
	res = solveOK(t, mod)
	near(t, "λmax objective vs CVXOPT", res.Objective, ref.Eig, 1e-6)
	if math.IsNaN(res.FnValue(model.LambdaMax(X))[0]) {
		t.Fatal("FnValue is NaN")
	}
}
