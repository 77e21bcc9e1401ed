//! `host matmul --trans-a/--trans-b/--batch/--stride-*`: the BLAS interface of the library
//! (`host::gemm_device` with a [`Gemm`] of transposes and a strided batch) against cuBLAS's
//! matching call, each checked against the f64 reference on a sample of the batch.
use anyhow::{Result, bail};
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};
use gpu_kernels::{
    matmul::Op,
    registry::{self, Family},
};
use host::{
    Gemm,
    gpu::{Gpu, Timing, check_free_memory, time_on_stream},
    matmul::{
        layout::{self, Operand},
        route::{Route, parse_route},
        select::DEFAULT_SCHEDULE,
        sgemm::{gemm_device_async, gemm_device_with_kernel_async, gemm_device_with_route_async},
    },
    reference::cublas::Cublas,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::{
    bad_input,
    matmul::reference::{self, Check},
};
use serde::Serialize;

use super::{
    json,
    matmul_args::{MatmulArgs, Verify},
};

/// Problems of a batch checked against the f64 reference (the first, the last, spread between).
const CHECKED_PROBLEMS: usize = 8;
/// Largest dimension whose rows are all checked; above, a sample of 64 rows.
const FULL_ROWS_MAX: usize = 4096;

/// Whether `args` asks for the BLAS interface rather than the plain product.
pub fn wanted(args: &MatmulArgs) -> bool {
    args.trans_a
        || args.trans_b
        || args.batch != 1
        || args.stride_a.is_some()
        || args.stride_b.is_some()
        || args.stride_c.is_some()
}

/// The problem `args` describes: dense stored matrices, packed strides unless given.
pub fn gemm_of(args: &MatmulArgs, (m, n, k): (usize, usize, usize)) -> Result<Gemm> {
    let op = |t: bool| if t { Op::T } else { Op::N };
    let g = Gemm::new(m, n, k)
        .ops(op(args.trans_a), op(args.trans_b))
        .batch(args.batch);
    let g = g.strides(
        args.stride_a.unwrap_or(g.stride_a),
        args.stride_b.unwrap_or(g.stride_b),
        args.stride_c.unwrap_or(g.stride_c),
    );
    g.check()?;
    Ok(g)
}

#[derive(Serialize)]
struct Record {
    kernel: String,
    family: String,
    m: usize,
    n: usize,
    k: usize,
    op_a: char,
    op_b: char,
    batch: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    stride_a: usize,
    stride_b: usize,
    stride_c: usize,
    median_ms: f64,
    min_ms: f64,
    max_ms: f64,
    reps: usize,
    gflops: f64,
    percent_of_cublas: Option<f64>,
    checked_problems: usize,
    checked_cells: usize,
    failures: usize,
    max_scaled_error: Option<f64>,
}

/// Checks sampled problems of `c` (the result buffer) against the f64 reference: every row of
/// each (`--verify full`, or `auto` up to 4096 in every dimension) or 64 sampled rows.
fn check_batch(
    op: &Gemm,
    [a, b, c0]: [&[f32]; 3],
    c: &[f32],
    seed: u64,
    verify: Verify,
) -> (usize, Check) {
    let problems = layout::sample_problems(op.batch, CHECKED_PROBLEMS);
    let all_rows = match verify {
        Verify::Full => true,
        Verify::Sample => false,
        _ => op.m.max(op.n).max(op.k) <= FULL_ROWS_MAX,
    };
    let sampled = (!all_rows).then(|| reference::sample_rows(op.m, 64, seed));
    let mut total = Check {
        checked: 0,
        failures: 0,
        max_scaled_error: 0.0,
        worst: None,
    };
    for &i in &problems {
        let re = layout::reference_of(op, [a, b, c0], i, sampled.as_deref());
        let got = layout::rows_of(op, c, i, &re);
        let ch = reference::check(&got, &re);
        total.checked += ch.checked;
        total.failures += ch.failures;
        if ch.max_scaled_error > total.max_scaled_error || total.worst.is_none() {
            total.max_scaled_error = ch.max_scaled_error;
            total.worst = ch.worst;
        }
    }
    (problems.len(), total)
}

/// One entry of `--kernel` with the BLAS flags.
enum Runner {
    /// `sgemm`: the library's choice (route and kernel).
    Library,
    /// A named kernel of the `flagship_ops` or `batched_small` family.
    Kernel(&'static str),
    /// `route:…`: the library by the route named after the colon (`RGK_SGEMM_ROUTE`'s syntax
    /// with `+` for its commas, e.g. `route:a=T+b=R`), to time routes side by side.
    Route(String, Route),
}

/// What runs for `--kernel` with the BLAS flags, in order: the library's choice (`sgemm`),
/// named variants of the `flagship_ops` family with the problem's operations, named kernels of
/// the `batched_small` family (N,N batches of small problems), or the library by a named route
/// (`route:…`).
fn kernels(which: &str) -> Result<Vec<Runner>> {
    which
        .split(',')
        .map(|name| {
            if name == "sgemm" {
                return Ok(Runner::Library);
            }
            if let Some(text) = name.strip_prefix("route:") {
                return match parse_route(&text.replace('+', ",")) {
                    Some(r) => Ok(Runner::Route(name.into(), r)),
                    None => bad_input(format!(
                        "{name:?} names no route (RGK_SGEMM_ROUTE's syntax, + for its commas)"
                    )),
                };
            }
            match registry::kernel(name) {
                Some(k) if matches!(k.family, Family::FlagshipOps | Family::BatchedSmall) => {
                    Ok(Runner::Kernel(k.name))
                }
                _ => bad_input(format!(
                    "--trans-a, --trans-b and --batch run `--kernel sgemm`, `route:…` or kernels \
                     of the flagship_ops or batched_small family, not {name:?}"
                )),
            }
        })
        .collect()
}

pub fn run(args: &MatmulArgs, shape: (usize, usize, usize)) -> Result<()> {
    let op = gemm_of(args, shape)?;
    let names = kernels(&args.kernel)?;
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let info = gpu.info()?;
    let (la, lb, lc) = op.min_lens();
    check_free_memory(4 * (la + lb + lc), "the batch")?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let a = layout::random_buffer(&op, Operand::A, &mut rng);
    let b = layout::random_buffer(&op, Operand::B, &mut rng);
    let c0 = vec![f32::NAN; lc];
    let d_a = DeviceBuffer::from_slice(&a)?;
    let d_b = DeviceBuffer::from_slice(&b)?;
    let mut d_c = DeviceBuffer::from_slice(&c0)?;
    let flops = 2.0 * (op.m * op.n * op.k) as f64 * op.batch as f64;
    let verify = args.verify;

    let mut records = Vec::new();
    let mut measure = |name: &str,
                       family: &str,
                       d_c: &mut DeviceBuffer<f32>,
                       run: &mut dyn FnMut(&mut DeviceSlice<f32>) -> Result<()>,
                       cublas_ms: Option<f64>|
     -> Result<f64> {
        d_c.copy_from(&c0[..])?;
        let t: Timing = time_on_stream(&gpu.stream, 1, args.reps, || run(d_c))?;
        let mut c = vec![0f32; lc];
        d_c.copy_to(&mut c[..])?;
        let (problems, check) = if verify != Verify::None {
            let (p, ch) = check_batch(&op, [&a, &b, &c0], &c, args.seed, verify);
            (p, Some(ch))
        } else {
            (0, None)
        };
        records.push(Record {
            kernel: name.into(),
            family: family.into(),
            m: op.m,
            n: op.n,
            k: op.k,
            op_a: op.op_a.letter(),
            op_b: op.op_b.letter(),
            batch: op.batch,
            lda: op.lda,
            ldb: op.ldb,
            ldc: op.ldc,
            stride_a: op.stride_a,
            stride_b: op.stride_b,
            stride_c: op.stride_c,
            median_ms: t.median_ms,
            min_ms: t.min_ms,
            max_ms: t.max_ms,
            reps: t.reps,
            gflops: flops / (t.median_ms * 1e-3) / 1e9,
            percent_of_cublas: cublas_ms.map(|c| 100.0 * c / t.median_ms),
            checked_problems: problems,
            checked_cells: check.as_ref().map_or(0, |c| c.checked),
            failures: check.as_ref().map_or(0, |c| c.failures),
            max_scaled_error: check.map(|c| c.max_scaled_error),
        });
        Ok(t.median_ms)
    };

    let mut cublas_ms = None;
    if !args.no_cublas {
        match Cublas::load(&gpu) {
            Ok(cublas) => {
                let mut run = |c: &mut DeviceSlice<f32>| cublas.gemm(&op, &d_a, &d_b, c);
                let name = if op.batch > 1 {
                    "cublasSgemmStridedBatched"
                } else {
                    "cublasSgemm"
                };
                cublas_ms = Some(measure(name, "cublas", &mut d_c, &mut run, None)?);
            }
            Err(e) => eprintln!("note: cuBLAS unavailable, no reference GEMM: {e:#}"),
        }
    }
    for name in &names {
        // Every runner enqueues without waiting, so the events time the GPU's work alone.
        let mut run = |c: &mut DeviceSlice<f32>| -> Result<()> {
            match name {
                Runner::Library => gemm_device_async(&gpu, &gpu.stream, &op, &d_a, &d_b, c)?,
                Runner::Kernel(k) => {
                    gemm_device_with_kernel_async(&gpu, k, DEFAULT_SCHEDULE, &op, &d_a, &d_b, c)?
                }
                Runner::Route(_, r) => gemm_device_with_route_async(&gpu, *r, &op, &d_a, &d_b, c)?,
            }
            Ok(())
        };
        let (kname, family) = match name {
            Runner::Library => ("sgemm", Family::FlagshipOps.name()),
            Runner::Kernel(k) => (
                *k,
                registry::family_of(k).map_or(Family::FlagshipOps.name(), |f| f.name()),
            ),
            Runner::Route(text, _) => (text.as_str(), Family::FlagshipOps.name()),
        };
        measure(kname, family, &mut d_c, &mut run, cublas_ms)?;
    }

    if args.json {
        json::print("matmul", info.device(1), &records)?;
    } else {
        println!(
            "{}: C = alpha·op(A)·op(B) + beta·C, M={} N={} K={}, op(A)={} op(B)={}, batch {} \
             (strides {} {} {}), median of {} launches",
            info.name,
            op.m,
            op.n,
            op.k,
            op.op_a.letter(),
            op.op_b.letter(),
            op.batch,
            op.stride_a,
            op.stride_b,
            op.stride_c,
            args.reps
        );
        println!(
            "{:<32} {:>10} {:>10} {:>9} {:>9} {:>12}",
            "kernel", "median ms", "GFLOP/s", "% cuBLAS", "problems", "max err/bound"
        );
        for r in &records {
            let pct = r
                .percent_of_cublas
                .map_or("-".into(), |p| format!("{p:.1}"));
            let err = r.max_scaled_error.map_or("unchecked".into(), |e| {
                format!("{}{e:.2e}", if r.failures > 0 { "FAIL " } else { "" })
            });
            println!(
                "{:<32} {:>10.4} {:>10.1} {:>9} {:>9} {:>12}",
                r.kernel, r.median_ms, r.gflops, pct, r.checked_problems, err
            );
        }
    }
    let failed: Vec<_> = records
        .iter()
        .filter(|r| r.failures > 0)
        .map(|r| r.kernel.as_str())
        .collect();
    if !failed.is_empty() {
        bail!(
            "results differ from the f64 reference beyond the bound: {}",
            failed.join(", ")
        );
    }
    Ok(())
}
