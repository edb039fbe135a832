#!/usr/bin/env python3
"""Generate seeded random conic instances, write them as CBF (version 3) and solve
them with CVXOPT as an independent reference.

Usage (needs Debian's python3-cvxopt; no numpy):

    python3 scripts/crosscheck/gen_instances.py [OUTDIR]

OUTDIR defaults to solver/ipm/testdata/crosscheck. It receives one NAME.cbf per
instance and references.json with, per instance, the CVXOPT status translated to
privopt's status names ("optimal", "infeasible", "unbounded"), the optimal
objective, CVXOPT's primal and dual objectives and the tolerances used.

Every instance is built in privopt's standard form (package solver)

    minimize qᵀx + r   subject to   A x + s = b,  s ∈ K

and written to CBF as the scalar constraints (−A) x + b ∈ K (CBF's form
"A x + b ∈ K") with PSD blocks as PSDCON/HCOORD/DCOORD. Conventions (cone/cone.go):

  * SOC blocks (t, x): t ≥ ‖x‖ — CBF "Q" and CVXOPT 'q' use the same order.
  * PSD blocks are scaled lower-triangular column-major svec; a PSD block is always
    the last block of an instance so that the scalar CBF rows keep the standard
    form's row numbers. CVXOPT 's' blocks are full column-major n×n matrices.
  * Exponential blocks are (x, y, z) with y·exp(x/y) ≤ z in privopt; CBF's EXP cone
    is (u0, u1, u2) with u0 ≥ u1·exp(u2/u1), so each EXP block is written in the
    reversed order (z, y, x).

Feasible bounded instances come from a strictly feasible primal point
(x0, s0 ∈ int K), b = A x0 + s0, and a strictly feasible dual point y0 ∈ int K*,
q = −Aᵀ y0, so both problems are strictly feasible and an optimum exists.
Infeasible and unbounded instances are built around explicit certificates.

CVXOPT has no exponential cone. The exponential-cone instances are two model
families that CVXOPT solves with its nonlinear solvers instead:
  * entropy:  min Σ xᵢ log xᵢ + cᵀx  s.t. F x = g      (solvers.cp),
    in conic form with (−tᵢ, xᵢ, 1) ∈ K_exp, i.e. xᵢ log xᵢ ≤ tᵢ;
  * log-sum-exp (geometric program in convex form): min log Σ exp(F0 x + g0)
    s.t. log Σ exp(F1 x + g1) ≤ 0, −2 ≤ x ≤ 2  (solvers.gp),
    in conic form with (uₖ − t, 1, zₖ) ∈ K_exp and Σ zₖ ≤ 1.
"""

import json
import math
import os
import random
import sys

from cvxopt import matrix, spmatrix, solvers
import cvxopt

SQRT2 = math.sqrt(2.0)
TOL = 1e-9  # CVXOPT abstol, reltol and feastol for the references


class Problem:
    """privopt's standard form with A as a dict {(i, j): v}."""

    def __init__(self, name, kind, n):
        self.name, self.kind, self.n = name, kind, n
        self.q = [0.0] * n
        self.r = 0.0
        self.A = {}
        self.b = []
        self.cones = []  # list of (kind, dim); kinds zero nonneg soc psd exp

    @property
    def m(self):
        return len(self.b)

    def add_block(self, kind, dim):
        self.cones.append((kind, dim))
        first = len(self.b)
        self.b.extend([0.0] * dim)
        return first

    def blocks(self):
        off = 0
        for kind, dim in self.cones:
            yield kind, dim, off
            off += dim


# ---------------------------------------------------------------- random points

def psd_order(dim):
    n = int(round((math.sqrt(8 * dim + 1) - 1) / 2))
    assert n * (n + 1) // 2 == dim
    return n


def svec_index(n, i, j):
    if i < j:
        i, j = j, i
    return j * n - j * (j - 1) // 2 + (i - j)


