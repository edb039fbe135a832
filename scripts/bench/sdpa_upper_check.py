#!/usr/bin/env python3
"""Prove an upper bound on the optimum of an SDPLIB instance (CBF, SDPA
primal form) in exact rational arithmetic: a point x whose blocks are
positive definite is feasible, so p* <= c'x.

    python3 scripts/bench/sdpa_upper_check.py FILE.cbf.gz POINT [--toward POINT2]
        [--digits D] [--steps K] [--write OUT.json]

The SDPLIB files of the conic-bench folder hold SDPA's primal

    min c'x   s.t.   F(x) = sum_i x_i F_i - F_0  PSD  (block by block),

as CBF: free scalar variables x (VAR ... F), OBJACOORD c, one PSDCON block
G_b = sum_j x_j H_bj + D_b per SDPA block (H_bj = F_j, D_b = -F_0 on that
block, lower triangles in HCOORD/DCOORD), and SDPA's diagonal blocks as
linear rows A x + b in L+ (CON, ACOORD, BCOORD). The file is read by the
reader of cbf_cvxopt_check.py (not privopt's cbf package), every number
taken as the exact rational value of its decimal text.

POINT is either a JSON file with "x" (bench/suites -points DIR writes
{"status", "x", "y"}; x are the CBF scalar variables in file order) or a
CSDP solution file (csdp FILE.dat-s SOL writes y on its first line; for a
file written by bench/suites -sdpa DIR, CSDP's y are SDPA's x, which are the
CBF scalar variables in order). Each coordinate is taken as the exact
rational value of its decimal text, or rounded to D significant digits with
--digits D.

The check, exact (fractions.Fraction): every linear row (A x + b)_r >= 0
(L+; L- <= 0; L= == 0), and every block G_b positive definite, shown by an
LDL^T factorization without pivoting: a symmetric matrix is positive
definite if and only if all the pivots d_k are > 0 (d_k is the ratio of
consecutive leading principal minors; Sylvester's criterion; Golub and Van
Loan, Matrix Computations, 4th ed., Sec. 4.1-4.2). Then x is feasible and
the optimum of the minimization is at most c'x + c0, printed rounded up
(a maximization: at least, rounded down).

A solver's near-optimal point often has a block with a tiny negative
eigenvalue. With --toward POINT2 (a strictly feasible point, e.g. another
solver's less accurate one) the script moves along the segment
x_t = x + t (x2 - x), t = k / 2^K: F is affine, so F(x_t) = (1 - t) F(x) +
t F(x2); it checks x2 (t = 1) exactly, then bisects K times (--steps,
default 20) for the smallest dyadic t whose x_t passes the exact check. The
bound is c'x_t of the point that passed; nothing about t needs to be trusted
because x_t itself is verified. With --write OUT.json the verified point is
written as exact decimal strings ({"x": [...]}; x_t is a finite decimal
since t is dyadic), so the bound can be re-checked by running this script on
OUT.json alone.
"""

import argparse
import json
import sys
import time
from decimal import Decimal, ROUND_CEILING, ROUND_FLOOR, localcontext
from fractions import Fraction

from cbf_cvxopt_check import parse


def read_point(path):
    """The coordinates of POINT as strings (JSON "x", or CSDP's first line)."""
    with open(path) as f:
        text = f.read()
    try:
        d = json.loads(text, parse_float=str, parse_int=str)
    except ValueError:
        return text.splitlines()[0].split()
    return [str(v) for v in d["x"]]


def rational(s, digits):
    """The exact value of the decimal text s, or s rounded to digits
    significant digits when digits > 0."""
    if digits > 0:
        with localcontext() as ctx:
            ctx.prec = digits
            return Fraction(+Decimal(s))
    return Fraction(s)


def ldl_pivots(m):
    """The pivots d_1..d_n of the LDL^T factorization of the symmetric
    Fraction matrix m (a list of rows), S = L diag(d) L^T with L unit lower
    triangular, stopping at the first pivot <= 0 (m is then not positive
    definite). Symmetric Gaussian elimination on the trailing submatrix."""
    n = len(m)
    a = [row[:] for row in m]
    piv = []
    for k in range(n):
        d = a[k][k]
        piv.append(d)
        if d <= 0:
            return piv
        rk = a[k]
        for i in range(k + 1, n):
            if rk[i] == 0:
                continue
            f = rk[i] / d  # L[i][k]
            ri = a[i]
            for j in range(k + 1, n):
                if rk[j] != 0:
                    ri[j] -= f * rk[j]
    return piv


