package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/sparse"
)

// WriteSDPA writes p in SDPA sparse format (Fujisawa et al., "SDPA User's
// Manual", the format of SDPLIB and of CSDP's reader):
//
//	minimize cᵀx  subject to  F(x) = Σᵢ xᵢFᵢ − F₀ ⪰ 0
//
// The standard form's s = b − Ax ∈ K is exactly F(x) with Fᵢ = −mat(A·ᵢ) and
// F₀ = −mat(b), block by block: a nonnegative cone is a diagonal block (a
// negative size in SDPA), a PSD cone a symmetric block whose svec entries are
// unscaled (off-diagonal svec entries carry a factor √2). c = q; p.R is not
// written (add it to the objective). Other cones fail.
func WriteSDPA(w io.Writer, p *solver.Problem) error {
	type blk struct {
		size int // SDPA block size (negative: diagonal)
		off  int // first row
		kind cone.Kind
		n    int
	}
	var blocks []blk
	off := 0
	for _, c := range p.Cones {
		switch c.Kind {
		case cone.Nonnegative:
			if c.Dim > 0 {
				blocks = append(blocks, blk{size: -c.Dim, off: off, kind: c.Kind, n: c.Dim})
			}
		case cone.PSD:
			n := cone.PSDOrder(c.Dim)
			blocks = append(blocks, blk{size: n, off: off, kind: c.Kind, n: n})
		default:
			if c.Dim > 0 {
				return fmt.Errorf("sdpa: cone %v cannot be written in SDPA format", c)
			}
		}
		off += c.Dim
	}
	// row → (block, i, j, scale)
	type pos struct {
		b, i, j int
		scale   float64
	}
	where := make([]pos, p.NumRows())
	for bi, b := range blocks {
		if b.kind == cone.Nonnegative {
			for k := 0; k < b.n; k++ {
				where[b.off+k] = pos{bi + 1, k + 1, k + 1, 1}
			}
			continue
		}
		// scaled lower-triangular column-major svec
		k := 0
		for j := 0; j < b.n; j++ {
			for i := j; i < b.n; i++ {
				s := 1.0
				if i != j {
					s = 1 / math.Sqrt2
				}
				// SDPA wants i ≤ j (upper triangle)
				where[b.off+k] = pos{bi + 1, j + 1, i + 1, s}
				k++
			}
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d\n%d\n", p.NumVars(), len(blocks))
	for _, b := range blocks {
		fmt.Fprintf(bw, "%d ", b.size)
	}
	fmt.Fprintln(bw)
	for _, v := range p.Q {
		fmt.Fprintf(bw, "%.17g ", v)
	}
	fmt.Fprintln(bw)
	for r, v := range p.B {
		if v != 0 {
			w := where[r]
			fmt.Fprintf(bw, "0 %d %d %d %.16g\n", w.b, w.i, w.j, -v*w.scale)
		}
	}
	for j := 0; j < p.A.Cols; j++ {
		for k := p.A.ColPtr[j]; k < p.A.ColPtr[j+1]; k++ {
			w := where[p.A.RowIdx[k]]
			fmt.Fprintf(bw, "%d %d %d %d %.16g\n", j+1, w.b, w.i, w.j, -p.A.Val[k]*w.scale)
		}
	}
	return bw.Flush()
}

// writeSDPAFiles writes every selected SDPLIB instance (set in want, name
// matching re when re is not nil; the shared set from dir, the -unseen set
// from unseenDir) to out/NAME.dat-s with WriteSDPA and names each file on
// stdout; margin > 0 writes the tightened problem (tighten).
func writeSDPAFiles(dir, unseenDir, out string, margin float64, ref *reference, want map[string]bool, re *regexp.Regexp, stdout io.Writer) error {
	if margin < 0 || math.IsNaN(margin) || math.IsInf(margin, 0) {
		return fmt.Errorf("sdpa: -sdpa-margin is %g, must be finite and ≥ 0", margin)
	}
	for i := range ref.Instances {
		in := &ref.Instances[i]
		if (in.Set != "sdplib" && in.Set != setUnseen) || !want[in.Set] || (re != nil && !re.MatchString(in.Name)) {
			continue
		}
		idir := dir
		if in.Set == setUnseen {
			idir = unseenDir
		}
		p, _, err := load(filepath.Join(idir, in.File))
		if err != nil {
			return fmt.Errorf("sdpa: reading %s: %w", in.Name, err)
		}
		if p.R != 0 {
			return fmt.Errorf("sdpa: %s has the objective constant %g, which SDPA cannot hold", in.Name, p.R)
		}
		if margin > 0 {
			p = tighten(p, margin)
		}
		var b bytes.Buffer
		if err := WriteSDPA(&b, p); err != nil {
			return fmt.Errorf("sdpa: %s: %w", in.Name, err)
		}
		name := filepath.Join(out, in.Name+".dat-s")
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stdout, name)
	}
	return nil
}

// tighten returns a copy of p whose constraint is s − eps·e ∈ K, e the
// identity of the cone (1 on nonnegative rows, svec(I) on PSD blocks): in
// SDPA's terms F(x) ⪰ eps·I. Only b changes, b − eps·e; p is not modified.
func tighten(p *solver.Problem, eps float64) *solver.Problem {
	q := *p
	q.B = append([]float64(nil), p.B...)
	off := 0
	for _, c := range p.Cones {
		switch c.Kind {
		case cone.Nonnegative:
			for k := 0; k < c.Dim; k++ {
				q.B[off+k] -= eps
			}
		case cone.PSD:
			n := cone.PSDOrder(c.Dim)
			for i := 0; i < n; i++ {
				q.B[off+cone.SVecIndex(n, i, i)] -= eps
			}
		}
		off += c.Dim
	}
	return &q
}

var csdpObjective = regexp.MustCompile(`Dual objective value:\s*([-+0-9.eE]+)`)

var csdpPrimalObjective = regexp.MustCompile(`Primal objective value:\s*([-+0-9.eE]+)`)

// runCSDP converts the instance to SDPA, runs csdp on it and records its
// status, objective (its "dual objective", SDPA's primal minimum), its
// other side's objective (CSDPPrimal) and wall time in o.
func runCSDP(dir string, in *instance, o *outcome, limit time.Duration) {
	bin, err := exec.LookPath("csdp")
	if err != nil {
		o.CSDPStatus = "not-installed"
		return
	}
	p, _, err := load(filepath.Join(dir, in.File))
	if err != nil {
		o.CSDPStatus = "read-error"
		return
	}
	tmp, err := os.CreateTemp("", "suite-*.dat-s")
	if err != nil {
		o.CSDPStatus = "tmp-error"
		return
	}
	defer os.Remove(tmp.Name())
	if err := WriteSDPA(tmp, p); err != nil {
		tmp.Close()
		o.CSDPStatus = "convert-error"
		return
	}
	tmp.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, tmp.Name())
	cmd.Stdout = &out
	start := time.Now()
	err = cmd.Run()
	o.CSDPSeconds = time.Since(start).Seconds()
	if ps := cmd.ProcessState; ps != nil {
		o.CSDPCPU = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	// csdp's exit code: 0 success, 1 primal infeasible, 2 dual infeasible,
	// 3 partial success (reduced accuracy), ≥ 4 failures.
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		o.CSDPStatus = "error"
		return
	}
	o.CSDPStatus = map[int]string{0: "optimal", 1: "infeasible", 2: "unbounded", 3: "almost-optimal"}[code]
	if o.CSDPStatus == "" {
		o.CSDPStatus = "failure-" + strconv.Itoa(code)
	}
	if m := csdpObjective.FindSubmatch(out.Bytes()); m != nil {
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		o.CSDPObjective = v + p.R
	}
	if m := csdpPrimalObjective.FindSubmatch(out.Bytes()); m != nil {
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		o.CSDPPrimal = v + p.R
	}
}

