//! `host sm90`'s timing: ours and cuBLAS alternately, in rounds on the same buffers, so that a
//! verdict against cuBLAS rests on several samples of both taken side by side (cuBLAS alone
//! varied by up to 7 % between processes at 4096², docs/sm90.md) rather than one sample of
//! cuBLAS taken after ours. Also the f32 (TF32) problem through the library's path.
use anyhow::Result;
use cust::{memory::DeviceBuffer, stream::Stream};
use host::{
    gpu::{Gpu, median, time_on_stream},
    reference::gemm_ex::CublasEx,
    sm90::{download, tf32::Tf32Options},
    tc::{
        problem::{Layout, Operand, TcGemm},
        select,
    },
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    precision::{Precision, round_input},
    reference::{check_with, reference, sample_rows},
};
use serde::Serialize;

/// Per-round medians: one list per launch of ours (in order), and cuBLAS's.
pub struct Rounds {
    pub ours: Vec<Vec<f64>>,
    pub cublas: Vec<f64>,
}

/// One timed schedule against cuBLAS: medians over the rounds, and each round's ratio.
#[derive(Serialize)]
pub struct Timed {
    pub schedule: String,
    /// m (= n = k for a square).
    pub size: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub input: String,
    pub b_major: String,
    pub rounds: usize,
    pub reps: usize,
    pub rust_ms: f64,
    pub rust_tflops: f64,
    pub cublas_ms: f64,
    pub cublas_tflops: f64,
    /// The median over the rounds of cuBLAS's time / ours in the round.
    pub rust_over_cublas: f64,
    pub round_ratios: Vec<f64>,
    pub rust_round_ms: Vec<f64>,
    pub cublas_round_ms: Vec<f64>,
    pub rust_max_error_over_bound: f64,
    pub cublas_max_error_over_bound: f64,
}

impl Timed {
    /// The record of launch `i` of `r`, for a product of `flops`; errors/bound as checked.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        r: &Rounds,
        i: usize,
        schedule: &str,
        ((m, n, k), input, b_major): ((usize, usize, usize), String, String),
        reps: usize,
        flops: f64,
        (rust_err, cublas_err): (f64, f64),
    ) -> Timed {
        let tflops = |ms: f64| flops / (ms * 1e-3) / 1e12;
        let ours = &r.ours[i];
        let ratios: Vec<f64> = ours.iter().zip(&r.cublas).map(|(o, c)| c / o).collect();
        let (rust_ms, cublas_ms) = (median(ours), median(&r.cublas));
        Timed {
            schedule: schedule.to_string(),
            size: m,
            m,
            n,
            k,
            input,
            b_major,
            rounds: ours.len(),
            reps,
            rust_ms,
            rust_tflops: tflops(rust_ms),
            cublas_ms,
            cublas_tflops: tflops(cublas_ms),
            rust_over_cublas: median(&ratios),
            round_ratios: ratios,
            rust_round_ms: ours.clone(),
            cublas_round_ms: r.cublas.clone(),
            rust_max_error_over_bound: rust_err,
            cublas_max_error_over_bound: cublas_err,
        }
    }

    /// One line for stderr.
    pub fn line(&self) -> String {
        let ratios: Vec<String> = self
            .round_ratios
            .iter()
            .map(|r| format!("{:.1}", 100.0 * r))
            .collect();
        format!(
            "{}x{}x{} {} B-{} {}: rust {:.1} TFLOP/s, cuBLAS {:.1} TFLOP/s, median of {} rounds {:.1}% (rounds {}), error/bound {:.3} / {:.3}",
            self.m,
            self.n,
            self.k,
            self.input,
            self.b_major,
            self.schedule,
            self.rust_tflops,
            self.cublas_tflops,
            self.rounds,
            100.0 * self.rust_over_cublas,
            ratios.join(" "),
            self.rust_max_error_over_bound,
            self.cublas_max_error_over_bound
        )
    }
}

