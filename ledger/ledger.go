package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/privopt/privopt/accounting"
)

// Errors matched with errors.Is.
var (
	// ErrBudgetExceeded is matched by every *BudgetError.
	ErrBudgetExceeded = errors.New("ledger: privacy budget exceeded")
	// ErrUnknownDataset: no budget was created for the dataset.
	ErrUnknownDataset = errors.New("ledger: unknown dataset")
	// ErrDatasetExists: Init with a budget different from the stored one.
	ErrDatasetExists = errors.New("ledger: dataset exists with another budget")
	// ErrCorrupt: the ledger file is damaged (truncated, overwritten, or its
	// audit hash chain does not verify). Nothing is written to a corrupt file.
	ErrCorrupt = errors.New("ledger: corrupted ledger")
	// ErrNotLedger: the file is a database but not a privopt ledger.
	ErrNotLedger = errors.New("ledger: not a privopt ledger")
	// ErrInvalid: an argument cannot be used (empty dataset name, bad cost).
	ErrInvalid = errors.New("ledger: invalid argument")
)

// Entry is one spend in the append-only audit log of a dataset. The caller
// fills Query, Mechanism, Params, Cost, Sensitivity, Guarantee, the labels
// and (optionally) Curve; Spend sets Seq, Composition, State, Hash and (when
// zero) Time.
type Entry struct {
	// Seq is the entry's position in its dataset's log: 1, 2, … (set by Spend).
	Seq int64 `json:"seq"`
	// Time of the spend (UTC; set to the current time when zero).
	Time time.Time `json:"time"`
	// Query names what is released, e.g. "opf total cost, case5".
	Query string `json:"query"`
	// Mechanism is the noise mechanism's name, e.g. "laplace", "optimal".
	Mechanism string `json:"mechanism"`
	// Params are the mechanism's parameters (scale, sigma, bound, sensitivity, …).
	Params map[string]float64 `json:"params,omitempty"`
	// Cost is the (ε, δ, γ) charged to the dataset's filter by this entry:
	// the release's own cost, or for a batch (SpendBatch) the batch's
	// composed cost on its first entry and zero on the others.
	Cost accounting.Cost `json:"cost"`
	// Sensitivity is the provenance of the sensitivity, e.g.
	// "37.2 certified (opf-price-cap)" or "2 declared, not verified".
	Sensitivity string `json:"sensitivity"`
	// Guarantee is the one-line statement of the release, e.g.
	// "(1, 0)-DP; sensitivity 37.2 certified (opf-price-cap)".
	Guarantee string `json:"guarantee"`
	// Curve is the release's privacy curve, used by the RDP and Gaussian-DP
	// filters; when nil, Spend derives it from Mechanism and Params (see
	// CurveOf).
	Curve *accounting.Curve `json:"curve,omitempty"`
	// Case names the network case or data file the release is computed on
	// (public name, e.g. "pglib_opf_case118_ieee").
	Case string `json:"case,omitempty"`
	// Label is the hour or column label of the release (e.g. "h07" of a load
	// file's column), or "case" for the case's own loads.
	Label string `json:"label,omitempty"`
	// UserLabel is free text supplied by the analyst.
	UserLabel string `json:"user_label,omitempty"`
	// Batch is "i/k@s" for entry i of a batch of k releases fixed in advance
	// whose composed cost is charged on entry s (SpendBatch), empty otherwise.
	Batch string `json:"batch,omitempty"`
	// Composition states how the entry was composed (set by Spend): the
	// filter's composition statement, and for a batch how its cost was
	// computed.
	Composition string `json:"composition,omitempty"`
	// State is the dataset filter's running totals after this entry (set by
	// Spend): the checkpoint that makes a spend O(1), covered by Hash.
	State accounting.State `json:"state,omitempty"`
	// Hash is the hex SHA-256 of the previous entry's Hash followed by this
	// entry's canonical JSON (with Hash empty): a hash chain, so that a
	// removed, reordered or edited row of the log is detected by Verify.
	Hash string `json:"hash"`
}

