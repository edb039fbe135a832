package noise

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// PiecewiseFormat names the version of the JSON document of WritePiecewise.
const PiecewiseFormat = "privopt-noise/1"

// PiecewiseFile is the JSON form of a mechanism with piecewise-constant noise
// (the optimal noise of Optimize, or any NewPiecewiseConstant): everything
// needed to audit it, certify it again and release with it.
//
// The distribution is defined exactly by Weights / Σ Weights on the cells
// [Edges[j], Edges[j+1]) — the representation Certify and Release use.
// Probabilities are the same numbers normalized in float64 (for reading; they
// may differ from Weights/ΣWeights in the last bits). When Unit > 0 the
// edges are exactly Unit·Index[j] (the grid of Optimize), which the exact
// certifier exploits. Float64 values are written in Go's shortest
// round-trip form, so the reloaded distribution is bit-identical.
type PiecewiseFile struct {
	Format        string    `json:"format"`
	Mechanism     string    `json:"mechanism"`
	Epsilon       float64   `json:"epsilon"`
	Delta         float64   `json:"delta"`
	Sensitivity   float64   `json:"sensitivity"`
	Edges         []float64 `json:"edges"`         // N+1 cell end points
	Probabilities []float64 `json:"probabilities"` // N cell masses (normalized in float64)
	Weights       []float64 `json:"weights"`       // N exact cell weights; the law is Weights/ΣWeights
	Unit          float64   `json:"unit,omitempty"`
	Index         []int     `json:"index,omitempty"`
	// MaxShortfall is the certifier's upper bound on max_A P[X∈A] − e^ε P[X+φ∈A] − δ
	// at writing time (≤ 0: certified); LoadPiecewise recomputes it.
	MaxShortfall float64 `json:"max_shortfall"`
	Certified    bool    `json:"certified"`
	Std          float64 `json:"std"`
	MeanAbs      float64 `json:"mean_abs"`
}

// WritePiecewise certifies m (Certify) and writes it as an indented
// PiecewiseFile. m.Dist must be *PiecewiseConstant.
func (m *Mechanism) WritePiecewise(w io.Writer) error {
	d, ok := m.Dist.(*PiecewiseConstant)
	if !ok {
		return paramErr("Dist", fmt.Sprintf("%T", m.Dist), "must be *noise.PiecewiseConstant to be written as a piecewise density")
	}
	cert, err := Certify(d, m.Params)
	if err != nil {
		return err
	}
	f := PiecewiseFile{Format: PiecewiseFormat, Mechanism: m.Name, Epsilon: m.Params.Epsilon, Delta: m.Params.Delta,
		Sensitivity: m.Params.Sensitivity, Edges: d.Edges(), Probabilities: d.Probs(), Weights: append([]float64(nil), d.w...),
		Unit: d.unit, Index: append([]int(nil), d.index...), MaxShortfall: cert.MaxShortfall, Certified: cert.Certified,
		Std: Std(d), MeanAbs: d.MeanAbs()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("noise: write piecewise density: %w", err)
	}
	return nil
}

// LoadPiecewise reads a PiecewiseFile, rebuilds the distribution from its
// exact representation (Weights, and Unit·Index when present), checks that
// Edges and Probabilities agree with it, and re-runs the exact certifier
// Certify for (Epsilon, Delta, Sensitivity). It returns an error wrapping
// ErrNotCertified if the density is not (ε, δ)-DP for that sensitivity —
// whatever the file's own "certified" field says — and a *ParamError naming
// the field for a malformed file.
func LoadPiecewise(r io.Reader) (*Mechanism, *Certificate, error) {
	var f PiecewiseFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("noise: read piecewise density: %w", err)
	}
	if f.Format != PiecewiseFormat {
		return nil, nil, paramErr("format", f.Format, fmt.Sprintf("must be %q", PiecewiseFormat))
	}
	p := Params{Epsilon: f.Epsilon, Delta: f.Delta, Sensitivity: f.Sensitivity}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	n := len(f.Weights)
	if len(f.Edges) != n+1 {
		return nil, nil, paramErr("edges", len(f.Edges), fmt.Sprintf("must have len(weights)+1 = %d entries", n+1))
	}
	if len(f.Probabilities) != n {
		return nil, nil, paramErr("probabilities", len(f.Probabilities), fmt.Sprintf("must have len(weights) = %d entries", n))
	}
	var d *PiecewiseConstant
	var err error
	if f.Unit > 0 {
		if len(f.Index) != n+1 {
			return nil, nil, paramErr("index", len(f.Index), fmt.Sprintf("must have %d entries when unit is set", n+1))
		}
		for i := 1; i < len(f.Index); i++ {
			if f.Index[i] <= f.Index[i-1] {
				return nil, nil, paramErr("index", f.Index[i], "must be strictly increasing")
			}
		}
		d, err = newGridPiecewise(f.Unit, f.Index, f.Weights)
	} else {
		d, err = NewPiecewiseConstant(f.Edges, f.Weights)
	}
	if err != nil {
		return nil, nil, err
	}
	for j, e := range d.edges {
		if e != f.Edges[j] {
			return nil, nil, paramErr(fmt.Sprintf("edges[%d]", j), f.Edges[j], fmt.Sprintf("must equal unit·index[%d] = %v", j, e))
		}
	}
	for j, q := range d.probs {
		if math.Abs(q-f.Probabilities[j]) > 1e-12 {
			return nil, nil, paramErr(fmt.Sprintf("probabilities[%d]", j), f.Probabilities[j], fmt.Sprintf("must equal weights[%d]/Σ weights = %v", j, q))
		}
	}
	cert, err := Certify(d, p)
	if err != nil {
		return nil, nil, err
	}
	if !cert.Certified {
		return nil, cert, fmt.Errorf("%w: the density in the file is not (%g, %g)-DP for sensitivity %g (exact shortfall %g at shift %g)",
			ErrNotCertified, p.Epsilon, p.Delta, p.Sensitivity, cert.MaxShortfall, cert.WorstShift)
	}
	name := f.Mechanism
	if name == "" {
		name = "piecewise"
	}
	return &Mechanism{Name: name, Params: p, Dist: d}, cert, nil
}
