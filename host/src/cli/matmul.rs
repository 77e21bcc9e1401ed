use anyhow::{Result, bail};
use host::{
    gpu::Gpu,
    matmul::{
        cublas::Cublas,
        gpu::{self as mgpu, GpuResult, Kernel, Problem, check_shape},
        sgemm,
    },
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    cpu,
    reference::{self, Check, Reference},
};
use serde::Serialize;

use super::spinner;
use crate::{MatmulArgs, MatmulCpuArgs, Verify};

/// Largest dimension checked in full by `--verify auto`.
const FULL_CHECK_MAX: usize = 4096;
/// Rows of C checked when sampling.
const SAMPLE_ROWS: usize = 64;

#[derive(Serialize)]
struct Record {
    kernel: String,
    family: String,
    m: usize,
    n: usize,
    k: usize,
    padded: (usize, usize, usize),
    median_ms: f64,
    min_ms: f64,
    max_ms: f64,
    reps: usize,
    gflops: f64,
    percent_of_cublas: Option<f64>,
    checked_cells: usize,
    failures: usize,
    max_scaled_error: Option<f64>,
}

fn resolve_shape(args: &MatmulArgs) -> Result<(usize, usize, usize)> {
    let pick = |d: Option<usize>, name: &str| match d.or(args.size) {
        Some(v) => Ok(v),
        None => bail!(
            "give a square size (`matmul 1024`) or all of --m, --n and --k (missing --{name})"
        ),
    };
    let shape = (pick(args.m, "m")?, pick(args.n, "n")?, pick(args.k, "k")?);
    check_shape(shape.0, shape.1, shape.2)?;
    Ok(shape)
}

/// `sgemm` (the default): the flagship kernel the library picks for this shape, as
/// `host::sgemm_device` runs it; `all`, a family (`tiled`, `vectorized`, `flagship`), or
/// kernel names separated by commas.
fn select_kernels(which: &str, gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<Vec<Kernel>> {
    Ok(match which {
        "sgemm" => {
            let sms = gpu.info()?.multiprocessors;
            // Dense operands: B allows 16-byte copies when its rows are (N % 4 == 0).
            let cfg = sgemm::choose_kernel(m, n, k, n % 4 == 0, sms);
            vec![mgpu::kernel(cfg.name)?]
        }
        "all" => mgpu::kernels(),
        "tiled" | "vectorized" | mgpu::FLAGSHIP_FAMILY => mgpu::kernels()
            .into_iter()
            .filter(|k| k.family == which)
            .collect(),
        names => names.split(',').map(mgpu::kernel).collect::<Result<_>>()?,
    })
}

pub fn run(args: &MatmulArgs) -> Result<()> {
    let (m, n, k) = resolve_shape(args)?;
    if args.reps == 0 {
        bail!("--reps must be at least 1");
    }
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let kernels = select_kernels(&args.kernel, &gpu, (m, n, k))?;
    let device = gpu.info()?.name;

    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let a = reference::random_matrix(m, k, &mut rng);
    let b = reference::random_matrix(k, n, &mut rng);
    let verify = match args.verify {
        Verify::Auto if m.max(n).max(k) <= FULL_CHECK_MAX => Verify::Full,
        Verify::Auto => Verify::Sample,
        v => v,
    };
    let reference = match verify {
        Verify::None => None,
        Verify::Full => {
            let pb = spinner(&format!("f64 reference for {m}x{n}x{k} (all rows)"));
            let r = reference::reference(&a, &b, m, n, k, None);
            pb.finish_and_clear();
            Some(r)
        }
        _ => {
            let rows = reference::sample_rows(m, SAMPLE_ROWS, args.seed);
            let pb = spinner(&format!(
                "f64 reference for {m}x{n}x{k} ({} sampled rows)",
                rows.len()
            ));
            let r = reference::reference(&a, &b, m, n, k, Some(&rows));
            pb.finish_and_clear();
            Some(r)
        }
    };

    let problem = Problem {
        a: &a,
        b: &b,
        m,
        n,
        k,
    };
    let flops = 2.0 * m as f64 * n as f64 * k as f64;
    let record =
        |name: &str, family: &str, r: &GpuResult, check: Option<Check>, cublas_ms: Option<f64>| {
            Record {
                kernel: name.into(),
                family: family.into(),
                m,
                n,
                k,
                padded: r.padded,
                median_ms: r.timing.median_ms,
                min_ms: r.timing.min_ms,
                max_ms: r.timing.max_ms,
                reps: r.timing.reps,
                gflops: flops / (r.timing.median_ms * 1e-3) / 1e9,
                percent_of_cublas: cublas_ms.map(|c| 100.0 * c / r.timing.median_ms),
                checked_cells: check.as_ref().map_or(0, |c| c.checked),
                failures: check.as_ref().map_or(0, |c| c.failures),
                max_scaled_error: check.map(|c| c.max_scaled_error),
            }
        };
    let check = |r: &GpuResult, reference: &Option<Reference>| {
        reference.as_ref().map(|re| reference::check(&r.c, re))
    };

    let mut records = Vec::new();
    let mut cublas_ms = None;
    if !args.no_cublas {
        match Cublas::load(&gpu) {
            Ok(cublas) => {
                let r = cublas.run(&gpu, &problem, args.reps)?;
                cublas_ms = Some(r.timing.median_ms);
                records.push(record(
                    "cublas_sgemm",
                    "cublas",
                    &r,
                    check(&r, &reference),
                    cublas_ms,
                ));
            }
            Err(e) => eprintln!("note: cuBLAS unavailable, no reference GEMM: {e:#}"),
        }
    }
    for kernel in &kernels {
        let r = mgpu::run(&gpu, kernel, &problem, args.reps)?;
        records.push(record(
            kernel.name,
            kernel.family,
            &r,
            check(&r, &reference),
            cublas_ms,
        ));
    }

    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "device": device, "results": records })
            )?
        );
    } else {
        println!(
            "{device}: C = A·B with M={m} N={n} K={k}, median of {} launches, check: {verify:?}",
            args.reps
        );
        println!(
            "{:<30} {:>16} {:>10} {:>10} {:>9} {:>12}",
            "kernel", "padded M,N,K", "median ms", "GFLOP/s", "% cuBLAS", "max err/bound"
        );
        for r in &records {
            let pct = r
                .percent_of_cublas
                .map_or("-".into(), |p| format!("{p:.1}"));
            let err = r.max_scaled_error.map_or("unchecked".into(), |e| {
                if r.failures > 0 {
                    format!("FAIL {e:.2e}")
                } else {
                    format!("{e:.2e}")
                }
            });
            let padded = format!("{},{},{}", r.padded.0, r.padded.1, r.padded.2);
            println!(
                "{:<30} {:>16} {:>10.3} {:>10.1} {:>9} {:>12}",
                r.kernel, padded, r.median_ms, r.gflops, pct, err
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

pub fn run_cpu(args: &MatmulCpuArgs) -> Result<()> {
    let mut sizes = args.sizes.clone().unwrap_or_else(|| vec![256, 512, 1024]);
    if args.large && !sizes.contains(&2048) {
        sizes.push(2048);
    }
    if let Some(bad) = sizes.iter().find(|&&s| s == 0 || s > 8192) {
        bail!("size {bad} is out of range for the CPU ladder (1..=8192)");
    }
    let rows = cpu::run_ladder(&sizes, args.reps.max(1), args.seed, !args.json);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!("CPU ladder, SIMD backend: {}", cpu::simd_backend());
        cpu::print_ladder(&rows);
    }
    Ok(())
}
