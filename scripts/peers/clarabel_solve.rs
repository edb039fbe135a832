// clarabel_solve: solves standard-form instances written by
// bench/internal/cvxoptjson.WriteText with Clarabel (oxfordcontrol/Clarabel.rs,
// built by scripts/build-clarabel.sh) and prints one JSON line per instance in
// the format of bench/ipmvscvxopt/cvxopt_solve.py:
//
//   {"name": ..., "status": ..., "iterations": ..., "time": ..., "cpu": ..., "objective": ...}
//
// Problem: min ½xᵀPx + qᵀx + r  s.t.  b − Ax ∈ K — Clarabel's own form
// (Ax + s = b, s ∈ K), so the data are passed unchanged: zero, nonnegative
// and second-order cones in the file's order, P as its upper triangle.
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
    for _ in 0..ncones {
        let line = next()?;
        let mut it = line.split_whitespace();
        let kind = it.next().unwrap_or("");
        let d: usize = it.next().and_then(|s| s.parse().ok()).ok_or_else(|| format!("{path}: bad cone line {line:?}"))?;
        cones.push(match kind {
            "zero" => ZeroConeT(d),
            "nonnegative" => NonnegativeConeT(d),
            "second-order" => SecondOrderConeT(d),
            _ => return Err(format!("unsupported cone {kind}")),
        });
    }
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