// ReadSDPA reads a problem in SDPA sparse format (the format of SDPLIB),
//
//	minimize cᵀx  subject to  F(x) = Σᵢ xᵢFᵢ − F₀ ⪰ 0,
//
// into the standard form WriteSDPA writes from: s = b − Ax = F(x) block by
// block, A·ᵢ = −svec(Fᵢ), b = −svec(F₀), q = c; a diagonal block (negative
// size) becomes a nonnegative cone, a symmetric block a PSD cone (svec
// scaling: off-diagonal entries times √2). Comment lines (starting with " or
// *), the separators , { } ( ) of the header and the rest of a header line
// from a token starting with = or " are skipped; an entry
// "k b i j v" sets the (i, j) and (j, i) entries of block b of Fₖ.
func ReadSDPA(r io.Reader) (*solver.Problem, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	clean := func(s string) string {
		for _, c := range ",{}()" {
			s = strings.ReplaceAll(s, string(c), " ")
		}
		return s
	}
	var head []string // m, nblocks, sizes, c — tokens until they are complete
	var m, nb int
	var sizes []int
	var c []float64
	var entries [][5]float64
	need := func() int { // tokens the header still needs; −1 while unknown
		if len(head) < 2 {
			return -1
		}
		return 2 + nb + m - len(head)
	}
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '"' || t[0] == '*' {
			continue
		}
		f := strings.Fields(clean(t))
		if n := need(); n != 0 {
			for _, tok := range f {
				if strings.HasPrefix(tok, "=") || strings.HasPrefix(tok, "\"") {
					break // the rest of a header line is a comment ("2 =mdim")
				}
				head = append(head, tok)
			}
			if len(head) >= 2 && m == 0 {
				var err error
				if m, err = strconv.Atoi(head[0]); err != nil || m <= 0 {
					return nil, fmt.Errorf("sdpa: line %d: number of variables %q, must be a positive integer", line, head[0])
				}
				if nb, err = strconv.Atoi(head[1]); err != nil || nb <= 0 {
					return nil, fmt.Errorf("sdpa: line %d: number of blocks %q, must be a positive integer", line, head[1])
				}
			}
			if n := need(); n < 0 && len(head) >= 2 {
				return nil, fmt.Errorf("sdpa: line %d: %d extra header values", line, -n)
			}
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("sdpa: line %d: %d fields, want 5 (matrix block i j value)", line, len(f))
		}
		var e [5]float64
		for k, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("sdpa: line %d: field %q is not a number", line, s)
			}
			e[k] = v
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if need() != 0 {
		return nil, fmt.Errorf("sdpa: incomplete header (%d values)", len(head))
	}
	for _, s := range head[2 : 2+nb] {
		v, err := strconv.Atoi(s)
		if err != nil || v == 0 {
			return nil, fmt.Errorf("sdpa: block size %q, must be a nonzero integer", s)
		}
		sizes = append(sizes, v)
	}
	for _, s := range head[2+nb:] {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("sdpa: objective coefficient %q is not a number", s)
		}
		c = append(c, v)
	}
	offs := make([]int, nb)
	var cones []cone.Cone
	rows := 0
	for k, s := range sizes {
		offs[k] = rows
		if s < 0 {
			cones = append(cones, cone.NewNonnegative(-s))
			rows += -s
		} else {
			cones = append(cones, cone.NewPSD(s))
			rows += s * (s + 1) / 2
		}
	}
	b := make([]float64, rows)
	t := sparse.NewTriplets(rows, m, len(entries))
	for _, e := range entries {
		k, blk, i, j, v := int(e[0]), int(e[1]), int(e[2])-1, int(e[3])-1, e[4]
		if k < 0 || k > m || blk < 1 || blk > nb {
			return nil, fmt.Errorf("sdpa: entry %v: matrix or block out of range", e)
		}
		s := sizes[blk-1]
		var row int
		scale := 1.0
		if s < 0 {
			if i != j || i < 0 || i >= -s {
				return nil, fmt.Errorf("sdpa: entry %v: not on the diagonal of a diagonal block of size %d", e, -s)
			}
			row = offs[blk-1] + i
		} else {
			if i < 0 || j < 0 || i >= s || j >= s {
				return nil, fmt.Errorf("sdpa: entry %v: outside the block of order %d", e, s)
			}
			row = offs[blk-1] + cone.SVecIndex(s, i, j)
			if i != j {
				scale = math.Sqrt2
			}
		}
		if k == 0 {
			b[row] -= v * scale
		} else {
			t.Append(row, k-1, -v*scale)
		}
	}
	return &solver.Problem{Q: c, A: t.ToCSC(), B: b, Cones: cones}, nil
}
