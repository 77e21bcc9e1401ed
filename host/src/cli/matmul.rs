use anyhow::{Result, bail};
use gpu_kernels::{matmul::Rung, registry::Family};
use host::{
    gpu::Gpu,
    matmul::{
        gpu::{self as mgpu, GpuResult, Kernel, Problem},
        select,
        shape::ShapeKind,
    },
    reference::cublas::Cublas,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    precision::Precision,
    reference::{self, Check, Reference},
};
use serde::Serialize;

use super::{
    json,
    matmul_args::{MatmulArgs, Verify, resolve_shape},
    progress,
};

/// Largest dimension checked in full by `--verify auto`.
const FULL_CHECK_MAX: usize = 4096;
/// Rows of C checked when sampling.
const SAMPLE_ROWS: usize = 64;

/// `--kernel` value that runs the study's ladder: one kernel per rung, then the flagship.
const LADDER: &str = "ladder";
/// The study's results on its A6000 at 4096 (siboehm/SGEMM_CUDA, README): cuBLAS, then GFLOP/s
/// per rung.
const STUDY_CUBLAS_GFLOPS: f64 = 23249.6;

fn study_gflops(rung: Rung) -> f64 {
    match rung {
        Rung::Naive => 309.0,
        Rung::Coalesced => 1986.5,
        Rung::SharedCaching => 2980.3,
        Rung::Blocktile1d => 8474.7,
        Rung::Blocktile2d => 15971.7,
        Rung::Vectorized => 18237.3,
        Rung::BankLinearized => 16213.4,
        Rung::BankOffset => 16459.2,
        Rung::Autotuned => 19720.9,
        Rung::Warptiling => 21779.3,
        Rung::DoubleBuffering => 17278.3,
    }
}

/// A row of the ladder: a rung of the study, or the flagship.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    Study(Rung),
    Flagship,
}

impl Step {
    fn number(self) -> u32 {
        match self {
            Step::Study(r) => r.number(),
            Step::Flagship => Rung::ALL.len() as u32 + 1,
        }
    }
    fn title(self) -> &'static str {
        match self {
            Step::Study(r) => r.title(),
            Step::Flagship => "flagship",
        }
    }
    /// The study's percentage of cuBLAS for the rung, on its A6000.
    fn study_percent(self) -> Option<f64> {
        match self {
            Step::Study(r) => Some(100.0 * study_gflops(r) / STUDY_CUBLAS_GFLOPS),
            Step::Flagship => None,
        }
    }
}

fn is_flagship(family: &str) -> bool {
    family == Family::Flagship.name()
}

/// The ladder's kernels in order: each rung's kernel, then the flagship kernel picked for the shape.
fn ladder(flagship: Kernel) -> Result<Vec<(Step, Kernel)>> {
    let mut rows = Vec::new();
    for rung in Rung::ALL {
        rows.push((Step::Study(rung), mgpu::kernel(rung.kernel())?));
    }
    rows.push((Step::Flagship, flagship));
    Ok(rows)
}

/// The ladder step a kernel stands for, if any.
fn step_of(name: &str, family: &str) -> Option<Step> {
    if is_flagship(family) {
        return Some(Step::Flagship);
    }
    Rung::ALL
        .into_iter()
        .find(|r| r.kernel() == name)
        .map(Step::Study)
}

