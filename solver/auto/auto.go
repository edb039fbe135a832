// Package auto is privopt's default backend: it chooses HiGHS or the
// interior-point solver by problem class, re-checks the answer on the
// caller's data and falls back to the other backend when the answer is not a
// verified optimum or a certified infeasibility.
//
// Route (first backend, then the fallback):
//
//	LP (zero/nonnegative cones, P = 0)       highs → ipm
//	  with ≤ DefaultSmallLPNnz nonzeros      ipm → highs (not with SmallLPNnz < 0 or Settings.Warm)
//	  with < DefaultConcurrentNnz nonzeros,  ipm → highs (likewise; MidLPFavoursIPM)
//	    sparse columns, mostly distinct costs
//	  with ≥ DefaultConcurrentNnz nonzeros   highs ∥ ipm (concurrent: first certified answer)
//	convex QP (same cones, P ≠ 0)            ipm → highs
//	any other cone                           ipm
//
// HiGHS's simplex is the most robust LP method here and the fastest on the
// DC-OPF LPs of the releases from about 1,400 nonzeros, whose simplex needs
// few pivots; on smaller LPs the IPM's ten or so iterations cost less than
// the simplex's setup and pivots (BENCHMARKS.md, "Small LPs on the default
// route, round 9": on random LPs of 10–400 variables and on PGLib DC-OPF
// LPs, see SmallLP). Between the two sizes the IPM also goes first on LPs
// with sparse columns and mostly distinct costs, where the simplex's pivots
// dominate (random sparse and set-cover LPs: the IPM 2–14× faster), while
// degenerate LPs (few distinct costs: transportation, assignment, B-θ
// DC-OPF) and LPs of few dense columns (PTDF DC-OPF) keep HiGHS first
// (BENCHMARKS.md, "Mid-size LPs on the default route, round 11"; see
// MidLPFavoursIPM). For QPs HiGHS's active-set solver failed the re-check
// or stalled on a third of the Maros–Mészáros set (BENCHMARKS.md, "Public
// benchmark libraries"), while the interior-point method solves them, so
// QPs start with the IPM.
//
// A small LP answered by the IPM gets a point of the relative interior of
// its optimal face (and duals likewise), not a vertex: where the optimum is
// not unique that is another optimal point than HiGHS's basic solution.
// Callers that read a basic solution (an active set, dual prices at a
// vertex) use NewSimplexFirst (SmallLPNnz = −1), as model.Canonical.Solve's
// default route and the query package's evaluations do; a solve with a warm
// start (Settings.Warm, HiGHS's basis carried between related solves) keeps
// HiGHS first as well.
//
// An answer is kept when its status is Optimal (every backend certifies that
// on the original data with solver.Certify) or PrimalInfeasible /
// DualInfeasible with a certificate that passes solver.CheckCertificate on
// the caller's data at CertificateTolerance (a certificate that fails is
// removed from the answer, which then no longer ends the route); a cancelled
// or timed-out solve is returned as it is.
//
// "Unbounded" claims a feasible point as well as an improving ray, and a
// backend that finds the ray first may never look for the point (the IPM on
// some primal-and-dual infeasible SOCPs). So a DualInfeasible answer is
// confirmed by a feasible point: the one the backend returned with the ray
// (Solution.FeasiblePoint) when it passes solver.CheckFeasible on the
// caller's data, else by solving the feasibility problem (q = 0, P = 0)
// along the same route: when that is infeasible with a verified Farkas certificate the
// answer becomes PrimalInfeasible (the primal certificate takes precedence,
// as in HiGHS) with the certificate in Solution.Y and the verified ray kept
// in Solution.X; when the feasibility solve ends without a decision the
// DualInfeasible answer is returned with a diagnostic saying so. Otherwise the next backend runs (with what remains of
// Settings.TimeLimit) and the better of the two answers is returned, in the
// order Optimal > certified infeasibility > AlmostOptimal > the first answer
// (between two AlmostOptimal answers, the one with the smaller re-checked
// violation, objective sensitivity included). When no answer ended the
// route and the one kept claims infeasibility or unboundedness without a
// verified certificate, the feasibility problem is solved along the route
// and its verified Farkas certificate, if any, answers PrimalInfeasible
// (certifyInfeasible): the backends' uncertified claims can disagree.
// Solution.Solver names the backend that answered, Solution.Fallback the one
// whose answer was rejected, and Solution.Diagnostic says why.
package auto

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/privopt/privopt/cone"
	"github.com/privopt/privopt/solver"
	"github.com/privopt/privopt/solver/highs"
	"github.com/privopt/privopt/solver/ipm"
)

