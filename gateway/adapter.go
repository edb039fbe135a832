package gateway

// The adapter between the service and the release code: the one file to
// re-wire when the release API changes (OPF: a public plan computed from the
// domain, then a release per load column).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/privopt/privopt/accounting"
	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/learn"
	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/opfrelease"
	"github.com/privopt/privopt/query"
)

// Adapter is the Releaser over the opfrelease plan API and learn: OPF
// computes the public plan from the case's network without its loads and
// the public domain (DOMAIN.csv; without it the always-valid default
// domain), then releases each column of LOADS.csv (or the case's own loads,
// labelled "case"), each spent separately; regression runs SSP (streamed)
// or AdaSSP.
type Adapter struct{}

var (
	_ Releaser = Adapter{}
	_ Planner  = Adapter{}
)

// caseNetwork reads the case file and splits it into its public network and
// its own (private) loads.
func caseNetwork(name, path string) (*opfrelease.PublicNetwork, opfrelease.Loads, error) {
	c, err := grid.ReadCase(path)
	if err != nil {
		return nil, opfrelease.Loads{}, fmt.Errorf("%w: case %q: not a MATPOWER case this service can read", ErrBadRequest, name)
	}
	net, err := grid.NewNetwork(c, grid.PowerModelsDC())
	if err != nil {
		return nil, opfrelease.Loads{}, fmt.Errorf("%w: case %q: %v", ErrBadRequest, name, err)
	}
	return opfrelease.Split(net)
}

// planOptions turns the plan-shaping fields into plan options (the public
// domain file read on pub's network).
func planOptions(req PlanRequest, files OPFFiles, pub *opfrelease.PublicNetwork) (opfrelease.Options, error) {
	opt := opfrelease.DefaultOptions()
	noiseName := req.Noise
	if noiseName == "" {
		noiseName = string(query.Laplace) // the CLI's --noise default
	}
	spec, err := query.ParseSpec(noiseName, req.Epsilon, req.Delta)
	if err != nil {
		return opt, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	opt.PrivacySpec = spec
	if req.Alpha != 0 {
		opt.Alpha = req.Alpha
	}
	if req.Method != "" {
		m, err := chance.ParseMethod(req.Method)
		if err != nil || m == chance.Scenario {
			return opt, fmt.Errorf("%w: method is %q, must be vertex, bonferroni or robust", ErrBadRequest, req.Method)
		}
		opt.Method = m
	}
	if files.Domain != "" {
		fh, err := os.Open(files.Domain)
		if err != nil {
			return opt, fmt.Errorf("%w: domain %q cannot be opened", ErrBadRequest, req.Domain)
		}
		d, err := grid.ReadLoadDomainCSV(fh, pub.Network())
		fh.Close()
		if err != nil {
			return opt, fmt.Errorf("%w: domain %q: %v", ErrBadRequest, req.Domain, err)
		}
		opt.Domain, opt.DomainSource = &d, "domain file"
	}
	if err := opt.Validate(); err != nil {
		return opt, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return opt, nil
}

// CreatePlan implements Planner: the plan of the request's public inputs
// (opfrelease.NewPlan) and its saved form (Plan.File).
func (Adapter) CreatePlan(ctx context.Context, req PlanRequest, files OPFFiles) (*opfrelease.Plan, *opfrelease.PlanFile, error) {
	pub, _, err := caseNetwork(req.Case, files.Case)
	if err != nil {
		return nil, nil, err
	}
	opt, err := planOptions(req, files, pub)
	if err != nil {
		return nil, nil, err
	}
	plan, err := opfrelease.NewPlan(ctx, pub, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrBadRequest, err) // computed from public inputs only
	}
	pf, err := plan.File()
	if err != nil {
		return nil, nil, err
	}
	return plan, pf, nil
}

// VerifyPlan implements Planner (opfrelease.PlanFile.Open on the case's
// public network).
func (Adapter) VerifyPlan(ctx context.Context, pf *opfrelease.PlanFile, files OPFFiles) (*opfrelease.Plan, error) {
	pub, _, err := caseNetwork(filepath.Base(files.Case), files.Case)
	if err != nil {
		return nil, err
	}
	return openPlan(ctx, pf, pub)
}

func openPlan(ctx context.Context, pf *opfrelease.PlanFile, pub *opfrelease.PublicNetwork) (*opfrelease.Plan, error) {
	p, err := pf.Open(ctx, pub)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrPlanMismatch, err) // the file and the rebuilt plan are public
	}
	return p, nil
}

