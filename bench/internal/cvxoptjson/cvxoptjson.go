// Package cvxoptjson writes standard-form problems in the JSON interchange
// format read by bench/ipmvscvxopt/cvxopt_solve.py (CVXOPT's conelp/coneqp on
// the same data) and decodes the script's result lines. Benchmarks only.
package cvxoptjson

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/privopt/privopt/solver"
)

// Problem is the interchange format: min ½xᵀPx + qᵀx + r s.t. b − Ax ∈ K,
// A in compressed-column form, K the listed cones in order; P (the upper
// triangle, compressed-column) only when the objective is quadratic, then
// the script solves with coneqp instead of conelp.
type Problem struct {
	Name    string    `json:"name"`
	N       int       `json:"n"`
	M       int       `json:"m"`
	Q       []float64 `json:"q"`
	R       float64   `json:"r"`
	ColPtr  []int     `json:"colptr"`
	RowIdx  []int     `json:"rowidx"`
	Val     []float64 `json:"val"`
	B       []float64 `json:"b"`
	Cones   []Cone    `json:"cones"`
	PColPtr []int     `json:"p_colptr,omitempty"`
	PRowIdx []int     `json:"p_rowidx,omitempty"`
	PVal    []float64 `json:"p_val,omitempty"`
}

// Cone is one cone of K by kind name and dimension.
type Cone struct {
	Kind string `json:"kind"`
	Dim  int    `json:"dim"`
}

// Result is one line of cvxopt_solve.py's output.
type Result struct {
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	Iterations int     `json:"iterations"`
	Time       float64 `json:"time"`
	CPU        float64 `json:"cpu"`
	Objective  float64 `json:"objective"`
	Error      string  `json:"error"`
}

// Write writes p under name to path.
func Write(path, name string, p *solver.Problem) error {
	jp := Problem{Name: name, N: p.NumVars(), M: p.NumRows(), Q: p.Q, R: p.R,
		ColPtr: p.A.ColPtr, RowIdx: p.A.RowIdx, Val: p.A.Val, B: p.B}
	if p.P != nil && p.P.Nnz() > 0 {
		jp.PColPtr, jp.PRowIdx, jp.PVal = p.P.ColPtr, p.P.RowIdx, p.P.Val
	}
	for _, c := range p.Cones {
		jp.Cones = append(jp.Cones, Cone{Kind: c.Kind.String(), Dim: c.Dim})
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := json.NewEncoder(f).Encode(jp); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ScriptPath locates cvxopt_solve.py beside this source tree (go run) or in
// the working directory's bench/ipmvscvxopt.
func ScriptPath() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		p := filepath.Join(filepath.Dir(file), "..", "..", "ipmvscvxopt", "cvxopt_solve.py")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return filepath.Join("bench", "ipmvscvxopt", "cvxopt_solve.py")
}

// WriteText writes p under name to path in the plain-text form of the same
// interchange data, for peer drivers without a JSON parser
// (scripts/peers/ecos_solve.c): whitespace-separated tokens
//
//	name n m q[n] r nnz colptr[n+1] rowidx[nnz] val[nnz] b[m]
//	ncones (kind dim)[ncones] pnnz [pcolptr[n+1] prowidx[pnnz] pval[pnnz]]
//
// with the cone kinds spelled as in Problem and every number in full
// precision (strconv 'g', −1). name must not contain white space.
func WriteText(path, name string, p *solver.Problem) error {
	if strings.ContainsAny(name, " \t\n") {
		return fmt.Errorf("cvxoptjson: name %q contains white space", name)
	}
	var w strings.Builder
	ints := func(v []int) {
		for _, x := range v {
			w.WriteString(strconv.Itoa(x))
			w.WriteByte(' ')
		}
		w.WriteByte('\n')
	}
	floats := func(v []float64) {
		for _, x := range v {
			w.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
			w.WriteByte(' ')
		}
		w.WriteByte('\n')
	}
	n, m := p.NumVars(), p.NumRows()
	fmt.Fprintf(&w, "%s\n%d %d\n", name, n, m)
	floats(p.Q)
	floats([]float64{p.R})
	fmt.Fprintf(&w, "%d\n", p.A.Nnz())
	ints(p.A.ColPtr)
	ints(p.A.RowIdx[:p.A.Nnz()])
	floats(p.A.Val[:p.A.Nnz()])
	floats(p.B)
	fmt.Fprintf(&w, "%d\n", len(p.Cones))
	for _, c := range p.Cones {
		fmt.Fprintf(&w, "%s %d\n", c.Kind, c.Dim)
	}
	if p.P == nil || p.P.Nnz() == 0 {
		w.WriteString("0\n")
	} else {
		fmt.Fprintf(&w, "%d\n", p.P.Nnz())
		ints(p.P.ColPtr)
		ints(p.P.RowIdx[:p.P.Nnz()])
		floats(p.P.Val[:p.P.Nnz()])
	}
	return os.WriteFile(path, []byte(w.String()), 0o644)
}
