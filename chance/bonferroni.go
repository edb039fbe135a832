package chance

import (
	"fmt"
	"math"
	"sort"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/lindecision"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
)

// bonferroniMethod splits η over the random linear rows (η_i = η·w_i/Σw)
// and enforces each row with its safety factor as a second-order cone, or
// with the exact quantile when one noise component enters the row.
type bonferroniMethod struct{}

func (bonferroniMethod) apply(r *reformer, rows []int, a Approximation) (Guarantee, error) {
	return r.bonferroniRows(rows, a)
}

func (r *reformer) bonferroniRows(rows []int, a Approximation) (Guarantee, error) {
	l := r.l
	noise := l.Noise()
	g := Guarantee{Method: "bonferroni", Eta: a.Eta, Kind: Conservative, Safety: a.Safety.String(), RowRisk: map[int]float64{}}
	f, err := noise.Factor()
	if err != nil {
		return g, err
	}
	// Structural random rows and their weights.
	var ra lindecision.RandomAffine
	var random []int
	total := 0.0
	for _, i := range rows {
		if r.blockOf[i] >= 0 {
			bl := r.blocks[r.blockOf[i]]
			return g, invalidf("Bonferroni handles linear rows only; row %d is in a %v block (put it in a vertex or scenario group)", i, bl.c)
		}
		l.SlackTo(&ra, i)
		if ra.IsDeterministic() {
			continue
		}
		random = append(random, i)
		w := 1.0
		if v, ok := a.Weights[i]; ok {
			w = v
		}
		total += w
	}
	sort.Ints(random)
	exactAll := len(random) <= 1
	heuristic := false // Gaussian factor applied to non-Gaussian noise
	k := l.K()
	fd := mat2(f, k)
	var supp []int
	for ri, i := range rows {
		if err := r.pollRows(ri, len(rows)); err != nil {
			return g, err
		}
		l.SlackTo(&ra, i)
		rs := &r.b.nonneg
		if ra.IsDeterministic() {
			row := rs.open(0)
			rs.affine(row, &ra.F0, 1)
			continue
		}
		w := 1.0
		if v, ok := a.Weights[i]; ok {
			w = v
		}
		eta := a.Eta * w / total
		if a.Individual {
			eta = a.Eta
		}
		g.RowRisk[i] = eta
		supp = ra.RandomSupport(supp)
		if len(supp) == 1 {
			// Exact: Pr[f0 + f_j ζ_j ≥ 0] ≥ 1 − η ⟺ f0 + f_j·q ≥ 0 with q the
			// η-quantile if f_j ≥ 0 and the (1−η)-quantile if f_j ≤ 0.
			j := supp[0]
			d := noise.Components[j]
			qlo, qhi := d.Quantile(eta)-a.ReleaseMargin, d.Quantile(1-eta)+a.ReleaseMargin
			fj := &ra.F[j]
			if fj.IsConstant() {
				q := qlo
				if fj.Const < 0 {
					q = qhi
				}
				row := rs.open(fj.Const * q)
				rs.affine(row, &ra.F0, 1)
				continue
			}
			for _, q := range []float64{qlo, qhi} {
				row := rs.open(0)
				rs.affine(row, &ra.F0, 1)
				rs.affine(row, fj, q)
			}
			// For η < ½, q_η ≤ q_{1−η}: whichever the sign of f_j, the row for the
			// other sign is implied, so the pair is exact for any distribution.
			if eta >= 0.5 {
				exactAll = false
			}
			continue
		}
		z, err := a.Safety.Factor(eta)
		if err != nil {
			return g, err
		}
		if a.Safety != Gaussian {
			exactAll = false
		} else if noise.Covariance == nil {
			for _, j := range supp {
				if !gaussianLike(noise.Components[j]) {
					heuristic = true
				}
			}
		}
		// (Fᵀf)_c = Σ_j F[j][c]·f_j for the columns c that some j ∈ supp reaches.
		allConst := true
		for _, j := range supp {
			if !ra.F[j].IsConstant() {
				allConst = false
			}
		}
		if allConst {
			nrm := 0.0
			for c := 0; c < k; c++ {
				s := 0.0
				for _, j := range supp {
					s += fd[j][c] * ra.F[j].Const
				}
				nrm += s * s
			}
			worst := 0.0 // release rounding: m·Σ_j |f_j|
			for _, j := range supp {
				worst += a.ReleaseMargin * math.Abs(ra.F[j].Const)
			}
			row := rs.open(-z*math.Sqrt(nrm) - worst)
			rs.affine(row, &ra.F0, 1)
			continue
		}
		// Second-order cone (f0, z·Fᵀf) ∈ SOC.
		cs := &r.b.conic
		top := cs.open(0)
		cs.affine(top, &ra.F0, 1)
		if m := a.ReleaseMargin; m > 0 { // f0 − m·Σ_j |f_j|, |f_j| ≤ t_j
			for _, j := range supp {
				fj := &ra.F[j]
				if fj.IsConstant() {
					cs.b[top] -= m * math.Abs(fj.Const)
					continue
				}
				t := r.b.aux()
				cs.term(top, t, -m)
				for _, sg := range []float64{1, -1} {
					row := rs.open(0)
					rs.term(row, t, 1)
					rs.affine(row, fj, -sg)
				}
			}
		}
		dim := 1
		for c := 0; c < k; c++ {
			used := false
			for _, j := range supp {
				if fd[j][c] != 0 {
					used = true
				}
			}
			if !used {
				continue
			}
			row := cs.open(0)
			for _, j := range supp {
				if v := fd[j][c]; v != 0 {
					cs.affine(row, &ra.F[j], z*v)
				}
			}
			dim++
		}
		r.b.cones = append(r.b.cones, cone.NewSecondOrder(dim))
		r.stats.SOC++
	}
	if exactAll {
		g.Kind = Exact
	}
	if len(random) > 1 {
		g.Note = "individual constraints combined by the union bound (Bonferroni)"
	}
	if a.Individual && len(random) > 1 {
		g.Eta = math.Min(1, a.Eta*float64(len(random)))
		g.Note = fmt.Sprintf("individual chance constraints: each of the %d random rows is violated with probability ≤ %g; jointly only the union bound %g", len(random), a.Eta, g.Eta)
		if exactAll {
			g.Kind = Conservative
			exactAll = false
		}
	}
	if heuristic {
		g.Kind = Heuristic
		g.Note = "the Gaussian safety factor is applied to non-Gaussian noise: no guarantee (use Cantelli for a distribution-free bound)"
	}
	return g, nil
}

// gaussianLike reports whether d's quantiles at 0.75 and 0.975 match a normal
// distribution with d's variance (to 1e-6 relative).
func gaussianLike(d lindecision.Distribution) bool {
	s := math.Sqrt(d.Variance())
	for _, c := range []struct{ p, z float64 }{{0.75, 0.6744897501960817}, {0.975, 1.959963984540054}} {
		if math.Abs(d.Quantile(c.p)-c.z*s) > 1e-6*c.z*s {
			return false
		}
	}
	return true
}

func mat2(f interface{ At(i, j int) float64 }, k int) [][]float64 {
	d := make([][]float64, k)
	for i := range d {
		d[i] = make([]float64, k)
		for j := range d[i] {
			d[i][j] = f.At(i, j)
		}
	}
	return d
}