/// Times each of `ours` and `theirs` in `rounds` rounds of `reps` launches (median), after 3
/// warm-ups of each: even rounds ours first, odd rounds cuBLAS first (neither always follows
/// the other).
pub fn interleaved(
    stream: &Stream,
    rounds: usize,
    reps: usize,
    ours: &mut [Box<dyn FnMut() -> Result<()> + '_>],
    theirs: &mut dyn FnMut() -> Result<()>,
) -> Result<Rounds> {
    let mut out = Rounds {
        ours: vec![Vec::new(); ours.len()],
        cublas: Vec::new(),
    };
    for r in 0..rounds.max(1) {
        let warm = if r == 0 { 3 } else { 1 };
        let mut time_theirs = |out: &mut Rounds| -> Result<()> {
            out.cublas
                .push(time_on_stream(stream, warm, reps, &mut *theirs)?.median_ms);
            Ok(())
        };
        if r % 2 == 1 {
            time_theirs(&mut out)?;
        }
        for (i, f) in ours.iter_mut().enumerate() {
            out.ours[i].push(time_on_stream(stream, warm, reps, &mut **f)?.median_ms);
        }
        if r % 2 == 0 {
            time_theirs(&mut out)?;
        }
    }
    Ok(out)
}

/// TF32 at `m x n x k` through the library's path (`tc::select::tf32_launch`: a row-major B split
/// inside each launch, or read in place with `inplace`) with each of `sched` (`Tf32Options`
/// names) against cuBLAS TF32, interleaved; results checked on `check_rows` sampled rows against
/// f64 with TF32's bound (inputs rounded to TF32 first).
pub fn tf32_timed(
    gpu: &Gpu,
    cublas: &CublasEx,
    (m, n, k): (usize, usize, usize),
    b_k_major: bool,
    sched: &[(String, Tf32Options)],
    (rounds, reps, check_rows): (usize, usize, usize),
) -> Result<Vec<Timed>> {
    let mut rng = ChaCha8Rng::seed_from_u64((m * 7 + n * 3 + k) as u64 + 21);
    let mut fill = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| round_input(Precision::Tf32, rng.gen_range(-1.0f32..1.0)))
            .collect()
    };
    let (a, b) = (fill(m * k), fill(k * n));
    let rows = sample_rows(m, check_rows, 7);
    let r = reference(&a, &b, m, n, k, Some(&rows));
    // B as stored: k x n row-major, or its transpose (n x k) read as column-major.
    let stored_b: Vec<f32> = if b_k_major {
        (0..k * n).map(|i| b[(i % k) * n + i / k]).collect()
    } else {
        b
    };
    let op = TcGemm::new(m, n, k)
        .layouts(
            Layout::RowMajor,
            if b_k_major {
                Layout::ColMajor
            } else {
                Layout::RowMajor
            },
        )
        .leading_dims(k, if b_k_major { k } else { n }, n);
    let (da, db) = (
        DeviceBuffer::from_slice(&a)?,
        DeviceBuffer::from_slice(&stored_b)?,
    );
    let dc = DeviceBuffer::from_slice(&vec![f32::NAN; m * n])?;
    let tol = Precision::Tf32.tolerance(k);
    let check = |dc: &DeviceBuffer<f32>| -> Result<f64> {
        Ok(check_with(&download(dc)?, &r, tol).max_scaled_error)
    };
    let mut launches = Vec::new();
    for (name, o) in sched {
        let l = select::tf32_launch(
            gpu,
            Precision::Tf32,
            &op,
            Operand::F32(&da),
            Operand::F32(&db),
            &dc,
            *o,
        )
        .ok_or_else(|| {
            anyhow::anyhow!("{name}: the f32 Hopper GEMM does not take {m}x{n}x{k}")
        })??;
        launches.push(l);
    }
    let mut errors = Vec::new();
    for l in &launches {
        l.launch()?;
        gpu.stream.synchronize()?;
        errors.push(check(&dc)?);
    }
    let run_cublas = || {
        cublas.gemm(
            Precision::Tf32,
            &op,
            Operand::F32(&da),
            Operand::F32(&db),
            &dc,
        )
    };
    run_cublas()?;
    gpu.stream.synchronize()?;
    let cublas_err = check(&dc)?;
    let mut theirs = run_cublas;
    let major = if b_k_major { "K" } else { "N" };
    timed_rows(
        &gpu.stream,
        sched,
        (&launches, |l| l.launch()),
        &mut theirs,
        (rounds, reps),
        (
            (m, n, k),
            "Tf32".into(),
            major.into(),
            2.0 * (m * n * k) as f64,
        ),
        (&errors, cublas_err),
    )
}

/// [`interleaved`] for `launches` (one per schedule of `sched`, in order; `launch` runs one)
/// against `theirs`, then a [`Timed`] row per schedule for the problem `(dims, input, b_major,
/// flops)` with its error and cuBLAS's (each over its bound, checked before).
pub fn timed_rows<'a, L, S>(
    stream: &Stream,
    sched: &[(String, S)],
    (launches, launch): (&'a [L], impl Fn(&'a L) -> Result<()> + Copy + 'a),
    theirs: &mut dyn FnMut() -> Result<()>,
    (rounds, reps): (usize, usize),
    (dims, input, major, flops): ((usize, usize, usize), String, String, f64),
    (errors, cublas_err): (&[f64], f64),
) -> Result<Vec<Timed>> {
    let mut ours: Vec<Box<dyn FnMut() -> Result<()> + 'a>> = launches
        .iter()
        .map(|l| Box::new(move || launch(l)) as Box<dyn FnMut() -> Result<()> + 'a>)
        .collect();
    let t = interleaved(stream, rounds, reps, &mut ours, theirs)?;
    Ok(sched
        .iter()
        .enumerate()
        .map(|(i, (name, _))| {
            let what = (dims, input.clone(), major.clone());
            Timed::new(&t, i, name, what, reps, flops, (errors[i], cublas_err))
        })
        .collect())
}

/// The f32 Hopper GEMM's options `--schedules` names (on the library's).
pub fn tf32_schedules(names: &str) -> Result<Vec<(String, Tf32Options)>> {
    names
        .split(',')
        .map(|n| match select::tf32_options().from_name(n) {
            Some(o) => Ok((n.to_string(), o)),
            None => anyhow::bail!(
                "--schedules: {n:?} is not an f32 Hopper GEMM variant (wgmma or wgmma_<tokens>, docs/sm90.md)"
            ),
        })
        .collect()
}
