//! `host matmul --precision tf32|3xtf32|bf16|fp16`: the tensor-core GEMM against cuBLAS of the
//! same precision in the same process (`cublasGemmEx`; 3xTF32 against FP32 SGEMM and the
//! flagship), each result checked against the f64 reference under its precision's bound
//! (docs/tensor-cores.md), with the distribution of `|c - ref| / Σ|a||b|`.
use anyhow::{Result, bail};
use cust::memory::{CopyDestination, DeviceBuffer, DeviceSlice};
use gpu_kernels::tc::TC;
use host::{
    gpu::{Gpu, Timing, time_on_stream},
    matmul::problem::Gemm,
    reference::gemm_ex::{CublasEx, cublas_name},
    sm90::{Schedule, tf32::Tf32Options},
    tc::{
        Layout, Operand, TcGemm,
        launch::{config_for, kind_of, tc_config},
        peak::{peak_of, time_peak},
        select,
    },
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    precision::{ErrorStats, Precision, encode_16, error_stats, round_input},
    reference::{self, check_with},
};
use serde::Serialize;

use super::{
    json,
    matmul_args::{MatmulArgs, Verify, resolve_shape},
    progress,
};

/// Largest dimension checked in full by `--verify auto`; rows of C checked when sampling.
const FULL_CHECK_MAX: usize = 4096;
const SAMPLE_ROWS: usize = 64;

#[derive(Serialize)]
struct Record {
    /// The kernel; for the `mma.sync` ceiling (`tc_mma_peak_*`, `--kernel peak`) m, n, k are
    /// cuBLAS's problem and `tflops` the ceiling kernel's own rate (nothing is checked).
    kernel: String,
    /// The precision the kernel computes in (`fp32` for cuBLAS SGEMM and the flagship beside
    /// 3xTF32).
    precision: &'static str,
    m: usize,
    n: usize,
    k: usize,
    median_ms: f64,
    min_ms: f64,
    max_ms: f64,
    reps: usize,
    tflops: f64,
    percent_of_cublas: Option<f64>,
    /// The relative bound `rel` of the check (`|c - ref| <= rel·Σ|a||b| + 1e-6`).
    relative_bound: f64,
    checked_cells: usize,
    failures: usize,
    max_scaled_error: Option<f64>,
    /// `|c - ref| / Σ|a||b|` over the checked cells.
    error: Option<ErrorStats>,
}