// chainHash returns SHA-256(prev ‖ JSON(e with Hash = "")) in hex.
func chainHash(prev string, e Entry) string {
	e.Hash = ""
	e.Time = e.Time.UTC()
	b, err := json.Marshal(e)
	if err != nil { // only float NaN/Inf, which validate rejects
		panic("ledger: entry not encodable: " + err.Error())
	}
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// Dataset is a budget and the filter that guards it.
type Dataset struct {
	Name    string            `json:"name"`
	Budget  accounting.Budget `json:"budget"`
	Filter  string            `json:"filter"` // accounting filter name, fixed at creation
	Created time.Time         `json:"created"`
}

// TailLen is the number of newest entries a Store hands to Append's
// prepare: the spend verifies the TailLen − 1 newest links of the hash chain
// and continues from the newest entry's State, so a spend costs O(1) however
// long the log is. The whole chain is verified by Status, Verify and Export.
const TailLen = 3

// Store persists datasets and their audit logs. Implementations: the SQLite
// store of Open (default), MemoryStore, and, for several machines sharing
// one budget, the PostgreSQL store of package ledger/pgstore. Every method is
// safe for concurrent use by several goroutines and several processes.
type Store interface {
	// CreateDataset stores d. If a dataset of that name exists with the same
	// budget and filter it returns nil, otherwise an error wrapping
	// ErrDatasetExists.
	CreateDataset(ctx context.Context, d Dataset) error
	// Append runs prepare on the dataset and its tail (its newest TailLen
	// entries, oldest first; fewer when the log is shorter) and appends the
	// entries it returns (consecutive Seq after the tail's last), in ONE
	// transaction that no other Append on the same dataset (in any process)
	// can interleave with. If prepare returns an error nothing is written and
	// the error is returned. When Append returns nil the entries are durable
	// (committed and synced). Its cost must not grow with the log's length.
	Append(ctx context.Context, dataset string, prepare func(d Dataset, tail []Entry) ([]Entry, error)) error
	// Tail returns the dataset and its newest TailLen entries, oldest first
	// (ErrUnknownDataset if absent).
	Tail(ctx context.Context, dataset string) (Dataset, []Entry, error)
	// Load returns the dataset and its whole log in Seq order
	// (ErrUnknownDataset if absent).
	Load(ctx context.Context, dataset string) (Dataset, []Entry, error)
	// Datasets returns the names of all datasets, sorted.
	Datasets(ctx context.Context) ([]string, error)
	// Close releases the store.
	Close() error
}

// Ledger is a persistent privacy budget: per dataset, a budget, a privacy
// filter, and an append-only log of spends. Spend is check-and-spend in one
// store transaction: call it before drawing any noise, and release only if it
// returns nil.
type Ledger struct {
	store  Store
	labels Labels
}

// Labels are the labels WithLabels puts on every entry that leaves them
// empty (see Entry).
type Labels struct {
	Case, Label, UserLabel string
}

// WithLabels returns a ledger on the same store whose spends fill empty
// Case, Label and UserLabel fields of their entries from lb (before the
// entry is hashed): a release path that builds its own entries (package
// query) then records the caller's labels. Close the original ledger, not
// the copy.
func (l *Ledger) WithLabels(lb Labels) *Ledger { return &Ledger{store: l.store, labels: lb} }

// Labels returns the labels WithLabels set (zero for a ledger from New or
// Open).
func (l *Ledger) Labels() Labels { return l.labels }

// New returns a ledger on s.
func New(s Store) *Ledger { return &Ledger{store: s} }

// Close closes the store.
func (l *Ledger) Close() error { return l.store.Close() }

// Store returns the ledger's store.
func (l *Ledger) Store() Store { return l.store }

func checkName(dataset string) error {
	if strings.TrimSpace(dataset) == "" {
		return fmt.Errorf("%w: dataset name is %q, must not be empty", ErrInvalid, dataset)
	}
	return nil
}

// Init creates the budget of dataset, guarded by the basic-composition
// filter (accounting.BasicFilter); see InitFilter.
func (l *Ledger) Init(ctx context.Context, dataset string, b accounting.Budget) error {
	return l.InitFilter(ctx, dataset, b, accounting.BasicFilter{}.Name())
}

// InitFilter creates the budget of dataset guarded by the filter named
// filter ("basic", "gdp", "rdp(alpha=A)"; accounting.FilterByName).
// Budget.Epsilon must be > 0 and the filter must accept the budget. Calling
// it again with the same budget and filter is a no-op; with another it fails
// with ErrDatasetExists (budgets are immutable: a ledger never forgets spends
// by being re-created).
func (l *Ledger) InitFilter(ctx context.Context, dataset string, b accounting.Budget, filter string) error {
	if err := checkName(dataset); err != nil {
		return err
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("ledger: budget of %q: %w", dataset, err)
	}
	if !(b.Epsilon > 0) {
		return fmt.Errorf("%w: budget epsilon of %q is %v, must be > 0", ErrInvalid, dataset, b.Epsilon)
	}
	f, err := accounting.FilterByName(filter)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := f.Check(b); err != nil {
		return fmt.Errorf("%w: budget of %q under the %s filter: %v", ErrInvalid, dataset, f.Name(), err)
	}
	return l.store.CreateDataset(ctx, Dataset{Name: dataset, Budget: b, Filter: f.Name(), Created: time.Now().UTC()})
}

// BudgetError is returned by Spend when the filter refuses the release: it
// names the dataset, its budget, what was spent and what is left. It matches
// ErrBudgetExceeded under errors.Is.
type BudgetError struct {
	Dataset     string
	Filter      string
	Composition string
	Budget      accounting.Budget
	Spent       accounting.Cost // composed cost of the recorded releases
	Remaining   accounting.Cost // what the filter still admits
	Requested   accounting.Cost // the refused release
	Releases    int64           // recorded releases
}

// Error names the budget, the request and what is left.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("ledger: privacy budget of dataset %q exceeded: release asks (ε %g, δ %g, γ %g), budget (ε %g, δ %g, γ %g), spent (ε %g, δ %g, γ %g) in %d releases, remaining (ε %g, δ %g, γ %g) under the %s filter; no noise was drawn",
		e.Dataset, e.Requested.Epsilon, e.Requested.Delta, e.Requested.Gamma,
		e.Budget.Epsilon, e.Budget.Delta, e.Budget.Gamma,
		e.Spent.Epsilon, e.Spent.Delta, e.Spent.Gamma, e.Releases,
		e.Remaining.Epsilon, e.Remaining.Delta, e.Remaining.Gamma, e.Filter)
}