var _ solver.Solver = (*Solver)(nil)

// Solver is the automatic backend. The zero value is not usable; call New.
type Solver struct {
	highs, ipm solver.Solver
	// ConcurrentNnz overrides DefaultConcurrentNnz, the number of nonzeros
	// of A from which an LP takes the concurrent route (see Concurrent): 0
	// means the default, a negative value never.
	ConcurrentNnz int
	// SmallLPNnz overrides DefaultSmallLPNnz, the number of nonzeros of A
	// up to which an LP starts with the interior-point backend (see
	// SmallLP): 0 means the default, a negative value never (every LP
	// starts with HiGHS's simplex and, when it answers, gets a basic
	// solution: a vertex, and dual prices at a vertex of the dual face).
	SmallLPNnz int
}

func init() { solver.Register("auto", func() solver.Solver { return New() }) }

// New returns the automatic backend with HiGHS at its default options and
// the IPM at its defaults except that it answers "unbounded" without grace
// iterations (see confirmingIPM).
func New() *Solver { return &Solver{highs: highs.New(), ipm: confirmingIPM} }

// NewSimplexFirst returns New with SmallLPNnz = −1: every LP starts with
// HiGHS's simplex whatever its size, so an LP's answer is a basic solution
// (a vertex, and dual prices at a vertex of the dual face) whenever HiGHS
// answers. It is the route of the callers that read a basic solution off
// an LP (model.Canonical.Solve's default, chance and query's evaluations,
// opfrelease's plan).
func NewSimplexFirst() *Solver {
	s := New()
	s.SmallLPNnz = -1
	return s
}

// confirmingIPM is the route's interior-point backend: it answers
// "unbounded" as soon as it has an improving ray (ipm.NoGrace), because the
// route decides primal feasibility itself (confirmFeasible) instead of the
// IPM's ten grace iterations that look for a primal certificate.
var confirmingIPM = func() *ipm.Solver {
	s, err := ipm.NewWithSettings(ipm.Settings{Termination: ipm.Termination{DualInfeasibleGrace: ipm.NoGrace}})
	if err != nil {
		panic(err) // constant settings
	}
	return s
}()

// NewWith returns the automatic backend over the given LP/QP backend (used
// for zero and nonnegative cones) and conic backend (every cone); either may
// be configured by the caller, e.g. highs.NewWithOptions.
func NewWith(lpqp, conic solver.Solver) (*Solver, error) {
	if lpqp == nil || conic == nil {
		return nil, fmt.Errorf("auto: both backends are required (got lpqp %v, conic %v)", lpqp, conic)
	}
	return &Solver{highs: lpqp, ipm: conic}, nil
}

// Name returns "auto"; Solution.Solver names the backend that answered.
func (*Solver) Name() string { return "auto" }

// Supports reports whether one of the two backends accepts cones of kind k.
func (s *Solver) Supports(k cone.Kind) bool { return s.highs.Supports(k) || s.ipm.Supports(k) }

// Route returns the backends Solve tries for p, in order (see the package
// documentation): for an LP, the IPM first when SmallLP(p) holds, HiGHS
// first otherwise. Solve keeps HiGHS first for an LP solved with a warm
// start (Settings.Warm), which Route, without the settings, does not see.
func (s *Solver) Route(p *solver.Problem) []solver.Solver {
	return s.route(p, solver.Settings{})
}