def interior(rng, kind, dim, dual=False):
    """A point in the interior of K (or of K* when dual is true)."""
    if kind == "zero":
        return [rng.gauss(0, 1) for _ in range(dim)] if dual else [0.0] * dim
    if kind == "nonneg":
        return [rng.uniform(0.5, 2) for _ in range(dim)]
    if kind == "soc":
        x = [rng.gauss(0, 1) for _ in range(dim - 1)]
        return [math.sqrt(sum(v * v for v in x)) + rng.uniform(0.5, 2)] + x
    if kind == "psd":
        n = psd_order(dim)
        M = [[rng.gauss(0, 1) for _ in range(n)] for _ in range(n)]
        S = [[sum(M[i][k] * M[j][k] for k in range(n)) / n + (0.5 if i == j else 0)
              for j in range(n)] for i in range(n)]
        s = [0.0] * dim
        for j in range(n):
            for i in range(j, n):
                s[svec_index(n, i, j)] = S[i][j] * (1 if i == j else SQRT2)
        return s
    if kind == "exp":
        if dual:  # K*_exp = {(u,v,w): u < 0, −u·exp(v/u) ≤ e·w}
            u = -rng.uniform(0.5, 2)
            v = rng.gauss(0, 1)
            return [u, v, -u * math.exp(v / u) / math.e + rng.uniform(0.5, 2)]
        y = rng.uniform(0.5, 2)
        x = rng.gauss(0, 1)
        return [x, y, y * math.exp(x / y) + rng.uniform(0.5, 2)]
    raise ValueError(kind)


def random_cone_problem(rng, name, kind, n, cones, density=0.5):
    """Random A with the given cone blocks, made primal and dual strictly feasible."""
    p = Problem(name, kind, n)
    for c, d in cones:
        p.add_block(c, d)
    for i in range(p.m):
        row = [j for j in range(n) if rng.random() < density]
        if not row:
            row = [rng.randrange(n)]
        for j in row:
            p.A[(i, j)] = rng.gauss(0, 1)
    x0 = [rng.gauss(0, 1) for _ in range(n)]
    s0, y0 = [], []
    for c, d, _ in p.blocks():
        s0 += interior(rng, c, d)
        y0 += interior(rng, c, d, dual=True)
    p.b = [s0[i] for i in range(p.m)]
    for (i, j), v in p.A.items():
        p.b[i] += v * x0[j]
        p.q[j] -= v * y0[i]
    p.r = rng.uniform(-10, 10)
    p.x_feasible = x0
    return p


def make_infeasible(rng, p):
    """Make p primal infeasible with a certificate y ∈ int K*, Aᵀy = 0, bᵀy = −1.
    The last block must be nonnegative (so its dual entry is > 0)."""
    assert p.cones[-1][0] == "nonneg"
    y = []
    for c, d, _ in p.blocks():
        y += interior(rng, c, d, dual=True)
    last = p.m - 1
    col = [0.0] * p.n
    for (i, j), v in list(p.A.items()):
        if i == last:
            del p.A[(i, j)]
        else:
            col[j] += v * y[i]
    for j in range(p.n):
        p.A[(last, j)] = -col[j] / y[last]
    others = sum(p.b[i] * y[i] for i in range(last))
    p.b[last] = (-1.0 - others) / y[last]
    p.x_feasible = None


def make_unbounded(rng, p):
    """Make p dual infeasible (unbounded below) with a direction d: −A d ∈ int K,
    qᵀd = −1, while keeping it primal feasible."""
    d = [rng.gauss(0, 1) for _ in range(p.n)]
    dd = sum(v * v for v in d)
    sd = []
    for c, dim, _ in p.blocks():
        if c == "zero":
            sd += [0.0] * dim
        else:
            sd += interior(rng, c, dim)
    # A ← A − (A d + s_d) dᵀ/‖d‖², so that A d = −s_d.
    Ad = [0.0] * p.m
    for (i, j), v in p.A.items():
        Ad[i] += v * d[j]
    for i in range(p.m):
        f = (Ad[i] + sd[i]) / dd
        for j in range(p.n):
            p.A[(i, j)] = p.A.get((i, j), 0.0) - f * d[j]
    qd = sum(p.q[j] * d[j] for j in range(p.n))
    p.q = [p.q[j] - (qd + 1.0) * d[j] / dd for j in range(p.n)]
    x0 = [rng.gauss(0, 1) for _ in range(p.n)]
    s0 = []
    for c, dim, _ in p.blocks():
        s0 += interior(rng, c, dim)
    p.b = list(s0)
    for (i, j), v in p.A.items():
        p.b[i] += v * x0[j]
    p.x_feasible = x0