class Instance:
    def __init__(self, path):
        p = parse(path, num=Fraction)
        if any(kind != "F" for kind, _ in p["var"]):
            raise ValueError("only free scalar variables (VAR ... F) are handled, not %s" % p["var"])
        self.p = p
        self.n = p["nvar"]
        self.kinds = []
        for kind, dim in p["con"]:
            if kind not in ("L+", "L-", "L="):
                raise ValueError("constraint cone %s not handled (L+, L-, L= only)" % kind)
            self.kinds += [kind] * dim
        self.rows = {}
        for i, j, v in p["a"]:
            self.rows.setdefault(i, []).append((j, v))
        self.blocks = {}  # block -> list of (k, l, j or None, v)
        for i, j, k, l, v in p["h"]:
            self.blocks.setdefault(i, []).append((k, l, j, v))
        for i, k, l, v in p["d"]:
            self.blocks.setdefault(i, []).append((k, l, None, v))

    def objective(self, x):
        return sum((v * x[j] for j, v in self.p["c"].items()), Fraction(0)) + self.p["c0"]

    def check(self, x):
        """(ok, message, smallest pivot per block) for the point x."""
        worst = None
        for r, kind in enumerate(self.kinds):
            g = self.p["b"].get(r, Fraction(0)) + sum((v * x[j] for j, v in self.rows.get(r, [])), Fraction(0))
            if (kind == "L+" and g < 0) or (kind == "L-" and g > 0) or (kind == "L=" and g != 0):
                return False, "linear row %d (%s) is %.3g" % (r, kind, float(g)), []
            if kind != "L=" and (worst is None or abs(g) < worst):
                worst = abs(g)
        mins = []
        for b, size in enumerate(self.p["psdcon"]):
            m = [[Fraction(0)] * size for _ in range(size)]
            for k, l, j, v in self.blocks.get(b, []):
                t = v if j is None else v * x[j]
                m[k][l] += t
                if k != l:
                    m[l][k] += t
            piv = ldl_pivots(m)
            if piv[-1] <= 0:
                return False, "block %d (order %d): LDL^T pivot %d is %.3g <= 0" % (b, size, len(piv), float(piv[-1])), mins
            mins.append(min(piv))
        msg = "smallest LDL^T pivot per block: %s" % ", ".join("%.3g" % float(v) for v in mins)
        if worst is not None:
            msg += "; smallest linear slack %.3g" % float(worst)
        return True, msg, mins


def decimal_str(q, digits, up):
    """q rounded to digits significant digits, up (ceiling) or down."""
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_CEILING if up else ROUND_FLOOR
        return str(Decimal(q.numerator) / Decimal(q.denominator))


def exact_decimal(q):
    """The finite decimal expansion of q (whose denominator has only the
    prime factors 2 and 5) as a string."""
    k = 0
    while (q * 10 ** k).denominator != 1:
        k += 1
    n = (q * 10 ** k).numerator
    s = str(abs(n)).rjust(k + 1, "0")
    out = s[:len(s) - k] + ("." + s[len(s) - k:] if k else "")
    return ("-" if n < 0 else "") + out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("point")
    ap.add_argument("--toward", help="a strictly feasible point to move toward when POINT fails")
    ap.add_argument("--digits", type=int, default=0, help="round the coordinates to this many significant digits")
    ap.add_argument("--steps", type=int, default=20, help="bisection steps on the segment (t = k/2^steps)")
    ap.add_argument("--write", help="write the verified point as exact decimals to this JSON file")
    args = ap.parse_args()
    start = time.time()
    inst = Instance(args.file)
    x = [rational(s, args.digits) for s in read_point(args.point)]
    if len(x) != inst.n:
        print("the point has %d coordinates, the file %d scalar variables" % (len(x), inst.n))
        return 2
    maximize = inst.p["sense"] == "MAX"
    ok, msg, _ = inst.check(x)
    print("point %s: %s (objective %.12g)" % (args.point, "feasible" if ok else "not feasible", float(inst.objective(x))))
    print("  " + msg)
    final, t = x, Fraction(0)
    if not ok:
        if not args.toward:
            print("no certificate: pass --toward with a strictly feasible point")
            return 1
        x2 = [rational(s, args.digits) for s in read_point(args.toward)]
        if len(x2) != inst.n:
            print("the --toward point has %d coordinates, the file %d scalar variables" % (len(x2), inst.n))
            return 2
        ok2, msg2, _ = inst.check(x2)
        print("toward %s: %s (objective %.12g)" % (args.toward, "feasible" if ok2 else "not feasible", float(inst.objective(x2))))
        print("  " + msg2)
        if not ok2:
            print("no certificate: the --toward point is not strictly feasible either")
            return 1
        lo, hi = 0, 2 ** args.steps  # x_lo fails, x_hi passes (t = k / 2^steps)
        scale = Fraction(1, 2 ** args.steps)
        d = [b - a for a, b in zip(x, x2)]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            xm = [a + mid * scale * e for a, e in zip(x, d)]
            if inst.check(xm)[0]:
                hi = mid
            else:
                lo = mid
        t = hi * scale
        final = [a + t * e for a, e in zip(x, d)]
        ok, msg, _ = inst.check(final)
        assert ok
        print("moved to t = %d/2^%d = %.6g along the segment: feasible" % (hi, args.steps, float(t)))
        print("  " + msg)
    obj = inst.objective(final)
    bound = decimal_str(obj, 15, up=not maximize)
    print("exact objective c'x + c0 = %s (= %s to 15 digits, rounded %s)" % (
        exact_decimal(obj) if len(str(obj.denominator)) <= 60 else "a rational with a %d-digit denominator" % len(str(obj.denominator)),
        bound, "down" if maximize else "up"))
    print("PROVEN: the optimum is %s %s  (%s, %.1f s)" % (">=" if maximize else "<=", bound, args.file.split("/")[-1], time.time() - start))
    if args.write:
        with open(args.write, "w") as f:
            json.dump({"x": [exact_decimal(v) for v in final]}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
