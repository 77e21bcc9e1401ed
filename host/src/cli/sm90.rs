//! `host sm90`: the Hopper (sm_90a) GEMM against cuBLAS `cublasGemmEx` of the same precision in
//! the same process, timed alternately in rounds (`sm90_time`), BF16 and FP16 inputs (and TF32
//! through the library's path with `--inputs tf32`), f32 output; each result checked on sampled
//! rows against an f64 reference. `--check` first runs the edge shapes (odd sizes, k not a multiple
//! of the tile depth, padded leading dimensions, alpha/beta) on every kernel, each schedule of
//! `--schedules` as named and walking several tiles per block (at most 3 blocks).
use anyhow::{Result, bail};
use clap::Args;
use cust::memory::DeviceBuffer;
use host::{
    gpu::Gpu,
    reference::gemm_ex::CublasEx,
    sm90::{
        BMajor, Blocks, Schedule, Sm90Gemm, Sm90Input, Sm90Launch, check::worst, download,
        gemm_sm90, supported, to_input,
    },
    tc::select::HOPPER_SCHEDULE,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference::random_padded;
use serde::Serialize;

use super::{
    at_least_one,
    sm90_time::{Timed, tf32_schedules, tf32_timed, timed_rows},
};

#[derive(Args)]
pub struct Sm90Args {
    /// Sizes to time: `N` (m = n = k = N) or `MxNxK`.
    #[arg(default_values = ["4096", "8192"], value_parser = shape)]
    pub sizes: Vec<Shape>,
    /// Timed launches per kernel in each round (their median is the round's), after 3
    /// warm-ups.
    #[arg(long, default_value_t = 10, value_parser = at_least_one::<usize>)]
    pub reps: usize,
    /// Rounds: each times every schedule and cuBLAS (alternating which goes first); reported
    /// are the medians over the rounds and each round's ratio.
    #[arg(long, default_value_t = 5, value_parser = at_least_one::<usize>)]
    pub rounds: usize,
    /// Inputs to time, separated by commas: bf16, fp16, tf32 (f32 operands through the
    /// library's TF32 path: a row-major B as `tc::select::TF32_ROW_MAJOR_B` says;
    /// `wgmma_load…` / `wgmma_split…` / `wgmma_inplace…` schedules choose).
    #[arg(long, default_value = "bf16,fp16")]
    pub inputs: String,
    /// B layouts to time, separated by commas: n (row-major, k x n) and k (transposed).
    #[arg(long, default_value = "n,k")]
    pub b: String,
    /// Rows of each timed result checked against the f64 reference.
    #[arg(long, default_value_t = 8)]
    pub check_rows: usize,
    /// Run the edge-shape checks first.
    #[arg(long)]
    pub check: bool,
    /// Only the edge-shape checks (with `--check`): no timing, no cuBLAS (for compute-sanitizer).
    #[arg(long)]
    pub no_timing: bool,
    /// Schedules to check and time, separated by commas: `wgmma` (the library's) and
    /// `wgmma_<tokens>` on it (`w0`/`w1` wait depth, `np`/`p`/`p<N>` grid, `g<N>` group,
    /// `sk`/`sk<W>`/`skl` stream-K, `dp` whole tiles only, `ska` by wave count; docs/sm90.md).
    #[arg(long, default_value = "wgmma")]
    pub schedules: String,
}

const INPUTS: [Sm90Input; 2] = [Sm90Input::Bf16, Sm90Input::Fp16];
const MAJORS: [BMajor; 2] = [BMajor::N, BMajor::K];

/// One timed product's m, n, k.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape(pub usize, pub usize, pub usize);

/// `N` or `MxNxK`, each in 1..=65536.
fn shape(s: &str) -> Result<Shape, String> {
    let v: Vec<usize> = s
        .split('x')
        .map(|t| t.parse::<usize>().ok().filter(|v| (1..=65536).contains(v)))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{s:?} is not N or MxNxK with each in 1..=65536"))?;
    match v[..] {
        [n] => Ok(Shape(n, n, n)),
        [m, n, k] => Ok(Shape(m, n, k)),
        _ => Err(format!("{s:?} is not N or MxNxK")),
    }
}

/// What `--inputs` names: a 16-bit input, or TF32.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Problem {
    Bits16(Sm90Input),
    Tf32,
}

