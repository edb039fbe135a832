#!/usr/bin/env python3
"""Prove an upper bound on the optimum of an SDPLIB instance (CBF, SDPA
primal form) in exact rational arithmetic: a point x whose blocks are
positive definite is feasible, so p* <= c'x.

    python3 scripts/bench/sdpa_upper_check.py FILE.cbf.gz POINT [--toward POINT2]
        [--margin MU] [--digits D] [--steps K] [--write OUT.json]

The SDPLIB files of the conic-bench folder hold SDPA's primal

    min c'x   s.t.   F(x) = sum_i x_i F_i - F_0  PSD  (block by block),

as CBF: free scalar variables x (VAR ... F), OBJACOORD c, one PSDCON block
G_b = sum_j x_j H_bj + D_b per SDPA block (H_bj = F_j, D_b = -F_0 on that
block, lower triangles in HCOORD/DCOORD), and SDPA's diagonal blocks as
linear rows A x + b in L+ (CON, ACOORD, BCOORD). The file is read by the
reader of cbf_cvxopt_check.py (not privopt's cbf package), every number
taken as the exact rational value of its decimal text.

FILE may also be an SDPA sparse file (.dat-s, SDPLIB's own format), read by
parse_sdpa below into the same form (diagonal blocks as linear rows L+).

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
OUT.json alone. With --margin MU the bisection asks for G_b - MU I positive
definite (linear slacks >= MU) instead, a point further inside.

Robustness to the data's own rounding: the instance's numbers are what the
CBF file says. For the verified point the script also finds, per block, the
largest mu_b = (smallest pivot) / 2^j with G_b - mu_b I positive definite
(exact), so lambda_min(G_b) > mu_b, and prints the largest relative error
eps of the file's numbers under which the point stays feasible: every
number v replaced by any v (1 + d), |d| <= eps, changes G_b by dG with
|dG_kl| <= eps M_kl, M = sum_j |x_j| |H_bj| + |D_b| entrywise, so
||dG||_2 <= ||dG||_F <= eps ||M||_F < mu_b keeps G_b + dG positive definite
(Weyl's inequality); the objective moves by at most eps sum_j |c_j x_j|.
A file whose numbers are another file's rounded to binary64 and printed to
17 digits differs from it by relative errors below 2^-52; an eps well above
that makes the bound hold for the original data too.
"""

import argparse
import re
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


def parse_sdpa(path, num=Fraction):
    """An SDPA sparse file (.dat-s) as the dict of parse(): SDPA's primal
    min c'x s.t. sum_i x_i F_i - F_0 PSD, one PSDCON block per SDPA block of
    positive size (lower triangles: SDPA lists i <= j, stored as k = j - 1,
    l = i - 1), and the diagonal blocks (negative size) as linear rows
    sum_i x_i (F_i)_kk - (F_0)_kk >= 0 (L+)."""
    with open(path) as f:
        lines = [ln.strip() for ln in f if ln.strip() and ln.strip()[0] not in '"*']
    toks = []
    for ln in lines:
        toks += [t for t in re.split(r"[\s,{}()]+", ln) if t]
    it = iter(toks)
    m = int(next(it))
    nb = int(next(it))
    sizes = [int(float(next(it))) for _ in range(nb)]
    c = [num(next(it)) for _ in range(m)]
    p = {"sense": "MIN", "var": [("F", m)], "con": [], "c": {j: v for j, v in enumerate(c) if v != 0},
         "c0": num(0), "a": [], "b": {}, "nvar": m, "ncon": 0, "psdcon": [], "h": [], "d": []}
    psd, row = {}, {}
    nrows = 0
    for b, size in enumerate(sizes):
        if size > 0:
            psd[b] = len(p["psdcon"])
            p["psdcon"].append(size)
        else:
            row[b] = nrows
            nrows += -size
    if nrows:
        p["con"] = [("L+", nrows)]
        p["ncon"] = nrows
    rest = list(it)
    for t in range(0, len(rest) - 4, 5):
        mat, blk, i, j = (int(v) for v in rest[t:t + 4])
        v = num(rest[t + 4])
        b = blk - 1
        if b in psd:
            k, l = max(i, j) - 1, min(i, j) - 1
            if mat == 0:
                p["d"].append((psd[b], k, l, -v))
            else:
                p["h"].append((psd[b], mat - 1, k, l, v))
        else:
            if i != j:
                raise ValueError("off-diagonal entry %s in diagonal block %d" % (rest[t:t + 5], blk))
            r = row[b] + i - 1
            if mat == 0:
                p["b"][r] = p["b"].get(r, num(0)) - v
            else:
                p["a"].append((r, mat - 1, v))
    return p


