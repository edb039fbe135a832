/*
 * ecos_solve: solves standard-form instances written by
 * bench/internal/cvxoptjson.WriteText with ECOS (embotech/ecos, built by
 * scripts/build-ecos.sh) and prints one JSON line per instance in the format
 * of bench/ipmvscvxopt/cvxopt_solve.py:
 *
 *   {"name": ..., "status": ..., "iterations": ..., "time": ..., "cpu": ..., "objective": ...}
 *
 * Problem: min ½xᵀPx + qᵀx + r  s.t.  b − Ax ∈ K, K a product of zero,
 * nonnegative, second-order and exponential cones (the file's cone lines
 * "kind dim", kinds spelled as package cone's Kind.String: zero,
 * nonnegative, second-order, exponential with dim 3). ECOS's form is
 * min cᵀx s.t. Ax = b, h − Gx ∈ R₊ˡ × Q... × K_e..., so the zero rows go to
 * ECOS's equality block, the nonnegative rows are moved ahead of the
 * second-order rows and the exponential rows behind them (ECOS wants the
 * orthant first and the exponential cones last). ECOS's exponential cone is
 * cl{(x, y, z) : z > 0, z·exp(x/z) ≤ y}, privopt's cl{(x, y, z) : y > 0,
 * y·exp(x/y) ≤ z}: each block's second and third rows are swapped. ECOS has no quadratic objective: with P ≠ 0 the objective
 * is written as qᵀx + t with ½‖Lᵀx‖² ≤ t (P = LLᵀ, a dense Cholesky
 * factor; for a semidefinite P a zero pivot leaves a zero column of L),
 * i.e. (2t + 1, 2Lᵀx, 2t − 1) in a second-order cone of dimension n + 2 —
 * the standard "QP as SOCP" epigraph.
 *
 * Timing: ECOS_setup + ECOS_solve + ECOS_cleanup (ECOS's equilibration,
 * ordering and symbolic factorisation are part of the solve, as privopt's
 * presolve and scaling are); the conversion above is done before the timer.
 * With --reps N the fastest of N solves is reported. Tolerances are ECOS's
 * defaults, feastol = abstol = reltol = 1e-8 (the same as the CVXOPT
 * script's and privopt's defaults).
 *
 * Usage: ecos_solve [--reps N] FILE...
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ecos.h"

typedef struct {
    char name[256];
    long n, m;
    double *q, r;
    long *colptr, *rowidx;
    double *val, *b;
    long ncones;
    char (*kind)[32];
    long *dim;
    long pnnz;
    long *pcolptr, *prowidx;
    double *pval;
} problem;

static void die(const char *msg, const char *arg) {
    fprintf(stderr, "ecos_solve: %s %s\n", msg, arg ? arg : "");
    exit(2);
}

static long rd_long(FILE *f) {
    long v;
    if (fscanf(f, "%ld", &v) != 1) die("bad integer in input", NULL);
    return v;
}

static double rd_double(FILE *f) {
    char buf[64];
    if (fscanf(f, "%63s", buf) != 1) die("bad number in input", NULL);
    return strtod(buf, NULL); /* accepts inf, nan */
}

static void *xmalloc(size_t n) {
    void *p = calloc(n ? n : 1, 1);
    if (!p) die("out of memory", NULL);
    return p;
}

