package solver

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// registry maps backend names to constructors (Register, ByName).
var registry struct {
	sync.RWMutex
	m map[string]func() Solver
}

// Register makes a backend available to ByName under name (its Name()). The
// backend packages register themselves when imported: solver/highs as
// "highs", solver/ipm as "ipm", solver/auto as "auto" (importing solver/auto
// registers all three). Registering a name twice panics, as a programming
// error.
func Register(name string, newSolver func() Solver) {
	registry.Lock()
	defer registry.Unlock()
	if registry.m == nil {
		registry.m = map[string]func() Solver{}
	}
	if _, dup := registry.m[name]; dup {
		panic("solver: Register called twice for " + name)
	}
	registry.m[name] = newSolver
}

// ByName returns a new backend at its default options by name: "auto" (the
// default route of package solver/auto, also for the empty name), "highs" or
// "ipm", or any other registered backend. It is the one place where a name
// from a flag or a configuration becomes a backend; the choice of backend by
// problem class is made by solver/auto alone. The error wraps ErrInvalid and
// lists the registered names.
func ByName(name string) (Solver, error) {
	if name == "" {
		name = "auto"
	}
	registry.RLock()
	f, ok := registry.m[name]
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	registry.RUnlock()
	if !ok {
		sort.Strings(names)
		return nil, fmt.Errorf("%w: unknown solver %q (registered: %s; import solver/auto to register auto, highs and ipm)", ErrInvalid, name, strings.Join(names, ", "))
	}
	return f(), nil
}
