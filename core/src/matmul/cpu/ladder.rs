//! Running the ladder: every step timed and checked against the f64 reference ([`run_ladder`]),
//! or each step run once with nothing else around it, for a profiler ([`run_once`]).

use std::{hint::black_box, time::Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::Variant;
use crate::matmul::reference::{check, random_matrix, reference};

/// Sizes above this skip `naive_ijk` when the whole ladder runs (see [`plan`]).
pub const NAIVE_MAX_SIZE: usize = 1024;

/// The variants to run at `size`: `only` as given, or else the whole ladder less `naive_ijk`
/// above [`NAIVE_MAX_SIZE`] (it takes minutes there).
pub fn plan(only: Option<&[Variant]>, size: usize) -> Vec<Variant> {
    match only {
        Some(list) => list.to_vec(),
        None => Variant::ALL
            .into_iter()
            .filter(|&v| v != Variant::NaiveIjk || size <= NAIVE_MAX_SIZE)
            .collect(),
    }
}

/// The square inputs A and B for `size`, the same for [`run_ladder`] and [`run_once`].
fn inputs(size: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ (size as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let a = random_matrix(size, size, &mut rng);
    let b = random_matrix(size, size, &mut rng);
    (a, b)
}

#[derive(serde::Serialize, Clone, Debug)]
pub struct LadderRow {
    pub variant: Variant,
    pub size: usize,
    pub median_s: f64,
    pub gflops: f64,
    pub max_scaled_error: f64,
}

fn median(times: &mut [f64]) -> f64 {
    assert!(!times.is_empty());
    times.sort_by(f64::total_cmp);
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        0.5 * (times[mid - 1] + times[mid])
    }
}

fn gflops(size: usize, seconds: f64) -> f64 {
    2.0 * (size as f64).powi(3) / seconds / 1e9
}

/// A variant whose result differs from the f64 reference: a bug in the variant, reported as
/// an error (exit status 1 in the CLI), never a panic.
#[derive(Clone, Debug, PartialEq)]
pub struct WrongResult {
    pub variant: Variant,
    pub size: usize,
    pub failures: usize,
    pub checked: usize,
    pub max_scaled_error: f64,
    /// (row, column, value, reference) of the worst cell.
    pub worst: Option<(usize, usize, f32, f64)>,
}

impl std::fmt::Display for WrongResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CPU variant {} is wrong at size {}: {} of {} cells differ from the f64 reference \
             (max scaled error {:.3e}",
            self.variant, self.size, self.failures, self.checked, self.max_scaled_error
        )?;
        if let Some((row, col, value, want)) = self.worst {
            write!(f, ", worst c[{row}][{col}] = {value} instead of {want}")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for WrongResult {}

/// How far [`run_ladder`] has got, for a progress display (the CLI's bar); the ladder itself
/// prints nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LadderProgress {
    /// The ladder will take this many steps (one per size and variant).
    Steps(usize),
    /// Making the inputs and the f64 reference of `size`.
    Reference { size: usize },
    /// Timing `variant` at `size`.
    Timing { size: usize, variant: Variant },
    /// One step done.
    StepDone,
}

/// Times the variants of [`plan`]`(only, size)` on random square problems of each size: one
/// warm-up, then `reps` timed runs (at least one); the median gives GFLOP/s = 2 size^3 / median.
/// Every run's result is checked against the full f64 reference; the first wrong one ends the
/// ladder with [`WrongResult`]. `progress` hears of every step ([`LadderProgress`]).
pub fn run_ladder(
    only: Option<&[Variant]>,
    sizes: &[usize],
    reps: usize,
    seed: u64,
    progress: &mut dyn FnMut(LadderProgress),
) -> Result<Vec<LadderRow>, WrongResult> {
    run_ladder_with(only, sizes, reps, seed, progress, |v| v.run())
}

/// [`run_ladder`] with the implementation of each variant given by `pick` (tests plug in a
/// wrong one).
fn run_ladder_with(
    only: Option<&[Variant]>,
    sizes: &[usize],
    reps: usize,
    seed: u64,
    progress: &mut dyn FnMut(LadderProgress),
    pick: impl Fn(Variant) -> super::MatmulFn,
) -> Result<Vec<LadderRow>, WrongResult> {
    let reps = reps.max(1);
    progress(LadderProgress::Steps(
        sizes.iter().map(|&s| plan(only, s).len()).sum(),
    ));

    let mut rows = Vec::new();
    for &size in sizes {
        progress(LadderProgress::Reference { size });
        let (a, b) = inputs(size, seed);
        let want = reference(&a, &b, size, size, size, None);
        for variant in plan(only, size) {
            progress(LadderProgress::Timing { size, variant });
            // NaN start: a variant that accumulates into C instead of overwriting it fails.
            let mut c = vec![f32::NAN; size * size];
            let mut max_err = 0.0f64;
            let mut verify = |c: &[f32]| {
                let r = check(c, &want);
                if !r.passed() {
                    return Err(WrongResult {
                        variant,
                        size,
                        failures: r.failures,
                        checked: r.checked,
                        max_scaled_error: r.max_scaled_error,
                        worst: r.worst,
                    });
                }
                max_err = max_err.max(r.max_scaled_error);
                Ok(())
            };
            let run = pick(variant);
            run(&a, &b, &mut c, size, size, size);
            verify(&c)?;
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                let t = Instant::now();
                run(&a, &b, &mut c, size, size, size);
                times.push(t.elapsed().as_secs_f64());
                verify(&c)?;
            }
            let median_s = median(&mut times);
            rows.push(LadderRow {
                variant,
                size,
                median_s,
                gflops: gflops(size, median_s),
                max_scaled_error: max_err,
            });
            progress(LadderProgress::StepDone);
        }
    }
    Ok(rows)
}

