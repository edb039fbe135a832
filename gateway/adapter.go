package gateway

// The adapter between the service and the release code: the one file to
// re-wire when the release API changes (OPF: a public plan computed from the
// domain, then a release per load column).

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/opfrelease"
	"github.com/privopt/privopt/query"
)

// Adapter is the Releaser over the current opfrelease and learn APIs: one
// OPF cost release on the case's own loads (domain and loads files are not
// supported by this API yet and are refused), and SSP or AdaSSP regression
// (the sufficient-statistics strategies; SSP streams the CSV).
type Adapter struct{}

var _ Releaser = Adapter{}

// opfPlan is the public part of an OPF release in the service's answer.
type opfPlan struct {
	Case        string  `json:"case"`
	Query       string  `json:"query"`
	Guarantee   string  `json:"guarantee"`
	Epsilon     float64 `json:"epsilon"`
	Delta       float64 `json:"delta"`
	Alpha       float64 `json:"alpha"`
	Noise       string  `json:"noise"`
	Method      string  `json:"method"`
	Unit        string  `json:"unit"`
	Sensitivity string  `json:"sensitivity"`
	Note        string  `json:"note"`
}

type opfRelease struct {
	Label         string  `json:"label"`
	ReleasedValue float64 `json:"released_value"`
	Estimate      float64 `json:"estimate"`
}

// OPF implements Releaser.
func (Adapter) OPF(ctx context.Context, led *ledger.Ledger, req OPFRequest, files OPFFiles) (json.RawMessage, error) {
	if files.Domain != "" || files.Loads != "" {
		return nil, fmt.Errorf("%w: domain and loads files need the plan API, which this service build does not have yet; omit them to release on the case's own loads", ErrBadRequest)
	}
	opt := opfrelease.DefaultOptions()
	opt.Epsilon, opt.Delta = req.Epsilon, req.Delta
	if req.Alpha != 0 {
		opt.Alpha = req.Alpha
	}
	if req.Noise != "" {
		opt.Noise = req.Noise
	}
	if req.Method != "" {
		m, err := chance.ParseMethod(req.Method)
		if err != nil || m == chance.Scenario {
			return nil, fmt.Errorf("%w: method is %q, must be vertex, bonferroni or robust", ErrBadRequest, req.Method)
		}
		opt.Method = m
	}
	if err := opt.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	c, err := grid.ReadCase(files.Case)
	if err != nil {
		return nil, fmt.Errorf("%w: case %q: not a MATPOWER case this service can read", ErrBadRequest, req.Case)
	}
	net, err := grid.NewNetwork(c, grid.PowerModelsDC())
	if err != nil {
		return nil, fmt.Errorf("%w: case %q: %v", ErrBadRequest, req.Case, err)
	}
	pr, err := opfrelease.Prepare(ctx, net, opt)
	if err != nil {
		return nil, err
	}
	rel, err := pr.Release(query.ReleaseOptions{Dataset: req.Dataset, Ledger: led})
	if err != nil {
		return nil, err
	}
	rec := rel.Record
	label := "case"
	out := struct {
		Plan     opfPlan      `json:"plan"`
		Releases []opfRelease `json:"releases"`
	}{
		Plan: opfPlan{Case: net.Case.Name, Query: opt.Query.String(), Guarantee: rec.Guarantee, Epsilon: rec.Epsilon, Delta: rec.Delta,
			Alpha: opt.Alpha, Noise: opt.Noise, Method: rec.Method, Unit: rel.Unit, Sensitivity: string(rec.SensitivitySource),
			Note: "release on the case's own loads; estimate equals released_value (this release path publishes no offset)"},
		Releases: []opfRelease{{Label: label, ReleasedValue: rel.Value, Estimate: rel.Value}},
	}
	return json.Marshal(out)
}

// regressOut is the JSON of `privopt regress --json` (without diagnostics).
type regressOut struct {
	Model     string             `json:"model"`
	Strategy  string             `json:"strategy"`
	N         int                `json:"n"`
	Weights   map[string]float64 `json:"weights"`
	Intercept *float64           `json:"intercept,omitempty"`
	Order     []string           `json:"order"`
	Guarantee learn.Guarantee    `json:"guarantee"`
	Bounds    map[string]float64 `json:"bounds"`
	Label     string             `json:"label,omitempty"`
}

// Regress implements Releaser.
func (Adapter) Regress(ctx context.Context, led *ledger.Ledger, req RegressRequest, files RegressFiles) (json.RawMessage, error) {
	s := learn.Spec{Loss: learn.Squared, Intercept: !req.NoIntercept, Bounds: learn.Bounds{X: or(req.XBound, 1), Y: or(req.YBound, 1)}, Lambda: 0.1}
	switch req.Model {
	case "least-squares":
		s.Lambda = 0
	case "ridge":
	case "nonnegative":
		s.Nonnegative = true
	case "monotone":
		s.Ordered = true
	default:
		return nil, fmt.Errorf("%w: model is %q, must be least-squares, ridge, nonnegative or monotone", ErrBadRequest, req.Model)
	}
	if req.Lambda != nil {
		s.Lambda = *req.Lambda
	}
	strat := learn.Strategy(req.Strategy)
	if strat == "" {
		strat = learn.SSP
	}
	if strat != learn.SSP && strat != learn.AdaSSP {
		return nil, fmt.Errorf("%w: strategy is %q, the service runs ssp or adassp", ErrBadRequest, req.Strategy)
	}
	p := learn.Privacy{Epsilon: req.Epsilon, Delta: req.Delta, Noise: learn.NoiseKind(req.Noise)}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	f, err := os.Open(files.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: data %q cannot be opened", ErrBadRequest, req.Data)
	}
	defer f.Close()
	var rel *learn.Releaser
	var names []string
	var n int
	if strat == learn.SSP {
		rows, err := learn.NewCSVRows(f, req.Target)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		names = rows.Names()
		if err := s.Validate(len(names)); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		m, err := learn.StreamMoments(ctx, rows, s, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		n = m.N
		if rel, err = learn.PrepareMoments(ctx, m, s, p); err != nil {
			return nil, err
		}
	} else {
		data, nm, err := learn.ReadCSV(f, req.Target)
		if err != nil { // ReadCSV's message may quote a cell of the private file
			return nil, fmt.Errorf("%w: data %q is not a numeric CSV with a header and the column %q", ErrBadRequest, req.Data, req.Target)
		}
		names, n = nm, data.N()
		if rel, err = learn.Prepare(ctx, data, s, strat, p, learn.Options{}); err != nil {
			return nil, err
		}
	}
	g := rel.Guarantee()
	e := g.LedgerEntry("regress "+req.Model+" on "+req.Data, len(names))
	if err := led.Spend(ctx, req.Dataset, e); err != nil {
		return nil, err
	}
	w, err := rel.Draw(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := regressOut{Model: req.Model, Strategy: string(strat), N: n, Weights: map[string]float64{}, Order: names, Guarantee: g,
		Bounds: map[string]float64{"x": s.Bounds.X, "y": s.Bounds.Y}, Label: req.Label}
	for j, nm := range names {
		out.Weights[nm] = w[j]
	}
	if s.Intercept {
		out.Intercept = &w[len(names)]
	}
	return json.Marshal(out)
}

func or(v, def float64) float64 {
	if v == 0 || math.IsNaN(v) {
		return def
	}
	return v
}
