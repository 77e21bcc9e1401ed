//! `host bench sgemm-shapes`: the committed SGEMM shape suite (host/data/sgemm-shapes.txt, or
//! another list in its format), each problem through the library's default choice
//! (`host::gemm_device_async` on the GPU's stream) and through cuBLAS's matching call, on the
//! same inputs, the two sides' launches alternating (from session 14; before, each side's
//! launches one block after the other); the library's result checked against the f64
//! reference. Prints a table and the
//! geometric mean of the ratios; JSON Lines records (`rgk_core::bench::ShapeRecord`, then one
//! `ShapeSummary`).
use std::path::Path;

use anyhow::{Context as _, Result, bail};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::Op;
use host::{
    Gemm,
    gpu::{Gpu, check_free_memory, time_interleaved, time_on_stream},
    matmul::{
        layout::{self, Operand},
        sgemm::gemm_device_async,
    },
    reference::cublas::Cublas,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::{
    bad_input,
    bench::{ShapeRecord, ShapeSummary, geometric_mean},
    matmul::reference,
};

/// The committed suite.
pub const SUITE: &str = include_str!("../../data/sgemm-shapes.txt");
/// Problems of a batch checked, and rows of a problem above 4096 in some dimension.
const CHECKED_PROBLEMS: usize = 3;
const SAMPLED_ROWS: usize = 32;

/// One line of a suite: the problem and the line as written (its label).
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub label: String,
    pub gemm: Gemm,
}

/// Parses a suite: `M N K OPS BATCH` per line, `#` comments and blank lines ignored; a bad line
/// is named with its number ([`rgk_core::BadInput`]).
pub fn parse_suite(text: &str) -> Result<Vec<Shape>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let body = line.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let bad = |why: &str| bad_input(format!("suite line {}: {why}: {body:?}", i + 1));
        let f: Vec<&str> = body.split_whitespace().collect();
        if f.len() != 5 {
            return bad("expected `M N K OPS BATCH`");
        }
        let num = |s: &str| s.parse::<usize>().ok();
        let (Some(m), Some(n), Some(k), Some(batch)) = (num(f[0]), num(f[1]), num(f[2]), num(f[4]))
        else {
            return bad("M, N, K and BATCH must be whole numbers");
        };
        let op = |c: char| match c {
            'N' => Some(Op::N),
            'T' => Some(Op::T),
            _ => None,
        };
        let ops: Vec<Option<Op>> = f[3].chars().map(op).collect();
        let [Some(op_a), Some(op_b)] = ops[..] else {
            return bad("OPS must be two letters of N and T (NN, TN, NT, TT)");
        };
        let gemm = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
        gemm.check()
            .with_context(|| format!("suite line {}", i + 1))?;
        out.push(Shape {
            label: format!("{m}x{n}x{k} {}{} x{batch}", op_a.letter(), op_b.letter()),
            gemm,
        });
    }
    if out.is_empty() {
        return bad_input("the suite lists no problem");
    }
    Ok(out)
}

/// The suite to run: `file`'s, or the committed one.
pub fn load(file: Option<&Path>) -> Result<Vec<Shape>> {
    match file {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the suite {}", p.display()))?;
            parse_suite(&text)
        }
        None => parse_suite(SUITE),
    }
}