/// `--inputs` and `--b`, parsed.
fn timings(inputs: &str, b: &str) -> Result<(Vec<Problem>, Vec<BMajor>)> {
    let inputs = inputs
        .split(',')
        .map(|t| match t {
            "bf16" => Ok(Problem::Bits16(Sm90Input::Bf16)),
            "fp16" => Ok(Problem::Bits16(Sm90Input::Fp16)),
            "tf32" => Ok(Problem::Tf32),
            _ => bail!("--inputs: {t:?} is not bf16, fp16 or tf32"),
        })
        .collect::<Result<Vec<_>>>()?;
    let majors = b
        .split(',')
        .map(|t| match t {
            "n" => Ok(BMajor::N),
            "k" => Ok(BMajor::K),
            _ => bail!("--b: {t:?} is not n (B row-major) or k (B transposed)"),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((inputs, majors))
}

#[derive(Serialize)]
struct Checked {
    schedule: String,
    shape: String,
    input: String,
    b_major: String,
    max_error_over_bound: f64,
    passed: bool,
}

/// Operands of `g` with random entries in [-1, 1) (the gaps of padded rows are NaN, so a read
/// past a row's width shows) and an initial C.
fn operands(g: &Sm90Gemm, seed: u64) -> (Vec<u16>, Vec<u16>, Vec<f32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (la, lb, lc) = g.lens();
    let bw = match g.b_major {
        BMajor::N => g.n,
        BMajor::K => g.k,
    };
    let a = to_input(&random_padded(la, g.k, g.lda, &mut rng), g.input);
    let b = to_input(&random_padded(lb, bw, g.ldb, &mut rng), g.input);
    let c = random_padded(lc, g.n, g.ldc, &mut rng);
    (a, b, c)
}

/// Rows to check: the first, the last and `n` spread between.
fn sample_rows(m: usize, n: usize) -> Vec<usize> {
    let mut rows: Vec<usize> = (0..n.max(2))
        .map(|i| i * (m - 1) / (n.max(2) - 1))
        .collect();
    rows.dedup();
    rows
}

/// The schedules `--schedules` names, each with its name.
fn schedules(list: &str) -> Result<Vec<(String, Schedule)>> {
    list.split(',')
        .map(|n| match Schedule::parse_name(n, HOPPER_SCHEDULE, |_| false) {
            Some(s) => Ok((n.to_string(), s)),
            None => bail!("--schedules: {n:?} is not a Hopper GEMM schedule (wgmma or wgmma_<tokens>, docs/sm90.md)"),
        })
        .collect()
}

fn edge_checks(gpu: &Gpu, sched: &[(String, Schedule)]) -> Result<Vec<Checked>> {
    // Each schedule as named, and with at most 3 blocks, each walking several tiles (the ring's
    // phases run on across tiles).
    let walked = sched.iter().flat_map(|(name, s)| {
        [
            (name.clone(), *s),
            (
                format!("{name}+p3"),
                Schedule {
                    blocks: Blocks::AtMost(3),
                    ..*s
                },
            ),
        ]
    });
    let mut out = Vec::new();
    for (sname, sched) in walked {
        for (m, n, k, pad, alpha, beta) in [
            (256, 256, 128, 0, 1.0f32, 0.0f32),
            (300, 200, 77, 3, 1.0, 0.0),
            (777, 1000, 520, 8, 1.5, -0.5),
            (129, 257, 65, 0, -1.0, 2.0),
        ] {
            for input in INPUTS {
                for major in MAJORS {
                    let d = Sm90Gemm::dense(m, n, k, input, major);
                    let up = |v: usize| (v + pad).div_ceil(8) * 8;
                    let g = Sm90Gemm {
                        lda: up(d.lda),
                        ldb: up(d.ldb),
                        ldc: d.ldc + pad,
                        alpha,
                        beta,
                        ..d
                    };
                    let (a, b, c0) = operands(&g, (m * 31 + n * 7 + k) as u64);
                    let (da, db) = (DeviceBuffer::from_slice(&a)?, DeviceBuffer::from_slice(&b)?);
                    let dc = DeviceBuffer::from_slice(&c0)?;
                    gemm_sm90(gpu, &g, &da, &db, &dc, sched)?;
                    let c = download(&dc)?;
                    let rows: Vec<usize> = (0..m).collect();
                    let w = worst(&g, &a, &b, &c0, &c, &rows);
                    // The gaps of C's padded rows are untouched.
                    let gaps_ok = (0..c.len())
                        .filter(|i| i % g.ldc >= n)
                        .all(|i| c[i].is_nan());
                    out.push(Checked {
                        schedule: sname.clone(),
                        shape: format!(
                            "{m}x{n}x{k} lda {} ldb {} ldc {} alpha {alpha} beta {beta}",
                            g.lda, g.ldb, g.ldc
                        ),
                        input: format!("{input:?}"),
                        b_major: format!("{major:?}"),
                        max_error_over_bound: w.ratio,
                        passed: w.ratio <= 1.0 && gaps_ok,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Every schedule and cuBLAS on one problem, interleaved in rounds (`sm90_time`); each
/// result checked first.
fn timed(
    gpu: &Gpu,
    cublas: &CublasEx,
    Shape(m, n, k): Shape,
    input: Sm90Input,
    major: BMajor,
    sched: &[(String, Schedule)],
    args: &Sm90Args,
) -> Result<Vec<Timed>> {
    let g = Sm90Gemm::dense(m, n, k, input, major);
    let (a, b, c0) = operands(&g, (m * 7 + n * 3 + k) as u64);
    let (da, db) = (DeviceBuffer::from_slice(&a)?, DeviceBuffer::from_slice(&b)?);
    let dc = DeviceBuffer::from_slice(&c0)?;
    let rows = sample_rows(m, args.check_rows);
    let mut launches = Vec::new();
    let mut errors = Vec::new();
    for (name, s) in sched {
        let launch = Sm90Launch::new(gpu, &g, &da, &db, &dc, *s)?;
        eprintln!("grid {name} {m}x{n}x{k}: {} blocks", launch.grid());
        launch.launch()?;
        gpu.stream.synchronize()?;
        errors.push(worst(&g, &a, &b, &c0, &download(&dc)?, &rows).ratio);
        launches.push(launch);
    }
    let run_cublas = || cublas.gemm_sm90(&g, &da, &db, &dc);
    run_cublas()?;
    gpu.stream.synchronize()?;
    let cublas_err = worst(&g, &a, &b, &c0, &download(&dc)?, &rows).ratio;
    let mut theirs = run_cublas;
    timed_rows(
        &gpu.stream,
        sched,
        (&launches, |l: &Sm90Launch| l.launch()),
        &mut theirs,
        (args.rounds, args.reps),
        (
            (m, n, k),
            format!("{input:?}"),
            format!("{major:?}"),
            g.flops(),
        ),
        (&errors, cublas_err),
    )
}

pub fn run(args: &Sm90Args) -> Result<()> {
    let gpu = Gpu::new(None)?;
    let info = gpu.info()?;
    if !supported(&gpu) {
        bail!(
            "the Hopper GEMM needs a GPU of compute capability 9.0 (H100/H200); this one is {}.{}",
            info.compute_capability.0,
            info.compute_capability.1
        );
    }
    let (inputs, majors) = timings(&args.inputs, &args.b)?;
    // The 16-bit schedules, where a 16-bit problem or the edge checks use them (TF32 alone takes
    // its own names, e.g. `wgmma_split`, which are no 16-bit schedule).
    let bits16 = args.check || inputs.iter().any(|p| matches!(p, Problem::Bits16(_)));
    let sched = if bits16 {
        schedules(&args.schedules)?
    } else {
        Vec::new()
    };
    let tf32_sched = if inputs.contains(&Problem::Tf32) {
        tf32_schedules(&args.schedules)?
    } else {
        Vec::new()
    };
    let checks = if args.check {
        edge_checks(&gpu, &sched)?
    } else {
        Vec::new()
    };
    for c in &checks {
        eprintln!(
            "check {} {} {} B-{}: error/bound {:.3} {}",
            c.schedule,
            c.shape,
            c.input,
            c.b_major,
            c.max_error_over_bound,
            if c.passed { "ok" } else { "FAILED" }
        );
    }
    let mut times = Vec::new();
    let sizes: &[Shape] = if args.no_timing { &[] } else { &args.sizes };
    let cublas = if sizes.is_empty() {
        None
    } else {
        Some(CublasEx::load(&gpu)?)
    };
    for &size in sizes {
        let Some(cublas) = cublas.as_ref() else { break };
        for &input in &inputs {
            for &major in &majors {
                let rows = match input {
                    Problem::Bits16(i) => timed(&gpu, cublas, size, i, major, &sched, args)?,
                    Problem::Tf32 => tf32_timed(
                        &gpu,
                        cublas,
                        (size.0, size.1, size.2),
                        major == BMajor::K,
                        &tf32_sched,
                        (args.rounds, args.reps, args.check_rows),
                    )?,
                };
                for t in rows {
                    eprintln!("{}", t.line());
                    times.push(t);
                }
            }
        }
    }
    let failed = checks.iter().filter(|c| !c.passed).count()
        + times
            .iter()
            .filter(|t| t.rust_max_error_over_bound > 1.0)
            .count();
    super::json::print(
        "sm90",
        info.device(1),
        serde_json::json!({ "checks": checks, "timings": times }),
    )?;
    if failed > 0 {
        bail!("{failed} Hopper GEMM results exceeded their error bound");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_inputs_and_layouts_parse() {
        assert_eq!(shape("4096"), Ok(Shape(4096, 4096, 4096)));
        assert_eq!(shape("4224x4096x8192"), Ok(Shape(4224, 4096, 8192)));
        for bad in ["0", "1x2", "1x2x3x4", "ax2x3", "70000", ""] {
            assert!(shape(bad).is_err(), "{bad}");
        }
        let (inputs, majors) = timings("bf16,tf32", "k").unwrap();
        assert_eq!(inputs, [Problem::Bits16(Sm90Input::Bf16), Problem::Tf32]);
        assert_eq!(majors, [BMajor::K]);
        assert!(timings("fp32", "n").is_err());
        assert!(timings("fp16", "t").is_err());
    }
}
