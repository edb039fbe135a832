package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
// fills Query, Mechanism, Params, Cost, Sensitivity and Guarantee; Spend sets
// Seq, Hash and (when zero) Time.
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
	// Cost is the (ε, δ, γ) the release spends.
	Cost accounting.Cost `json:"cost"`
	// Sensitivity is the provenance of the sensitivity, e.g.
	// "37.2 certified (opf-price-cap)" or "2 declared, not verified".
	Sensitivity string `json:"sensitivity"`
	// Guarantee is the one-line statement of the release, e.g.
	// "(1, 0)-DP; sensitivity 37.2 certified (opf-price-cap)".
	Guarantee string `json:"guarantee"`
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

// Store persists datasets and their audit logs. Implementations: the SQLite
// store of Open (default) and, for several machines sharing one budget, the
// PostgreSQL store of package ledger/pgstore. Every method is safe for
// concurrent use by several goroutines and several processes.
type Store interface {
	// CreateDataset stores d. If a dataset of that name exists with the same
	// budget and filter it returns nil, otherwise an error wrapping
	// ErrDatasetExists.
	CreateDataset(ctx context.Context, d Dataset) error
	// Append runs prepare on the dataset and its full log and appends the entry
	// it returns, in ONE transaction that no other Append on the same dataset
	// (in any process) can interleave with. If prepare returns an error nothing
	// is written and the error is returned. When Append returns nil the entry
	// is durable (committed and synced).
	Append(ctx context.Context, dataset string, prepare func(d Dataset, log []Entry) (Entry, error)) error
	// Load returns the dataset and its log in Seq order (ErrUnknownDataset
	// if absent).
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
	store Store
}

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
// filter (accounting.BasicFilter). Budget.Epsilon must be > 0. Calling Init
// again with the same budget is a no-op; with another budget it fails with
// ErrDatasetExists (budgets are immutable: a ledger never forgets spends by
// being re-created).
func (l *Ledger) Init(ctx context.Context, dataset string, b accounting.Budget) error {
	if err := checkName(dataset); err != nil {
		return err
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("ledger: budget of %q: %w", dataset, err)
	}
	if !(b.Epsilon > 0) {
		return fmt.Errorf("%w: budget epsilon of %q is %v, must be > 0", ErrInvalid, dataset, b.Epsilon)
	}
	return l.store.CreateDataset(ctx, Dataset{Name: dataset, Budget: b, Filter: accounting.BasicFilter{}.Name(), Created: time.Now().UTC()})
}

// BudgetError is returned by Spend when the filter refuses the release: it
// names the dataset, its budget, what was spent and what is left. It matches
// ErrBudgetExceeded under errors.Is.
type BudgetError struct {
	Dataset   string
	Filter    string
	Budget    accounting.Budget
	Spent     accounting.Cost // composed cost of the recorded releases
	Remaining accounting.Cost // what the filter still admits
	Requested accounting.Cost // the refused release
	Releases  int             // recorded releases
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

func costs(log []Entry) []accounting.Cost {
	cs := make([]accounting.Cost, len(log))
	for i, e := range log {
		cs[i] = e.Cost
	}
	return cs
}

func remaining(f accounting.Filter, b accounting.Budget, prior []accounting.Cost) accounting.Cost {
	if bf, ok := f.(accounting.BasicFilter); ok {
		return bf.Remaining(b, prior)
	}
	return accounting.Cost{}
}

// Spend records e against dataset if the dataset's filter admits its cost
// after the recorded spends, in one transaction; otherwise it returns a
// *BudgetError and records nothing. The check and the record cannot be
// separated by another process's spend. Call Spend before drawing noise and
// release only on nil: a crash after Spend leaves a recorded spend without a
// release (safe), never the converse.
func (l *Ledger) Spend(ctx context.Context, dataset string, e Entry) error {
	if err := checkName(dataset); err != nil {
		return err
	}
	if err := e.Cost.Validate(); err != nil {
		return fmt.Errorf("ledger: spend on %q: %w", dataset, err)
	}
	for k, v := range e.Params {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: parameter %q is %v, must be finite", ErrInvalid, k, v)
		}
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	return l.store.Append(ctx, dataset, func(d Dataset, log []Entry) (Entry, error) {
		if err := verifyChain(d.Name, log); err != nil {
			return Entry{}, err // never spend on a log that was edited
		}
		f, err := accounting.FilterByName(d.Filter)
		if err != nil {
			return Entry{}, err
		}
		prior := costs(log)
		if !f.Admit(d.Budget, prior, e.Cost) {
			return Entry{}, &BudgetError{Dataset: d.Name, Filter: d.Filter, Budget: d.Budget,
				Spent: f.Spent(prior), Remaining: remaining(f, d.Budget, prior), Requested: e.Cost, Releases: len(log)}
		}
		prev := ""
		if n := len(log); n > 0 {
			prev = log[n-1].Hash
		}
		e.Seq = int64(len(log)) + 1
		e.Hash = chainHash(prev, e)
		return e, nil
	})
}

// Status is the state of one dataset's budget.
type Status struct {
	Dataset   string            `json:"dataset"`
	Filter    string            `json:"filter"`
	Budget    accounting.Budget `json:"budget"`
	Spent     accounting.Cost   `json:"spent"`
	Remaining accounting.Cost   `json:"remaining"`
	Created   time.Time         `json:"created"`
	Releases  []Entry           `json:"releases"`
}

// Status loads dataset, verifies its hash chain and returns its budget,
// composed spend, remainder and releases.
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
	prior := costs(log)
	if log == nil {
		log = []Entry{}
	}
	return Status{Dataset: d.Name, Filter: d.Filter, Budget: d.Budget, Spent: f.Spent(prior),
		Remaining: remaining(f, d.Budget, prior), Created: d.Created, Releases: log}, nil
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

// Verify checks the hash chain of every dataset's log.
func (l *Ledger) Verify(ctx context.Context) error {
	_, err := l.Statuses(ctx)
	return err
}

// Export is the JSON document written by Ledger.Export.
type Export struct {
	Format   string   `json:"format"` // "privopt-ledger/1"
	Datasets []Status `json:"datasets"`
}

// ExportFormat names the version of the Export document.
const ExportFormat = "privopt-ledger/1"

// Export writes every dataset (budget, spent, remaining, full audit log) as
// one indented JSON document (type Export).
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