/// One unchecked run of one variant (see [`run_once`]).
#[derive(serde::Serialize, Clone, Debug)]
pub struct OnceRow {
    pub variant: Variant,
    pub size: usize,
    pub seconds: f64,
    pub gflops: f64,
}

/// Runs each variant of [`plan`]`(only, size)` exactly once per size on the inputs of
/// [`run_ladder`]: no warm-up, no repeats and no f64 reference, so that a profiler wrapped
/// around the process counts the inputs and the variant and nothing else. `Some(&[])` makes
/// the inputs only, the baseline such a profile subtracts.
pub fn run_once(only: Option<&[Variant]>, sizes: &[usize], seed: u64) -> Vec<OnceRow> {
    let mut rows = Vec::new();
    for &size in sizes {
        let (a, b) = black_box(inputs(size, seed));
        for variant in plan(only, size) {
            let mut c = vec![f32::NAN; size * size];
            let t = Instant::now();
            (variant.run())(&a, &b, &mut c, size, size, size);
            let seconds = t.elapsed().as_secs_f64();
            // The result is never read: keep the optimiser from noticing.
            black_box(&c);
            rows.push(OnceRow {
                variant,
                size,
                seconds,
                gflops: gflops(size, seconds),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn plan_skips_naive_only_in_the_whole_ladder_above_its_limit() {
        assert_eq!(plan(None, NAIVE_MAX_SIZE), Variant::ALL.to_vec());
        let big = plan(None, NAIVE_MAX_SIZE + 1);
        assert!(!big.contains(&Variant::NaiveIjk));
        assert_eq!(big.len(), Variant::ALL.len() - 1);
        let only = [Variant::ThreadedRayon, Variant::NaiveIjk];
        assert_eq!(plan(Some(&only), 4 * NAIVE_MAX_SIZE), only.to_vec());
        assert!(plan(Some(&[]), 100).is_empty());
    }

    /// Adds one to every cell: the kind of bug the check exists for.
    fn off_by_one(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
        crate::matmul::cpu::reorder_ikj(a, b, c, m, n, k);
        c.iter_mut().for_each(|x| *x += 1.0);
    }

    #[test]
    fn a_wrong_variant_is_an_error_not_a_panic() {
        let only = [Variant::ReorderIkj];
        let err = run_ladder_with(Some(&only), &[16], 1, 1, &mut |_| {}, |_| off_by_one)
            .expect_err("the wrong variant must fail");
        assert_eq!((err.variant, err.size), (Variant::ReorderIkj, 16));
        assert_eq!(err.failures, 16 * 16);
        let msg = err.to_string();
        assert!(
            msg.starts_with("CPU variant reorder_ikj is wrong at size 16"),
            "{msg}"
        );
        assert!(!msg.contains('\n'), "one line: {msg}");
        let mut heard = Vec::new();
        let rows = run_ladder(Some(&only), &[16], 1, 1, &mut |p| heard.push(p))
            .expect("the real variant passes");
        assert_eq!(rows.len(), 1);
        assert_eq!(
            heard,
            [
                LadderProgress::Steps(1),
                LadderProgress::Reference { size: 16 },
                LadderProgress::Timing {
                    size: 16,
                    variant: Variant::ReorderIkj
                },
                LadderProgress::StepDone
            ]
        );
    }
}