# ---------------------------------------------------------------- CBF writer

def fmt(v):
    return repr(float(v))


def write_cbf(p, path):
    scalar = [(c, d, off) for c, d, off in p.blocks() if c != "psd"]
    psd = [(c, d, off) for c, d, off in p.blocks() if c == "psd"]
    m_scalar = sum(d for _, d, _ in scalar)
    for _, _, off in psd:
        assert off >= m_scalar, "PSD blocks must come last"
    # CBF row of standard-form row i (scalar rows only); EXP blocks reversed.
    cbf_row = {}
    for c, d, off in scalar:
        for k in range(d):
            cbf_row[off + k] = off + (d - 1 - k if c == "exp" else k)
    name = {"zero": "L=", "nonneg": "L+", "soc": "Q", "exp": "EXP"}
    out = ["# privopt cross-check instance %s (%s); standard form A x + s = b, s in K" % (p.name, p.kind),
           "# written as CBF rows (-A) x + b in K; EXP blocks in CBF order (z, y, x)",
           "VER", "3", "", "OBJSENSE", "MIN", "", "VAR", "%d 1" % p.n, "F %d" % p.n, ""]
    if scalar:
        out += ["CON", "%d %d" % (m_scalar, len(scalar))]
        out += ["%s %d" % (name[c], d) for c, d, _ in scalar]
        out.append("")
    if psd:
        out += ["PSDCON", "%d" % len(psd)] + ["%d" % psd_order(d) for _, d, _ in psd] + [""]
    obj = [(j, v) for j, v in enumerate(p.q) if v != 0]
    if obj:
        out += ["OBJACOORD", "%d" % len(obj)] + ["%d %s" % (j, fmt(v)) for j, v in obj] + [""]
    if p.r != 0:
        out += ["OBJBCOORD", fmt(p.r), ""]
    acoord = sorted((cbf_row[i], j, -v) for (i, j), v in p.A.items() if i in cbf_row and v != 0)
    if acoord:
        out += ["ACOORD", "%d" % len(acoord)] + ["%d %d %s" % (i, j, fmt(v)) for i, j, v in acoord] + [""]
    bcoord = sorted((cbf_row[i], v) for i, v in enumerate(p.b) if i in cbf_row and v != 0)
    if bcoord:
        out += ["BCOORD", "%d" % len(bcoord)] + ["%d %s" % (i, fmt(v)) for i, v in bcoord] + [""]
    hcoord, dcoord = [], []
    for ci, (_, d, off) in enumerate(psd):
        n = psd_order(d)
        pos = {}
        for j in range(n):
            for i in range(j, n):
                pos[off + svec_index(n, i, j)] = (i, j)
        for (row, var), v in sorted(p.A.items()):
            if row in pos and v != 0:
                i, j = pos[row]
                hcoord.append((ci, var, i, j, -v / (1 if i == j else SQRT2)))
        for row in range(off, off + d):
            if p.b[row] != 0:
                i, j = pos[row]
                dcoord.append((ci, i, j, p.b[row] / (1 if i == j else SQRT2)))
    if hcoord:
        out += ["HCOORD", "%d" % len(hcoord)] + ["%d %d %d %d %s" % (c, v, i, j, fmt(x)) for c, v, i, j, x in hcoord] + [""]
    if dcoord:
        out += ["DCOORD", "%d" % len(dcoord)] + ["%d %d %d %s" % (c, i, j, fmt(x)) for c, i, j, x in dcoord] + [""]
    with open(path, "w") as f:
        f.write("\n".join(out))


# ---------------------------------------------------------------- CVXOPT

