package gateway

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/privopt/privopt/ledger"
	"github.com/privopt/privopt/opfrelease"
)

// OPFRequest is the body of POST /v1/opf/releases: the fields of `privopt
// opf --query cost` (file names relative to the service's data directory;
// the optional ones as in the CLI, zero meaning the CLI's default).
type OPFRequest struct {
	Dataset string  `json:"dataset"`          // ledger dataset the release spends on (required)
	Case    string  `json:"case"`             // MATPOWER case file under DIR (required)
	Domain  string  `json:"domain,omitempty"` // DOMAIN.csv under DIR (public load domain)
	Loads   string  `json:"loads,omitempty"`  // LOADS.csv under DIR (private loads, one column per release)
	Epsilon float64 `json:"epsilon"`          // ε > 0 (required)
	Delta   float64 `json:"delta,omitempty"`  // δ ∈ [0, 1)
	Alpha   float64 `json:"alpha,omitempty"`  // adjacency α in MW (default 1)
	Noise   string  `json:"noise,omitempty"`  // mechanism name (default laplace)
	Method  string  `json:"method,omitempty"` // chance-constraint method (default vertex)
	Label   string  `json:"label,omitempty"`  // free-text user label, stored on every ledger entry
	// Plan is a saved plan file (PLAN.json of POST /v1/opf/plans or `privopt
	// opf --save-plan`) under DIR, instead of the plan-shaping fields
	// (domain, epsilon, delta, alpha, noise, method: 400 if any is given):
	// the plan is rebuilt on the case and must reproduce the saved one
	// (opfrelease.LoadPlan; 422 plan_mismatch otherwise).
	Plan string `json:"plan,omitempty"`
}

// PlanRequest is the body of POST /v1/opf/plans: the plan-shaping fields of
// OPFRequest (no loads: a plan reads no private value) and an optional file
// name under DIR to save the plan file to.
type PlanRequest struct {
	Dataset string  `json:"dataset"`          // a dataset granted to the caller (required)
	Case    string  `json:"case"`             // MATPOWER case file under DIR (required; only its network is read)
	Domain  string  `json:"domain,omitempty"` // DOMAIN.csv under DIR (public load domain)
	Epsilon float64 `json:"epsilon"`          // ε > 0 (required)
	Delta   float64 `json:"delta,omitempty"`  // δ ∈ [0, 1)
	Alpha   float64 `json:"alpha,omitempty"`  // adjacency α in MW (default 1)
	Noise   string  `json:"noise,omitempty"`  // mechanism name (default laplace)
	Method  string  `json:"method,omitempty"` // chance-constraint method (default vertex)
	// Save, when set, is a new file name under DIR ending in .json to which
	// the plan file is written (409 plan_exists if a different file is
	// there already; the same content is accepted).
	Save string `json:"save,omitempty"`
}

// VerifyPlanRequest is the body of POST /v1/opf/plans/verify: the case and
// either the plan file itself (PlanFile) or the name of a saved one under
// DIR (Plan). Dataset is optional; when given it must be granted to the
// caller.
type VerifyPlanRequest struct {
	Dataset  string          `json:"dataset,omitempty"`
	Case     string          `json:"case"`
	PlanFile json.RawMessage `json:"plan_file,omitempty"`
	Plan     string          `json:"plan,omitempty"`
}

// RegressRequest is the body of POST /v1/regress/releases: the fields of
// `privopt regress` (file names relative to the data directory).
type RegressRequest struct {
	Dataset     string   `json:"dataset"`            // ledger dataset (required)
	Data        string   `json:"data"`               // CSV under DIR (required)
	Target      string   `json:"target"`             // target column (required)
	Model       string   `json:"model"`              // least-squares, ridge, nonnegative, monotone (required)
	Lambda      *float64 `json:"lambda,omitempty"`   // ridge λ (default 0.1; 0 for least-squares)
	Epsilon     float64  `json:"epsilon"`            // ε > 0 (required)
	Delta       float64  `json:"delta,omitempty"`    // δ ∈ [0, 1)
	Strategy    string   `json:"strategy,omitempty"` // ssp (default) or adassp
	Noise       string   `json:"noise,omitempty"`    // laplace, gaussian, analytic-gaussian
	XBound      float64  `json:"x_bound,omitempty"`  // public bound on each row's feature ℓ2 norm (default 1)
	YBound      float64  `json:"y_bound,omitempty"`  // public bound on |target| (default 1)
	NoIntercept bool     `json:"no_intercept,omitempty"`
	Label       string   `json:"label,omitempty"` // free-text user label
}

// OPFFiles and RegressFiles are the request's file names resolved to paths
// inside the data directory ("" when not given).
type OPFFiles struct{ Case, Domain, Loads, Plan string }

// RegressFiles: see OPFFiles.
type RegressFiles struct{ Data string }

// Releaser performs the two kinds of release the service exposes. An
// implementation must spend on led — which records the request's labels on
// every entry — before drawing any noise (ledger.Ledger.Spend or SpendBatch
// for a batch of load columns), and return only publishable output: the
// CLI's JSON for the same inputs, {"plan": {…}, "releases": [{"label",
// "released_value", "estimate"}]} for OPF. Errors wrapping ErrBadRequest
// (or ledger.ErrBudgetExceeded) are the caller's; their text must not
// contain private values. The adapter in adapter.go is the implementation
// over the current opfrelease and learn APIs.
type Releaser interface {
	OPF(ctx context.Context, led *ledger.Ledger, req OPFRequest, files OPFFiles) (json.RawMessage, error)
	Regress(ctx context.Context, led *ledger.Ledger, req RegressRequest, files RegressFiles) (json.RawMessage, error)
}

// Planner is implemented by a Releaser that also creates and verifies saved
// OPF plans (POST /v1/opf/plans and /v1/opf/plans/verify; 501
// not_implemented otherwise). Both read only public inputs: the case's
// network without its loads and the public domain. Adapter implements it.
type Planner interface {
	// CreatePlan computes the public plan of req and returns its saved form.
	CreatePlan(ctx context.Context, req PlanRequest, files OPFFiles) (*opfrelease.Plan, *opfrelease.PlanFile, error)
	// VerifyPlan rebuilds the saved plan pf on the case of files and
	// returns the plan, or an error wrapping ErrPlanMismatch that names the
	// first differing field.
	VerifyPlan(ctx context.Context, pf *opfrelease.PlanFile, files OPFFiles) (*opfrelease.Plan, error)
}

// ErrPlanMismatch is wrapped by the errors of a saved plan that does not
// reproduce on the case (HTTP 422, code plan_mismatch).
var ErrPlanMismatch = errors.New("gateway: the saved plan does not match")
