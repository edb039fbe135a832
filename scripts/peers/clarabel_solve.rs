// clarabel_solve: solves standard-form instances written by
// bench/internal/cvxoptjson.WriteText with Clarabel (oxfordcontrol/Clarabel.rs,
// built by scripts/build-clarabel.sh) and prints one JSON line per instance in
// the format of bench/ipmvscvxopt/cvxopt_solve.py:
//
//   {"name": ..., "status": ..., "iterations": ..., "time": ..., "cpu": ..., "objective": ...}
//
// Problem: min ½xᵀPx + qᵀx + r  s.t.  b − Ax ∈ K — Clarabel's own form
// (Ax + s = b, s ∈ K), so the data are passed unchanged: zero, nonnegative,
// second-order and exponential cones in the file's order, P as its upper
// triangle. The file's cone lines are "kind dim" with the kinds spelled as
// package cone's Kind.String: zero, nonnegative, second-order, exponential
// (dim 3; privopt's order (x, y, z), y·exp(x/y) ≤ z, is Clarabel's) and psd
// (dim = r(r+1)/2 for a block of order r). A psd block's rows come in
// privopt's svec order — the lower triangle column by column, off-diagonal
// entries scaled by √2 — and Clarabel's PSDTriangleConeT(r) takes the upper
// triangle column by column with the same scaling, so the rows of A and b of
// each block are permuted while loading (entry (i, j), i ≥ j, goes to
// position i(i+1)/2 + j of the block), before the timer. PSD blocks need
// Clarabel's "sdp" feature (this driver's feature of the same name, turned
// on by scripts/build-clarabel.sh --sdp); without it a psd cone is an
// "unsupported cone" error line.
//
// Timing: DefaultSolver::new (Clarabel's presolve, equilibration and KKT
// analysis) + solve, the parsing and the copies of the data before the
// timer. With --reps N the fastest of N solves is reported. Settings are
// Clarabel's defaults (tol_gap_abs = tol_gap_rel = tol_feas = 1e-8, the same
// as the ECOS driver's, the CVXOPT script's and privopt's), verbose off.
//
// Usage: clarabel_solve [--reps N] FILE...
use clarabel::algebra::*;
use clarabel::solver::*;
use std::time::Instant;

struct Problem {
    name: String,
    n: usize,
    m: usize,
    q: Vec<f64>,
    r: f64,
    a: CscMatrix<f64>,
    b: Vec<f64>,
    cones: Vec<SupportedConeT<f64>>,
    p: CscMatrix<f64>,
}

fn load(path: &str) -> Result<Problem, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let mut next = || lines.next().ok_or_else(|| format!("{path}: truncated"));
    let name = next()?.trim().to_string();
    let nm: Vec<usize> = words(next()?)?;
    let (n, m) = (nm[0], nm[1]);
    let q: Vec<f64> = words(next()?)?;
    let r: f64 = words::<f64>(next()?)?[0];
    let nnz: usize = words::<usize>(next()?)?[0];
    let colptr: Vec<usize> = words(next()?)?;
    let (rowval, nzval): (Vec<usize>, Vec<f64>) = if nnz > 0 { (words(next()?)?, words(next()?)?) } else { (vec![], vec![]) };
    let b: Vec<f64> = words(next()?)?;
    let ncones: usize = words::<usize>(next()?)?[0];
    let mut cones = Vec::with_capacity(ncones);
    // perm[i]: the Clarabel row of the file's row i (differs inside psd blocks)
    let mut perm: Vec<usize> = (0..m).collect();
    let mut off = 0;
    for _ in 0..ncones {
        let line = next()?;
        let mut it = line.split_whitespace();
        let kind = it.next().unwrap_or("");
        let d: usize = it.next().and_then(|s| s.parse().ok()).ok_or_else(|| format!("{path}: bad cone line {line:?}"))?;
        cones.push(match kind {
            "zero" => ZeroConeT(d),
            "nonnegative" => NonnegativeConeT(d),
            "second-order" => SecondOrderConeT(d),
            "exponential" if d == 3 => ExponentialConeT(),
            "psd" => psd_cone(d, &mut perm[off..off + d], off)?,
            _ => return Err(format!("unsupported cone {kind} {d}")),
        });
        off += d;
    }
    let mut b2 = vec![0.0; m];
    for i in 0..m {
        b2[perm[i]] = b[i];
    }
    let b = b2;
    let (rowval, nzval) = permute_rows(&colptr, &rowval, &nzval, &perm);
    let pnnz: usize = words::<usize>(next()?)?[0];
    let p = if pnnz == 0 {
        CscMatrix::zeros((n, n))
    } else {
        let pc: Vec<usize> = words(next()?)?;
        let pr: Vec<usize> = words(next()?)?;
        let pv: Vec<f64> = words(next()?)?;
        CscMatrix::new(n, n, pc, pr, pv)
    };
    let a = CscMatrix::new(m, n, colptr, rowval, nzval);
    Ok(Problem { name, n, m, q, r, a, b, cones, p })
}