/// What `--kernel` runs: the library's path, an `mma.sync` kernel, or (on compute capability
/// 9.0) a variant of the Hopper GEMM: f32 (`host::sm90::tf32::Tf32Options`) or 16-bit (a
/// `host::sm90::Schedule`).
enum Choice {
    Library,
    /// The `mma.sync` ceiling of the precision's instruction (`host::tc::peak`).
    Peak,
    MmaSync(&'static str),
    Wgmma(String, Tf32Options),
    Wgmma16(String, Schedule),
}

/// The kernels `--kernel` names: `sgemm` (the library's path), `ladder` (the BF16 rungs of
/// docs/tensor-cores.md), `peak` (the `mma.sync` ceiling of the precision), or names separated by commas (`mma.sync` kernels, and the Hopper
/// variants `wgmma[_token…]`: for every precision the schedule's tokens `w0`, `w1`, `np`, `p`,
/// `p<N>`, `g<N>` (docs/sm90.md), for TF32 and 3xTF32 also `f<N>`, `rn`, `rz`, `split`, `inplace`), each starting
/// from the library's defaults.
fn kernels(which: &str, p: Precision, op: &TcGemm) -> Result<Vec<Choice>> {
    Ok(match which {
        "sgemm" => vec![Choice::Library],
        "peak" if kind_of(p).is_none() => {
            bail!("--kernel peak takes a tensor-core precision (tf32, 3xtf32, bf16 or fp16)")
        }
        "peak" => vec![Choice::Peak],
        "ladder" if p == Precision::Bf16 => {
            // The rungs in order: two stages linear then swizzled, the library's kernel, then
            // session 6's and 7's variants in list order.
            let rr = || TC.iter().filter(|c| c.name.starts_with("tc_bf16_rr_"));
            let two = rr().filter(|c| c.stages == 2).rev();
            let rest = rr()
                .filter(|c| c.library)
                .chain(rr().filter(|c| c.stages > 2 && !c.library));
            two.chain(rest).map(|c| Choice::MmaSync(c.name)).collect()
        }
        "ladder" => vec![Choice::MmaSync(config_for(p, op)?.name)],
        names => names
            .split(',')
            .map(|n| match p {
                _ if n == "sgemm" => Ok(Choice::Library),
                _ if n == "peak" && kind_of(p).is_some() => Ok(Choice::Peak),
                Precision::Tf32 | Precision::Tf32x3 => match select::tf32_options().from_name(n) {
                    Some(o) => Ok(Choice::Wgmma(n.to_string(), o)),
                    None => tc_config(n).map(|c| Choice::MmaSync(c.name)),
                },
                Precision::Bf16 | Precision::Fp16 => {
                    match Schedule::parse_name(n, select::HOPPER_SCHEDULE, |_| false) {
                        Some(s) => Ok(Choice::Wgmma16(n.to_string(), s)),
                        None => tc_config(n).map(|c| Choice::MmaSync(c.name)),
                    }
                }
                Precision::Fp32 => tc_config(n).map(|c| Choice::MmaSync(c.name)),
            })
            .collect::<Result<_>>()?,
    })
}

/// A row-major `rows x cols` matrix as stored: itself, or column-major (its transpose's rows).
fn stored(x: &[f32], rows: usize, cols: usize, col_major: bool) -> Vec<f32> {
    if !col_major {
        return x.to_vec();
    }
    (0..rows * cols)
        .map(|i| x[(i % rows) * cols + i / rows])
        .collect()
}

pub fn run(args: &MatmulArgs, p: Precision) -> Result<()> {
    let (m, n, k) = resolve_shape(args)?;
    // --trans-a / --trans-b: A or B stored column-major (the reference reads the same values).
    let lay = |t: bool| {
        if t {
            Layout::ColMajor
        } else {
            Layout::RowMajor
        }
    };
    let op = TcGemm::new(m, n, k).layouts(lay(args.trans_a), lay(args.trans_b));
    op.check(p)?;
    let which = kernels(&args.kernel, p, &op)?;
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let info = gpu.info()?;

    // Inputs as the GPU multiplies them (16-bit: rounded on the host), and the reference on them.
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let mut a = reference::random_matrix(m, k, &mut rng);
    let mut b = reference::random_matrix(k, n, &mut rng);
    a.iter_mut().for_each(|x| *x = round_input(p, *x));
    b.iter_mut().for_each(|x| *x = round_input(p, *x));
    let verify = match args.verify {
        Verify::Auto if m.max(n).max(k) <= FULL_CHECK_MAX => Verify::Full,
        Verify::Auto => Verify::Sample,
        v => v,
    };
    let reference = match verify {
        Verify::None => None,
        v => {
            let rows =
                (v == Verify::Sample).then(|| reference::sample_rows(m, SAMPLE_ROWS, args.seed));
            let pb = progress::spinner(&format!("f64 reference for {m}x{n}x{k}"));
            let r = reference::reference(&a, &b, m, n, k, rows.as_deref());
            pb.finish_and_clear();
            Some(r)
        }
    };

    let (sa, sb) = (
        stored(&a, m, k, args.trans_a),
        stored(&b, k, n, args.trans_b),
    );
    let (d_a32, d_b32) = (
        DeviceBuffer::from_slice(&sa)?,
        DeviceBuffer::from_slice(&sb)?,
    );
    let halves = encode_16(p, &sa).zip(encode_16(p, &sb));
    let (d_a16, d_b16) = match &halves {
        Some((ah, bh)) => (
            Some(DeviceBuffer::from_slice(ah)?),
            Some(DeviceBuffer::from_slice(bh)?),
        ),
        None => (None, None),
    };
    let (oa, ob) = match (&d_a16, &d_b16) {
        (Some(x), Some(y)) => (Operand::Bits16(x), Operand::Bits16(y)),
        _ => (Operand::F32(&d_a32), Operand::F32(&d_b32)),
    };
    let d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let flops = 2.0 * (m * n * k) as f64;
    let reps = args.reps;

    // One record from a timing and the result it left in C.
    let record =
        |name: String, prec: Precision, timing: Timing, c: &DeviceSlice<f32>| -> Result<Record> {
            let mut out = vec![0f32; m * n];
            c.copy_to(&mut out[..])?;
            let tol = prec.tolerance(k);
            let check = reference.as_ref().map(|r| check_with(&out, r, tol));
            Ok(Record {
                kernel: name,
                precision: prec.name(),
                m,
                n,
                k,
                median_ms: timing.median_ms,
                min_ms: timing.min_ms,
                max_ms: timing.max_ms,
                reps: timing.reps,
                tflops: flops / (timing.median_ms * 1e-3) / 1e12,
                percent_of_cublas: None,
                relative_bound: tol.rel,
                checked_cells: check.as_ref().map_or(0, |c| c.checked),
                failures: check.as_ref().map_or(0, |c| c.failures),
                max_scaled_error: check.map(|c| c.max_scaled_error),
                error: reference.as_ref().map(|r| error_stats(&out, r)),
            })
        };

    let mut records = Vec::new();
    let mut cublas_tflops = None;
    if !args.no_cublas {
        match CublasEx::load(&gpu) {
            Ok(cublas) => {
                let cp = if p == Precision::Tf32x3 {
                    Precision::Fp32
                } else {
                    p
                };
                let t = time_on_stream(&gpu.stream, 1, reps, || cublas.gemm(p, &op, oa, ob, &d_c))?;
                let r = record(cublas_name(p).into(), cp, t, &d_c)?;
                cublas_tflops = Some(r.tflops);
                records.push(r);
            }
            Err(e) => eprintln!("note: cuBLAS unavailable, no reference GEMM: {e:#}"),
        }
    }
    for choice in which {
        if let Choice::Peak = choice {
            let Some(kind) = kind_of(p) else {
                bail!("--kernel peak takes a tensor-core precision (tf32, 3xtf32, bf16 or fp16)")
            };
            let peak = peak_of(kind);
            let (t, peak_flops) = time_peak(&gpu, peak, reps)?;
            records.push(Record {
                kernel: peak.name.into(),
                precision: p.name(),
                m,
                n,
                k,
                median_ms: t.median_ms,
                min_ms: t.min_ms,
                max_ms: t.max_ms,
                reps: t.reps,
                tflops: peak_flops / (t.median_ms * 1e-3) / 1e12,
                percent_of_cublas: None,
                relative_bound: 0.0,
                checked_cells: 0,
                failures: 0,
                max_scaled_error: None,
                error: None,
            });
            continue;
        }
        // TF32 and 3xTF32 on 9.0: the f32 Hopper GEMM, prepared once (scratch, tensor maps) and
        // its launches (split passes and GEMM) timed, as cuBLAS keeps its workspace.
        let hopper = match &choice {
            Choice::Library => Some(("wgmma", select::tf32_options())),
            Choice::Wgmma(name, o) => Some((name.as_str(), *o)),
            Choice::MmaSync(_) | Choice::Wgmma16(..) | Choice::Peak => None,
        };
        if let Some((name, opts)) = hopper
            && let Some(prepared) = select::tf32_launch(&gpu, p, &op, oa, ob, &d_c, opts)
        {
            let launch = prepared?;
            let t = time_on_stream(&gpu.stream, 1, reps, || launch.launch())?;
            records.push(record(format!("{name}_{p}"), p, t, &d_c)?);
            continue;
        }
        // BF16 and FP16 on 9.0: a schedule of the 16-bit Hopper GEMM, prepared once (tensor
        // maps) and its launches timed; the library's path below prepares at every call.
        if let Choice::Wgmma16(name, sched) = &choice {
            let Some(prepared) = select::sm90_launch(&gpu, p, &op, oa, ob, &d_c, *sched) else {
                bail!(
                    "{name} needs a GPU of compute capability 9.0 and operands TMA can read (the 16-bit Hopper GEMM)"
                );
            };
            let launch = prepared?;
            let t = time_on_stream(&gpu.stream, 1, reps, || launch.launch())?;
            records.push(record(format!("{name}_{p}"), p, t, &d_c)?);
            continue;
        }
        if let Choice::Wgmma(name, _) = &choice {
            bail!("{name} needs a GPU of compute capability 9.0 (the f32 Hopper GEMM)");
        }
        let forced = match choice {
            Choice::MmaSync(name) => Some(tc_config(name)?),
            _ => None,
        };
        let mut path = None;
        let t = time_on_stream(&gpu.stream, 1, reps, || {
            path = Some(select::launch(&gpu, p, forced, &op, oa, ob, &d_c)?);
            Ok(())
        })?;
        let name = match path {
            Some(select::Path::MmaSync(name)) => name,
            _ => "sm90",
        };
        records.push(record(name.into(), p, t, &d_c)?);
    }
    if p == Precision::Tf32x3 {
        // The project's FP32 SGEMM on the same inputs: 3xTF32's error must be no worse.
        // (It takes row-major operands: the unstored copies when A or B is transposed.)
        let g = Gemm::new(m, n, k);
        let (d_ar, d_br) = (DeviceBuffer::from_slice(&a)?, DeviceBuffer::from_slice(&b)?);
        let mut d_c2 = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
        let t = time_on_stream(&gpu.stream, 1, reps, || {
            Ok(host::gemm_device(&gpu, &g, &d_ar, &d_br, &mut d_c2)?)
        })?;
        records.push(record("flagship_sgemm".into(), Precision::Fp32, t, &d_c2)?);
    }
    // By rate, not time: the ceiling kernel does other work than the problem's.
    for r in &mut records {
        r.percent_of_cublas = cublas_tflops.map(|c| 100.0 * r.tflops / c);
    }

    if args.json {
        json::print("matmul", info.device(1), &records)?;
    } else {
        println!(
            "{}: C = A·B in {p} with M={m} N={n} K={k}, median of {reps} launches, check: {verify:?}",
            info.name
        );
        println!(
            "{:<24} {:>7} {:>10} {:>9} {:>9} {:>13} {:>10} {:>10}",
            "kernel",
            "prec",
            "median ms",
            "TFLOP/s",
            "% cuBLAS",
            "max err/bound",
            "p50 err",
            "max err"
        );
        for r in &records {
            let e = r.error.as_ref();
            println!(
                "{:<24} {:>7} {:>10.3} {:>9.1} {:>9} {:>13} {:>10.2e} {:>10.2e}",
                r.kernel,
                r.precision,
                r.median_ms,
                r.tflops,
                r.percent_of_cublas
                    .map_or("-".into(), |p| format!("{p:.1}")),
                r.max_scaled_error.map_or("unchecked".into(), |x| {
                    format!("{}{x:.2e}", if r.failures > 0 { "FAIL " } else { "" })
                }),
                e.map_or(0.0, |e| e.p50),
                e.map_or(0.0, |e| e.max),
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
