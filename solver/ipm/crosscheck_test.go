package ipm_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/ipm"
	"github.com/privopt/privopt/sparse"
)

// crossReference is one entry of testdata/crosscheck/references.json, written by
// scripts/crosscheck/gen_instances.py from CVXOPT's solution.
type crossReference struct {
	Name          string   `json:"name"`
	File          string   `json:"file"`
	Kind          string   `json:"kind"`
	Status        string   `json:"status"`
	Objective     *float64 `json:"objective"`
	DualObjective *float64 `json:"dual_objective"`
}

// TestCrossCheckCVXOPT solves the committed random LP, SOCP, SDP and
// exponential-cone instances and compares with CVXOPT's results: the status must
// be identical and optimal objectives must agree to 1e-6 relative. Solutions and
// certificates are also checked directly against the problem data.
func TestCrossCheckCVXOPT(t *testing.T) {
	dir := filepath.Join("testdata", "crosscheck")
	raw, err := os.ReadFile(filepath.Join(dir, "references.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs struct {
		Instances []crossReference `json:"instances"`
	}
	if err := json.Unmarshal(raw, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs.Instances) < 16 {
		t.Fatalf("references.json lists %d instances, want at least 16", len(refs.Instances))
	}
	for _, ref := range refs.Instances {
		t.Run(ref.Name, func(t *testing.T) {
			p, err := readCrossCheckCBF(filepath.Join(dir, ref.File))
			if err != nil {
				t.Fatal(err)
			}
			sol, err := ipm.New().Solve(context.Background(), p, solver.Settings{})
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			if got := sol.Status.String(); got != ref.Status {
				msg := fmt.Sprintf("status %q, CVXOPT %q (iterations %d, objective %.12g", got, ref.Status, sol.Iterations, sol.Objective)
				if ref.Objective != nil {
					msg += fmt.Sprintf(", CVXOPT objective %.12g", *ref.Objective)
				}
				t.Fatal(msg + ")")
			}
			switch sol.Status {
			case solver.Optimal:
				want := *ref.Objective
				if d := math.Abs(sol.Objective - want); d > 1e-6*math.Max(1, math.Abs(want)) {
					t.Errorf("objective %.12g, CVXOPT %.12g (difference %.3g)", sol.Objective, want, d)
				}
				checkOptimal(t, p, sol)
			case solver.PrimalInfeasible:
				checkPrimalCertificate(t, p, sol.Y)
			case solver.DualInfeasible:
				checkDualCertificate(t, p, sol.X)
			}
		})
	}
}

// checkOptimal verifies primal feasibility b − Ax ∈ K and dual feasibility
// y ∈ K*, q + Aᵀy = 0 (P = 0 in these instances) to 1e-6 relative to the data.
func checkOptimal(t *testing.T, p *solver.Problem, sol *solver.Solution) {
	t.Helper()
	m := p.NumRows()
	s := make([]float64, m)
	p.A.MulVecTo(s, 1, sol.X, 0)
	scale := 1.0
	for i := range s {
		scale = math.Max(scale, math.Abs(p.B[i]))
		s[i] = p.B[i] - s[i]
	}
	if d, err := cone.ProductDistance(p.Cones, s); err != nil || d > 1e-6*scale {
		t.Errorf("b − Ax is at distance %g from K (err %v)", d, err)
	}
	dual := make([]cone.Cone, len(p.Cones))
	for i, c := range p.Cones {
		dual[i] = c.Dual()
	}
	if d, err := cone.ProductDistance(dual, sol.Y); err != nil || d > 1e-6*math.Max(1, norm(sol.Y)) {
		t.Errorf("y is at distance %g from K* (err %v)", d, err)
	}
	r := make([]float64, p.NumVars())
	p.A.MulTransVecTo(r, 1, sol.Y, 0)
	for j := range r {
		if v := r[j] + p.Q[j]; math.Abs(v) > 1e-6*math.Max(1, math.Abs(p.Q[j])) {
			t.Errorf("dual residual (q + Aᵀy)[%d] = %g", j, v)
			break
		}
	}
}

// checkPrimalCertificate verifies y ∈ K*, Aᵀy ≈ 0, bᵀy < 0 (normalized by bᵀy).
func checkPrimalCertificate(t *testing.T, p *solver.Problem, y []float64) {
	t.Helper()
	var by float64
	for i, v := range p.B {
		by += v * y[i]
	}
	if !(by < 0) {
		t.Fatalf("infeasibility certificate has bᵀy = %g, want < 0", by)
	}
	yn := make([]float64, len(y))
	for i := range y {
		yn[i] = y[i] / -by
	}
	dual := make([]cone.Cone, len(p.Cones))
	for i, c := range p.Cones {
		dual[i] = c.Dual()
	}
	if d, err := cone.ProductDistance(dual, yn); err != nil || d > 1e-6 {
		t.Errorf("certificate y/(−bᵀy) is at distance %g from K* (err %v)", d, err)
	}
	aty := make([]float64, p.NumVars())
	p.A.MulTransVecTo(aty, 1, yn, 0)
	if n := norm(aty); n > 1e-6 {
		t.Errorf("‖Aᵀy‖/(−bᵀy) = %g, want ≈ 0", n)
	}
}

// checkDualCertificate verifies −Ax ∈ K and qᵀx < 0 (normalized by qᵀx).
func checkDualCertificate(t *testing.T, p *solver.Problem, x []float64) {
	t.Helper()
	var qx float64
	for j, v := range p.Q {
		qx += v * x[j]
	}
	if !(qx < 0) {
		t.Fatalf("unboundedness certificate has qᵀx = %g, want < 0", qx)
	}
	xn := make([]float64, len(x))
	for j := range x {
		xn[j] = x[j] / -qx
	}
	ax := make([]float64, p.NumRows())
	p.A.MulVecTo(ax, 1, xn, 0)
	for i := range ax {
		ax[i] = -ax[i]
	}
	if d, err := cone.ProductDistance(p.Cones, ax); err != nil || d > 1e-6 {
		t.Errorf("−Ax/(−qᵀx) is at distance %g from K (err %v)", d, err)
	}
}

func norm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// readCrossCheckCBF reads the subset of CBF version 3 that the generator writes
// (one free variable block; L=, L+, Q, EXP constraint cones; PSDCON with HCOORD
// and DCOORD; OBJACOORD, OBJBCOORD, ACOORD, BCOORD) into the standard form
// A x + s = b, s ∈ K: CBF rows g = A_cbf x + b_cbf ∈ K give A = −A_cbf, b = b_cbf;
// EXP blocks (u0, u1, u2), u0 ≥ u1·exp(u2/u1), are reversed into privopt's
// (x, y, z); PSD constraints Σ x_j H_j + D ⪰ 0 become svec blocks after the scalar
// rows. It is deliberately independent of package cbf so that a failure here
// points at the solver, not at a shared reader.
func readCrossCheckCBF(path string) (*solver.Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var (
		n, mScalar int
		cones      []cone.Cone
		expRows    []int // first rows of EXP blocks
		psdOrders  []int
		q          []float64
		r          float64
		acoord     [][3]float64
		bcoord     = map[int]float64{}
		hcoord     [][5]float64
		dcoord     [][4]float64
	)
	fields := func(i int, want int) ([]float64, error) {
		fs := strings.Fields(lines[i])
		if len(fs) != want {
			return nil, fmt.Errorf("%s: line %q: want %d fields", path, lines[i], want)
		}
		out := make([]float64, want)
		for k, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: line %q: %v", path, lines[i], err)
			}
			out[k] = v
		}
		return out, nil
	}
	for i := 0; i < len(lines); {
		key := lines[i]
		i++
		switch key {
		case "VER", "OBJSENSE":
			i++
		case "VAR":
			fs := strings.Fields(lines[i])
			n, _ = strconv.Atoi(fs[0])
			if lines[i+1] != fmt.Sprintf("F %d", n) {
				return nil, fmt.Errorf("%s: only one free variable block is supported", path)
			}
			q = make([]float64, n)
			i += 2
		case "CON":
			fs := strings.Fields(lines[i])
			mScalar, _ = strconv.Atoi(fs[0])
			k, _ := strconv.Atoi(fs[1])
			row := 0
			for _, l := range lines[i+1 : i+1+k] {
				var name string
				var d int
				if _, err := fmt.Sscan(l, &name, &d); err != nil {
					return nil, fmt.Errorf("%s: cone line %q: %v", path, l, err)
				}
				switch name {
				case "L=":
					cones = append(cones, cone.NewZero(d))
				case "L+":
					cones = append(cones, cone.NewNonnegative(d))
				case "Q":
					cones = append(cones, cone.NewSecondOrder(d))
				case "EXP":
					cones = append(cones, cone.NewExponential())
					expRows = append(expRows, row)
				default:
					return nil, fmt.Errorf("%s: unsupported cone %q", path, name)
				}
				row += d
			}
			i += 1 + k
		case "PSDCON":
			k, _ := strconv.Atoi(lines[i])
			for _, l := range lines[i+1 : i+1+k] {
				o, _ := strconv.Atoi(l)
				psdOrders = append(psdOrders, o)
				cones = append(cones, cone.NewPSD(o))
			}
			i += 1 + k
		case "OBJBCOORD":
			v, err := fields(i, 1)
			if err != nil {
				return nil, err
			}
			r = v[0]
			i++
		case "OBJACOORD", "ACOORD", "BCOORD", "HCOORD", "DCOORD":
			k, _ := strconv.Atoi(lines[i])
			width := map[string]int{"OBJACOORD": 2, "ACOORD": 3, "BCOORD": 2, "HCOORD": 5, "DCOORD": 4}[key]
			for e := 0; e < k; e++ {
				v, err := fields(i+1+e, width)
				if err != nil {
					return nil, err
				}
				switch key {
				case "OBJACOORD":
					q[int(v[0])] = v[1]
				case "ACOORD":
					acoord = append(acoord, [3]float64(v))
				case "BCOORD":
					bcoord[int(v[0])] = v[1]
				case "HCOORD":
					hcoord = append(hcoord, [5]float64(v))
				case "DCOORD":
					dcoord = append(dcoord, [4]float64(v))
				}
			}
			i += 1 + k
		default:
			return nil, fmt.Errorf("%s: unsupported keyword %q", path, key)
		}
	}
	// Row map: CBF scalar row → standard-form row (EXP blocks reversed).
	rowOf := make([]int, mScalar)
	for i := range rowOf {
		rowOf[i] = i
	}
	for _, first := range expRows {
		rowOf[first], rowOf[first+2] = first+2, first
	}
	psdOff := make([]int, len(psdOrders))
	m := mScalar
	for k, o := range psdOrders {
		psdOff[k] = m
		m += o * (o + 1) / 2
	}
	b := make([]float64, m)
	tr := sparse.NewTriplets(m, n, len(acoord)+len(hcoord))
	for _, e := range acoord {
		tr.Append(rowOf[int(e[0])], int(e[1]), -e[2])
	}
	for i, v := range bcoord {
		b[rowOf[i]] = v
	}
	scale := func(i, j int) float64 {
		if i == j {
			return 1
		}
		return math.Sqrt2
	}
	for _, e := range hcoord {
		c, v, i, j := int(e[0]), int(e[1]), int(e[2]), int(e[3])
		tr.Append(psdOff[c]+cone.SVecIndex(psdOrders[c], i, j), v, -e[4]*scale(i, j))
	}
	for _, e := range dcoord {
		c, i, j := int(e[0]), int(e[1]), int(e[2])
		b[psdOff[c]+cone.SVecIndex(psdOrders[c], i, j)] += e[3] * scale(i, j)
	}
	p := &solver.Problem{Q: q, R: r, A: tr.ToCSC(), B: b, Cones: cones}
	return p, p.Validate()
}