// Is makes errors.Is(err, ErrBudgetExceeded) true.
func (e *BudgetError) Is(target error) bool { return target == ErrBudgetExceeded }

// CurveOf returns the privacy curve of an entry for the RDP and Gaussian-DP
// filters: e.Curve when set; for Mechanism "gaussian" or "analytic-gaussian"
// with Params "sensitivity" Δ > 0 and "noise_std" σ > 0 the Gaussian curve
// μ = Δ/σ (the recorded σ is the std actually added; a discretized Gaussian
// with a smaller std only raises μ); for "laplace" the Laplace curve with
// ε₀ = Cost.Epsilon (which includes any snapping excess, so it is ≥ Δ/b);
// otherwise nil (the filter then uses the (ε, δ) cost).
func CurveOf(e Entry) *accounting.Curve {
	if e.Curve != nil {
		return e.Curve
	}
	switch e.Mechanism {
	case "gaussian", "analytic-gaussian":
		d, s := e.Params["sensitivity"], e.Params["noise_std"]
		if d > 0 && s > 0 {
			return &accounting.Curve{Kind: "gaussian", Value: d / s}
		}
	case "laplace":
		if e.Cost.Epsilon > 0 && e.Cost.Delta == 0 {
			return &accounting.Curve{Kind: "laplace", Value: e.Cost.Epsilon}
		}
	}
	return nil
}

