package opfrelease

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/privopt/privopt/chance"
	"github.com/privopt/privopt/grid"
	"github.com/privopt/privopt/query"
)

// PlanFileFormat names the saved-plan format version.
const PlanFileFormat = "privopt-opf-plan/1"

// PlanFile is a saved plan ("certify once, release every hour"): the public
// inputs that determine the plan, the certificate it used, and the public
// plan they produced.
//
//	{
//	  "format": "privopt-opf-plan/1",
//	  "case_digest": "sha256:…"   (grid.Network.Digest of the public network),
//	  "inputs": { query, alpha, domain rows bus,min,max (absent: DefaultDomain),
//	              domain_source, rules, epsilon, delta, noise, method, eta, beta,
//	              cvar_q, cvar_samples, cost_segments, declared_sensitivity,
//	              formulation, limits, chance_seed, n_1_post_factor },
//	  "cost_certificate": { grid.CertificateFile over the plan's withdrawal
//	              domain (demand domain + shunts), on the piecewise-linear costs },
//	  "plan": { the Plan's public JSON }
//	}
//
// Everything in it is public. LoadPlan rebuilds the plan from the inputs,
// reusing the certificate after checking its digests and arithmetic
// (grid.LoadCostCertificate; an LMP-bound certificate is not re-solved), and
// refuses the file unless the rebuilt plan's JSON equals the saved one byte
// for byte: the plan that releases is the plan that was published.
type PlanFile struct {
	Format      string                `json:"format"`
	CaseDigest  string                `json:"case_digest"`
	Inputs      PlanInputs            `json:"inputs"`
	Certificate *grid.CertificateFile `json:"cost_certificate,omitempty"`
	Plan        json.RawMessage       `json:"plan"`
}

// PlanInputs are the public inputs of a saved plan (the serializable part of
// Options; a plan with a custom Solver or solver Settings cannot be saved).
type PlanInputs struct {
	Query  string      `json:"query"`
	Alpha  float64     `json:"alpha"`
	Domain []DomainRow `json:"domain,omitempty"`
	// DefaultDomain is true when the plan uses DefaultDomain (Domain empty).
	DefaultDomain       bool             `json:"default_domain"`
	DomainSource        string           `json:"domain_source,omitempty"`
	Rules               grid.MarketRules `json:"rules"`
	Epsilon             float64          `json:"epsilon"`
	Delta               float64          `json:"delta"`
	Noise               string           `json:"noise"`
	Method              string           `json:"method"`
	Eta                 float64          `json:"eta"`
	Beta                float64          `json:"beta"`
	CVaRQ               float64          `json:"cvar_q"`
	CVaRSamples         int              `json:"cvar_samples"`
	CostSegments        int              `json:"cost_segments"`
	DeclaredSensitivity float64          `json:"declared_sensitivity"`
	Formulation         string           `json:"formulation"`
	Limits              string           `json:"limits"`
	ChanceSeed          uint64           `json:"chance_seed"`
	// PostFactor is set for an N-1 secure plan (Options.Security).
	PostFactor *float64 `json:"n_1_post_factor,omitempty"`
}