#[derive(Serialize)]
struct Record {
    kernel: String,
    family: String,
    /// The ladder step (study kernel number, 12 for the flagship) the kernel stands for.
    #[serde(skip_serializing_if = "Option::is_none")]
    rung: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    study_a6000_percent: Option<f64>,
    m: usize,
    n: usize,
    k: usize,
    /// The shape's class (`host::matmul::shape::ShapeKind`), which decides the default kernel.
    shape_class: &'static str,
    padded: (usize, usize, usize),
    /// Flagship kernels: `data-parallel` or `stream-k`, and the blocks that ran stream-K (0
    /// where the tiles fill whole waves).
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_k_blocks: Option<u32>,
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

/// `sgemm` (the default): the flagship kernel the library picks for this shape, as
/// `host::sgemm_device` runs it; `ladder`: one kernel per rung of the study, then that flagship
/// kernel; `all`; a family (`tiled`, `vectorized`, `flagship`, a rung's family); or kernel names
/// separated by commas.
fn select_kernels(which: &str, gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<Vec<Kernel>> {
    let all = mgpu::kernels();
    let picked = || mgpu::kernel(select::dense_kernel(gpu, m, n, k)?.name());
    Ok(match which {
        "sgemm" => vec![picked()?],
        "all" => all,
        LADDER => ladder(picked()?)?.into_iter().map(|(_, k)| k).collect(),
        family if all.iter().any(|k| k.family.name() == family) => all
            .into_iter()
            .filter(|k| k.family.name() == family)
            .collect(),
        names => names.split(',').map(mgpu::kernel).collect::<Result<_>>()?,
    })
}

pub fn run(args: &MatmulArgs) -> Result<()> {
    if args.precision != Precision::Fp32 {
        return super::matmul_tc::run(args, args.precision);
    }
    let (m, n, k) = resolve_shape(args)?;
    if super::matmul_blas::wanted(args) {
        return super::matmul_blas::run(args, (m, n, k));
    }
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let kernels = select_kernels(&args.kernel, &gpu, (m, n, k))?;
    let info = gpu.info()?;
    let device = &info.name;

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
            let pb = progress::spinner(&format!("f64 reference for {m}x{n}x{k} (all rows)"));
            let r = reference::reference(&a, &b, m, n, k, None);
            pb.finish_and_clear();
            Some(r)
        }
        _ => {
            let rows = reference::sample_rows(m, SAMPLE_ROWS, args.seed);
            let pb = progress::spinner(&format!(
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
            let step = step_of(name, family);
            Record {
                kernel: name.into(),
                family: family.into(),
                rung: step.map(Step::number),
                step: step.map(Step::title),
                study_a6000_percent: step.and_then(Step::study_percent),
                m,
                n,
                k,
                shape_class: ShapeKind::of(m, n, k).name(),
                padded: r.padded,
                schedule: r.schedule.map(|s| s.0.name()),
                stream_k_blocks: r.schedule.map(|s| s.1),
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
            kernel.family.name(),
            &r,
            check(&r, &reference),
            cublas_ms,
        ));
    }

    if args.json {
        json::print("matmul", info.device(1), &records)?;
    } else if args.kernel == LADDER {
        println!(
            "{device}: the SGEMM study's ladder, C = A·B with M={m} N={n} K={k}, median of {} \
             launches, check: {verify:?}",
            args.reps
        );
        print_ladder(&records);
    } else {
        println!(
            "{device}: C = A·B with M={m} N={n} K={k} (shape class {}), median of {} launches, \
             check: {verify:?}",
            ShapeKind::of(m, n, k),
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
            let err = error_cell(r);
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

fn error_cell(r: &Record) -> String {
    r.max_scaled_error.map_or("unchecked".into(), |e| {
        if r.failures > 0 {
            format!("FAIL {e:.2e}")
        } else {
            format!("{e:.2e}")
        }
    })
}

/// The ladder table: rung, kernel, GFLOP/s, % of cuBLAS here, and the study's % on its A6000.
fn print_ladder(records: &[Record]) {
    println!(
        "{:<32} {:<40} {:>10} {:>10} {:>9} {:>11} {:>13}",
        "rung", "kernel", "median ms", "GFLOP/s", "% cuBLAS", "study A6000", "max err/bound"
    );
    for r in records {
        let rung = match (r.rung, r.step) {
            (Some(n), Some(title)) => format!("{n:>2} {title}"),
            _ => format!(" 0 {}", r.family),
        };
        let pct = r
            .percent_of_cublas
            .map_or("-".into(), |p| format!("{p:.1}%"));
        let study = match (r.rung, r.study_a6000_percent) {
            (_, Some(p)) => format!("{p:.1}%"),
            (None, None) => "100.0%".into(),
            (Some(_), None) => "-".into(),
        };
        println!(
            "{:<32} {:<40} {:>10.3} {:>10.1} {:>9} {:>11} {:>13}",
            rung,
            r.kernel,
            r.median_ms,
            r.gflops,
            pct,
            study,
            error_cell(r)
        );
    }
}
