// Regression releases: Compare checks a release on a pair of adjacent
// datasets: with the same seed,
// every byte of the text output, the JSON and the ledger entry is identical
// except the released values (and wall-clock timestamps), and the released
// values differ by at most the plan's calibrated sensitivity (plus the
// rounding to the output grid).
//
// It reads the JSON shape {"plan": {…}, "releases": [{"label",
// "released_value", "estimate"}]} of `privopt regress` (released values
// keyed by column name).

package invariance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/privopt/privopt/ledger"
)

// Run is one release's outputs.
type Run struct {
	Text   string // the text output
	JSON   []byte // the --json output (same flags and seed)
	Ledger []ledger.Entry
}

// Report is the outcome of a pair.
type Report struct {
	// Dist is the ℓ₂ distance of the released values; Bound the plan's
	// bound on it (calibrated sensitivity plus grid rounding), 0 when the
	// plan bounds only a pre-post-processing statistic (Bounded false).
	Dist, Bound, Calibrated float64
	Bounded                 bool
}

// Ratio is Dist / Calibrated (the largest |Δ released|/sensitivity).
func (r Report) Ratio() float64 {
	if r.Calibrated == 0 {
		return 0
	}
	return r.Dist / r.Calibrated
}

// BoundRatio is Dist / Bound (≤ 1 for every accepted bounded pair; 0 when
// not Bounded).
func (r Report) BoundRatio() float64 {
	if !r.Bounded || r.Bound == 0 {
		return 0
	}
	return r.Dist / r.Bound
}

type output struct {
	Plan     json.RawMessage `json:"plan"`
	Releases []struct {
		Label         string             `json:"label"`
		ReleasedValue map[string]float64 `json:"released_value"`
		Estimate      map[string]float64 `json:"estimate"`
	} `json:"releases"`
}

type planFields struct {
	Strategy   string  `json:"strategy"`
	Calibrated float64 `json:"calibrated_sensitivity"`
	Grid       float64 `json:"release_grid"`
	Weights    int     `json:"weights"`
	Guarantee  struct {
		Noise string `json:"noise"`
	} `json:"guarantee"`
}

var (
	number = regexp.MustCompile(`[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?`)
	spaces = regexp.MustCompile(` +`)
)

// MaskText returns text with every number on the release lines (from the
// first line starting with "release ") replaced by "#" and runs of spaces
// there collapsed (the column padding follows the numbers' widths).
func MaskText(text string) string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "release ") {
			in = true
			continue
		}
		if in {
			lines[i] = spaces.ReplaceAllString(number.ReplaceAllString(l, "#"), " ")
		}
	}
	return strings.Join(lines, "\n")
}

// Compare checks a pair of runs on adjacent datasets (see the package
// comment). The released values are bounded for projection and program
// releases with Gaussian or Laplace noise (output perturbation followed by a
// non-expansive projection; the discrete Gaussian and snapping draw the same
// noise from the same seed whatever the value): ℓ₂ distance ≤ the
// calibrated sensitivity (which includes √k grid steps for the discrete
// Gaussian) plus one grid step, or plus k grid steps of Laplace snapping.
// The other strategies release post-processed weights of a noisy statistic
// that is not printed: only the identity of everything else is checked.
func Compare(a, b Run) (Report, error) {
	var rep Report
	if MaskText(a.Text) != MaskText(b.Text) {
		return rep, fmt.Errorf("text outputs differ beyond the released values:\n%s\n----\n%s", MaskText(a.Text), MaskText(b.Text))
	}
	var oa, ob output
	if err := json.Unmarshal(a.JSON, &oa); err != nil {
		return rep, fmt.Errorf("first JSON: %w", err)
	}
	if err := json.Unmarshal(b.JSON, &ob); err != nil {
		return rep, fmt.Errorf("second JSON: %w", err)
	}
	if !bytes.Equal(oa.Plan, ob.Plan) {
		return rep, fmt.Errorf("plans differ:\n%s\n----\n%s", oa.Plan, ob.Plan)
	}
	if len(oa.Releases) != len(ob.Releases) {
		return rep, fmt.Errorf("%d releases against %d", len(oa.Releases), len(ob.Releases))
	}
	var pf planFields
	if err := json.Unmarshal(oa.Plan, &pf); err != nil {
		return rep, err
	}
	rep.Calibrated = pf.Calibrated
	rep.Bounded = (pf.Strategy == "projection" || pf.Strategy == "program") && pf.Guarantee.Noise != "optimal"
	rep.Bound = pf.Calibrated + pf.Grid
	if pf.Guarantee.Noise == "laplace" {
		rep.Bound = pf.Calibrated + float64(pf.Weights)*pf.Grid
	}
	for i := range oa.Releases {
		ra, rb := oa.Releases[i], ob.Releases[i]
		if ra.Label != rb.Label || !sameKeys(ra.ReleasedValue, rb.ReleasedValue) || !sameKeys(ra.Estimate, rb.Estimate) {
			return rep, fmt.Errorf("release %d: labels or keys differ (%q, %q)", i, ra.Label, rb.Label)
		}
		d := 0.0
		for k, v := range ra.ReleasedValue {
			d += (v - rb.ReleasedValue[k]) * (v - rb.ReleasedValue[k])
		}
		rep.Dist = math.Max(rep.Dist, math.Sqrt(d))
	}
	if rep.Bounded && rep.Dist > rep.Bound*(1+1e-12) {
		return rep, fmt.Errorf("released values differ by %v, above the bound %v (calibrated sensitivity %v)", rep.Dist, rep.Bound, rep.Calibrated)
	}
	if len(a.Ledger) != len(b.Ledger) {
		return rep, fmt.Errorf("%d ledger entries against %d", len(a.Ledger), len(b.Ledger))
	}
	for i := range a.Ledger {
		ea, eb := entryJSON(a.Ledger[i]), entryJSON(b.Ledger[i])
		if !bytes.Equal(ea, eb) {
			return rep, fmt.Errorf("ledger entries differ:\n%s\n----\n%s", ea, eb)
		}
	}
	return rep, nil
}

func sameKeys(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// entryJSON is the entry without its timestamp and hash (the hash chains the
// timestamp).
func entryJSON(e ledger.Entry) []byte {
	e.Time, e.Hash = time.Time{}, ""
	b, _ := json.Marshal(e)
	return b
}
