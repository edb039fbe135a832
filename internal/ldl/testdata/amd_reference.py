"""Reference fill for the AMD tests: nnz(L) of SuiteSparse AMD (via CVXOPT).

Run with a Python that has CVXOPT (Debian: python3-cvxopt):

    python3 testdata/amd_reference.py

It orders the 5-point Laplacian of a 60x60 grid (the pattern of gridLaplacian
in helpers_test.go) with cvxopt.amd.order (SuiteSparse AMD, default dense
factor 10) and prints the number of entries strictly below the diagonal of
the Cholesky factor, computed from the elimination tree row subtrees.
"""
import cvxopt
import cvxopt.amd


def grid(k):
    n = k * k
    I, J = [], []
    for r in range(k):
        for c in range(k):
            i = r * k + c
            I.append(i); J.append(i)
            if c + 1 < k:
                I.append(i + 1); J.append(i)  # lower triangle for CVXOPT
            if r + 1 < k:
                I.append(i + k); J.append(i)
    return n, I, J


def nnz_l(n, I, J, p):
    ip = [0] * n
    for k, i in enumerate(p):
        ip[i] = k
    cols = [[] for _ in range(n)]  # upper triangle of P A P' by columns
    for i, j in zip(I, J):
        a, b = ip[i], ip[j]
        if a != b:
            cols[max(a, b)].append(min(a, b))
    parent = [-1] * n
    flag = [-1] * n
    count = 0
    for k in range(n):
        flag[k] = k
        for i in cols[k]:
            while flag[i] != k:
                if parent[i] == -1:
                    parent[i] = k
                count += 1
                flag[i] = k
                i = parent[i]
    return count


if __name__ == "__main__":
    n, I, J = grid(60)
    A = cvxopt.spmatrix(1.0, I, J, (n, n))
    p = list(cvxopt.amd.order(A))
    print("60x60 grid: nnz(L) with SuiteSparse AMD =", nnz_l(n, I, J, p))