STATUS = {"optimal": "optimal", "primal infeasible": "infeasible", "dual infeasible": "unbounded"}


def cvxopt_conelp_data(p):
    """Map the standard form to CVXOPT's conelp data (c, G, h, dims, A, b).

    CVXOPT: minimize cᵀx s.t. G x + s = h, A x = b, s ∈ 'l' × 'q' × 's' with 's'
    blocks stored as full column-major matrices (lower triangle used). Zero rows
    become A x = b; nonnegative rows 'l'; SOC rows 'q'; a PSD svec block row for
    entry (i, j) becomes the matrix entries (i, j) and (j, i) divided by √2 off
    the diagonal."""
    rows = {}
    for (i, j), v in p.A.items():
        rows.setdefault(i, []).append((j, v))
    eq_rows, l_rows, q_rows, s_rows = [], [], [], []  # lists of (coeffs, rhs)
    dims = {"l": 0, "q": [], "s": []}
    for c, d, off in p.blocks():
        if c == "zero":
            eq_rows += [(rows.get(off + k, []), p.b[off + k]) for k in range(d)]
        elif c == "nonneg":
            l_rows += [(rows.get(off + k, []), p.b[off + k]) for k in range(d)]
            dims["l"] += d
        elif c == "soc":
            q_rows += [(rows.get(off + k, []), p.b[off + k]) for k in range(d)]
            dims["q"].append(d)
        elif c == "psd":
            n = psd_order(d)
            for j in range(n):          # column-major full matrix
                for i in range(n):
                    k = off + svec_index(n, i, j)
                    sc = 1.0 if i == j else 1 / SQRT2
                    s_rows.append(([(col, v * sc) for col, v in rows.get(k, [])], p.b[k] * sc))
            dims["s"].append(n)
        else:
            raise ValueError("conelp cannot take cone %s" % c)

    def sp(rs):
        I, J, V = [], [], []
        for i, (coeffs, _) in enumerate(rs):
            for j, v in coeffs:
                I.append(i)
                J.append(j)
                V.append(v)
        return spmatrix(V, I, J, (len(rs), p.n), "d"), matrix([rhs for _, rhs in rs], (len(rs), 1), "d")

    G, h = sp(l_rows + q_rows + s_rows)
    A, b = sp(eq_rows)
    c = matrix(p.q, (p.n, 1), "d")
    return c, G, h, dims, A, b


def set_options(tol):
    solvers.options.clear()
    solvers.options.update({"show_progress": False, "abstol": tol, "reltol": tol,
                            "feastol": tol, "maxiters": 200})


def solve_conelp(p, tol=TOL):
    c, G, h, dims, A, b = cvxopt_conelp_data(p)
    set_options(tol)
    # The LDLᵀ KKT solver is CVXOPT's most robust one; its default 'chol2' stops
    # early with status 'unknown' on some of these dense random LPs.
    sol = solvers.conelp(c, G, h, dims, A, b, kktsolver="ldl")
    st = STATUS.get(sol["status"], sol["status"])
    ref = {"status": st, "iterations": sol.get("iterations")}
    if st == "optimal":
        ref["x"] = list(sol["x"])
        ref["objective"] = sol["primal objective"] + p.r
        ref["dual_objective"] = sol["dual objective"] + p.r
    return ref


def solve_entropy(fam, tol=TOL):
    """min Σ x log x + cᵀx s.t. F x = g with CVXOPT's cp."""
    k, c, F, g = fam["k"], fam["c"], fam["F"], fam["g"]

    def f(x=None, z=None):
        if x is None:
            return 0, matrix(fam["x0"], (k, 1))
        if min(x) <= 0:
            return None
        val = sum(x[i] * math.log(x[i]) + c[i] * x[i] for i in range(k))
        grad = matrix([math.log(x[i]) + 1 + c[i] for i in range(k)], (1, k))
        if z is None:
            return val, grad
        H = spmatrix([z[0] / x[i] for i in range(k)], range(k), range(k))
        return val, grad, H

    set_options(tol)
    A = matrix([v for row in F for v in row], (k, len(F))).T
    b = matrix(g, (len(g), 1))
    sol = solvers.cp(f, A=A, b=b)
    st = STATUS.get(sol["status"], sol["status"])
    ref = {"status": st, "iterations": sol.get("iterations")}
    if st == "optimal":
        x = sol["x"]
        ref["x"] = list(x) + [x[i] * math.log(x[i]) for i in range(k)]
        ref["objective"] = sum(x[i] * math.log(x[i]) + c[i] * x[i] for i in range(k)) + fam["r"]
        ref["dual_objective"] = sol["dual objective"] + fam["r"]
    return ref