// releaseCurve is the curve a new entry without one is recorded with: a
// "gaussian" or "analytic-gaussian" release of the library adds discrete
// Gaussian noise (its floating-point-safe release), whose curve is
// accounting.CurveDiscreteGaussian with μ = Δ/σ (the discrete release is
// calibrated with a grid shift k and variance s such that k/√s ≤ Δ/σ, see
// noise.DiscreteGaussianFor), times √T for an iterative release of Params
// "steps" T (whose Δ and σ are one step's); other mechanisms keep CurveOf's
// derivation.
// The curve is stored in the entry (covered by its hash), so entries written
// before it existed keep their own (CurveOf) on replay. A caller that adds
// exactly Gaussian (continuous) noise records Entry.Curve {gaussian, μ}.
func releaseCurve(e Entry) *accounting.Curve {
	c := CurveOf(e)
	if e.Curve == nil && c != nil && c.Kind == "gaussian" {
		mu := c.Value
		if t := e.Params["steps"]; t > 1 && !math.IsInf(t, 0) {
			// An iterative release (DP gradient descent) records one step's
			// Δ and σ: T steps compose to μ√T in zCDP (Bun and Steinke
			// 2016, Lemma 2.3); Poisson subsampling only lowers each step's
			// Rényi divergence (joint quasi-convexity), so μ√T is valid for
			// DPSGD too, if loose.
			mu *= math.Sqrt(t)
		}
		return &accounting.Curve{Kind: accounting.CurveDiscreteGaussian, Value: mu}
	}
	return e.Curve
}

// charge is what an entry charges to a filter (nil for a zero-cost entry of
// a batch, which changes no running total).
func charge(e Entry) *accounting.Charge {
	if e.Cost == (accounting.Cost{}) && e.Curve == nil {
		return nil
	}
	return &accounting.Charge{Cost: e.Cost, Curve: CurveOf(e)}
}

func validEntry(dataset string, e Entry) error {
	if err := e.Cost.Validate(); err != nil {
		return fmt.Errorf("ledger: spend on %q: %w", dataset, err)
	}
	if e.Curve != nil {
		if err := e.Curve.Validate(); err != nil {
			return fmt.Errorf("ledger: spend on %q: %w", dataset, err)
		}
	}
	for k, v := range e.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: parameter %q is %v, must be finite", ErrInvalid, k, v)
		}
	}
	return nil
}

// Batch describes releases whose mechanisms and parameters are fixed before
// the first of them runs (a day of hourly releases under one plan): their
// composed cost is charged to the dataset's filter once.
type Batch struct {
	// Cost is the batch's composed cost, e.g. accounting.BatchCost of the
	// releases' PLD (valid because nothing in the batch is chosen
	// adaptively).
	Cost accounting.Cost
	// Curve is the batch's privacy curve when known (e.g. k Gaussian
	// releases of μ: Gaussian with μ√k), for the RDP and Gaussian-DP filters.
	Curve *accounting.Curve
	// Composition states how Cost was computed, e.g. "PLD composition of 24
	// Laplace releases (ε₀ 0.1) fixed in advance".
	Composition string
}

// PLDBatch returns the Batch that charges k releases fixed in advance, each
// recorded like single on its own (its cost and privacy curve), to dataset when its budget uses the PLD-batch
// composition (filter "pld-batch(delta=D)", accounting.PLDBatchFilter): the
// cost and statement of accounting.PLDBatchFilter.BatchCharge. For any other
// filter it returns ok = false, and each release is charged by Spend. It
// reads the dataset's filter only (fixed at creation), no log entry.
func (l *Ledger) PLDBatch(ctx context.Context, dataset string, single Entry, k int) (b Batch, ok bool, err error) {
	if err := checkName(dataset); err != nil {
		return Batch{}, false, err
	}
	d, _, err := l.store.Tail(ctx, dataset)
	if err != nil {
		return Batch{}, false, err
	}
	f, err := accounting.FilterByName(d.Filter)
	if err != nil {
		return Batch{}, false, err
	}
	pf, isBatch := f.(accounting.PLDBatchFilter)
	if !isBatch {
		return Batch{}, false, nil
	}
	c, stmt, err := pf.BatchCharge(accounting.Charge{Cost: single.Cost, Curve: releaseCurve(single)}, k)
	if err != nil {
		return Batch{}, false, fmt.Errorf("%w: batch on %q: %v", ErrInvalid, dataset, err)
	}
	return Batch{Cost: c, Composition: stmt}, true, nil
}