/// Runs every problem, emitting its record through `emit`, then the summary.
pub fn run(
    gpu: &Gpu,
    shapes: &[Shape],
    reps: usize,
    seed: u64,
    (device, date, commit): (&str, &str, &str),
    emit: &mut dyn FnMut(String) -> Result<()>,
) -> Result<()> {
    let cublas = Cublas::load(gpu)
        .map_err(|e| eprintln!("note: no cuBLAS, the library's times only: {e:#}"))
        .ok();
    eprintln!(
        "{:<28} {:>10} {:>10} {:>9} {:>12}",
        "problem", "rgk ms", "cuBLAS ms", "% cuBLAS", "max err/bound"
    );
    let (mut ratios, mut below) = (Vec::new(), Vec::new());
    for (i, s) in shapes.iter().enumerate() {
        let op = s.gemm;
        let (la, lb, lc) = op.min_lens();
        check_free_memory(4 * (la + lb + 2 * lc), "the problem")?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ i as u64);
        let a = layout::random_buffer(&op, Operand::A, &mut rng);
        let b = layout::random_buffer(&op, Operand::B, &mut rng);
        let c0 = vec![f32::NAN; lc];
        let d_a = DeviceBuffer::from_slice(&a)?;
        let d_b = DeviceBuffer::from_slice(&b)?;
        let mut d_c = DeviceBuffer::from_slice(&c0)?;
        let ours = |d_c: &mut DeviceBuffer<f32>| -> Result<()> {
            Ok(gemm_device_async(gpu, &gpu.stream, &op, &d_a, &d_b, d_c)?)
        };
        // Ours and cuBLAS's launches alternate (`time_interleaved`), each into its own C, so
        // that the checked C is ours alone.
        let (t, cub) = match &cublas {
            Some(cb) => {
                let d_c_cublas = DeviceBuffer::from_slice(&c0)?;
                let (t, c) = time_interleaved(
                    &gpu.stream,
                    1,
                    reps,
                    || ours(&mut d_c),
                    || cb.gemm(&op, &d_a, &d_b, &d_c_cublas),
                )?;
                (t, Some(c))
            }
            None => (
                time_on_stream(&gpu.stream, 1, reps, || ours(&mut d_c))?,
                None,
            ),
        };
        let mut c = vec![0f32; lc];
        d_c.copy_to(&mut c[..])?;
        let rows = (op.m > 4096 || op.n > 4096 || op.k > 4096)
            .then(|| reference::sample_rows(op.m, SAMPLED_ROWS, seed));
        let (mut checked, mut failures, mut worst) = (0, 0, 0f64);
        for p in layout::sample_problems(op.batch, CHECKED_PROBLEMS) {
            let re = layout::reference_of(&op, [&a, &b, &c0], p, rows.as_deref());
            let ch = reference::check(&layout::rows_of(&op, &c, p, &re), &re);
            (checked, failures) = (checked + ch.checked, failures + ch.failures);
            worst = worst.max(ch.max_scaled_error);
        }
        let flops = 2.0 * (op.m * op.n * op.k) as f64 * op.batch as f64;
        let gflops = |ms: f64| flops / (ms * 1e-3) / 1e9;
        let pct = cub.as_ref().map(|c| 100.0 * c.median_ms / t.median_ms);
        if let Some(p) = pct {
            ratios.push(p);
            if p < 90.0 {
                below.push(s.label.clone());
            }
        }
        eprintln!(
            "{:<28} {:>10.4} {:>10} {:>9} {:>12}",
            s.label,
            t.median_ms,
            cub.as_ref()
                .map_or("-".into(), |c| format!("{:.4}", c.median_ms)),
            pct.map_or("-".into(), |p| format!("{p:.1}")),
            format!("{}{worst:.2e}", if failures > 0 { "FAIL " } else { "" })
        );
        let rec = ShapeRecord {
            suite: "sgemm-shapes".into(),
            problem: s.label.clone(),
            m: op.m,
            n: op.n,
            k: op.k,
            ops: format!("{}{}", op.op_a.letter(), op.op_b.letter()),
            batch: op.batch,
            rgk_ms: t.median_ms,
            rgk_min_ms: t.min_ms,
            cublas_ms: cub.as_ref().map(|c| c.median_ms),
            cublas_min_ms: cub.as_ref().map(|c| c.min_ms),
            reps: t.reps,
            rgk_gflops: gflops(t.median_ms),
            cublas_gflops: cub.as_ref().map(|c| gflops(c.median_ms)),
            percent_of_cublas: pct,
            checked_cells: checked,
            failures,
            max_scaled_error: worst,
            seed,
            device: device.into(),
            date: date.into(),
            commit: commit.into(),
        };
        emit(serde_json::to_string(&rec)?)?;
        if failures > 0 {
            bail!(
                "{}: the library's result differs from the f64 reference",
                s.label
            );
        }
    }
    let geomean = geometric_mean(&ratios);
    eprintln!(
        "geometric mean over {} problems: {} of cuBLAS; below 90%: {}",
        ratios.len(),
        geomean.map_or("-".into(), |g| format!("{g:.1}%")),
        if below.is_empty() {
            "none".into()
        } else {
            below.join(", ")
        }
    );
    let summary = ShapeSummary {
        suite: "sgemm-shapes-summary".into(),
        problems: shapes.len(),
        geomean_percent_of_cublas: geomean,
        min_percent_of_cublas: ratios.iter().copied().reduce(f64::min),
        below_90_percent: below,
        device: device.into(),
        date: date.into(),
        commit: commit.into(),
    };
    emit(serde_json::to_string(&summary)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_outside_lists_parse() {
        for (name, text) in [
            ("mid", include_str!("../../data/mid/outside.txt")),
            ("tsingle", include_str!("../../data/tsingle/outside.txt")),
            ("gemv", include_str!("../../data/gemv/outside.txt")),
            ("s11", include_str!("../../data/s11/outside.txt")),
        ] {
            let s = parse_suite(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!s.is_empty(), "{name}: no problem");
        }
    }

    #[test]
    fn the_committed_suite_covers_what_issue_20_asks() {
        let s = parse_suite(SUITE).unwrap();
        assert!(s.len() >= 40, "{} problems", s.len());
        let has = |f: &dyn Fn(&Gemm) -> bool| s.iter().any(|x| f(&x.gemm));
        for n in [64, 8192] {
            assert!(has(&|g| g.m == n && g.n == n && g.k == n), "square {n}");
        }
        assert!(has(&|g| g.k >= 16384 && g.m <= 256), "deep K");
        assert!(has(&|g| g.n <= 128 && g.m >= 12288), "thin");
        assert!(has(&|g| g.n <= 16 && g.n > 1), "tiny N");
        assert!(has(&|g| g.m == 1) && has(&|g| g.n == 1), "matrix-vector");
        assert!(has(&|g| g.batch == 4096 && g.m == 64), "4096 x 64³");
        assert!(has(&|g| g.batch == 512 && g.m == 256), "512 x 256³");
        for ops in [
            [Op::N, Op::N],
            [Op::T, Op::N],
            [Op::N, Op::T],
            [Op::T, Op::T],
        ] {
            assert!(has(&|g| [g.op_a, g.op_b] == ops), "{ops:?}");
        }
        assert!(has(&|g| g.m % 4 != 0 && g.n % 4 != 0), "odd sizes");
    }

    #[test]
    fn bad_lines_are_named() {
        for (text, want) in [
            ("1 2 3 NN", "line 1: expected"),
            ("# c\n1 2 x NN 1", "line 2: M, N, K"),
            ("1 2 3 NX 1", "OPS must be"),
            ("1 2 3 NN 0", "batch = 0"),
            ("0 2 3 NN 1", "M = 0"),
            ("# nothing", "no problem"),
        ] {
            let e = parse_suite(text).unwrap_err();
            assert!(e.chain().any(|c| c.is::<rgk_core::BadInput>()), "{text}");
            assert!(format!("{e:#}").contains(want), "{text}: {e:#}");
        }
        let s = parse_suite("  256 256 256 TT 512  # batch").unwrap();
        assert_eq!(s[0].label, "256x256x256 TT x512");
        assert_eq!((s[0].gemm.batch, s[0].gemm.op_a), (512, Op::T));
    }
}