def lse(F, g, x):
    us = [sum(F[r][j] * x[j] for j in range(len(x))) + g[r] for r in range(len(F))]
    mx = max(us)
    return mx + math.log(sum(math.exp(u - mx) for u in us))


def solve_lse(fam, tol=TOL):
    k, F0, g0, F1, g1 = fam["k"], fam["F0"], fam["g0"], fam["F1"], fam["g1"]
    rows = F0 + F1
    F = matrix([v for row in rows for v in row], (k, len(rows))).T
    g = matrix(g0 + g1, (len(rows), 1))
    G = matrix(0.0, (2 * k, k))
    for j in range(k):
        G[j, j], G[k + j, j] = 1.0, -1.0
    h = matrix(2.0, (2 * k, 1))
    set_options(tol)
    sol = solvers.gp([len(F0), len(F1)], F, g, G, h)
    st = STATUS.get(sol["status"], sol["status"])
    ref = {"status": st, "iterations": sol.get("iterations")}
    if st == "optimal":
        x = list(sol["x"])
        ref["objective"] = lse(F0, g0, x) + fam["r"]
        ref["dual_objective"] = sol["dual objective"] + fam["r"]
        ref["constraint_value"] = lse(F1, g1, x)
        t = lse(F0, g0, x)
        us1 = [sum(F1[r][j] * x[j] for j in range(k)) + g1[r] for r in range(len(F1))]
        z1 = [math.exp(u) for u in us1]
        scale = max(1.0, sum(z1))  # feasibility tolerance of the reference
        ref["x"] = x + [t] + [math.exp(sum(F0[r][j] * x[j] for j in range(k)) + g0[r] - t) for r in range(len(F0))] \
            + [z / scale for z in z1]
    return ref


# ---------------------------------------------------------------- exp families

def entropy_problem(rng, name, k, p_eq):
    x0 = [rng.uniform(0.2, 2) for _ in range(k)]
    F = [[1.0] * k] + [[rng.gauss(0, 1) for _ in range(k)] for _ in range(p_eq - 1)]
    g = [sum(F[r][j] * x0[j] for j in range(k)) for r in range(p_eq)]
    c = [rng.gauss(0, 1) for _ in range(k)]
    fam = {"k": k, "c": c, "F": F, "g": g, "x0": x0, "r": rng.uniform(-5, 5)}
    # Conic form over v = (x, t): min Σ t + cᵀx s.t. F x = g, (−tᵢ, xᵢ, 1) ∈ K_exp.
    p = Problem(name, "exp", 2 * k)
    for j in range(k):
        p.q[j] = c[j]
        p.q[k + j] = 1.0
    p.r = fam["r"]
    off = p.add_block("zero", p_eq)
    for r in range(p_eq):
        for j in range(k):
            p.A[(off + r, j)] = F[r][j]
        p.b[off + r] = g[r]
    for j in range(k):
        off = p.add_block("exp", 3)
        p.A[(off, k + j)] = 1.0   # s = −t
        p.A[(off + 1, j)] = -1.0  # s = x
        p.b[off + 2] = 1.0        # s = 1
    p.x_feasible = x0 + [x0[j] * math.log(x0[j]) + 1 for j in range(k)]
    return p, fam