static problem load(const char *path) {
    problem p;
    memset(&p, 0, sizeof p);
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open", path);
    if (fscanf(f, "%255s", p.name) != 1) die("no name in", path);
    p.n = rd_long(f);
    p.m = rd_long(f);
    p.q = xmalloc(sizeof(double) * p.n);
    for (long j = 0; j < p.n; j++) p.q[j] = rd_double(f);
    p.r = rd_double(f);
    long nnz = rd_long(f);
    p.colptr = xmalloc(sizeof(long) * (p.n + 1));
    p.rowidx = xmalloc(sizeof(long) * nnz);
    p.val = xmalloc(sizeof(double) * nnz);
    for (long j = 0; j <= p.n; j++) p.colptr[j] = rd_long(f);
    for (long k = 0; k < nnz; k++) p.rowidx[k] = rd_long(f);
    for (long k = 0; k < nnz; k++) p.val[k] = rd_double(f);
    p.b = xmalloc(sizeof(double) * p.m);
    for (long i = 0; i < p.m; i++) p.b[i] = rd_double(f);
    p.ncones = rd_long(f);
    p.kind = xmalloc(sizeof(*p.kind) * p.ncones);
    p.dim = xmalloc(sizeof(long) * p.ncones);
    for (long c = 0; c < p.ncones; c++) {
        if (fscanf(f, "%31s", p.kind[c]) != 1) die("bad cone in", path);
        p.dim[c] = rd_long(f);
    }
    p.pnnz = rd_long(f);
    if (p.pnnz > 0) {
        p.pcolptr = xmalloc(sizeof(long) * (p.n + 1));
        p.prowidx = xmalloc(sizeof(long) * p.pnnz);
        p.pval = xmalloc(sizeof(double) * p.pnnz);
        for (long j = 0; j <= p.n; j++) p.pcolptr[j] = rd_long(f);
        for (long k = 0; k < p.pnnz; k++) p.prowidx[k] = rd_long(f);
        for (long k = 0; k < p.pnnz; k++) p.pval[k] = rd_double(f);
    }
    fclose(f);
    return p;
}

/* ECOS data: G (mG rows) and Aeq (p rows) in compressed columns, nv
 * variables. */
typedef struct {
    idxint nv, mG, peq, l, ncones, nex, *q;
    pfloat *Gpr, *Apr, *c, *h, *beq;
    idxint *Gjc, *Gir, *Ajc, *Air;
} ecosdata;

/* csc builds compressed columns from triplets (row, col, val), rows sorted
 * within each column. */
static void csc(long nrow, long ncol, long nt, const long *ti, const long *tj, const double *tv,
                idxint **jc, idxint **ir, pfloat **pr) {
    (void)nrow;
    *jc = xmalloc(sizeof(idxint) * (ncol + 1));
    *ir = xmalloc(sizeof(idxint) * nt);
    *pr = xmalloc(sizeof(pfloat) * nt);
    for (long k = 0; k < nt; k++) (*jc)[tj[k] + 1]++;
    for (long j = 0; j < ncol; j++) (*jc)[j + 1] += (*jc)[j];
    long *next = xmalloc(sizeof(long) * ncol);
    for (long j = 0; j < ncol; j++) next[j] = (*jc)[j];
    for (long k = 0; k < nt; k++) {
        long d = next[tj[k]]++;
        (*ir)[d] = ti[k];
        (*pr)[d] = tv[k];
    }
    free(next);
    /* insertion sort by row within each column */
    for (long j = 0; j < ncol; j++) {
        for (long a = (*jc)[j] + 1; a < (*jc)[j + 1]; a++) {
            idxint ri = (*ir)[a];
            pfloat rv = (*pr)[a];
            long c = a - 1;
            while (c >= (*jc)[j] && (*ir)[c] > ri) {
                (*ir)[c + 1] = (*ir)[c];
                (*pr)[c + 1] = (*pr)[c];
                c--;
            }
            (*ir)[c + 1] = ri;
            (*pr)[c + 1] = rv;
        }
    }
}