// Spend records e against dataset if the dataset's filter admits its cost
// after the recorded spends, in one transaction; otherwise it returns a
// *BudgetError and records nothing. The check and the record cannot be
// separated by another process's spend. Call Spend before drawing noise and
// release only on nil: a crash after Spend leaves a recorded spend without a
// release (safe), never the converse.
//
// The cost is O(1) in the length of the log: the filter continues from the
// running totals (State) stored in the newest entry, and the newest links of
// the hash chain are verified (see TailLen).
func (l *Ledger) Spend(ctx context.Context, dataset string, e Entry) error {
	return l.spend(ctx, dataset, nil, []Entry{e})
}

// SpendBatch records the entries of a batch fixed in advance (see Batch) in
// one transaction: the filter is charged b's composed cost once (on the
// first entry; the others charge zero and name it in Entry.Batch), all or
// nothing.
func (l *Ledger) SpendBatch(ctx context.Context, dataset string, b Batch, entries []Entry) error {
	if len(entries) == 0 {
		return fmt.Errorf("%w: a batch needs at least one entry", ErrInvalid)
	}
	if err := b.Cost.Validate(); err != nil {
		return fmt.Errorf("ledger: batch on %q: %w", dataset, err)
	}
	return l.spend(ctx, dataset, &b, entries)
}

func (l *Ledger) spend(ctx context.Context, dataset string, b *Batch, es []Entry) error {
	if err := checkName(dataset); err != nil {
		return err
	}
	now := time.Now()
	es = append([]Entry(nil), es...)
	for i := range es {
		if b != nil {
			es[i].Cost, es[i].Curve = accounting.Cost{}, nil
			if i == 0 {
				es[i].Cost, es[i].Curve = b.Cost, b.Curve
			}
		}
		if b == nil {
			es[i].Curve = releaseCurve(es[i])
		}
		if err := validEntry(dataset, es[i]); err != nil {
			return err
		}
		if es[i].Time.IsZero() {
			es[i].Time = now
		}
		if es[i].Case == "" {
			es[i].Case = l.labels.Case
		}
		if es[i].Label == "" {
			es[i].Label = l.labels.Label
		}
		if es[i].UserLabel == "" {
			es[i].UserLabel = l.labels.UserLabel
		}
		es[i].Time = es[i].Time.UTC()
	}
	return l.store.Append(ctx, dataset, func(d Dataset, tail []Entry) ([]Entry, error) {
		f, err := accounting.FilterByName(d.Filter)
		if err != nil {
			return nil, err
		}
		seq, prev, state, err := checkTail(d.Name, tail)
		if err != nil {
			return nil, err // never spend on a log that was edited
		}
		if seq > 0 && tail[len(tail)-1].Composition == "" {
			// The newest entry predates running totals (a ledger written
			// by schema version 1): replay the whole log once. The store
			// holds the dataset's write lock, so the log cannot change.
			if state, err = l.replay(ctx, d.Name); err != nil {
				return nil, err
			}
		}
		requested := es[0].Cost
		if c := charge(es[0]); c != nil {
			next, ok, err := f.Add(d.Budget, state, *c)
			if err != nil {
				return nil, fmt.Errorf("%w: dataset %q: %v", ErrInvalid, d.Name, err)
			}
			if !ok {
				be := &BudgetError{Dataset: d.Name, Filter: d.Filter, Composition: f.Composition(), Budget: d.Budget, Requested: requested, Releases: seq}
				be.Spent, _ = f.Spent(d.Budget, state)
				be.Remaining, _ = f.Remaining(d.Budget, state)
				return nil, be
			}
			state = next
		}
		comp := f.Composition()
		if b != nil && b.Composition != "" {
			comp = b.Composition + "; charged as one release to the " + comp
		}
		first := seq + 1
		for i := range es {
			if c := charge(es[i]); i > 0 && c != nil {
				return nil, fmt.Errorf("%w: entry %d of a single spend", ErrInvalid, i+1)
			}
			seq++
			es[i].Seq, es[i].State, es[i].Composition = seq, state, comp
			if b != nil {
				es[i].Batch = fmt.Sprintf("%d/%d@%d", i+1, len(es), first)
			}
			es[i].Hash = chainHash(prev, es[i])
			prev = es[i].Hash
		}
		return es, nil
	})
}

