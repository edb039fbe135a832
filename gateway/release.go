package gateway

import (
	"context"
	"encoding/json"

	"github.com/privopt/privopt/ledger"
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
type OPFFiles struct{ Case, Domain, Loads string }

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