/* convert maps the problem to ECOS's form; a message on failure. */
static const char *convert(const problem *p, ecosdata *e) {
    long n = p->n, m = p->m, qp = p->pnnz > 0;
    long *target = xmalloc(sizeof(long) * m); /* row → ECOS row (G: ≥ 0, Aeq: −1 − k) */
    long nz = 0, nl = 0, nsoc = 0, nsocrows = 0, nex = 0;
    for (long c = 0; c < p->ncones; c++) {
        if (!strcmp(p->kind[c], "zero")) nz += p->dim[c];
        else if (!strcmp(p->kind[c], "nonnegative")) nl += p->dim[c];
        else if (!strcmp(p->kind[c], "second-order")) { nsoc++; nsocrows += p->dim[c]; }
        else if (!strcmp(p->kind[c], "exponential") && p->dim[c] == 3) nex++;
        else return "unsupported cone (ECOS: zero, nonnegative, second-order, exponential)";
    }
    e->nv = n + qp;
    e->peq = nz;
    e->l = nl;
    e->ncones = nsoc + qp;
    e->nex = nex;
    e->mG = nl + nsocrows + (qp ? n + 2 : 0) + 3 * nex;
    e->q = xmalloc(sizeof(idxint) * (e->ncones ? e->ncones : 1));
    /* ECOS rows: orthant, second-order, the QP epigraph's cone, exponential */
    long row = 0, iz = 0, il = 0, is = nl, ie = nl + nsocrows + (qp ? n + 2 : 0), k = 0;
    for (long c = 0; c < p->ncones; c++) {
        if (!strcmp(p->kind[c], "exponential")) {
            target[row++] = ie;     /* x */
            target[row++] = ie + 2; /* privopt's y is ECOS's z */
            target[row++] = ie + 1; /* privopt's z is ECOS's y */
            ie += 3;
            continue;
        }
        for (long i = 0; i < p->dim[c]; i++, row++) {
            if (!strcmp(p->kind[c], "zero")) target[row] = -1 - iz++;
            else if (!strcmp(p->kind[c], "nonnegative")) target[row] = il++;
            else target[row] = is++;
        }
        if (!strcmp(p->kind[c], "second-order")) e->q[k++] = p->dim[c];
    }
    if (qp) e->q[k++] = n + 2;
    e->h = xmalloc(sizeof(pfloat) * (e->mG ? e->mG : 1));
    e->beq = xmalloc(sizeof(pfloat) * (nz ? nz : 1));
    for (long i = 0; i < m; i++) {
        if (target[i] >= 0) e->h[target[i]] = p->b[i];
        else e->beq[-1 - target[i]] = p->b[i];
    }
    long cap = p->colptr[n] + (qp ? n * (n + 1) / 2 + 2 : 0);
    long *gi = xmalloc(sizeof(long) * cap), *gj = xmalloc(sizeof(long) * cap);
    double *gv = xmalloc(sizeof(double) * cap);
    long *ai = xmalloc(sizeof(long) * cap), *aj = xmalloc(sizeof(long) * cap);
    double *av = xmalloc(sizeof(double) * cap);
    long ng = 0, na = 0;
    for (long j = 0; j < n; j++)
        for (long t = p->colptr[j]; t < p->colptr[j + 1]; t++) {
            long r = target[p->rowidx[t]];
            if (r >= 0) { gi[ng] = r; gj[ng] = j; gv[ng++] = p->val[t]; }
            else { ai[na] = -1 - r; aj[na] = j; av[na++] = p->val[t]; }
        }
    e->c = xmalloc(sizeof(pfloat) * e->nv);
    for (long j = 0; j < n; j++) e->c[j] = p->q[j];
    if (qp) {
        /* dense P from its upper triangle, then P = LLᵀ */
        double *L = xmalloc(sizeof(double) * n * n);
        for (long j = 0; j < n; j++)
            for (long t = p->pcolptr[j]; t < p->pcolptr[j + 1]; t++) {
                long i = p->prowidx[t];
                L[i * n + j] += p->pval[t];
                if (i != j) L[j * n + i] += p->pval[t];
            }
        double maxdiag = 0;
        for (long j = 0; j < n; j++) maxdiag = fmax(maxdiag, fabs(L[j * n + j]));
        for (long j = 0; j < n; j++) {
            double d = L[j * n + j];
            for (long s = 0; s < j; s++) d -= L[j * n + s] * L[j * n + s];
            if (d < -1e-12 * maxdiag) return "P is not positive semidefinite (its Cholesky factorization has a negative pivot)";
            if (d <= 1e-14 * maxdiag) {
                /* a zero pivot of a semidefinite P: its column of L is zero */
                for (long i = j; i < n; i++) L[i * n + j] = 0;
                for (long s = j + 1; s < n; s++) L[j * n + s] = 0;
                continue;
            }
            d = sqrt(d);
            L[j * n + j] = d;
            for (long i = j + 1; i < n; i++) {
                double v = L[i * n + j];
                for (long s = 0; s < j; s++) v -= L[i * n + s] * L[j * n + s];
                L[i * n + j] = v / d;
            }
            for (long s = j + 1; s < n; s++) L[j * n + s] = 0;
        }
        long base = nl + nsocrows, t = n;
        e->c[t] = 1;
        gi[ng] = base; gj[ng] = t; gv[ng++] = -2;
        e->h[base] = 1;
        for (long i = 0; i < n; i++) { /* row base+1+i: 2 (Lᵀx)_i = 2 Σ_j L[j][i] x_j */
            e->h[base + 1 + i] = 0;
            for (long j = i; j < n; j++)
                if (L[j * n + i] != 0) { gi[ng] = base + 1 + i; gj[ng] = j; gv[ng++] = -2 * L[j * n + i]; }
        }
        gi[ng] = base + n + 1; gj[ng] = t; gv[ng++] = -2;
        e->h[base + n + 1] = -1;
        free(L);
    }
    csc(e->mG, e->nv, ng, gi, gj, gv, &e->Gjc, &e->Gir, &e->Gpr);
    if (nz > 0) csc(nz, e->nv, na, ai, aj, av, &e->Ajc, &e->Air, &e->Apr);
    free(gi); free(gj); free(gv); free(ai); free(aj); free(av); free(target);
    return NULL;
}

