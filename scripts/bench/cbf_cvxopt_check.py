#!/usr/bin/env python3
"""Independent check of a CBLIB instance: read the .cbf(.gz) file with a
reader of its own (not privopt's cbf package) and solve it with CVXOPT's
conelp, printing the primal and dual objectives, the iterations and the
residuals CVXOPT reports.

    python3 scripts/bench/cbf_cvxopt_check.py FILE.cbf.gz [--tol 1e-9] [--maxiters 200]

Handles what the nql/qssp and isil01 files use: scalar variables in F, L+,
L-, L= and Q cones (EXP variable cones only for the Farkas check of
cbf_farkas_check.py, which shares parse()), constraint rows Ax + b in L+, L-,
L= and Q cones, OBJACOORD, OBJBCOORD, ACOORD, BCOORD. parse() also reads the
PSD constraints of the SDPLIB files (PSDCON, HCOORD, DCOORD: the blocks
G_i = sum_j x_j H_ij + D_i PSD, lower triangles) for sdpa_upper_check.py;
the CVXOPT solve here refuses them. The CBF form
(CBLIB format description, "How instances are specified"):

    min/max  c'x + c0   s.t.  A x + b in K_con,  x in K_var,

becomes CVXOPT's  min c'x  s.t.  G x + s = h, s in l x q,  A_eq x = b_eq:
a row r of A x + b in L+ or Q gives G = -A_r, h = b_r; in L- gives G = A_r,
h = -b_r; in L= gives the equality A_r x = -b_r; variable cones add the
rows -x in K the same way.
"""

import argparse
import gzip
import sys
import time


def tokens(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            yield line


def parse(path, num=float):
    """The instance as a dict; numbers are converted by num from the file's
    text (float, or fractions.Fraction for the exact decimal values)."""
    it = tokens(path)
    p = {"sense": "MIN", "var": [], "con": [], "c": {}, "c0": num(0), "a": [], "b": {}, "nvar": 0, "ncon": 0,
         "psdcon": [], "h": [], "d": []}
    for key in it:
        if key == "VER":
            p["ver"] = int(next(it))
        elif key == "OBJSENSE":
            p["sense"] = next(it)
        elif key in ("VAR", "CON"):
            n, k = map(int, next(it).split())
            cones = []
            for _ in range(k):
                kind, dim = next(it).split()
                cones.append((kind, int(dim)))
            if sum(d for _, d in cones) != n:
                raise ValueError("%s: cone dimensions do not add up to %d" % (key, n))
            p["var" if key == "VAR" else "con"] = cones
            p["nvar" if key == "VAR" else "ncon"] = n
        elif key == "OBJACOORD":
            for _ in range(int(next(it))):
                j, v = next(it).split()
                p["c"][int(j)] = num(v)
        elif key == "OBJBCOORD":
            p["c0"] = num(next(it))
        elif key == "ACOORD":
            for _ in range(int(next(it))):
                i, j, v = next(it).split()
                p["a"].append((int(i), int(j), num(v)))
        elif key == "BCOORD":
            for _ in range(int(next(it))):
                i, v = next(it).split()
                p["b"][int(i)] = num(v)
        elif key == "PSDCON":
            p["psdcon"] = [int(next(it)) for _ in range(int(next(it)))]
        elif key == "HCOORD":
            for _ in range(int(next(it))):
                i, j, k, l, v = next(it).split()
                p["h"].append((int(i), int(j), int(k), int(l), num(v)))
        elif key == "DCOORD":
            for _ in range(int(next(it))):
                i, k, l, v = next(it).split()
                p["d"].append((int(i), int(k), int(l), num(v)))
        else:
            raise ValueError("unsupported keyword %s" % key)
    return p


def build(p):
    """Rows of G (inequalities and SOCs, in CVXOPT order) and of A_eq."""
    if p["psdcon"]:
        raise ValueError("PSD constraints (PSDCON) are not handled by the CVXOPT check")
    n = p["nvar"]
    arow = {}
    for i, j, v in p["a"]:
        arow.setdefault(i, []).append((j, v))
    lin, soc, eq = [], [], []  # each row: (list of (col, val) of G or A_eq, h or b_eq)
    off = 0
    for kind, dim in p["con"]:
        rows = range(off, off + dim)
        if kind == "L+":
            lin += [([(j, -v) for j, v in arow.get(r, [])], p["b"].get(r, 0.0)) for r in rows]
        elif kind == "L-":
            lin += [([(j, v) for j, v in arow.get(r, [])], -p["b"].get(r, 0.0)) for r in rows]
        elif kind == "L=":
            eq += [(arow.get(r, []), -p["b"].get(r, 0.0)) for r in rows]
        elif kind == "Q":
            soc.append([([(j, -v) for j, v in arow.get(r, [])], p["b"].get(r, 0.0)) for r in rows])
        else:
            raise ValueError("constraint cone %s not handled" % kind)
        off += dim
    off = 0
    for kind, dim in p["var"]:
        cols = range(off, off + dim)
        if kind == "L+":
            lin += [([(j, -1.0)], 0.0) for j in cols]
        elif kind == "L-":
            lin += [([(j, 1.0)], 0.0) for j in cols]
        elif kind == "L=":
            eq += [([(j, 1.0)], 0.0) for j in cols]
        elif kind == "Q":
            soc.append([([(j, -1.0)], 0.0) for j in cols])
        elif kind != "F":
            raise ValueError("variable cone %s not handled" % kind)
        off += dim
    return n, lin, soc, eq


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--maxiters", type=int, default=200)
    args = ap.parse_args()
    from cvxopt import matrix, spmatrix, solvers

    p = parse(args.file)
    n, lin, soc, eq = build(p)
    sign = -1.0 if p["sense"] == "MAX" else 1.0
    c = matrix([sign * p["c"].get(j, 0.0) for j in range(n)])
    grows = lin + [r for s in soc for r in s]
    I, J, V, h = [], [], [], []
    for k, (row, rhs) in enumerate(grows):
        for j, v in row:
            I.append(k)
            J.append(j)
            V.append(v)
        h.append(rhs)
    G = spmatrix(V, I, J, (len(grows), n))
    dims = {"l": len(lin), "q": [len(s) for s in soc], "s": []}
    kw = {}
    if eq:
        I, J, V, b = [], [], [], []
        for k, (row, rhs) in enumerate(eq):
            for j, v in row:
                I.append(k)
                J.append(j)
                V.append(v)
            b.append(rhs)
        kw = {"A": spmatrix(V, I, J, (len(eq), n)), "b": matrix(b)}
    solvers.options.update({"abstol": args.tol, "reltol": args.tol, "feastol": args.tol,
                            "maxiters": args.maxiters, "show_progress": True})
    t = time.time()
    sol = solvers.conelp(c, G, matrix(h), dims, **kw)
    el = time.time() - t
    po, do = sol["primal objective"], sol["dual objective"]
    print("status", sol["status"], "iterations", sol["iterations"], "seconds %.1f" % el)
    if po is not None:
        print("primal objective %.12g  dual objective %.12g  (file sense %s, constant %g)" % (
            sign * po + p["c0"], sign * do + p["c0"], p["sense"], p["c0"]))
    print("primal infeasibility %.3g  dual infeasibility %.3g  relative gap %s" % (
        sol["primal infeasibility"] or float("nan"), sol["dual infeasibility"] or float("nan"), sol["relative gap"]))


if __name__ == "__main__":
    sys.exit(main())
