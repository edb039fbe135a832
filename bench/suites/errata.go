package main

import "math"

// erratum corrects one published reference of reference.json, with the
// evidence that the published value is wrong. The table grades every
// instance twice: against the published reference ("grade_published") and
// against the corrected one ("grade"); -errata=false grades against the
// published values only. The evidence is in BENCHMARKS.md ("Public benchmark
// libraries").
type erratum struct {
	// Value replaces the published optimum (nil: keep it).
	Value *float64
	// SigDigits, when > 0, replaces the published number of significant
	// digits (the tolerance is half a unit of the last one).
	SigDigits int
	// RelTol, when > 0, widens the tolerance to RelTol·max(1, |ref|): the
	// precision the published solver's own reported errors support.
	RelTol float64
	// Status replaces the expected status ("infeasible").
	Status string
	// Unknown withdraws the published value: it is provably wrong (its
	// tolerance interval lies entirely on the wrong side of an exact bound
	// on the optimum) and no verified value exists, so the instance is graded
	// "noref" like an instance without a reference. No replacement value is
	// set; Value, SigDigits and RelTol must be unset.
	Unknown  bool
	Evidence string
}

func ptr(v float64) *float64 { return &v }

// errata lists the corrections with their evidence.
var errata = map[string]erratum{
	"HUES-MOD": {Value: ptr(3.4824464e7), SigDigits: 8,
		Evidence: "an independent maximization of the concave dual (scripts/bench/maros_diag_dualcheck.py) bounds the optimum below by 3.482446387e7; privopt's pair has residuals ≤ 2e-15, gap 5e-9; the published 3.4824690e7 is 6.5e-6 above"},
	"HUESTIS": {Value: ptr(3.4824464e11), SigDigits: 8,
		Evidence: "same data as HUES-MOD scaled by 1e4: dual lower bound 3.482446387e11"},
	"LISWET8": {Value: ptr(714.47006),
		Evidence: "misprinted exponent: HiGHS finds a feasible point of value 714.4700591 and the IPM's certified optimum is 714.47006, not 7144.7006"},
	"qap10": {Value: ptr(-1092.6), SigDigits: 5,
		Evidence: "transcription: SDPLIB lists -1.0926e+03 (reference.json has -10.93); CSDP -1092.593, privopt -1092.585"},
	"isil01": {Status: "infeasible",
		Evidence: "the IPM's Farkas certificate checks in exact rational arithmetic (b'u = -0.99999987, exponential-cone margins >= 0.145 in 60-digit arithmetic; scripts/bench/cbf_farkas_check.py)"},
	"hinf13": {Unknown: true, Evidence: hinf13Evidence},
	"hinf5":  {Unknown: true, Evidence: "the published 363 (3 digits: [362.5, 363.5]) is above an exact upper bound on the minimum: the point scripts/bench/sdplib_upper/hinf5.json (privopt's IPM point moved toward a strictly feasible CSDP point) has every block positive definite by exact rational LDLᵀ factorizations, so the minimum is ≤ 362.337780951751 (a CSDP point alone proves ≤ 362.410891340203) (python3 scripts/bench/sdpa_upper_check.py sdplib/hinf5.cbf.gz scripts/bench/sdplib_upper/hinf5.json); no lower bound is known, so no value replaces it"},
	"hinf6":  {Unknown: true, Evidence: "the published 449.0 (4 digits: [448.95, 449.05]) is above an exact upper bound on the minimum: the point scripts/bench/sdplib_upper/hinf6.json (CSDP's point moved toward a strictly feasible one) has every block positive definite by exact rational LDLᵀ factorizations, so the minimum is ≤ 448.939126296227 (python3 scripts/bench/sdpa_upper_check.py sdplib/hinf6.cbf.gz scripts/bench/sdplib_upper/hinf6.json); VSDP's rigorous bound (its CSDP run) is ≤ 448.942508; no lower bound is known, so no value replaces it"},
	"nql30":  {RelTol: 1e-4, Evidence: nqlEvidence}, "nql60": {RelTol: 1e-4, Evidence: nqlEvidence}, "nql180": {RelTol: 1e-4, Evidence: nqlEvidence},
	"qssp30": {RelTol: 1e-4, Evidence: nqlEvidence}, "qssp90": {RelTol: 1e-4, Evidence: nqlEvidence},
}

const nqlEvidence = "MOSEK's reported dual infeasibility (3.7e-8 to 4.9e-8) times Σ|x| (3e3 to 1e5) pins the published optimum only to 1e-4 to 5e-3; privopt's points violate the constraints by ≤ 8e-10 on an independent reading of the file (scripts/bench/cbf_pd_check.py) with primal = dual objective to 5e-7"