// route is Route for a solve with settings set: a warm start (set.Warm)
// carries HiGHS's basis from one solve to the next, so an LP solved with one
// keeps HiGHS first whatever its size.
func (s *Solver) route(p *solver.Problem, set solver.Settings) []solver.Solver {
	if !p.IsLinearConic() {
		return []solver.Solver{s.ipm}
	}
	if p.P != nil && p.P.Nnz() > 0 {
		return []solver.Solver{s.ipm, s.highs}
	}
	if set.Warm == nil && s.SmallLP(p) {
		return []solver.Solver{s.ipm, s.highs}
	}
	return []solver.Solver{s.highs, s.ipm}
}

// SmallLP reports whether the LP p starts with the interior-point backend:
// A has at most DefaultSmallLPNnz nonzeros (or Solver.SmallLPNnz; negative:
// never), or MidLPFavoursIPM(p) holds (more nonzeros than that but fewer
// than DefaultConcurrentNnz, sparse columns and mostly distinct costs; not
// with SmallLPNnz < 0). The number of nonzeros bounds the work of one IPM iteration
// (the KKT factorization), while the simplex's work grows with its number
// of pivots, which no size measures: on the random LPs the IPM stays ahead
// up to 400 variables (2,800 nonzeros), on the DC-OPF LPs HiGHS is ahead
// from about 1,400 nonzeros (118 buses). The caller must check that p is
// an LP (zero and nonnegative cones, P = 0).
func (s *Solver) SmallLP(p *solver.Problem) bool {
	k := s.SmallLPNnz
	if k == 0 {
		k = DefaultSmallLPNnz
	}
	return k > 0 && (p.A.Nnz() <= k || MidLPFavoursIPM(p))
}

// Solve solves p along Route(p), or on the concurrent route when
// Concurrent(p) holds. The error is non-nil only when every backend rejects
// the input (invalid problem, non-convex P, bad settings); it is then the
// first backend's error.
func (s *Solver) Solve(ctx context.Context, p *solver.Problem, set solver.Settings) (*solver.Solution, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: problem is nil", solver.ErrInvalid)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	route := s.route(p, set)
	var r race
	if s.Concurrent(p) {
		r = s.concurrent(ctx, p, set, route)
	} else {
		for _, b := range route {
			st := set
			if set.TimeLimit > 0 {
				st.TimeLimit = set.TimeLimit - time.Since(start)
				if st.TimeLimit <= 0 {
					break
				}
			}
			sol, err := s.try(ctx, b, p, st)
			r.add(b, sol, err)
			if sol != nil && (accepted(sol) || sol.Status.Early()) || ctx.Err() != nil {
				break
			}
		}
	}
	best := r.best
	if best == nil {
		if r.firstErr != nil {
			return nil, r.firstErr
		}
		return &solver.Solution{Status: solver.TimeLimit, Solver: route[0].Name()}, nil
	}
	if best.Status == solver.DualInfeasible && accepted(best) {
		best = s.confirmFeasible(ctx, p, set, start, best)
	} else if uncertifiedClaim(best) && ctx.Err() == nil {
		best = s.certifyInfeasible(ctx, p, set, start, best)
	}
	if len(r.tried) > 1 {
		msg := "tried " + joinTried(r.tried) + "; answered by " + best.Solver
		if best.Diagnostic != "" {
			msg = best.Diagnostic + "; " + msg
		}
		best.Diagnostic = msg
	}
	if r.note != "" {
		best.Diagnostic = appendMsg(best.Diagnostic, r.note)
	}
	best.SolveTime = time.Since(start)
	return best, nil
}