/// psd_cone returns Clarabel's cone for a psd block of dim d at row offset
/// off and fills perm (the block's slice) with the rows its entries go to.
#[cfg(feature = "sdp")]
fn psd_cone(d: usize, perm: &mut [usize], off: usize) -> Result<SupportedConeT<f64>, String> {
    let r = ((((8 * d + 1) as f64).sqrt() as usize) - 1) / 2;
    if r * (r + 1) / 2 != d {
        return Err(format!("psd cone dimension {d} is not a triangular number"));
    }
    let mut k = 0;
    for j in 0..r {
        for i in j..r {
            perm[k] = off + i * (i + 1) / 2 + j;
            k += 1;
        }
    }
    Ok(PSDTriangleConeT(r))
}

#[cfg(not(feature = "sdp"))]
fn psd_cone(d: usize, _perm: &mut [usize], _off: usize) -> Result<SupportedConeT<f64>, String> {
    Err(format!("unsupported cone psd {d} (built without the sdp feature)"))
}

/// permute_rows maps the row indices of compressed columns through perm and
/// re-sorts every column by row.
fn permute_rows(colptr: &[usize], rowval: &[usize], nzval: &[f64], perm: &[usize]) -> (Vec<usize>, Vec<f64>) {
    let (mut rv, mut nv) = (Vec::with_capacity(rowval.len()), Vec::with_capacity(nzval.len()));
    for j in 0..colptr.len() - 1 {
        let mut col: Vec<(usize, f64)> = (colptr[j]..colptr[j + 1]).map(|k| (perm[rowval[k]], nzval[k])).collect();
        col.sort_by_key(|e| e.0);
        for (r, v) in col {
            rv.push(r);
            nv.push(v);
        }
    }
    (rv, nv)
}

fn words<T: std::str::FromStr>(line: &str) -> Result<Vec<T>, String> {
    line.split_whitespace().map(|w| w.parse::<T>().map_err(|_| format!("bad number {w:?}"))).collect()
}

fn status(s: SolverStatus) -> &'static str {
    match s {
        SolverStatus::Solved => "optimal",
        SolverStatus::PrimalInfeasible => "infeasible",
        SolverStatus::DualInfeasible => "unbounded",
        SolverStatus::AlmostSolved => "optimal_inaccurate",
        SolverStatus::AlmostPrimalInfeasible => "infeasible_inaccurate",
        SolverStatus::AlmostDualInfeasible => "unbounded_inaccurate",
        SolverStatus::MaxIterations => "iteration_limit",
        SolverStatus::MaxTime => "time_limit",
        SolverStatus::NumericalError | SolverStatus::InsufficientProgress => "numerical_error",
        _ => "error",
    }
}

fn cpu_now() -> f64 {
    // process CPU time (user + system) from /proc/self/stat, in seconds
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = s.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (reps, files) = if args.len() > 2 && args[0] == "--reps" {
        (args[1].parse::<usize>().unwrap_or(1).max(1), &args[2..])
    } else {
        (1, &args[..])
    };
    for path in files {
        let p = match load(path) {
            Ok(p) => p,
            Err(e) => {
                println!("{{\"name\": \"{path}\", \"error\": \"{}\"}}", e.replace('"', "'"));
                continue;
            }
        };
        let _ = (p.n, p.m);
        let (mut best, mut bestcpu) = (f64::INFINITY, f64::INFINITY);
        let (mut st, mut obj, mut iters) = ("error", f64::NAN, 0u32);
        for _ in 0..reps {
            let settings = DefaultSettingsBuilder::default().verbose(false).build().unwrap();
            let (pm, am, q, b, cones) = (p.p.clone(), p.a.clone(), p.q.clone(), p.b.clone(), p.cones.clone());
            let (t0, c0) = (Instant::now(), cpu_now());
            let res = DefaultSolver::new(&pm, &q, &am, &b, &cones, settings);
            match res {
                Ok(mut s) => {
                    s.solve();
                    st = status(s.solution.status);
                    obj = s.solution.obj_val + p.r;
                    iters = s.solution.iterations;
                }
                Err(_) => {
                    st = "error";
                }
            }
            best = best.min(t0.elapsed().as_secs_f64());
            bestcpu = bestcpu.min(cpu_now() - c0);
        }
        println!(
            "{{\"name\": \"{}\", \"status\": \"{}\", \"iterations\": {}, \"time\": {:.9e}, \"cpu\": {:.9e}, \"objective\": {:.17e}}}",
            p.name, st, iters, best, bestcpu, if obj.is_finite() { obj } else { 0.0 }
        );
    }
}