// hinf13Evidence: the published 46 (2 digits: [45.5, 46.5]) lies above an
// exact upper bound on the minimum (SDPA primal, SDPLIB's sign).
const hinf13Evidence = "the published 46 (2 digits: [45.5, 46.5]) is above an exact upper bound on the minimum: the point scripts/bench/sdplib_upper/hinf13.json (CSDP's point moved toward a strictly feasible one) has every block positive definite with smallest eigenvalue > 6.2e-8 by exact rational LDLᵀ factorizations, so the minimum is ≤ 44.7581076133151, and stays below 45.5 under relative data errors up to 2.3e-13 (python3 scripts/bench/sdpa_upper_check.py sdplib/hinf13.cbf.gz scripts/bench/sdplib_upper/hinf13.json); VSDP's rigorous bound (its SDPT3 run) is ≤ 44.3599; no lower bound is known, so no value replaces it"

// unseenErrata corrects published values of the SDPLIB 1.2 README table for
// the instances outside the shared data (-unseen; they are not in
// reference.json, so they have their own table). The certificates are exact
// upper bounds on SDPA's primal minimum, checked in rational arithmetic on the
// original SDPLIB file (scripts/bench/sdpa_upper_check.py reads .dat-s files).
var unseenErrata = map[string]erratum{
	"hinf12": {Unknown: true, Evidence: "the published 0.2 (1 digit: [0.15, 0.25]) is above an exact upper bound on the minimum: the point scripts/bench/sdplib_upper/hinf12.json (CSDP's solution of the problem tightened to F(x) ⪰ 1e-5·I: bench/suites -unseen DIR -only '^hinf12$' -sdpa OUT -sdpa-margin 1e-5) has every block positive definite by exact rational LDLᵀ factorizations, smallest eigenvalue > 4.99e-6, so the minimum is ≤ 1.82176704230573e-05 (python3 scripts/bench/sdpa_upper_check.py SDPLIB/data/hinf12.dat-s scripts/bench/sdplib_upper/hinf12.json; CSDP reports 8.1e-6); no lower bound is known, so no value replaces it"},
	"gpp100": {Unknown: true, Evidence: "the published -44.9435 (6 digits: [-44.94355, -44.94345]) is above an exact upper bound on the minimum: the point scripts/bench/sdplib_upper/gpp100.json (privopt's IPM point at FeasTol = GapTol = 1e-12, its 100 diagonal multipliers raised by 1e-10 and its all-ones multiplier set to twice the smallest value that makes the block positive definite, plus 1, computed in floating point) has every block positive definite by exact rational LDLᵀ factorizations, smallest pivot 1.46e-9, so the minimum is ≤ -44.9435507672 (python3 scripts/bench/sdpa_upper_check.py SDPLIB/data/gpp100.dat-s scripts/bench/sdplib_upper/gpp100.json; CSDP reports -44.943551, privopt -44.9435516, both outside the published digits, which truncate rather than round); no lower bound is known, so no value replaces it"},
	"hinf15": {Unknown: true, Evidence: "the published 25 (2 digits: [24.5, 25.5]) is above an exact upper bound on the minimum: the point scripts/bench/sdplib_upper/hinf15.json (privopt's IPM point, status numerical-error, as returned) has every block positive definite by exact rational LDLᵀ factorizations, smallest eigenvalue > 1.7e-8, so the minimum is ≤ 23.9559759971250 (python3 scripts/bench/sdpa_upper_check.py SDPLIB/data/hinf15.dat-s scripts/bench/sdplib_upper/hinf15.json; CSDP's point of the problem tightened to F(x) ⪰ 1e-5·I proves ≤ 24.6469950801174); no lower bound is known, so no value replaces it"},
}

// corrected returns in with its erratum applied, and the erratum's evidence
// ("" when there is none).
func (in *instance) corrected() (*instance, string) {
	table := errata
	if in.Set == setUnseen {
		table = unseenErrata
	}
	e, ok := table[in.Name]
	if !ok {
		return in, ""
	}
	c := *in
	if e.Status != "" {
		c.ExpectedStatus = e.Status
	}
	if e.Unknown {
		c.Reference, c.relTol = nil, 0
		return &c, e.Evidence
	}
	if in.Reference != nil && (e.Value != nil || e.SigDigits > 0 || e.RelTol > 0) {
		r := *in.Reference
		if e.Value != nil {
			r.Value, r.Text = *e.Value, ""
		}
		if e.SigDigits > 0 {
			r.SigDigits = e.SigDigits
		}
		c.Reference = &r
		c.relTol = e.RelTol
	}
	return &c, e.Evidence
}

// widen applies an erratum's relative tolerance.
func (in *instance) widen(tol float64) float64 {
	if in.Reference == nil || in.relTol == 0 {
		return tol
	}
	return math.Max(tol, in.relTol*math.Max(1, math.Abs(in.Reference.Value)))
}