// readPlanFile reads a saved plan file; a malformed one is a bad request.
func readPlanFile(name string, r io.Reader) (*opfrelease.PlanFile, error) {
	pf, err := opfrelease.ReadPlanFile(r)
	if err != nil {
		return nil, fmt.Errorf("%w: plan %s: %v", ErrBadRequest, name, err)
	}
	return pf, nil
}

// OPF implements Releaser.
func (Adapter) OPF(ctx context.Context, led *ledger.Ledger, req OPFRequest, files OPFFiles) (json.RawMessage, error) {
	pub, caseLoads, err := caseNetwork(req.Case, files.Case)
	if err != nil {
		return nil, err
	}
	var plan *opfrelease.Plan
	if files.Plan != "" {
		fh, err := os.Open(files.Plan)
		if err != nil {
			return nil, fmt.Errorf("%w: plan %q cannot be opened", ErrBadRequest, req.Plan)
		}
		pf, err := readPlanFile(fmt.Sprintf("%q", req.Plan), fh)
		fh.Close()
		if err != nil {
			return nil, err
		}
		if plan, err = openPlan(ctx, pf, pub); err != nil {
			return nil, err
		}
	} else {
		opt, err := planOptions(PlanRequest{Dataset: req.Dataset, Case: req.Case, Domain: req.Domain, Epsilon: req.Epsilon,
			Delta: req.Delta, Alpha: req.Alpha, Noise: req.Noise, Method: req.Method}, files, pub)
		if err != nil {
			return nil, err
		}
		if plan, err = opfrelease.NewPlan(ctx, pub, opt); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadRequest, err) // computed from public inputs only
		}
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
	led = led.WithLabels(ledger.Labels{Case: filepath.Base(req.Case), UserLabel: req.Label})
	res, err := ReleaseColumns(ctx, plan, labels, loads, led, req.Dataset, opfrelease.ReleaseOptions{})
	out := struct {
		Plan     *opfrelease.Plan      `json:"plan"`
		Releases []*opfrelease.Release `json:"releases"`
		// Refused lists the labels the budget refused after some releases
		// were made (nothing was drawn for them).
		Refused []string `json:"refused_labels,omitempty"`
		// Batch is set when the releases were charged as one batch.
		Batch *BatchSpend `json:"batch,omitempty"`
	}{Plan: plan, Releases: res.Releases, Refused: res.Refused, Batch: res.Batch}
	if err != nil && (len(res.Releases) == 0 || !errors.Is(err, ledger.ErrBudgetExceeded)) {
		return nil, err
	}
	return json.Marshal(out)
}

// BatchSpend describes the one ledger transaction that charged a batch of
// releases fixed in advance (ledger.PLDBatch, ledger.Ledger.SpendBatch).
type BatchSpend struct {
	Releases    int             `json:"releases"`
	Cost        accounting.Cost `json:"cost"`
	Composition string          `json:"composition"`
}

// Columns is the result of ReleaseColumns.
type Columns struct {
	Releases []*opfrelease.Release // the releases made, in column order
	// Refused lists the labels a per-release budget refused after some
	// releases were made (nothing drawn for them).
	Refused []string
	Batch   *BatchSpend // set when the columns were charged as one batch
}

