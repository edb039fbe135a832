#!/usr/bin/env python3
"""Re-check a primal-dual point of a CBF instance with SOC/linear cones on the
file's data as read by an independent parser (cbf_cvxopt_check.parse, not
privopt's cbf package), in 40-digit arithmetic.

    python3 scripts/bench/cbf_pd_check.py FILE.cbf.gz POINT.json

POINT.json holds {"x": [...], "y": [...]} as bench/suites -points DIR writes
it: x are the CBF scalar variables (same order), y the standard-form duals,
whose first rows are the CBF constraint rows in file order, scaled by c_r = -1
for L- cones and +1 otherwise, so the CBF multipliers are u_r = c_r y_r.

Printed: the primal objective c'x + c0 and the largest violation of
A x + b in K_con (Q: ||g_2..|| - g_1, L=: |g|); the dual objective c0 - b'u
(a lower bound when u in K_con* and c - A'u = 0 on the free columns), the
largest |c - A'u| on the free columns with sum |c - A'u|.|x| (the first-order
error of that bound near x) and the largest violation of u in K_con*. For a
minimization the optimum lies between the two objectives up to these
residual terms.
"""

import json
import sys

import mpmath

from cbf_cvxopt_check import parse


def main():
    mpmath.mp.dps = 40
    p = parse(sys.argv[1])
    with open(sys.argv[2]) as f:
        d = json.load(f)
    x = [mpmath.mpf(v) for v in d["x"]]
    y = d["y"]
    n, m = p["nvar"], p["ncon"]
    if p["psdcon"]:
        print("PSD constraints are not handled (scripts/bench/sdpa_upper_check.py checks SDPLIB points)")
        return 1
    if any(k not in ("F",) for k, _ in p["var"]):
        print("only free scalar variables are handled")
        return 1
    g = [mpmath.mpf(p["b"].get(i, 0.0)) for i in range(m)]
    for i, j, v in p["a"]:
        g[i] += mpmath.mpf(v) * x[j]
    kinds, pviol, dviol, off = [], mpmath.mpf(0), mpmath.mpf(0), 0
    sign = -1 if p["sense"] == "MAX" else 1
    u = [mpmath.mpf(0)] * m
    for kind, dim in p["con"]:
        kinds += [kind] * dim
        off += dim
    u = [mpmath.mpf(y[r]) * (-1 if kinds[r] == "L-" else 1) for r in range(m)]
    off = 0
    for kind, dim in p["con"]:
        gb, ub = g[off:off + dim], u[off:off + dim]
        if kind == "Q":
            pviol = max(pviol, mpmath.norm(gb[1:]) - gb[0])
            dviol = max(dviol, mpmath.norm(ub[1:]) - ub[0])
        elif kind == "L=":
            pviol = max(pviol, max(abs(t) for t in gb))
        elif kind == "L+":
            pviol = max(pviol, max(-t for t in gb))
            dviol = max(dviol, max(-t for t in ub))
        elif kind == "L-":
            pviol = max(pviol, max(t for t in gb))
            dviol = max(dviol, max(t for t in ub))
        else:
            print("constraint cone %s not handled" % kind)
            return 1
        off += dim
    c = [sign * mpmath.mpf(p["c"].get(j, 0.0)) for j in range(n)]
    r = list(c)
    for i, j, v in p["a"]:
        r[j] -= mpmath.mpf(v) * u[i]
    pobj = sum(cj * xj for cj, xj in zip(c, x)) + sign * p["c0"]
    dobj = sign * p["c0"] - sum(mpmath.mpf(v) * u[i] for i, v in p["b"].items())
    print("primal objective %s  largest violation of A x + b in K: %s  sum|x| %s" % (
        mpmath.nstr(sign * pobj, 12), mpmath.nstr(pviol, 3), mpmath.nstr(sum(abs(t) for t in x), 4)))
    print("dual objective   %s  largest |c - A'u|: %s  sum |c - A'u|.|x|: %s  largest violation of u in K*: %s" % (
        mpmath.nstr(sign * dobj, 12), mpmath.nstr(max(abs(t) for t in r), 3),
        mpmath.nstr(sum(abs(a * b) for a, b in zip(r, x)), 3), mpmath.nstr(dviol, 3)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
