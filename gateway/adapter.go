package gateway

// The adapter between the service and the release code: the one file to
// re-wire when the release API changes (OPF: a public plan computed from the
// domain, then a release per load column).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/opfrelease"
)

// Adapter is the Releaser over the opfrelease plan API and learn: OPF
// computes the public plan from the case's network without its loads and
// the public domain (DOMAIN.csv; without it the always-valid default
// domain), then releases each column of LOADS.csv (or the case's own loads,
// labelled "case"), each spent separately; regression runs SSP (streamed)
// or AdaSSP.
type Adapter struct{}

var _ Releaser = Adapter{}

// OPF implements Releaser.
func (Adapter) OPF(ctx context.Context, led *ledger.Ledger, req OPFRequest, files OPFFiles) (json.RawMessage, error) {
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
	c, err := grid.ReadCase(files.Case)
	if err != nil {
		return nil, fmt.Errorf("%w: case %q: not a MATPOWER case this service can read", ErrBadRequest, req.Case)
	}
	net, err := grid.NewNetwork(c, grid.PowerModelsDC())
	if err != nil {
		return nil, fmt.Errorf("%w: case %q: %v", ErrBadRequest, req.Case, err)
	}
	pub, caseLoads, err := opfrelease.Split(net)
	if err != nil {
		return nil, err
	}
	if files.Domain != "" {
		fh, err := os.Open(files.Domain)
		if err != nil {
			return nil, fmt.Errorf("%w: domain %q cannot be opened", ErrBadRequest, req.Domain)
		}
		d, err := grid.ReadLoadDomainCSV(fh, pub.Network())
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("%w: domain %q: %v", ErrBadRequest, req.Domain, err)
		}
		opt.Domain, opt.DomainSource = &d, "domain file"
	}
	if err := opt.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	plan, err := opfrelease.NewPlan(ctx, pub, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err) // computed from public inputs only
	}
	labels, loads := []string{"case"}, []opfrelease.Loads{caseLoads}
	if files.Loads != "" {
		fh, err := os.Open(files.Loads)
		if err != nil {
			return nil, fmt.Errorf("%w: loads %q cannot be opened", ErrBadRequest, req.Loads)
		}
		cols, err := grid.ReadLoadColumnsCSV(fh, pub.Network())
		fh.Close()
		if err != nil { // the message may quote a private cell
			return nil, fmt.Errorf("%w: loads %q is not a LOADS.csv (bus,LABEL…) of this case", ErrBadRequest, req.Loads)
		}
		labels, loads = cols.Labels, make([]opfrelease.Loads, len(cols.Loads))
		for k, mw := range cols.Loads {
			if loads[k], err = opfrelease.NewLoads(pub, mw); err != nil {
				return nil, fmt.Errorf("%w: loads %q column %q does not fit the case", ErrBadRequest, req.Loads, cols.Labels[k])
			}
		}
	}
	out := struct {
		Plan     *opfrelease.Plan      `json:"plan"`
		Releases []*opfrelease.Release `json:"releases"`
		// Refused lists the labels the budget refused after some releases
		// were made (nothing was drawn for them).
		Refused []string `json:"refused_labels,omitempty"`
	}{Plan: plan, Releases: []*opfrelease.Release{}}
	for k, l := range loads {
		lk := led.WithLabels(ledger.Labels{Case: filepath.Base(req.Case), Label: labels[k], UserLabel: req.Label})
		r, err := plan.Release(ctx, l, opfrelease.ReleaseOptions{Label: labels[k], Ledger: lk, Dataset: req.Dataset})
		if err != nil {
			if len(out.Releases) > 0 && errors.Is(err, ledger.ErrBudgetExceeded) {
				out.Refused = labels[k:] // the releases made so far are answered
				break
			}
			return nil, err
		}
		out.Releases = append(out.Releases, r)
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