// checkTail verifies the links of the newest entries and returns the
// newest's Seq, Hash and State ("" for an empty log).
func checkTail(dataset string, tail []Entry) (int64, string, accounting.State, error) {
	if len(tail) == 0 {
		return 0, "", "", nil
	}
	for i := 1; i < len(tail); i++ {
		if tail[i].Seq != tail[i-1].Seq+1 {
			return 0, "", "", fmt.Errorf("%w: dataset %q: entry %d follows entry %d (a row is missing)", ErrCorrupt, dataset, tail[i].Seq, tail[i-1].Seq)
		}
		if chainHash(tail[i-1].Hash, tail[i]) != tail[i].Hash {
			return 0, "", "", fmt.Errorf("%w: dataset %q: entry %d fails the audit hash chain (edited or reordered)", ErrCorrupt, dataset, tail[i].Seq)
		}
	}
	if tail[0].Seq == 1 && chainHash("", tail[0]) != tail[0].Hash {
		return 0, "", "", fmt.Errorf("%w: dataset %q: entry 1 fails the audit hash chain (edited or reordered)", ErrCorrupt, dataset)
	}
	if tail[0].Seq < 1 || (len(tail) < TailLen && tail[0].Seq != 1) {
		return 0, "", "", fmt.Errorf("%w: dataset %q: log starts at entry %d (a row is missing)", ErrCorrupt, dataset, tail[0].Seq)
	}
	last := tail[len(tail)-1]
	return last.Seq, last.Hash, last.State, nil
}

// Status is the state of one dataset's budget.
type Status struct {
	Dataset     string            `json:"dataset"`
	Filter      string            `json:"filter"`
	Composition string            `json:"composition"`
	Budget      accounting.Budget `json:"budget"`
	Spent       accounting.Cost   `json:"spent"`
	Remaining   accounting.Cost   `json:"remaining"`
	Created     time.Time         `json:"created"`
	Count       int64             `json:"count"`    // recorded releases
	Releases    []Entry           `json:"releases"` // the audit log (Status; nil from Budget)
}

func status(d Dataset, f accounting.Filter, state accounting.State, count int64) (Status, error) {
	sp, err := f.Spent(d.Budget, state)
	if err != nil {
		return Status{}, fmt.Errorf("%w: dataset %q: %v", ErrCorrupt, d.Name, err)
	}
	rem, err := f.Remaining(d.Budget, state)
	if err != nil {
		return Status{}, fmt.Errorf("%w: dataset %q: %v", ErrCorrupt, d.Name, err)
	}
	return Status{Dataset: d.Name, Filter: d.Filter, Composition: f.Composition(), Budget: d.Budget, Spent: sp,
		Remaining: rem, Created: d.Created, Count: count}, nil
}

// Budget returns the budget, composed spend and remainder of dataset from
// the newest entries only (O(1); Releases is left empty, the newest links of
// the chain are verified). Status reads and verifies the whole log.
func (l *Ledger) Budget(ctx context.Context, dataset string) (Status, error) {
	d, tail, err := l.store.Tail(ctx, dataset)
	if err != nil {
		return Status{}, err
	}
	f, err := accounting.FilterByName(d.Filter)
	if err != nil {
		return Status{}, err
	}
	seq, _, state, err := checkTail(d.Name, tail)
	if err != nil {
		return Status{}, err
	}
	if seq > 0 && tail[len(tail)-1].Composition == "" { // written by schema version 1
		if state, err = l.replay(ctx, d.Name); err != nil {
			return Status{}, err
		}
	}
	return status(d, f, state, seq)
}

// Status loads dataset, verifies its whole hash chain and recomputes the
// filter's running totals from the charges (a stored State that differs is
// corruption), and returns its budget, composed spend, remainder and
// releases.
func (l *Ledger) Status(ctx context.Context, dataset string) (Status, error) {
	d, log, err := l.store.Load(ctx, dataset)
	if err != nil {
		return Status{}, err
	}
	if err := verifyChain(d.Name, log); err != nil {
		return Status{}, err
	}
	f, err := accounting.FilterByName(d.Filter)
	if err != nil {
		return Status{}, err
	}
	state, err := replayLog(d, f, log)
	if err != nil {
		return Status{}, err
	}
	st, err := status(d, f, state, int64(len(log)))
	if err != nil {
		return Status{}, err
	}
	if log == nil {
		log = []Entry{}
	}
	st.Releases = log
	return st, nil
}

