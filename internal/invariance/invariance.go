// Package invariance tests release paths as a relation between two runs: on
// adjacent inputs with the same seed, every published byte — text output,
// JSON, ledger entry — must be identical except the released values (and
// wall-clock timestamps and the hash chain that covers them), and the
// released values may differ by at most the certified sensitivity plus one
// step of the output grid. One run's output says nothing about privacy; the
// relation does.
//
// The package builds adjacent private load vectors inside a public domain
// (corners, interior points, zero-load buses, whole profiles scaled 0.6–1.4),
// writes them as the CSV inputs of `privopt opf --domain … --loads …`, runs
// a command on both sides through a Runner (the CLI in process, or a built
// binary), and compares.
package invariance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/privopt/privopt/grid"
)

// Runner runs the CLI with args and returns its exit code and outputs.
type Runner func(args ...string) (code int, stdout, stderr string)

// DiffJSON returns the paths where the JSON documents a and b differ,
// ignoring every object key named in skip (at any depth).
func DiffJSON(a, b []byte, skip ...string) ([]string, error) {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return nil, fmt.Errorf("invariance: first document: %w", err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return nil, fmt.Errorf("invariance: second document: %w", err)
	}
	sk := map[string]bool{}
	for _, k := range skip {
		sk[k] = true
	}
	var out []string
	walk(x, y, "", sk, &out)
	return out, nil
}

func walk(a, b any, path string, skip map[string]bool, out *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, path+": object vs not")
			return
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if skip[k] {
				continue
			}
			x, okA := av[k]
			y, okB := bv[k]
			if !okA || !okB {
				*out = append(*out, path+"/"+k+": present on one side only")
				continue
			}
			walk(x, y, path+"/"+k, skip, out)
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*out = append(*out, path+": lists differ in length")
			return
		}
		for i := range av {
			walk(av[i], bv[i], fmt.Sprintf("%s[%d]", path, i), skip, out)
		}
	default:
		if fmt.Sprint(a) != fmt.Sprint(b) {
			*out = append(*out, fmt.Sprintf("%s: %.60v vs %.60v", path, a, b))
		}
	}
}

// DiffText compares two outputs line by line. A differing line pair is
// accepted only when masking, on each side, that side's released strings
// (maskA, maskB: the released values as printed) makes the lines equal.
func DiffText(a, b string, maskA, maskB []string) []string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return []string{fmt.Sprintf("texts have %d and %d lines", len(la), len(lb))}
	}
	// Masking works on white-space separated fields (a column's padding
	// depends on the width of the value printed in it): a field equal to one
	// of that side's released strings becomes a placeholder.
	mask := func(s string, m []string) string {
		set := map[string]bool{}
		for _, v := range m {
			set[v] = true
		}
		f := strings.Fields(s)
		for i, x := range f {
			if set[x] {
				f[i] = "‹released›"
			}
		}
		return strings.Join(f, " ")
	}
	var out []string
	for i := range la {
		if la[i] == lb[i] {
			continue
		}
		if mask(la[i], maskA) != mask(lb[i], maskB) {
			out = append(out, fmt.Sprintf("line %d: %q vs %q", i+1, la[i], lb[i]))
		}
	}
	return out
}

// Pair is one adjacent pair of demand vectors (MW per internal bus).
type Pair struct {
	A, B  []float64
	Where string // how the pair was made (public description, for reports)
}

// OPFPairs returns n adjacent pairs inside dom (MW of demand per internal
// bus of net): for each, a base point — a corner of the domain, a uniform
// interior point, the reference profile ref scaled by a factor in
// [0.6, 1.4] (clamped into the domain), or a point with a zero-load bus —
// and its neighbour with one bus moved by ±alpha (clamped into the domain).
func OPFPairs(net *grid.Network, dom grid.LoadDomain, ref []float64, alpha float64, n int, rng *rand.Rand) []Pair {
	nb := len(dom.Lo)
	vary := dom.Variable()
	if len(vary) == 0 {
		return nil
	}
	clamp := func(v []float64) {
		for i := range v {
			v[i] = math.Min(dom.Hi[i], math.Max(dom.Lo[i], v[i]))
		}
	}
	var out []Pair
	for k := 0; len(out) < n; k++ {
		a := make([]float64, nb)
		var where string
		switch k % 4 {
		case 0: // a corner
			for i := range a {
				if rng.IntN(2) == 0 {
					a[i] = dom.Lo[i]
				} else {
					a[i] = dom.Hi[i]
				}
			}
			where = "corner"
		case 1: // interior
			for i := range a {
				a[i] = dom.Lo[i] + rng.Float64()*(dom.Hi[i]-dom.Lo[i])
			}
			where = "interior"
		case 2: // the reference scaled 0.6–1.4
			s := 0.6 + 0.8*rng.Float64()
			for i := range a {
				a[i] = ref[i] * s
			}
			clamp(a)
			where = fmt.Sprintf("reference ×%.3f", s)
		case 3: // a bus at zero load (where the domain allows it)
			copy(a, ref)
			clamp(a)
			where = "interior"
			for _, i := range rng.Perm(len(vary)) {
				if b := vary[i]; dom.Lo[b] <= 0 && dom.Hi[b] >= 0 {
					a[b] = 0
					where = "zero load at bus " + strconv.Itoa(net.BusID[b])
					break
				}
			}
		}
		i := vary[rng.IntN(len(vary))]
		b := append([]float64(nil), a...)
		s := alpha
		if rng.IntN(2) == 0 {
			s = -alpha
		}
		b[i] = math.Min(dom.Hi[i], math.Max(dom.Lo[i], a[i]+s))
		if b[i] == a[i] {
			b[i] = math.Min(dom.Hi[i], math.Max(dom.Lo[i], a[i]-s))
		}
		out = append(out, Pair{A: a, B: b, Where: fmt.Sprintf("%s, bus %d %+g MW", where, net.BusID[i], b[i]-a[i])})
	}
	return out
}