def lse_problem(rng, name, k, p0, p1):
    F0 = [[rng.gauss(0, 1) for _ in range(k)] for _ in range(p0)]
    g0 = [rng.gauss(0, 1) for _ in range(p0)]
    F1 = [[rng.gauss(0, 1) for _ in range(k)] for _ in range(p1)]
    g1 = [math.log(math.exp(-1) / p1) + 0.1 * rng.gauss(0, 1) for _ in range(p1)]
    fam = {"k": k, "F0": F0, "g0": g0, "F1": F1, "g1": g1, "r": rng.uniform(-5, 5)}
    # Variables v = (x [k], t, z0 [p0], z1 [p1]).
    nt, nz0, nz1 = k, k + 1, k + 1 + p0
    p = Problem(name, "exp", k + 1 + p0 + p1)
    p.q[nt] = 1.0
    p.r = fam["r"]
    for r in range(p0):  # (F0 x + g0 − t, 1, z0) ∈ K_exp
        off = p.add_block("exp", 3)
        for j in range(k):
            p.A[(off, j)] = -F0[r][j]
        p.A[(off, nt)] = 1.0
        p.b[off] = g0[r]
        p.b[off + 1] = 1.0
        p.A[(off + 2, nz0 + r)] = -1.0
    for r in range(p1):  # (F1 x + g1, 1, z1) ∈ K_exp
        off = p.add_block("exp", 3)
        for j in range(k):
            p.A[(off, j)] = -F1[r][j]
        p.b[off] = g1[r]
        p.b[off + 1] = 1.0
        p.A[(off + 2, nz1 + r)] = -1.0
    off = p.add_block("nonneg", 2 + 2 * k)
    for r in range(p0):  # Σ z0 ≤ 1
        p.A[(off, nz0 + r)] = 1.0
    p.b[off] = 1.0
    for r in range(p1):  # Σ z1 ≤ 1
        p.A[(off + 1, nz1 + r)] = 1.0
    p.b[off + 1] = 1.0
    for j in range(k):   # −2 ≤ x ≤ 2
        p.A[(off + 2 + j, j)] = 1.0
        p.b[off + 2 + j] = 2.0
        p.A[(off + 2 + k + j, j)] = -1.0
        p.b[off + 2 + k + j] = 2.0
    t = lse(F0, g0, [0.0] * k) + 1
    p.x_feasible = [0.0] * k + [t] + [1.1 * math.exp(g - t) for g in g0] + [1.1 * math.exp(g) for g in g1]
    return p, fam


# ---------------------------------------------------------------- CBF check

def read_cbf(path):
    """Parse the subset of CBF that write_cbf emits (independently of Problem)."""
    toks = {}
    lines = [l.strip() for l in open(path) if l.strip() and not l.startswith("#")]
    i = 0
    d = {"obj": {}, "objb": 0.0, "A": [], "B": {}, "H": [], "D": [], "con": [], "psd": []}
    while i < len(lines):
        key = lines[i]
        i += 1
        if key == "VER" or key == "OBJSENSE":
            i += 1
        elif key == "VAR":
            d["n"] = int(lines[i].split()[0])
            i += 2
        elif key == "CON":
            k = int(lines[i].split()[1])
            d["con"] = [(l.split()[0], int(l.split()[1])) for l in lines[i + 1:i + 1 + k]]
            i += 1 + k
        elif key == "PSDCON":
            k = int(lines[i])
            d["psd"] = [int(l) for l in lines[i + 1:i + 1 + k]]
            i += 1 + k
        elif key == "OBJBCOORD":
            d["objb"] = float(lines[i])
            i += 1
        else:
            k = int(lines[i])
            rows = [l.split() for l in lines[i + 1:i + 1 + k]]
            i += 1 + k
            if key == "OBJACOORD":
                d["obj"] = {int(r[0]): float(r[1]) for r in rows}
            elif key == "ACOORD":
                d["A"] = [(int(r[0]), int(r[1]), float(r[2])) for r in rows]
            elif key == "BCOORD":
                d["B"] = {int(r[0]): float(r[1]) for r in rows}
            elif key == "HCOORD":
                d["H"] = [tuple(int(v) for v in r[:4]) + (float(r[4]),) for r in rows]
            elif key == "DCOORD":
                d["D"] = [tuple(int(v) for v in r[:3]) + (float(r[3]),) for r in rows]
            else:
                raise ValueError("unexpected CBF keyword " + key)
    return d


