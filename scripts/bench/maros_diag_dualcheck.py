#!/usr/bin/env python3
# Independent check of the optimal value of a Maros–Meszaros QP with a diagonal
# Hessian, two equality rows and x >= 0 (HUES-MOD, HUESTIS): maximizes the
# concave dual g(y) = b.y - 1/2 sum_i max(0, a_i.y)^2 / h_i by Newton steps.
# Usage: python3 scripts/bench/maros_diag_dualcheck.py HUES-MOD.SIF.gz
import gzip, sys
# min sum h_i/2 x_i^2  s.t. A x = b, x >= 0 (QUADOBJ diagonal, two E rows, no bounds)
cols = {}; h = {}; b = {}
sec = None
for line in gzip.open(sys.argv[1], 'rt'):
    if line.startswith('*') or not line.strip(): continue
    if not line[0].isspace(): sec = line.split()[0]; continue
    f = line.split()
    if sec == 'COLUMNS':
        for k in range(1, len(f), 2):
            cols.setdefault(f[0], {})[f[k]] = float(f[k+1])
    elif sec == 'RHS':
        for k in range(1, len(f), 2): b[f[k]] = float(f[k+1])
    elif sec == 'QUADOBJ':
        assert f[0] == f[1]; h[f[0]] = float(f[2])
rows = sorted(b)
A = [[cols[c].get(r, 0.0) for r in rows] for c in cols]
H = [h[c] for c in cols]
bb = [b[r] for r in rows]
y = [0.0, 0.0]
def g(y):
    val = bb[0]*y[0] + bb[1]*y[1]; gr = list(bb); He = [[0,0],[0,0]]
    for a, hi in zip(A, H):
        t = a[0]*y[0] + a[1]*y[1]
        if t > 0:
            x = t/hi; val -= 0.5*t*x
            gr[0] -= a[0]*x; gr[1] -= a[1]*x
            for i in range(2):
                for j in range(2): He[i][j] -= a[i]*a[j]/hi
    return val, gr, He
# start with y making all active: solve the all-positive system
y = [1e10, 0.0]
for it in range(200):
    val, gr, He = g(y)
    det = He[0][0]*He[1][1] - He[0][1]*He[1][0]
    if det == 0: y = [y[0]*10, y[1]]; continue
    d = [-(He[1][1]*gr[0] - He[0][1]*gr[1])/det, -(-He[1][0]*gr[0] + He[0][0]*gr[1])/det]
    s = 1.0
    while s > 1e-12:
        yn = [y[0]+s*d[0], y[1]+s*d[1]]
        if g(yn)[0] >= val: break
        s /= 2
    y = yn
print("dual optimum (lower bound on the optimal value) %.10g, y = %s, |grad| = %s" % (g(y)[0], y, g(y)[1]))