// WriteDomainCSV writes dom as "bus,min,max" (grid.LoadDomain.WriteCSV).
func WriteDomainCSV(path string, net *grid.Network, dom grid.LoadDomain) error {
	var b bytes.Buffer
	if err := dom.WriteCSV(&b, net); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// WriteLoadsCSV writes columns (labelled labels) as "bus,L1,L2,…".
func WriteLoadsCSV(path string, net *grid.Network, labels []string, cols [][]float64) error {
	var b bytes.Buffer
	b.WriteString("bus," + strings.Join(labels, ",") + "\n")
	for i := range net.BusID {
		b.WriteString(strconv.Itoa(net.BusID[i]))
		for _, c := range cols {
			b.WriteString("," + fmtF(c[i]))
		}
		b.WriteString("\n")
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// OPFCase is one release configuration swept by OPF.
type OPFCase struct {
	Name  string   // for reports
	Case  string   // case file
	Args  []string // release flags after --case/--domain/--loads (query, noise, method, …)
	Alpha float64
	Pairs int
	Seed  uint64
	// PerRun caps the releases of one CLI run (0: all pairs in one run), so
	// that a large δ per release stays within one ledger's δ budget.
	PerRun int
	// Domain and Ref are the public domain and a reference profile (MW of
	// demand per internal bus of the case's network).
	Domain grid.LoadDomain
	Ref    []float64
	// Plan, when set, is a plan file (`opf --save-plan`) the releases load
	// with --plan instead of --domain and --alpha (Args must then hold no
	// plan-shaping flag); Domain still draws the pairs.
	Plan string
}

// Result summarizes a sweep.
type Result struct {
	Pairs    int
	Refusals int
	// MaxRatio is the largest |Δ released value| / (sensitivity + grid step).
	MaxRatio float64
	// MaxRawRatio is the largest |Δ released value| / sensitivity.
	MaxRawRatio float64
	Failures    []string
	// Released holds both sides' released values, pair by pair.
	Released [2][]float64
}

// OPF runs one configuration: both sides' loads files (one column per pair,
// labelled p0, p1, …), the same seed, JSON and text output, a fresh ledger
// per side with the same budget; it compares everything but the released
// values and checks their differences.
func OPF(run Runner, dir string, net *grid.Network, c OPFCase) (*Result, error) {
	rng := rand.New(rand.NewPCG(c.Seed, 0x1f))
	pairs := OPFPairs(net, c.Domain, c.Ref, c.Alpha, c.Pairs, rng)
	per := c.PerRun
	if per <= 0 {
		per = len(pairs)
	}
	total := &Result{}
	for lo := 0; lo < len(pairs); lo += per {
		hi := min(lo+per, len(pairs))
		r, err := opfRun(run, dir, net, c, pairs[lo:hi])
		if err != nil {
			return nil, err
		}
		total.Pairs += r.Pairs
		total.Refusals += r.Refusals
		total.MaxRatio = math.Max(total.MaxRatio, r.MaxRatio)
		total.MaxRawRatio = math.Max(total.MaxRawRatio, r.MaxRawRatio)
		total.Failures = append(total.Failures, r.Failures...)
		for s := range r.Released {
			total.Released[s] = append(total.Released[s], r.Released[s]...)
		}
	}
	return total, nil
}

// opfRun is one pair of CLI runs (JSON and text per side) over pairs.
func opfRun(run Runner, dir string, net *grid.Network, c OPFCase, pairs []Pair) (*Result, error) {
	labels := make([]string, len(pairs))
	var colA, colB [][]float64
	for k, p := range pairs {
		labels[k] = "p" + strconv.Itoa(k)
		colA, colB = append(colA, p.A), append(colB, p.B)
	}
	dom := filepath.Join(dir, "domain.csv")
	if err := WriteDomainCSV(dom, net, c.Domain); err != nil {
		return nil, err
	}
	res := &Result{Pairs: len(pairs)}
	type side struct {
		json, text, ledger string
		values             []string
		released           []float64
	}
	var sides [2]side
	for s, cols := range [][][]float64{colA, colB} {
		loads := filepath.Join(dir, fmt.Sprintf("loads%d.csv", s))
		if err := WriteLoadsCSV(loads, net, labels, cols); err != nil {
			return nil, err
		}
		// One fresh ledger per run (JSON and text), the same budget.
		var leds [2]string
		for r := range leds {
			leds[r] = filepath.Join(dir, fmt.Sprintf("ledger%d%d.db", s, r))
			os.Remove(leds[r])
			if code, _, e := run("ledger", "init", "--ledger", leds[r], "--dataset", "grid", "--epsilon", "1e6", "--delta", "0.999"); code != 0 {
				return nil, fmt.Errorf("invariance: ledger init: %s", e)
			}
		}
		base := []string{"opf", "--case", c.Case, "--domain", dom, "--alpha", fmtF(c.Alpha)}
		if c.Plan != "" {
			base = []string{"opf", "--case", c.Case, "--plan", c.Plan}
		}
		base = append(append(base, "--loads", loads, "--seed", strconv.FormatUint(c.Seed, 10), "--dataset", "grid"), c.Args...)
		code, js, e := run(append(base, "--ledger", leds[0], "--json")...)
		if code != 0 {
			res.Refusals++
			res.Failures = append(res.Failures, fmt.Sprintf("%s side %d refused: %s", c.Name, s, firstLine(e)))
			return res, nil
		}
		code, txt, e := run(append(base, "--ledger", leds[1])...)
		if code != 0 {
			res.Refusals++
			res.Failures = append(res.Failures, fmt.Sprintf("%s side %d (text) refused: %s", c.Name, s, firstLine(e)))
			return res, nil
		}
		led := leds[0]
		code, lj, e := run("ledger", "export", "--ledger", led)
		if code != 0 {
			return nil, fmt.Errorf("invariance: ledger export: %s", e)
		}
		var out struct {
			Releases []struct {
				Released float64 `json:"released_value"`
				Estimate float64 `json:"estimate"`
			} `json:"releases"`
		}
		if err := json.Unmarshal([]byte(js), &out); err != nil {
			return nil, fmt.Errorf("invariance: %s: %w", c.Name, err)
		}
		sd := side{json: js, text: txt, ledger: lj}
		for _, r := range out.Releases {
			sd.released = append(sd.released, r.Released)
			sd.values = append(sd.values, strconv.FormatFloat(r.Released, 'g', 6, 64), strconv.FormatFloat(r.Estimate, 'g', 6, 64))
		}
		sides[s] = sd
	}
	a, b := sides[0], sides[1]
	if d, err := DiffJSON([]byte(a.json), []byte(b.json), "released_value", "estimate"); err != nil {
		return nil, err
	} else if len(d) > 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("%s: JSON differs: %s", c.Name, strings.Join(first(d, 4), "; ")))
	}
	if d := DiffText(a.text, b.text, a.values, b.values); len(d) > 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("%s: text differs: %s", c.Name, strings.Join(first(d, 4), "; ")))
	}
	if d, err := DiffJSON([]byte(a.ledger), []byte(b.ledger), "time", "hash", "created"); err != nil {
		return nil, err
	} else if len(d) > 0 {
		res.Failures = append(res.Failures, fmt.Sprintf("%s: ledger differs: %s", c.Name, strings.Join(first(d, 4), "; ")))
	}
	var plan struct {
		Plan struct {
			Sensitivity float64 `json:"sensitivity"`
			Grid        float64 `json:"release_grid"`
		} `json:"plan"`
	}
	if err := json.Unmarshal([]byte(a.json), &plan); err != nil {
		return nil, err
	}
	sens, step := plan.Plan.Sensitivity, plan.Plan.Grid
	res.Released = [2][]float64{a.released, b.released}
	if len(a.released) != len(pairs) || len(b.released) != len(pairs) {
		res.Failures = append(res.Failures, fmt.Sprintf("%s: %d and %d releases for %d pairs", c.Name, len(a.released), len(b.released), len(pairs)))
		return res, nil
	}
	for k := range pairs {
		d := math.Abs(a.released[k] - b.released[k])
		r := d / (sens + step)
		res.MaxRatio = math.Max(res.MaxRatio, r)
		res.MaxRawRatio = math.Max(res.MaxRawRatio, d/sens)
		if r > 1+1e-12 {
			res.Failures = append(res.Failures, fmt.Sprintf("%s pair %d (%s): |Δ released| %.6g > sensitivity %.6g + grid %g", c.Name, k, pairs[k].Where, d, sens, step))
		}
	}
	return res, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
