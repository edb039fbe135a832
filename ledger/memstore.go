package ledger

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// MemoryStore is a Store in memory, for one process: the same check-and-spend
// semantics as the SQLite store (Append holds a mutex around prepare and the
// append) without persistence. For tests and for programs whose budget
// deliberately ends with the process.
type MemoryStore struct {
	mu       sync.Mutex
	datasets map[string]Dataset
	logs     map[string][]Entry
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{datasets: map[string]Dataset{}, logs: map[string][]Entry{}}
}

// CreateDataset implements Store.
func (s *MemoryStore) CreateDataset(_ context.Context, d Dataset) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.datasets[d.Name]; ok {
		if old.Budget != d.Budget || old.Filter != d.Filter {
			return fmt.Errorf("%w: %q has budget (ε %g, δ %g, γ %g, %s filter), asked (ε %g, δ %g, γ %g, %s filter)", ErrDatasetExists, d.Name,
				old.Budget.Epsilon, old.Budget.Delta, old.Budget.Gamma, old.Filter, d.Budget.Epsilon, d.Budget.Delta, d.Budget.Gamma, d.Filter)
		}
		return nil
	}
	s.datasets[d.Name] = d
	return nil
}

func tailOf(log []Entry) []Entry {
	if len(log) > TailLen {
		log = log[len(log)-TailLen:]
	}
	return append([]Entry(nil), log...)
}

// Append implements Store.
func (s *MemoryStore) Append(ctx context.Context, dataset string, prepare func(Dataset, []Entry) ([]Entry, error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.datasets[dataset]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownDataset, dataset)
	}
	log := s.logs[dataset]
	es, err := prepare(d, tailOf(log))
	if err != nil {
		return err
	}
	s.logs[dataset] = append(log, es...)
	return nil
}

// Tail implements Store.
func (s *MemoryStore) Tail(_ context.Context, dataset string) (Dataset, []Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.datasets[dataset]
	if !ok {
		return d, nil, fmt.Errorf("%w: %q", ErrUnknownDataset, dataset)
	}
	return d, tailOf(s.logs[dataset]), nil
}

// Load implements Store.
func (s *MemoryStore) Load(_ context.Context, dataset string) (Dataset, []Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.datasets[dataset]
	if !ok {
		return d, nil, fmt.Errorf("%w: %q", ErrUnknownDataset, dataset)
	}
	return d, append([]Entry(nil), s.logs[dataset]...), nil
}

// Datasets implements Store.
func (s *MemoryStore) Datasets(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.datasets))
	for n := range s.datasets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// Close implements Store (no-op).
func (s *MemoryStore) Close() error { return nil }