// ReleaseColumns releases plan at each load vector (labels[k] its label),
// spending on dataset in led before any noise is drawn. When the dataset's
// budget uses the PLD-batch composition (ledger.PLDBatch) and there are at
// least two columns, the columns are a batch fixed in advance (one plan, the
// columns read before the first release): its composed cost is charged in
// ONE transaction (ledger.Ledger.SpendBatch, one entry per label), all or
// nothing, then every column is released. Otherwise each release is spent by
// itself just before its noise (opfrelease.ReleaseOptions.Ledger); a budget
// refusal stops the loop, and the labels not released are in Refused with
// the error returned alongside the releases already made. led nil: no
// ledger. ro supplies Source and Diagnostics.
func ReleaseColumns(ctx context.Context, plan *opfrelease.Plan, labels []string, loads []opfrelease.Loads, led *ledger.Ledger, dataset string, ro opfrelease.ReleaseOptions) (Columns, error) {
	res := Columns{Releases: []*opfrelease.Release{}}
	if len(labels) != len(loads) {
		return res, fmt.Errorf("gateway: %d labels for %d load columns", len(labels), len(loads))
	}
	perRelease := led
	if led != nil && len(loads) > 1 {
		b, ok, err := led.PLDBatch(ctx, dataset, plan.LedgerEntry(""), len(loads))
		if err != nil {
			return res, err
		}
		if ok {
			es := make([]ledger.Entry, len(labels))
			for k, lb := range labels {
				es[k] = plan.LedgerEntry(lb)
			}
			if err := led.SpendBatch(ctx, dataset, b, es); err != nil {
				res.Refused = append([]string(nil), labels...)
				return res, err
			}
			res.Batch = &BatchSpend{Releases: len(es), Cost: b.Cost, Composition: b.Composition}
			perRelease = nil // spent
		}
	}
	for k, l := range loads {
		o := ro
		o.Label, o.Dataset, o.Ledger = labels[k], dataset, nil
		if perRelease != nil {
			o.Ledger = perRelease.WithLabels(ledger.Labels{Case: perRelease.Labels().Case, Label: labels[k], UserLabel: perRelease.Labels().UserLabel})
		}
		r, err := plan.Release(ctx, l, o)
		if err != nil {
			if errors.Is(err, ledger.ErrBudgetExceeded) {
				res.Refused = append([]string(nil), labels[k:]...)
			}
			return res, err
		}
		res.Releases = append(res.Releases, r)
	}
	return res, nil
}

// regressOut is the JSON of `privopt regress --json` (without diagnostics).
type regressOut struct {
	Model    string `json:"model"`
	Strategy string `json:"strategy"`
	N        int    `json:"n"`
	// Plan is the public learn plan of the release (learn.NewPlan).
	Plan      *learn.Plan        `json:"plan"`
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
	p, err := query.ParseSpec(req.Noise, req.Epsilon, req.Delta)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	// The public plan: the header and the record count of the CSV (public,
	// learn.CSVRule), the request's bounds and privacy; no value is read.
	f, err := os.Open(files.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: data %q cannot be opened", ErrBadRequest, req.Data)
	}
	names, n, err := learn.ReadCSVShape(f, req.Target)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: data %q: %v", ErrBadRequest, req.Data, err)
	}
	if err := s.Validate(len(names)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	plan, err := learn.NewPlan(ctx, learn.PlanSpec{Spec: s, N: n, Features: len(names), Strategy: strat, Privacy: p})
	if err != nil {
		if errors.Is(err, learn.ErrInvalid) {
			return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
		}
		return nil, err
	}
	// The release spends first, then reads the rows (a malformed record is
	// the public zero row, learn.CSVRule).
	ro := learn.ReleaseOptions{Ledger: led, Dataset: req.Dataset, Query: "regress " + req.Model + " on " + req.Data}
	var w []float64
	if strat == learn.SSP {
		w, err = plan.ReleaseMomentsFrom(ctx, func(ctx context.Context) (learn.Moments, error) {
			f, err := os.Open(files.Data)
			if err != nil {
				return learn.Moments{}, err
			}
			defer f.Close()
			rows, err := learn.NewCSVRows(f, req.Target)
			if err != nil {
				return learn.Moments{}, err
			}
			return learn.StreamMoments(ctx, rows, s, nil)
		}, ro)
	} else {
		w, err = plan.ReleaseFrom(ctx, func(context.Context) (learn.Data, error) {
			f, err := os.Open(files.Data)
			if err != nil {
				return learn.Data{}, err
			}
			defer f.Close()
			d, _, _, err := learn.ReadCSVReplaced(f, req.Target)
			return d, err
		}, ro)
	}
	if err != nil {
		return nil, err
	}
	g := plan.Guarantee
	out := regressOut{Plan: plan, Model: req.Model, Strategy: string(strat), N: n, Weights: map[string]float64{}, Order: names, Guarantee: g,
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
