package opfrelease

import (
	"fmt"
	"strconv"
	"strings"
)

// QueryKind selects the released statistic of the dispatch.
type QueryKind int

const (
	// Cost releases the optimal dispatch cost (the program's optimal value),
	// whose sensitivity over the declared load domain is certified
	// (grid.CertifyCostSensitivity).
	Cost QueryKind = iota
	// GenSubset releases the aggregate output Σ_{g∈G} p_g of a subset G of
	// generators. LP dispatches are not unique (ties between equal-cost units
	// swap output: on 24_ieee_rts one MW less at bus 7 moves a three-unit subset
	// by about 60 MW), so no sensitivity can be certified: the caller must
	// declare one, and every output labels it assumed.
	GenSubset
)

// Query is the released statistic. Gens holds 0-based rows of mpc.gen for
// GenSubset.
type Query struct {
	Kind QueryKind
	Gens []int
}

// MaxQueryGens caps the generator rows a gen-subset query may list (ranges
// are checked against it before they are expanded).
const MaxQueryGens = 1_000_000

// ParseQuery parses "cost" or "gen-subset:LIST" with LIST comma-separated
// 1-based generator rows of mpc.gen, ranges allowed ("gen-subset:1,3,5-8").
func ParseQuery(s string) (Query, error) {
	if s == "cost" {
		return Query{Kind: Cost}, nil
	}
	list, ok := strings.CutPrefix(s, "gen-subset:")
	if !ok {
		return Query{}, fmt.Errorf("opfrelease: query %q: must be \"cost\" or \"gen-subset:LIST\"", s)
	}
	var gens []int
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 || a > MaxQueryGens {
			return Query{}, fmt.Errorf("opfrelease: query %q: generator %q is not a row number in [1, %d]", s, part, MaxQueryGens)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > MaxQueryGens {
				return Query{}, fmt.Errorf("opfrelease: query %q: bad range %q (rows 1 to %d, increasing)", s, part, MaxQueryGens)
			}
		}
		if len(gens)+(b-a+1) > MaxQueryGens {
			return Query{}, fmt.Errorf("opfrelease: query %q lists more than %d generators", s, MaxQueryGens)
		}
		for g := a; g <= b; g++ {
			gens = append(gens, g-1)
		}
	}
	return Query{Kind: GenSubset, Gens: gens}, nil
}

// String returns the query in ParseQuery's syntax.
func (q Query) String() string {
	if q.Kind == Cost {
		return "cost"
	}
	parts := make([]string, len(q.Gens))
	for i, g := range q.Gens {
		parts[i] = strconv.Itoa(g + 1)
	}
	return "gen-subset:" + strings.Join(parts, ",")
}
