package query

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
)

// Certificate is a checkable proof that a query's sensitivity is at most
// Bound over a declared data domain and adjacency relation. It is produced by
// the code that computes a certified sensitivity (for example grid's optimal
// cost bound or package learn's strong-convexity bound) and re-checked by
// Verify with the verifier its Method registered, which recomputes the bound
// from Params and Evidence alone, independently of the producing code.
//
// The fields are plain data so that a Record (and the CLI's JSON) carries the
// certificate to an auditor.
type Certificate struct {
	// Method names the argument, e.g. "opf-price-cap" or "erm-strong-convexity";
	// it selects the verifier.
	Method string `json:"method"`
	// Bound is the certified sensitivity ‖Q x̄(D) − Q x̄(D′)‖_Norm ≤ Bound.
	Bound float64 `json:"bound"`
	// Norm is p of the bound: 1, 2 or +Inf.
	Norm float64 `json:"norm"`
	// Adjacency states which datasets are neighbours, e.g. "one bus load
	// differs by at most 1 MW".
	Adjacency string `json:"adjacency"`
	// Domain states the declared (public) data domain, e.g. "each load within
	// ±10% of the case's load".
	Domain string `json:"domain"`
	// Assumptions lists what else the bound relies on (market rules, solver
	// accuracy, clipping), in words.
	Assumptions []string `json:"assumptions,omitempty"`
	// Params holds the numbers the verifier recomputes the bound from.
	Params map[string]float64 `json:"params,omitempty"`
	// Evidence holds method-specific data (JSON) the verifier needs.
	Evidence json.RawMessage `json:"evidence,omitempty"`
}

// Verifier re-checks a certificate of one method. It returns nil when the
// bound follows from the certificate's parameters and evidence.
type Verifier func(*Certificate) error

var (
	verifiersMu sync.RWMutex
	verifiers   = map[string]Verifier{}
)

// RegisterVerifier registers the independent checker of a certificate
// method; packages that produce certificates call it from init. Registering
// a method twice panics (a programming error).
func RegisterVerifier(method string, v Verifier) {
	verifiersMu.Lock()
	defer verifiersMu.Unlock()
	if _, dup := verifiers[method]; dup || method == "" || v == nil {
		panic(fmt.Sprintf("query: RegisterVerifier(%q): empty, nil or registered twice", method))
	}
	verifiers[method] = v
}

// VerifierMethods lists the registered certificate methods, sorted.
func VerifierMethods() []string {
	verifiersMu.RLock()
	defer verifiersMu.RUnlock()
	out := make([]string, 0, len(verifiers))
	for m := range verifiers {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// ErrCertificate is wrapped by every certificate verification failure.
var ErrCertificate = fmt.Errorf("query: sensitivity certificate rejected")

// Verify re-checks c with its method's registered verifier. A nil
// certificate, an unknown method, a non-finite bound or a failing check is an
// error wrapping ErrCertificate.
func (c *Certificate) Verify() error {
	if c == nil {
		return fmt.Errorf("%w: no certificate", ErrCertificate)
	}
	if !(c.Bound > 0) || math.IsInf(c.Bound, 0) {
		return fmt.Errorf("%w: bound is %v, must be > 0 and finite", ErrCertificate, c.Bound)
	}
	verifiersMu.RLock()
	v := verifiers[c.Method]
	verifiersMu.RUnlock()
	if v == nil {
		return fmt.Errorf("%w: no verifier registered for method %q (known: %s)", ErrCertificate, c.Method, strings.Join(VerifierMethods(), ", "))
	}
	if err := v(c); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCertificate, c.Method, err)
	}
	return nil
}