// try runs backend b on p and checks an infeasibility or unboundedness
// certificate on p's data (CheckCertificate at CertificateTolerance),
// removing a certificate that fails, so that the answer no longer ends the
// route.
func (s *Solver) try(ctx context.Context, b solver.Solver, p *solver.Problem, set solver.Settings) (*solver.Solution, error) {
	sol, err := b.Solve(ctx, p, set)
	if err != nil {
		return nil, err
	}
	if sol.Solver == "" {
		sol.Solver = b.Name()
	}
	if sol.Status == solver.PrimalInfeasible || sol.Status == solver.DualInfeasible {
		if err := solver.CheckCertificate(p, sol, CertificateTolerance); err != nil {
			sol.Diagnostic = appendMsg(sol.Diagnostic, "certificate rejected: "+err.Error())
			if sol.Status == solver.PrimalInfeasible {
				sol.Y = nil
			} else {
				sol.X = nil
			}
		}
	}
	return sol, nil
}

// race collects the answers of the backends tried, keeping the best (rank,
// then the smaller re-checked violation between two OK answers).
type race struct {
	best     *solver.Solution
	tried    []string
	firstErr error
	note     string // the concurrent route's account of the race
}

func (r *race) add(b solver.Solver, sol *solver.Solution, err error) {
	if err != nil {
		// A backend may refuse what the other accepts (the IPM's
		// convexity test of P is stricter than HiGHS's): go on.
		if r.firstErr == nil {
			r.firstErr = err
		}
		r.tried = append(r.tried, fmt.Sprintf("%s refused the problem (%v)", b.Name(), err))
		return
	}
	r.tried = append(r.tried, describe(sol))
	best := r.best
	if best == nil || rank(sol) > rank(best) || (rank(sol) == rank(best) && sol.Status.OK() && sol.Accuracy.Max() < best.Accuracy.Max()) {
		if best != nil {
			sol.Fallback = best.Solver
		}
		r.best = sol
	}
}

// DefaultSmallLPNnz is the size up to which an LP starts with the
// interior-point backend: A with at most this many nonzeros (see SmallLP).
// It was tuned on one half of the measured LPs and validated on the other
// (BENCHMARKS.md, "Small LPs on the default route, round 9"): with the
// rule "IPM first when nnz(A) ≤ T", the geometric-mean slowdown against
// the faster route of each instance is smallest in the larger of its two
// groups (random LPs, smallconic seed 1; PGLib DC-OPF LPs of 5, 24, 57
// and 118 buses) for T in [1594, 2378]: 1.21 in both, against 2.84 and
// 1.42 with HiGHS first always. On the held-out half (seed 2; 14, 30, 89,
// 300 buses) T = 2000 gives 1.15 and 1.08, HiGHS first always 2.43 and
// 1.05.
const DefaultSmallLPNnz = 2000

// DefaultConcurrentNnz is the size from which an LP takes the concurrent
// route: A with at least this many nonzeros (see Concurrent).
const DefaultConcurrentNnz = 20000

// Concurrent reports whether Solve runs both backends of p's route side by
// side: p is an LP (zero and nonnegative cones, no P) whose A has at least
// DefaultConcurrentNnz nonzeros (or Solver.ConcurrentNnz), and at least two
// CPUs are available to the Go scheduler (runtime.GOMAXPROCS). The size is
// where a second solve stops costing more than it saves: from about 10⁴
// nonzeros HiGHS's simplex needs seconds on random sparse LPs and the IPM
// less (BENCHMARKS.md, "Concurrent LP route"); on the structured LPs of the
// releases (DC-OPF) the simplex stays the faster, and racing keeps both
// cases at the faster backend's time.
func (s *Solver) Concurrent(p *solver.Problem) bool {
	k := s.ConcurrentNnz
	if k == 0 {
		k = DefaultConcurrentNnz
	}
	return k > 0 && p.IsLinearConic() && (p.P == nil || p.P.Nnz() == 0) && p.A.Nnz() >= k && runtime.GOMAXPROCS(0) >= 2
}

