package cbf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
)

// ErrQuadratic is returned by Write for a problem with a quadratic objective:
// CBF version 3 has no quadratic objective (rewrite ½xᵀPx with an epigraph
// variable and a rotated second-order cone first).
var ErrQuadratic = errors.New("cbf: CBF has no quadratic objective (P ≠ 0)")

// WriteOptions are the options of Write. The zero value is valid.
type WriteOptions struct {
	// Comment is written as '#' lines at the top of the file.
	Comment string
}

// Write writes p in CBF version 3. The variables are free scalar variables
// (VAR n 1 / F n); every cone block except PSD becomes a CON cone (zero → L=,
// nonnegative → L+, second-order → Q, rotated → QR, exponential → EXP with the
// coordinates reversed, power(α) → @k:POW with parameters (α, 1−α)) with
// ACOORD = −A and BCOORD = b, since Ax + s = b, s ∈ K is b − Ax ∈ K. PSD blocks
// become PSDCON constraints (HCOORD/DCOORD with the svec scaling undone), so
// Read places them after the other rows: the round trip reproduces p exactly
// (up to the rounding of ×√2 and ÷√2 on off-diagonal PSD entries) when p's PSD
// cones come last, and a row permutation of p otherwise. Empty cone blocks are
// omitted. Numbers are written in the shortest form that reads back exactly.
func Write(w io.Writer, p *solver.Problem, opts *WriteOptions) error {
	if p == nil {
		return fmt.Errorf("cbf: problem is nil")
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("cbf: %w", err)
	}
	if p.P != nil {
		for _, v := range p.P.Val {
			if v != 0 {
				return ErrQuadratic
			}
		}
	}
	if opts == nil {
		opts = &WriteOptions{}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	ew := &errWriter{w: bw}
	if opts.Comment != "" {
		for _, l := range strings.Split(opts.Comment, "\n") {
			ew.printf("# %s\n", l)
		}
	}
	n, m := p.NumVars(), p.NumRows()
	ew.printf("VER\n3\n\nOBJSENSE\nMIN\n\n")

	// Classify the rows: conRow[i] = CBF constraint row of standard-form row i
	// (−1 for PSD rows), psd blocks separately.
	type psdBlock struct{ row, order int }
	var psd []psdBlock
	var conLines []string
	var alphas []float64
	conRow := make([]int, m)
	nc := 0
	r := 0
	for _, c := range p.Cones {
		if c.Dim == 0 {
			continue
		}
		switch c.Kind {
		case cone.PSD:
			psd = append(psd, psdBlock{r, cone.PSDOrder(c.Dim)})
			for t := 0; t < c.Dim; t++ {
				conRow[r+t] = -1
			}
			r += c.Dim
			continue
		case cone.Zero:
			conLines = append(conLines, fmt.Sprintf("L= %d", c.Dim))
		case cone.Nonnegative:
			conLines = append(conLines, fmt.Sprintf("L+ %d", c.Dim))
		case cone.SecondOrder:
			conLines = append(conLines, fmt.Sprintf("Q %d", c.Dim))
		case cone.RotatedSecondOrder:
			conLines = append(conLines, fmt.Sprintf("QR %d", c.Dim))
		case cone.Exponential:
			conLines = append(conLines, "EXP 3")
		case cone.Power:
			conLines = append(conLines, fmt.Sprintf("@%d:POW 3", len(alphas)))
			alphas = append(alphas, c.Alpha)
		default:
			return fmt.Errorf("cbf: cone %v cannot be written", c)
		}
		for t := 0; t < c.Dim; t++ {
			conRow[r+t] = nc + t
		}
		if c.Kind == cone.Exponential { // privopt (x, y, z) → CBF (z, y, x)
			conRow[r], conRow[r+2] = nc+2, nc
		}
		nc += c.Dim
		r += c.Dim
	}
	if len(alphas) > 0 {
		ew.printf("POWCONES\n%d %d\n", len(alphas), 2*len(alphas))
		for _, a := range alphas {
			ew.printf("2\n%s\n%s\n", num(a), num(1-a))
		}
		ew.printf("\n")
	}
	ew.printf("VAR\n%d %d\n", n, min(n, 1))
	if n > 0 {
		ew.printf("F %d\n", n)
	}
	ew.printf("\n")
	if nc > 0 {
		ew.printf("CON\n%d %d\n%s\n\n", nc, len(conLines), strings.Join(conLines, "\n"))
	}
	if len(psd) > 0 {
		ew.printf("PSDCON\n%d\n", len(psd))
		for _, b := range psd {
			ew.printf("%d\n", b.order)
		}
		ew.printf("\n")
	}
	// Objective.
	cnt := 0
	for _, v := range p.Q {
		if v != 0 {
			cnt++
		}
	}
	if cnt > 0 {
		ew.printf("OBJACOORD\n%d\n", cnt)
		for j, v := range p.Q {
			if v != 0 {
				ew.printf("%d %s\n", j, num(v))
			}
		}
		ew.printf("\n")
	}
	if p.R != 0 {
		ew.printf("OBJBCOORD\n%s\n\n", num(p.R))
	}
	// Map PSD rows to (block, k, l, scale).
	type psdPos struct {
		block, k, l int
		scale       float64
	}
	psdOf := make(map[int]psdPos)
	for bi, b := range psd {
		idx := 0
		for l := 0; l < b.order; l++ {
			for k := l; k < b.order; k++ {
				sc := 1.0
				if k != l {
					sc = 1 / math.Sqrt2
				}
				psdOf[b.row+idx] = psdPos{bi, k, l, sc}
				idx++
			}
		}
	}
	A := p.A
	var acnt, hcnt int
	for j := 0; j < n; j++ {
		for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
			if A.Val[k] == 0 {
				continue
			}
			if conRow[A.RowIdx[k]] >= 0 {
				acnt++
			} else {
				hcnt++
			}
		}
	}
	if acnt > 0 {
		ew.printf("ACOORD\n%d\n", acnt)
		for j := 0; j < n; j++ {
			for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
				if i := conRow[A.RowIdx[k]]; i >= 0 && A.Val[k] != 0 {
					ew.printf("%d %d %s\n", i, j, num(-A.Val[k]))
				}
			}
		}
		ew.printf("\n")
	}
	var bcnt, dcnt int
	for i, v := range p.B {
		if v == 0 {
			continue
		}
		if conRow[i] >= 0 {
			bcnt++
		} else {
			dcnt++
		}
	}
	if bcnt > 0 {
		ew.printf("BCOORD\n%d\n", bcnt)
		for i, v := range p.B {
			if v != 0 && conRow[i] >= 0 {
				ew.printf("%d %s\n", conRow[i], num(v))
			}
		}
		ew.printf("\n")
	}
	if hcnt > 0 {
		ew.printf("HCOORD\n%d\n", hcnt)
		for j := 0; j < n; j++ {
			for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
				if i := A.RowIdx[k]; conRow[i] < 0 && A.Val[k] != 0 {
					ps := psdOf[i]
					ew.printf("%d %d %d %d %s\n", ps.block, j, ps.k, ps.l, num(-A.Val[k]*ps.scale))
				}
			}
		}
		ew.printf("\n")
	}
	if dcnt > 0 {
		ew.printf("DCOORD\n%d\n", dcnt)
		for i, v := range p.B {
			if v != 0 && conRow[i] < 0 {
				ps := psdOf[i]
				ew.printf("%d %d %d %s\n", ps.block, ps.k, ps.l, num(v*ps.scale))
			}
		}
		ew.printf("\n")
	}
	if ew.err != nil {
		return fmt.Errorf("cbf: writing: %w", ew.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cbf: writing: %w", err)
	}
	return nil
}

// num formats v with the shortest representation that reads back exactly.
func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
