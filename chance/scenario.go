package chance

import (
	"math"

	"github.com/privopt/privopt/lindecision"
	_ "github.com/privopt/privopt/solver/auto" // registers auto, highs and ipm for solver.ByName
)

// scenarioMethod enforces the rows at N samples of ζ, N the Campi–Garatti
// sample size (ScenarioSampleSize) or Approximation.SampleSize when larger.
type scenarioMethod struct{}

func (scenarioMethod) apply(r *reformer, rows []int, a Approximation) (Guarantee, error) {
	g := Guarantee{Method: "scenario", Eta: a.Eta, Beta: a.Beta, Kind: Conservative}
	n, err := ScenarioSampleSize(a.Eta, a.Beta, r.l.NumVars())
	if err != nil {
		return g, err
	}
	if a.SampleSize > 0 {
		if a.SampleSize < n {
			return g, invalidf("SampleSize %d is below the scenario sample size %d required for eta %v, beta %v, d %d", a.SampleSize, n, a.Eta, a.Beta, r.l.NumVars())
		}
		n = a.SampleSize
	}
	g.SampleSize = n
	return g, r.scenarioRows(rows, n)
}

// scenarioRows enforces the rows at n samples of ζ.
func (r *reformer) scenarioRows(rows []int, n int) error {
	noise := r.l.Noise()
	f, err := noise.Factor()
	if err != nil {
		return err
	}
	// Every sample copies every row: check the size before drawing (at
	// η = 10⁻⁹ the sample size is ~2·10⁹, and the samples alone would take
	// tens of GB).
	if total := float64(n) * float64(len(rows)); total > float64(r.spec.MaxRows) {
		return invalidf("scenario counterpart needs %d samples × %d rows = %.3g rows, more than MaxRows = %d; use the vertex or Bonferroni method or a larger eta", n, len(rows), total, r.spec.MaxRows)
	}
	samples := make([][]float64, n)
	for s := range samples {
		if err := r.pollSampling(s, n, "scenario"); err != nil {
			return err
		}
		samples[s] = noise.Sample(nil, r.rng.Uint64, f)
	}
	var ra lindecision.RandomAffine
	var supp []int
	doneBlock := make(map[int]bool)
	for ri, i := range rows {
		if err := r.pollRows(ri, len(rows)); err != nil {
			return err
		}
		if r.b.nonneg.n()+r.b.conic.n() > r.spec.MaxRows {
			return invalidf("scenario counterpart exceeds MaxRows = %d (%d samples); use the vertex or Bonferroni method", r.spec.MaxRows, n)
		}
		if bi := r.blockOf[i]; bi >= 0 {
			if doneBlock[bi] {
				continue
			}
			doneBlock[bi] = true
			bl := r.blocks[bi]
			ras := make([]lindecision.RandomAffine, bl.c.Dim)
			for t := range ras {
				r.l.SlackTo(&ras[t], bl.start+t)
			}
			for _, z := range samples {
				for t := range ras {
					emitAt(&r.b.conic, &ras[t], z)
				}
				r.b.cones = append(r.b.cones, bl.c)
			}
			continue
		}
		r.l.SlackTo(&ra, i)
		supp = ra.RandomSupport(supp)
		constant := true
		for _, j := range supp {
			if !ra.F[j].IsConstant() {
				constant = false
			}
		}
		if constant { // only the worst sample matters
			worst := math.Inf(1)
			for _, z := range samples {
				s := 0.0
				for _, j := range supp {
					s += ra.F[j].Const * z[j]
				}
				worst = math.Min(worst, s)
			}
			if len(supp) == 0 {
				worst = 0
			}
			row := r.b.nonneg.open(worst)
			r.b.nonneg.affine(row, &ra.F0, 1)
			continue
		}
		for _, z := range samples {
			emitAt(&r.b.nonneg, &ra, z)
		}
	}
	return nil
}