// Statuses returns the Status of every dataset, sorted by name.
func (l *Ledger) Statuses(ctx context.Context) ([]Status, error) {
	names, err := l.store.Datasets(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(names))
	for _, n := range names {
		s, err := l.Status(ctx, n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// replayLog recomputes the filter's running totals over log and checks
// every stored State (entries without a Composition predate running totals
// and store none).
func replayLog(d Dataset, f accounting.Filter, log []Entry) (accounting.State, error) {
	var state accounting.State
	for _, e := range log {
		if c := charge(e); c != nil {
			next, ok, err := f.Add(d.Budget, state, *c)
			if err != nil || !ok {
				return "", fmt.Errorf("%w: dataset %q: entry %d is not admitted by the %s filter on replay", ErrCorrupt, d.Name, e.Seq, f.Name())
			}
			state = next
		}
		if e.Composition != "" && state != e.State {
			return "", fmt.Errorf("%w: dataset %q: entry %d records running totals %q, the replay gives %q", ErrCorrupt, d.Name, e.Seq, e.State, state)
		}
	}
	return state, nil
}

// replay verifies the whole log of dataset and returns its running totals.
func (l *Ledger) replay(ctx context.Context, dataset string) (accounting.State, error) {
	d, log, err := l.store.Load(ctx, dataset)
	if err != nil {
		return "", err
	}
	if err := verifyChain(d.Name, log); err != nil {
		return "", err
	}
	f, err := accounting.FilterByName(d.Filter)
	if err != nil {
		return "", err
	}
	return replayLog(d, f, log)
}

// verifyChain recomputes the hash chain and the sequence numbers of a log.
func verifyChain(dataset string, log []Entry) error {
	prev := ""
	for i, e := range log {
		if e.Seq != int64(i)+1 {
			return fmt.Errorf("%w: dataset %q: entry %d has sequence number %d (a row is missing)", ErrCorrupt, dataset, i+1, e.Seq)
		}
		if h := chainHash(prev, e); h != e.Hash {
			return fmt.Errorf("%w: dataset %q: entry %d fails the audit hash chain (edited or reordered)", ErrCorrupt, dataset, e.Seq)
		}
		prev = e.Hash
	}
	return nil
}

// Verify checks the hash chain and the running totals of every dataset's log.
func (l *Ledger) Verify(ctx context.Context) error {
	_, err := l.Statuses(ctx)
	return err
}

// Export is the JSON document written by Ledger.Export.
type Export struct {
	Format   string   `json:"format"` // "privopt-ledger/2"
	Datasets []Status `json:"datasets"`
}

// ExportFormat names the version of the Export document.
const ExportFormat = "privopt-ledger/2"

// Export writes every dataset (budget, composition, spent, remaining, full
// audit log with labels) as one indented JSON document (type Export), after
// verifying every chain.
func (l *Ledger) Export(ctx context.Context, w io.Writer) error {
	st, err := l.Statuses(ctx)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Export{Format: ExportFormat, Datasets: st}); err != nil {
		return fmt.Errorf("ledger: export: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// ExportCSV writes the audit log of every dataset as CSV (RFC 4180) with
// the header dataset,seq,time,case,label,user_label,query,mechanism,epsilon,
// delta,gamma,batch,composition,sensitivity,guarantee,hash — for
// spreadsheets; the JSON export is the complete record.
func (l *Ledger) ExportCSV(ctx context.Context, w io.Writer) error {
	st, err := l.Statuses(ctx)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "seq", "time", "case", "label", "user_label", "query", "mechanism", "epsilon", "delta", "gamma", "batch", "composition", "sensitivity", "guarantee", "hash"})
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, s := range st {
		for _, e := range s.Releases {
			cw.Write([]string{s.Dataset, strconv.FormatInt(e.Seq, 10), e.Time.Format(time.RFC3339Nano), e.Case, e.Label, e.UserLabel, e.Query, e.Mechanism,
				g(e.Cost.Epsilon), g(e.Cost.Delta), g(e.Cost.Gamma), e.Batch, e.Composition, e.Sensitivity, e.Guarantee, e.Hash})
		}
	}
	cw.Flush()
	return cw.Error()
}