// DomainRow is one bus of a saved domain: its bus ID and demand bounds (MW).
type DomainRow struct {
	Bus int     `json:"bus"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// File returns the plan's saved form. It fails for a plan with a custom
// Solver or non-zero solver Settings (they cannot be written to a file; the
// rebuilt plan would solve with another route).
func (p *Plan) File() (*PlanFile, error) {
	o := p.opt
	if o.Solver != nil || o.Settings.TimeLimit != 0 || o.Settings.MaxIterations != 0 || o.Settings.Threads != 0 || o.Settings.Log != nil {
		return nil, errors.New("opfrelease: a plan with a custom Solver or solver Settings cannot be saved (the file names no solver); use the default route")
	}
	in := PlanInputs{Query: o.Query.String(), Alpha: o.Alpha, DomainSource: o.DomainSource, Rules: o.Rules,
		Epsilon: o.Epsilon, Delta: o.Delta, Noise: string(o.Mechanism), Method: o.Method.String(), Eta: o.Eta, Beta: o.Beta,
		CVaRQ: o.CVaRQ, CVaRSamples: o.CVaRSamples, CostSegments: o.CostSegments, DeclaredSensitivity: o.DeclaredSensitivity,
		Formulation: o.Formulation.String(), Limits: o.Limits.String(), ChanceSeed: p.ChanceSeed}
	if o.Domain == nil {
		in.DefaultDomain = true
	} else {
		net := p.pub.net
		for i, id := range net.BusID {
			if p.dom.Lo[i] != 0 || p.dom.Hi[i] != 0 {
				in.Domain = append(in.Domain, DomainRow{Bus: id, Min: p.dom.Lo[i], Max: p.dom.Hi[i]})
			}
		}
	}
	if o.Security != nil {
		pf := o.Security.PostFactor
		in.PostFactor = &pf
	}
	pj, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	f := &PlanFile{Format: PlanFileFormat, CaseDigest: p.pub.net.Digest(), Inputs: in, Plan: pj}
	if p.costCert != nil {
		f.Certificate = p.base.NewCertificateFile(p.costCert, p.certDom, o.Security != nil, o.CostSegments)
	}
	return f, nil
}

// Write writes the saved plan as indented JSON.
func (f *PlanFile) Write(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadPlanFile decodes a saved plan (unknown fields are refused).
func ReadPlanFile(r io.Reader) (*PlanFile, error) {
	var f PlanFile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("opfrelease: plan file: %w", err)
	}
	if f.Format != PlanFileFormat {
		return nil, fmt.Errorf("opfrelease: plan file format %q, want %q", f.Format, PlanFileFormat)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f.Plan); err != nil {
		return nil, fmt.Errorf("opfrelease: plan file: plan: %w", err)
	}
	f.Plan = buf.Bytes()
	return &f, nil
}

// Options returns the plan options the file records, for pub (the domain's
// bus IDs are resolved on its network).
func (f *PlanFile) Options(pub *PublicNetwork) (Options, error) {
	in := f.Inputs
	o := DefaultOptions()
	var err error
	if o.Query, err = ParseQuery(in.Query); err != nil {
		return o, fmt.Errorf("opfrelease: plan file: %w", err)
	}
	if o.Method, err = chance.ParseMethod(in.Method); err != nil {
		return o, fmt.Errorf("opfrelease: plan file: method: %w", err)
	}
	if o.Formulation, err = grid.ParseFormulation(in.Formulation); err != nil {
		return o, fmt.Errorf("opfrelease: plan file: formulation: %w", err)
	}
	if o.Limits, err = parseLimits(in.Limits); err != nil {
		return o, err
	}
	o.Alpha, o.DomainSource, o.Rules = in.Alpha, in.DomainSource, in.Rules
	o.PrivacySpec = query.PrivacySpec{Mechanism: query.Mechanism(in.Noise), Epsilon: in.Epsilon, Delta: in.Delta}
	o.Eta, o.Beta, o.CVaRQ, o.CVaRSamples = in.Eta, in.Beta, in.CVaRQ, in.CVaRSamples
	o.CostSegments, o.DeclaredSensitivity, o.ChanceSeed = in.CostSegments, in.DeclaredSensitivity, in.ChanceSeed
	if in.PostFactor != nil {
		o.Security = &Security{PostFactor: *in.PostFactor}
	}
	switch {
	case in.DefaultDomain && len(in.Domain) > 0:
		return o, errors.New("opfrelease: plan file: default_domain is true but domain rows are given")
	case !in.DefaultDomain:
		net := pub.net
		d := grid.LoadDomain{Lo: make([]float64, net.NumBuses()), Hi: make([]float64, net.NumBuses())}
		for _, r := range in.Domain {
			i, ok := net.BusIndex[r.Bus]
			if !ok {
				return o, fmt.Errorf("opfrelease: plan file: domain bus %d is not in the network", r.Bus)
			}
			d.Lo[i], d.Hi[i] = r.Min, r.Max
		}
		o.Domain = &d
	}
	return o, nil
}

func parseLimits(s string) (grid.Limits, error) {
	for _, l := range []grid.Limits{grid.LimitsAuto, grid.LimitsAll, grid.LimitsLazy} {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("opfrelease: plan file: limits %q, must be auto, all or lazy", s)
}

// LoadPlan reads a saved plan (PlanFile) for pub and rebuilds it: the case
// digest must be pub's, the certificate is checked against the rebuilt
// plan's network and withdrawal domain (digests and arithmetic,
// grid.LoadCostCertificate without re-solving) and reused, and the rebuilt
// plan's public JSON must equal the saved one. It reads no private value.
func LoadPlan(ctx context.Context, r io.Reader, pub *PublicNetwork) (*Plan, error) {
	f, err := ReadPlanFile(r)
	if err != nil {
		return nil, err
	}
	return f.Open(ctx, pub)
}

// Open rebuilds the saved plan on pub (see LoadPlan).
func (f *PlanFile) Open(ctx context.Context, pub *PublicNetwork) (*Plan, error) {
	if pub == nil || pub.net == nil {
		return nil, errors.New("opfrelease: LoadPlan needs a PublicNetwork (see Split)")
	}
	if got := pub.net.Digest(); got != f.CaseDigest {
		return nil, fmt.Errorf("opfrelease: the plan file is for the network with digest %s; this network's is %s (another case, DC model or edit)", f.CaseDigest, got)
	}
	opt, err := f.Options(pub)
	if err != nil {
		return nil, err
	}
	if f.Certificate != nil {
		opt.CertificateFile = f.Certificate
	}
	p, err := NewPlan(ctx, pub, opt)
	if err != nil {
		return nil, err
	}
	got, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(got, f.Plan) {
		return nil, fmt.Errorf("opfrelease: the plan rebuilt from the file differs from the saved plan (%s): the file was edited or written by another version", firstJSONDifference(f.Plan, got))
	}
	return p, nil
}

// checkCertificateFile checks a certificate file (Options.CertificateFile:
// `privopt certify`'s CERT.json or a saved plan's) against the plan's own
// network (piecewise-linear costs) and withdrawal domain.
func (p *Plan) checkCertificateFile(ctx context.Context, cf *grid.CertificateFile) (*grid.CostCertificate, error) {
	b, err := json.Marshal(cf)
	if err != nil {
		return nil, err
	}
	got, err := grid.LoadCostCertificate(ctx, bytes.NewReader(b), p.base, p.certDom, false)
	if err != nil {
		return nil, fmt.Errorf("opfrelease: the certificate file: %w", err)
	}
	if got.Security != (p.opt.Security != nil) || got.CostSegments != p.opt.CostSegments {
		return nil, fmt.Errorf("opfrelease: the certificate file has N-1 %v and %d cost segments; the plan has %v and %d", got.Security, got.CostSegments, p.opt.Security != nil, p.opt.CostSegments)
	}
	c := got.Certificate
	if err := checkN1Certificate(c, p.opt.Security); err != nil {
		return nil, err
	}
	if c.Alpha != p.opt.Alpha || c.Rules != p.opt.Rules {
		return nil, fmt.Errorf("opfrelease: the certificate file is for α = %g and rules %+v; the plan has α = %g and rules %+v", c.Alpha, c.Rules, p.opt.Alpha, p.opt.Rules)
	}
	return c, nil
}

// firstJSONDifference names the first top-level field whose value differs
// between two JSON objects (both public plans).
func firstJSONDifference(a, b []byte) string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return "not a JSON object"
	}
	keys := make(map[string]bool)
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	best := ""
	for k := range keys {
		if !bytes.Equal(ma[k], mb[k]) && (best == "" || k < best) {
			best = k
		}
	}
	if best == "" {
		return "same fields, different encoding"
	}
	return fmt.Sprintf("field %q: saved %s, rebuilt %s", best, clip(ma[best]), clip(mb[best]))
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	if len(b) == 0 {
		return "absent"
	}
	return string(b)
}