// LoserGrace is how long the concurrent route waits, once it has a winner,
// for the cancelled backend to return before answering without it. HiGHS
// reads its interrupt flag only between two simplex iterations, and one
// iteration of its dual simplex on a 6,000 × 5,000 random sparse LP was
// measured at up to 3.7 s (BENCHMARKS.md, "Solver trust, round 3"): the
// route does not wait for that. A backend still running after LoserGrace
// finishes its iteration in the background on a private copy of the problem
// (so the caller may reuse p at once), and its answer is discarded.
const LoserGrace = 100 * time.Millisecond

// concurrent runs the backends of route side by side, as commercial
// solvers' concurrent LP mode does: the first answer that ends the route (a
// verified optimum or a certified infeasibility) wins and the other solve is
// cancelled (both backends stop at their next iteration when the context is
// cancelled; the route waits at most LoserGrace for that); when the first
// answer does not end the route, the other backend's answer is awaited and
// the better of the two kept. The race is recorded in Solution.Diagnostic
// ("concurrent route: highs answered first after 1.2s; ipm cancelled
// (stopped 3ms later)") and Solution.Solver names the winner.
func (s *Solver) concurrent(ctx context.Context, p *solver.Problem, set solver.Settings, route []solver.Solver) race {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		b   solver.Solver
		sol *solver.Solution
		err error
		at  time.Duration
	}
	// The backends read a private copy: a loser may outlive this call.
	own := &solver.Problem{Q: append([]float64(nil), p.Q...), R: p.R, A: p.A.Clone(),
		B: append([]float64(nil), p.B...), Cones: append([]cone.Cone(nil), p.Cones...)}
	if p.P != nil {
		own.P = p.P.Clone()
	}
	start := time.Now()
	ch := make(chan result, len(route)) // buffered: a late loser never blocks
	for _, b := range route {
		go func() {
			sol, err := s.try(rctx, b, own, set)
			ch <- result{b, sol, err, time.Since(start)}
		}()
	}
	var r race
	var winner string
	var grace <-chan time.Time
	for pending := len(route); pending > 0; pending-- {
		var res result
		select {
		case res = <-ch:
		case <-grace:
			for _, b := range route {
				if b.Name() != winner {
					r.note += fmt.Sprintf("; %s cancelled (still stopping after %v: its answer is discarded)", b.Name(), LoserGrace)
				}
			}
			return r
		}
		if winner != "" {
			// the loser, back after the cancellation: not an answer
			r.note += fmt.Sprintf("; %s cancelled (stopped %v later)", res.b.Name(), (res.at - r.best.SolveTime).Round(time.Millisecond))
			continue
		}
		r.add(res.b, res.sol, res.err)
		if res.sol != nil && accepted(res.sol) && r.best == res.sol {
			winner = res.b.Name()
			first := "answered first"
			if len(r.tried) > 1 {
				first = "answered second, the first answer not ending the route,"
			}
			r.note = fmt.Sprintf("concurrent route: %s %s after %v", winner, first, res.at.Round(time.Millisecond))
			res.sol.SolveTime = res.at
			cancel()
			grace = time.After(LoserGrace)
		}
	}
	if winner == "" {
		r.note = "concurrent route: no backend ended the route, the better answer is kept"
	}
	return r
}

func describe(sol *solver.Solution) string {
	d := sol.Solver + " " + sol.Status.String()
	if sol.Diagnostic != "" {
		d += " (" + sol.Diagnostic + ")"
	}
	return d
}

func joinTried(t []string) string {
	out := t[0]
	for _, s := range t[1:] {
		out += ", then " + s
	}
	return out
}

// accepted reports whether sol ends the route: a verified optimum or a
// certified infeasibility (a certificate that fails CheckCertificate has
// been removed from sol by Solve).
func accepted(sol *solver.Solution) bool {
	switch sol.Status {
	case solver.Optimal:
		return true
	case solver.PrimalInfeasible:
		return sol.Y != nil
	case solver.DualInfeasible:
		return sol.X != nil
	}
	return false
}

