// Package cvxoptjson writes standard-form problems in the JSON interchange
// format read by bench/ipmvscvxopt/cvxopt_solve.py (CVXOPT's conelp/coneqp on
// the same data) and decodes the script's result lines. Benchmarks only.
package cvxoptjson

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"

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