static double now(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static const char *status(idxint flag) {
    switch (flag) {
    case ECOS_OPTIMAL: return "optimal";
    case ECOS_PINF: return "infeasible";
    case ECOS_DINF: return "unbounded";
    case ECOS_OPTIMAL + ECOS_INACC_OFFSET: return "optimal_inaccurate";
    case ECOS_PINF + ECOS_INACC_OFFSET: return "infeasible_inaccurate";
    case ECOS_DINF + ECOS_INACC_OFFSET: return "unbounded_inaccurate";
    case ECOS_MAXIT: return "iteration_limit";
    case ECOS_NUMERICS: return "numerical_error";
    case ECOS_OUTCONE: return "numerical_error";
    default: return "error";
    }
}

int main(int argc, char **argv) {
    int reps = 1, a = 1;
    if (argc > 2 && !strcmp(argv[1], "--reps")) {
        reps = atoi(argv[2]);
        a = 3;
    }
    for (; a < argc; a++) {
        problem p = load(argv[a]);
        ecosdata e;
        memset(&e, 0, sizeof e);
        const char *msg = convert(&p, &e);
        if (msg) {
            printf("{\"name\": \"%s\", \"error\": \"%s\"}\n", p.name, msg);
            fflush(stdout);
            continue;
        }
        /* ECOS equilibrates G, A, h, b in place: solve fresh copies */
        long gnz = e.Gjc[e.nv], anz = e.peq ? e.Ajc[e.nv] : 0;
        pfloat *G = xmalloc(sizeof(pfloat) * (gnz ? gnz : 1)), *A = xmalloc(sizeof(pfloat) * (anz ? anz : 1));
        pfloat *h = xmalloc(sizeof(pfloat) * (e.mG ? e.mG : 1)), *beq = xmalloc(sizeof(pfloat) * (e.peq ? e.peq : 1));
        pfloat *c = xmalloc(sizeof(pfloat) * e.nv);
        double best = INFINITY, bestcpu = INFINITY, obj = NAN;
        long iters = 0;
        idxint flag = ECOS_FATAL;
        for (int r = 0; r < reps; r++) {
            memcpy(G, e.Gpr, sizeof(pfloat) * gnz);
            if (anz) memcpy(A, e.Apr, sizeof(pfloat) * anz);
            memcpy(h, e.h, sizeof(pfloat) * e.mG);
            if (e.peq) memcpy(beq, e.beq, sizeof(pfloat) * e.peq);
            memcpy(c, e.c, sizeof(pfloat) * e.nv);
            double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
            pwork *w = ECOS_setup(e.nv, e.mG, e.peq, e.l, e.ncones, e.q, e.nex, G, e.Gjc, e.Gir,
                                  e.peq ? A : NULL, e.peq ? e.Ajc : NULL, e.peq ? e.Air : NULL, c, h,
                                  e.peq ? beq : NULL);
            if (!w) {
                flag = ECOS_FATAL;
                break;
            }
            w->stgs->verbose = 0;
            flag = ECOS_solve(w);
            obj = w->info->pcost + p.r;
            iters = w->info->iter;
            ECOS_cleanup(w, 0);
            double el = now(CLOCK_MONOTONIC) - t0, cpu = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
            if (el < best) best = el;
            if (cpu < bestcpu) bestcpu = cpu;
        }
        printf("{\"name\": \"%s\", \"status\": \"%s\", \"iterations\": %ld, \"time\": %.9g, \"cpu\": %.9g, "
               "\"objective\": %.17g}\n",
               p.name, status(flag), iters, best, bestcpu, isfinite(obj) ? obj : 0.0);
        fflush(stdout);
    }
    return 0;
}