// confirmFeasible decides whether the problem of an "unbounded" answer (a
// verified improving ray in ray.X) has a feasible point. A feasible point
// the backend returned with the ray (Solution.FeasiblePoint, found by the
// IPM next to the ray) decides it when it passes solver.CheckFeasible at
// CertificateTolerance on p; otherwise the feasibility problem (p with q = 0
// and P = 0, which cannot be unbounded) is solved along the same route
// within what remains of the time limit:
//
//   - a feasible point: ray is returned, "unbounded" confirmed;
//   - a verified Farkas certificate: the problem is primal and dual
//     infeasible, and the answer becomes PrimalInfeasible with that
//     certificate in Y (the primal certificate takes precedence, as in
//     HiGHS), keeping the verified ray in X;
//   - anything else (limits, numerical trouble): ray is returned with a
//     diagnostic saying that feasibility was not confirmed.
func (s *Solver) confirmFeasible(ctx context.Context, p *solver.Problem, set solver.Settings, start time.Time, ray *solver.Solution) *solver.Solution {
	if ray.FeasiblePoint != nil {
		if err := solver.CheckFeasible(p, ray.FeasiblePoint, CertificateTolerance); err == nil {
			return ray // a verified feasible point and a verified ray: unbounded
		}
		// not verified here: decided by the feasibility problem below
		ray.FeasiblePoint = nil
	}
	sol, expired, err := s.solveFeasibility(ctx, p, set, start)
	if expired {
		ray.Diagnostic = appendMsg(ray.Diagnostic, "feasibility not confirmed: time limit")
		return ray
	}
	switch {
	case err != nil:
		ray.Diagnostic = appendMsg(ray.Diagnostic, "feasibility not confirmed: "+err.Error())
	case sol.Status.OK():
		// a feasible point and a verified ray: unbounded
	case sol.Status == solver.PrimalInfeasible && sol.Y != nil:
		sol.X = ray.X
		sol.Objective, sol.DualObjective = math.Inf(1), math.Inf(1)
		sol.Diagnostic = appendMsg(ray.Diagnostic, fmt.Sprintf("primal and dual infeasible: %s found an improving ray (unbounded), the feasibility problem a Farkas certificate (%s)", ray.Solver, describe(sol)))
		if ray.Fallback != "" && sol.Fallback == "" {
			sol.Fallback = ray.Fallback
		}
		return sol
	default:
		ray.Diagnostic = appendMsg(ray.Diagnostic, "feasibility not confirmed: "+describe(sol))
	}
	return ray
}

// CertificateTolerance is the relative tolerance of solver.CheckCertificate
// for the infeasibility and unboundedness certificates the route accepts.
const CertificateTolerance = 1e-6

func appendMsg(d, msg string) string {
	if d == "" {
		return msg
	}
	return d + "; " + msg
}

// rank orders answers: Optimal > certified infeasibility > AlmostOptimal >
// anything else.
func rank(sol *solver.Solution) int {
	switch {
	case sol.Status == solver.Optimal:
		return 3
	case accepted(sol):
		return 2
	case sol.Status == solver.AlmostOptimal:
		return 1
	}
	return 0
}

// solveFeasibility solves p's feasibility problem along the route: p with
// P = 0, q = 0 and r = 0, whose optimal answers are p's feasible points and
// whose infeasibility certificates are p's (same A, b and cones), in what
// remains of set.TimeLimit since start. expired reports that nothing
// remained (no solve ran).
func (s *Solver) solveFeasibility(ctx context.Context, p *solver.Problem, set solver.Settings, start time.Time) (sol *solver.Solution, expired bool, err error) {
	if set.TimeLimit > 0 {
		set.TimeLimit -= time.Since(start)
		if set.TimeLimit <= 0 {
			return nil, true, nil
		}
	}
	feas := *p
	feas.P = nil
	feas.Q = make([]float64, p.NumVars())
	feas.R = 0
	sol, err = s.Solve(ctx, &feas, set)
	return sol, false, err
}
