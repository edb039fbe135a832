package chance

import (
	"fmt"
	"math"
)

func checkRisk(name string, v float64) error {
	if !(v > 0 && v < 1) {
		return fmt.Errorf("%w: %s is %v, must be in (0, 1)", ErrInvalid, name, v)
	}
	return nil
}

// VertexSampleSize returns the number of samples S of ζ ∈ Rᵏ after which the
// box spanned by their component-wise minima and maxima yields, with confidence
// at least 1 − β, a solution feasible for the chance constraint with risk η
// (Margellos, Goulart and Lygeros 2014, as stated in Dvorkin et al. Prop. 3.3):
//
//	S = ⌈ (1/η)·(e/(e−1))·(2k − 1 + ln(1/β)) ⌉.
//
// η = 0.01, β = 0.1, k = 1 gives 523.
func VertexSampleSize(eta, beta float64, k int) (int, error) {
	if err := checkRisk("eta", eta); err != nil {
		return 0, err
	}
	if err := checkRisk("beta", beta); err != nil {
		return 0, err
	}
	if k < 1 {
		return 0, fmt.Errorf("%w: k is %d, must be ≥ 1", ErrInvalid, k)
	}
	s := (1 / eta) * (math.E / (math.E - 1)) * (2*float64(k) - 1 + math.Log(1/beta))
	if s > 1<<40 {
		return 0, fmt.Errorf("%w: vertex sample size %.3g is too large (eta %v, beta %v, k %d)", ErrInvalid, s, eta, beta, k)
	}
	return int(math.Ceil(s)), nil
}

// ScenarioSampleSize returns the smallest N such that
//
//	Σ_{i=0}^{d−1} C(N, i) ηⁱ (1 − η)^{N−i} ≤ β,
//
// the exact sample size of the scenario approach for a convex program with d
// decision variables (Campi and Garatti, "The exact feasibility of randomized
// solutions of uncertain convex programs", SIAM J. Optim. 19(3), 2008,
// Theorem 1; it refines Calafiore and Campi 2006): with N samples, the scenario
// solution violates the chance constraint with probability more than η with
// confidence at least 1 − β. The binomial tail is evaluated in log space; the
// search doubles then bisects, O(d·log N) work.
func ScenarioSampleSize(eta, beta float64, d int) (int, error) {
	if err := checkRisk("eta", eta); err != nil {
		return 0, err
	}
	if err := checkRisk("beta", beta); err != nil {
		return 0, err
	}
	if d < 1 {
		return 0, fmt.Errorf("%w: number of decision variables is %d, must be ≥ 1", ErrInvalid, d)
	}
	ok := func(n int) bool { return binomialTail(n, d, eta) <= beta }
	lo, hi := d-1, d
	for !ok(hi) {
		lo = hi
		hi *= 2
		if hi > 1<<40 {
			return 0, fmt.Errorf("%w: scenario sample size exceeds 2^40 (eta %v, beta %v, d %d)", ErrInvalid, eta, beta, d)
		}
	}
	for hi-lo > 1 { // invariant: !ok(lo) (or lo < d), ok(hi)
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// binomialTail returns Pr[Bin(n, eta) ≤ d−1] = Σ_{i<d} C(n,i) ηⁱ(1−η)^{n−i}.
func binomialTail(n, d int, eta float64) float64 {
	if n < d {
		return 1
	}
	le, l1 := math.Log(eta), math.Log1p(-eta)
	lgN, _ := math.Lgamma(float64(n) + 1)
	// Sum with the largest term factored out for stability.
	terms := make([]float64, d)
	mx := math.Inf(-1)
	for i := 0; i < d; i++ {
		a, _ := math.Lgamma(float64(i) + 1)
		b, _ := math.Lgamma(float64(n-i) + 1)
		terms[i] = lgN - a - b + float64(i)*le + float64(n-i)*l1
		mx = math.Max(mx, terms[i])
	}
	s := 0.0
	for _, t := range terms {
		s += math.Exp(t - mx)
	}
	return math.Exp(mx) * s
}
