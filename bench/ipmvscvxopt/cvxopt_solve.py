#!/usr/bin/env python3
"""Solve standard-form instances (JSON written by main.go) with CVXOPT's conelp and
print one JSON line per instance: name, status, iterations, time and cpu
(wall-clock and process CPU seconds of the conelp call only), objective.

The conversion to CVXOPT's form (G x + s = h, A x = b, s in 'l' x 'q' x 's') is
the one of scripts/crosscheck/gen_instances.py (cvxopt_conelp_data). Accuracy:
abstol = reltol = feastol = 1e-8; the KKT solver is given by --kkt NAME
(default: CVXOPT's own choice). With a quadratic term (p_colptr, p_rowidx,
p_val: the upper triangle of P) the instance is solved by coneqp. With
--reps N every instance is solved N times and the fastest solve reported.
"""

import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "crosscheck"))

from cvxopt import solvers, spmatrix  # noqa: E402
import gen_instances as gi  # noqa: E402

KINDS = {"zero": "zero", "nonnegative": "nonneg", "second-order": "soc", "psd": "psd"}
TOL = 1e-8


def load(path):
    with open(path) as f:
        d = json.load(f)
    p = gi.Problem(d["name"], "bench", d["n"])
    p.q = d["q"]
    p.r = d["r"]
    p.b = d["b"]
    p.cones = [(KINDS[c["kind"]], c["dim"]) for c in d["cones"]]
    colptr, rowidx, val = d["colptr"], d["rowidx"], d["val"]
    for j in range(d["n"]):
        for k in range(colptr[j], colptr[j + 1]):
            p.A[(rowidx[k], j)] = val[k]
    p.P = None
    if d.get("p_colptr"):
        I, J, V = [], [], []
        pc, pr, pv = d["p_colptr"], d["p_rowidx"], d["p_val"]
        for j in range(d["n"]):
            for k in range(pc[j], pc[j + 1]):
                i = pr[k]
                I.append(i), J.append(j), V.append(pv[k])
                if i != j:
                    I.append(j), J.append(i), V.append(pv[k])
        p.P = spmatrix(V, I, J, (d["n"], d["n"]), "d")
    return p


def main():
    args = sys.argv[1:]
    kkt, reps = None, 1
    while len(args) >= 2 and args[0] in ("--kkt", "--reps"):
        if args[0] == "--kkt":
            kkt = args[1]
        else:
            reps = int(args[1])
        args = args[2:]
    for path in args:
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            p = load(path)
            c, G, h, dims, A, b = gi.cvxopt_conelp_data(p)
            gi.set_options(TOL)
            el = cpu = float("inf")
            for _ in range(reps):
                start, cpu0 = time.perf_counter(), time.process_time()
                if p.P is None:
                    sol = solvers.conelp(c, G, h, dims, A, b, kktsolver=kkt)
                else:
                    sol = solvers.coneqp(p.P, c, G, h, dims, A, b, kktsolver=kkt)
                el = min(el, time.perf_counter() - start)
                cpu = min(cpu, time.process_time() - cpu0)
            out = {"name": name, "status": gi.STATUS.get(sol["status"], sol["status"]),
                   "iterations": sol["iterations"], "time": el, "cpu": cpu}
            if sol["primal objective"] is not None:
                out["objective"] = sol["primal objective"] + p.r
        except Exception as e:  # report and go on with the next instance
            out = {"name": name, "error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