def min_eig(S):
    """Smallest eigenvalue of a small symmetric matrix by cyclic Jacobi rotations."""
    n = len(S)
    a = [row[:] for row in S]
    for _ in range(100):
        off = sum(a[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-30:
            break
        for p_ in range(n):
            for q_ in range(p_ + 1, n):
                if abs(a[p_][q_]) < 1e-300:
                    continue
                th = (a[q_][q_] - a[p_][p_]) / (2 * a[p_][q_])
                t = (1 if th >= 0 else -1) / (abs(th) + math.sqrt(th * th + 1))
                c = 1 / math.sqrt(t * t + 1)
                s_ = t * c
                for k in range(n):
                    akp, akq = a[k][p_], a[k][q_]
                    a[k][p_], a[k][q_] = c * akp - s_ * akq, s_ * akp + c * akq
                for k in range(n):
                    apk, aqk = a[p_][k], a[q_][k]
                    a[p_][k], a[q_][k] = c * apk - s_ * aqk, s_ * apk + c * aqk
    return min(a[i][i] for i in range(n))


def check_cbf(path, x):
    """Evaluate a CBF file at x with CBF's own cone definitions. Returns the
    objective and the largest cone violation (relative to the block's size)."""
    d = read_cbf(path)
    g = [0.0] * sum(k for _, k in d["con"])
    for i, v in d["B"].items():
        g[i] += v
    for i, j, v in d["A"]:
        g[i] += v * x[j]
    worst, off = 0.0, 0
    for name, k in d["con"]:
        u = g[off:off + k]
        scale = max(1.0, max(abs(v) for v in u))
        if name == "L=":
            viol = max(abs(v) for v in u)
        elif name == "L+":
            viol = max(0.0, -min(u))
        elif name == "Q":
            viol = max(0.0, math.sqrt(sum(v * v for v in u[1:])) - u[0])
        elif name == "EXP":  # u0 ≥ u1·exp(u2/u1), u0, u1 ≥ 0
            viol = max(0.0, -u[1], -u[0])
            if u[1] > 0:
                viol = max(viol, u[1] * math.exp(u[2] / u[1]) - u[0])
            elif u[2] > 0:
                viol = max(viol, u[2])
        else:
            raise ValueError(name)
        worst = max(worst, viol / scale)
        off += k
    for ci, order in enumerate(d["psd"]):
        G = [[0.0] * order for _ in range(order)]
        for c, i, j, v in d["D"]:
            if c == ci:
                G[i][j] += v
                if i != j:
                    G[j][i] += v
        for c, var, i, j, v in d["H"]:
            if c == ci:
                G[i][j] += v * x[var]
                if i != j:
                    G[j][i] += v * x[var]
        scale = max(1.0, max(abs(v) for row in G for v in row))
        worst = max(worst, max(0.0, -min_eig(G)) / scale)
    obj = d["objb"] + sum(v * x[j] for j, v in d["obj"].items())
    return obj, worst


# ---------------------------------------------------------------- main

def instances():
    """Yield (problem, solve function) for the committed set."""
    for i in range(4):
        rng = random.Random(1000 + i)
        n = rng.randint(10, 40)
        cones = [("zero", rng.randint(1, n // 3)), ("nonneg", rng.randint(n, 2 * n))]
        p = random_cone_problem(rng, "lp%d" % (i + 1), "lp", n, cones)
        yield p, solve_conelp
    rng = random.Random(1100)
    p = random_cone_problem(rng, "lp_infeasible", "lp", 12, [("zero", 3), ("nonneg", 20)])
    make_infeasible(rng, p)
    yield p, solve_conelp
    rng = random.Random(1101)
    p = random_cone_problem(rng, "lp_unbounded", "lp", 12, [("zero", 3), ("nonneg", 20)])
    make_unbounded(rng, p)
    yield p, solve_conelp

    for i in range(4):
        rng = random.Random(2000 + i)
        n = rng.randint(15, 30)
        cones = [("zero", rng.randint(0, 3)), ("nonneg", rng.randint(2, 10))]
        cones += [("soc", rng.randint(3, 10)) for _ in range(rng.randint(3, 6))]
        cones = [c for c in cones if c[1] > 0]
        yield random_cone_problem(rng, "socp%d" % (i + 1), "socp", n, cones), solve_conelp
    rng = random.Random(2100)
    p = random_cone_problem(rng, "socp_infeasible", "socp", 10,
                            [("soc", 4), ("soc", 6), ("nonneg", 3)])
    make_infeasible(rng, p)
    yield p, solve_conelp
    rng = random.Random(2101)
    p = random_cone_problem(rng, "socp_unbounded", "socp", 10,
                            [("zero", 2), ("soc", 4), ("soc", 6), ("nonneg", 3)])
    make_unbounded(rng, p)
    yield p, solve_conelp

    for i in range(4):
        rng = random.Random(3000 + i)
        order = rng.randint(5, 10)
        n = rng.randint(8, 20)
        cones = []
        if i >= 2:  # mixed: some linear rows before the PSD block
            cones += [("zero", 2), ("nonneg", 5), ("soc", 4)]
        cones.append(("psd", order * (order + 1) // 2))
        yield random_cone_problem(rng, "sdp%d" % (i + 1), "sdp", n, cones), solve_conelp

    for i in range(2):
        rng = random.Random(4000 + i)
        p, fam = entropy_problem(rng, "exp_entropy%d" % (i + 1), rng.randint(5, 12), rng.randint(1, 4))
        yield p, (lambda _p, fam=fam: solve_entropy(fam))
    for i in range(2):
        rng = random.Random(4100 + i)
        p, fam = lse_problem(rng, "exp_logsumexp%d" % (i + 1), rng.randint(3, 6), rng.randint(4, 8), rng.randint(3, 6))
        yield p, (lambda _p, fam=fam: solve_lse(fam))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "solver", "ipm", "testdata", "crosscheck")
    os.makedirs(out, exist_ok=True)
    refs = []
    for p, solve in instances():
        ref = solve(p)
        if ref["status"] not in ("optimal", "infeasible", "unbounded"):
            print("%s: CVXOPT status %s, not committed" % (p.name, ref["status"]), file=sys.stderr)
            continue
        path = os.path.join(out, p.name + ".cbf")
        write_cbf(p, path)
        # The CBF file, read back with CBF's own cone definitions, must accept the
        # construction's strictly feasible point and CVXOPT's optimum, and give
        # CVXOPT's objective there.
        if p.x_feasible is not None:
            _, viol = check_cbf(path, p.x_feasible)
            assert viol < 1e-12, "%s: feasible point violates the CBF cones by %g" % (p.name, viol)
        x = ref.pop("x", None)
        if x is not None:
            obj, viol = check_cbf(path, x)
            assert viol < 1e-7, "%s: CVXOPT optimum violates the CBF cones by %g" % (p.name, viol)
            assert abs(obj - ref["objective"]) <= 1e-9 * max(1, abs(obj)), \
                "%s: CBF objective %r, CVXOPT %r" % (p.name, obj, ref["objective"])
        entry = {"name": p.name, "file": p.name + ".cbf", "kind": p.kind, "n": p.n, "m": p.m,
                 "cones": ["%s:%d" % c for c in p.cones]}
        entry.update(ref)
        entry["reference"] = "CVXOPT %s, abstol = reltol = feastol = %g" % (cvxopt.__version__, TOL)
        refs.append(entry)
        obj = ref.get("objective")
        print("%-18s %-5s n=%3d m=%3d %-10s obj=%s" % (p.name, p.kind, p.n, p.m, ref["status"],
                                                       "%.12g" % obj if obj is not None else "-"))
    with open(os.path.join(out, "references.json"), "w") as f:
        json.dump({"generator": "scripts/crosscheck/gen_instances.py", "instances": refs}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