class Instance:
    def __init__(self, path):
        p = parse_sdpa(path) if path.endswith(".dat-s") else parse(path, num=Fraction)
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

    def row(self, r, x):
        return self.p["b"].get(r, Fraction(0)) + sum((v * x[j] for j, v in self.rows.get(r, [])), Fraction(0))

    def block(self, b, x, absolute=False):
        """G_b(x) as a full symmetric Fraction matrix; with absolute, the
        matrix M of the entries' magnitudes sum_j |x_j| |H_bj| + |D_b|."""
        size = self.p["psdcon"][b]
        m = [[Fraction(0)] * size for _ in range(size)]
        for k, l, j, v in self.blocks.get(b, []):
            t = v if j is None else v * x[j]
            if absolute:
                t = abs(t)
            m[k][l] += t
            if k != l:
                m[l][k] += t
        return m

    def check(self, x, mu=Fraction(0)):
        """(ok, message, smallest pivot per block) for the point x: every
        linear row has slack >= mu (L= rows: == 0) and every block G_b - mu I
        is positive definite."""
        worst = None
        for r, kind in enumerate(self.kinds):
            g = self.row(r, x)
            if (kind == "L+" and g < mu) or (kind == "L-" and g > -mu) or (kind == "L=" and g != 0):
                return False, "linear row %d (%s) is %.3g" % (r, kind, float(g)), []
            if kind != "L=" and (worst is None or abs(g) < worst):
                worst = abs(g)
        mins = []
        for b, size in enumerate(self.p["psdcon"]):
            m = self.block(b, x)
            for k in range(size):
                m[k][k] -= mu
            piv = ldl_pivots(m)
            if piv[-1] <= 0:
                return False, "block %d (order %d): LDL^T pivot %d is %.3g <= 0" % (b, size, len(piv), float(piv[-1])), mins
            mins.append(min(piv))
        msg = "smallest LDL^T pivot per block: %s" % ", ".join("%.3g" % float(v) for v in mins)
        if worst is not None:
            msg += "; smallest linear slack %.3g" % float(worst)
        return True, msg, mins

    def robustness(self, x, mins):
        """The largest relative data error eps (every number v of the file
        replaced by any v (1 + d), |d| <= eps) under which x stays feasible,
        as a float rounded down, and the smallest verified eigenvalue bound.

        Per block: mu_b = pivot_b / 2^j, the largest such value with G_b -
        mu_b I positive definite (exact check; the smallest LDL^T pivot
        bounds lambda_min from above by interlacing), so lambda_min(G_b) >
        mu_b. The perturbation dG satisfies |dG_kl| <= eps M_kl (M from
        block(absolute=True)), so ||dG||_2 <= ||dG||_F <= eps ||M||_F, and
        G_b + dG stays positive definite (Weyl) while eps ||M||_F < mu_b.
        Linear rows: slack s_r against eps (sum_j |A_rj x_j| + |b_r|). None
        when an L= row makes feasibility fragile."""
        if "L=" in self.kinds:
            return None, None
        eps, mu_all = None, None
        for b, size in enumerate(self.p["psdcon"]):
            mu = mins[b]
            base = self.block(b, x)
            while True:
                m = [row[:] for row in base]
                for k in range(size):
                    m[k][k] -= mu
                if ldl_pivots(m)[-1] > 0:
                    break
                mu /= 2
            w2 = sum(v * v for row in self.block(b, x, absolute=True) for v in row)
            e = float(mu) / (float(w2) ** 0.5) * (1 - 1e-9)
            eps = e if eps is None else min(eps, e)
            mu_all = mu if mu_all is None else min(mu_all, mu)
        for r, kind in enumerate(self.kinds):
            w = abs(self.p["b"].get(r, Fraction(0))) + sum((abs(v * x[j]) for j, v in self.rows.get(r, [])), Fraction(0))
            if w > 0:
                e = float(abs(self.row(r, x)) / w) * (1 - 1e-9)
                eps = e if eps is None else min(eps, e)
        return eps, mu_all


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
    ap.add_argument("--margin", default="0", help="with --toward: require G_b - MARGIN I positive definite (and linear slacks >= MARGIN) "
                    "for the moved point, so that it stays feasible under larger data errors")
    args = ap.parse_args()
    start = time.time()
    inst = Instance(args.file)
    x = [rational(s, args.digits) for s in read_point(args.point)]
    if len(x) != inst.n:
        print("the point has %d coordinates, the file %d scalar variables" % (len(x), inst.n))
        return 2
    maximize = inst.p["sense"] == "MAX"
    ok, msg, mins = inst.check(x)
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
        mu = Fraction(args.margin)
        ok2, msg2, _ = inst.check(x2, mu)
        print("toward %s: %s (objective %.12g)" % (args.toward, "feasible" if ok2 else "not feasible", float(inst.objective(x2))))
        print("  " + msg2)
        if not ok2:
            print("no certificate: the --toward point is not strictly feasible (with the margin %s) either" % args.margin)
            return 1
        lo, hi = 0, 2 ** args.steps  # x_lo fails, x_hi passes (t = k / 2^steps)
        scale = Fraction(1, 2 ** args.steps)
        d = [b - a for a, b in zip(x, x2)]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            xm = [a + mid * scale * e for a, e in zip(x, d)]
            if inst.check(xm, mu)[0]:
                hi = mid
            else:
                lo = mid
        t = hi * scale
        final = [a + t * e for a, e in zip(x, d)]
        ok, msg, mins = inst.check(final)
        if not (ok and inst.check(final, mu)[0]):  # cannot happen: x_hi passed the same exact check
            print("internal error: the moved point fails its check")
            return 3
        print("moved to t = %d/2^%d = %.6g along the segment: feasible" % (hi, args.steps, float(t)))
        print("  " + msg)
    eps, mu_min = inst.robustness(final, mins)
    if eps is not None:
        cabs = sum(abs(v * final[j]) for j, v in inst.p["c"].items()) + abs(inst.p["c0"])
        print("every block's smallest eigenvalue exceeds %.3g (exact); the point stays feasible if every number of the file "
              "changes by a relative error up to %.2g, the objective then by at most that times %.6g" % (float(mu_min), eps, float(cabs)))
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
