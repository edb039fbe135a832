#!/usr/bin/env python3
"""Check an infeasibility certificate of a CBF instance in exact rational
arithmetic (linear parts) and high-precision arithmetic (exponential cones).

    python3 scripts/bench/cbf_farkas_check.py FILE.cbf.gz CERT.json

CERT.json holds {"y": [...]}, the standard-form certificate privopt returns
for a PrimalInfeasible status (bench/suites -points DIR writes it); its
first rows are the CBF constraint rows in file order, row r scaled by c_r = -1
for L- cones and +1 otherwise (cbf package: s_r = c_r (A x + b)_r), so the CBF
multipliers are u_r = c_r y_r. Only u is used; the rest is derived here from
the file's data, read by the parser of cbf_cvxopt_check.py (not privopt's).

Farkas' lemma for the CBF form  A x + b in K_con,  x in K_var:  if
u in K_con*, v = -A'u in K_var* and b'u < 0, no x is feasible (for a
feasible x, 0 <= u'(Ax + b) + v'x = b'u). Free variables need v_j = 0
exactly: u is corrected by an exact rational solve so that (A'u)_j = 0 for
every free column (unknowns: the L= rows, whose multipliers are free, then
the L+/L- rows, whose signs are checked afterwards; pivots prefer L= rows
and large entries). Then, exactly: u <= 0 on L-
rows, u >= 0 on L+ rows, b'u < 0; and for every EXP variable cone,
v = (v1, v2, v3) must lie in the dual of CBF's EXP cone,
{v3 < 0, -v3 exp(v2/v3) <= e v1} (closure), checked with mpmath at 60 digits
with the margin printed (CBF order: EXP is x1 >= x2 exp(x3/x2)).
"""

import json
import sys
from fractions import Fraction

from cbf_cvxopt_check import parse


def main():
    path, cert = sys.argv[1], sys.argv[2]
    p = parse(path)
    with open(cert) as f:
        y = json.load(f)["y"]
    ncon = p["ncon"]
    kinds = []
    for kind, dim in p["con"]:
        kinds += [kind] * dim
    u = [Fraction(y[r]) * (-1 if kinds[r] == "L-" else 1) for r in range(ncon)]
    vkinds = []
    for kind, dim in p["var"]:
        vkinds += [kind] * dim
    free = [j for j, k in enumerate(vkinds) if k == "F"]
    cols = {}
    for i, j, v in p["a"]:
        cols.setdefault(j, []).append((i, Fraction(v)))

    def atu(uu):
        out = [Fraction(0)] * p["nvar"]
        for j, es in cols.items():
            out[j] = sum((v * uu[i] for i, v in es), Fraction(0))
        return out

    r = atu(u)
    print("before the correction: max |(A'u)_j| over free columns = %.3g" % float(max(abs(r[j]) for j in free)))
    # exact correction: solve M delta = -r_free, M[j][i] = A[i][j]
    eqrows = [i for i in range(ncon) if kinds[i] == "L="] + [i for i in range(ncon) if kinds[i] in ("L-", "L+")]
    neq = sum(1 for i in range(ncon) if kinds[i] == "L=")
    pos = {i: k for k, i in enumerate(eqrows)}
    rows = []
    for j in free:
        row = [Fraction(0)] * len(eqrows)
        for i, v in cols.get(j, []):
            if i in pos:
                row[pos[i]] += v
        rows.append(row + [-r[j]])
    # Gaussian elimination (exact), pivots chosen per equation
    piv = []
    for k in range(len(rows)):
        nzc = [c for c in range(len(eqrows)) if rows[k][c] != 0]
        pref = [c for c in nzc if c < neq] or nzc
        c = max(pref, key=lambda c: abs(rows[k][c])) if pref else None
        if c is None:
            if rows[k][-1] != 0:
                print("the free-column equations are inconsistent: no exact correction")
                return 1
            continue
        pr = rows[k]
        inv = 1 / pr[c]
        rows[k] = pr = [v * inv for v in pr]
        for k2 in range(len(rows)):
            if k2 != k and rows[k2][c] != 0:
                f = rows[k2][c]
                rows[k2] = [a - f * b for a, b in zip(rows[k2], pr)]
        piv.append((k, c))
    delta = [Fraction(0)] * len(eqrows)
    for k, c in piv:
        delta[c] = rows[k][-1]  # other unknowns set to 0
    for i, d in zip(eqrows, delta):
        u[i] += d
    print("correction on %d of %d linear rows: max |delta| = %.3g (max |u| = %.3g)" % (
        sum(1 for d in delta if d != 0), len(eqrows), float(max(abs(d) for d in delta)), float(max(abs(x) for x in u))))
    v = [-x for x in atu(u)]
    assert all(v[j] == 0 for j in free), "free columns not exactly zero"
    ok = True
    bad = [i for i in range(ncon) if (kinds[i] == "L-" and u[i] > 0) or (kinds[i] == "L+" and u[i] < 0)]
    if bad:
        print("sign violations on %d linear rows" % len(bad))
        ok = False
    bu = sum((Fraction(p["b"][i]) * u[i] for i in p["b"]), Fraction(0))
    print("b'u = %.12g (exact rational, must be < 0)" % float(bu))
    ok = ok and bu < 0
    import mpmath
    mpmath.mp.dps = 60
    off, worst = 0, None
    for kind, dim in p["var"]:
        if kind == "EXP":
            v1, v2, v3 = (mpmath.mpf(v[off + t].numerator) / v[off + t].denominator for t in range(3))
            if not v3 < 0:
                print("EXP cone at column %d: v3 = %s is not < 0" % (off, v3))
                ok = False
            else:
                margin = (mpmath.e * v1 - (-v3) * mpmath.exp(v2 / v3)) / max(abs(v1), abs(v3), mpmath.mpf(1e-300))
                worst = margin if worst is None else min(worst, margin)
                if margin <= 0:
                    ok = False
        elif kind not in ("F",):
            print("variable cone %s not handled" % kind)
            return 1
        off += dim
    print("smallest relative margin e*v1 + v3*exp(v2/v3) over the EXP cones: %s" % mpmath.nstr(worst, 5))
    print("certificate valid: %s" % ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
