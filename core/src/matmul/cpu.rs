//! The CPU SGEMM ladder: each step is `fn(a, b, c, m, n, k)` computing C = A·B (A is m x k,
//! B is k x n, C is m x n, all row-major) and overwriting C. Every step handles any shape.

use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use nalgebra::{DMatrixView, DMatrixViewMut};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::reference::{check, random_matrix, reference};

/// The signature every ladder step shares.
pub type MatmulFn = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

fn check_dims(a: &[f32], b: &[f32], c: &[f32], m: usize, n: usize, k: usize) {
    assert_eq!(a.len(), m * k, "A is not {m} x {k}");
    assert_eq!(b.len(), k * n, "B is not {k} x {n}");
    assert_eq!(c.len(), m * n, "C is not {m} x {n}");
}

/// Textbook triple loop; the inner loop walks B down a column (stride n).
pub fn naive_ijk(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    check_dims(a, b, c, m, n, k);
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for p in 0..k {
                sum += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
    }
}

/// i-k-j order: the inner loop streams a row of B into a row of C, both contiguous.
pub fn reorder_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    check_dims(a, b, c, m, n, k);
    c.fill(0.0);
    if n == 0 {
        return;
    }
    for (c_row, a_row) in c.chunks_exact_mut(n).zip(a.chunks_exact(k.max(1))) {
        for (&aip, b_row) in a_row.iter().zip(b.chunks_exact(n)) {
            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                *cv += aip * bv;
            }
        }
    }
}

/// Cache blocking over i, k, j in `BS`-sized tiles, i-k-j order inside a tile.
pub fn blocked<const BS: usize>(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    const { assert!(BS > 0) };
    check_dims(a, b, c, m, n, k);
    c.fill(0.0);
    for i0 in (0..m).step_by(BS) {
        let i1 = (i0 + BS).min(m);
        for p0 in (0..k).step_by(BS) {
            let p1 = (p0 + BS).min(k);
            for j0 in (0..n).step_by(BS) {
                let j1 = (j0 + BS).min(n);
                for i in i0..i1 {
                    let a_row = &a[i * k + p0..i * k + p1];
                    let c_row = &mut c[i * n + j0..i * n + j1];
                    if c_row.len() == BS {
                        // Full-width tile: a fixed-size local copy of the C row segment lets
                        // LLVM unroll the j loop and keep it in registers across p.
                        let c_row: &mut [f32; BS] = c_row.try_into().expect("BS wide");
                        let mut acc = *c_row;
                        for (p, &aip) in (p0..p1).zip(a_row) {
                            let b_row: &[f32; BS] =
                                b[p * n + j0..p * n + j1].try_into().expect("BS wide");
                            for (x, &bv) in acc.iter_mut().zip(b_row) {
                                *x += aip * bv;
                            }
                        }
                        *c_row = acc;
                    } else {
                        for (p, &aip) in (p0..p1).zip(a_row) {
                            let b_row = &b[p * n + j0..p * n + j1];
                            for (cv, &bv) in c_row.iter_mut().zip(b_row) {
                                *cv += aip * bv;
                            }
                        }
                    }
                }
            }
        }
    }
}

pub fn blocked16(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    blocked::<16>(a, b, c, m, n, k);
}

pub fn blocked32(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    blocked::<32>(a, b, c, m, n, k);
}

pub fn blocked64(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    blocked::<64>(a, b, c, m, n, k);
}

/// Packed, register-blocked GEMM on one thread: an AVX2+FMA 6x16 micro-kernel where the CPU has
/// both (checked at run time), otherwise a portable scalar micro-kernel with the same packing.
pub fn simd(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    packed_gemm(Kernel::detect(), false, a, b, c, m, n, k);
}

/// [`simd`] with rayon over row blocks of C; B is packed once and shared.
pub fn threaded(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    packed_gemm(Kernel::detect(), true, a, b, c, m, n, k);
}

/// Which micro-kernel [`simd`] and [`threaded`] use on this CPU: `"avx2+fma"` or `"scalar"`.
pub fn simd_backend() -> &'static str {
    match Kernel::detect() {
        Kernel::Scalar => "scalar",
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Fma => "avx2+fma",
    }
}

/// nalgebra's f32 product, as the library yardstick: matrixmultiply, one thread, with its own
/// run-time choice of AVX-512 / AVX2+FMA kernels.
pub fn nalgebra_f32(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    check_dims(a, b, c, m, n, k);
    // Row-major buffers read column-major are transposes: C^T = B^T A^T, written straight into
    // C's buffer (n x m column-major is C row-major). No copies in or out.
    let a_t = DMatrixView::from_slice(a, k, m);
    let b_t = DMatrixView::from_slice(b, n, k);
    let mut c_t = DMatrixViewMut::from_slice(c, n, m);
    b_t.mul_to(&a_t, &mut c_t);
}

// Micro-tile of C held in registers: 6 rows x 16 columns = 12 ymm accumulators, leaving room
// for two B vectors and one broadcast A value in the 16 ymm registers.
const MR: usize = 6;
const NR: usize = 16;
// A panel of KC x NR floats of B (16 KiB) stays in L1; an MC x KC block of A (72 KiB) in L2.
const KC: usize = 256;
const MC: usize = 72;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    Scalar,
    /// Only built by [`Kernel::detect`] after the CPU reported AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    Avx2Fma,
}

impl Kernel {
    fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return Kernel::Avx2Fma;
        }
        Kernel::Scalar
    }

    /// C tile (`mr x nr` at stride `ldc`, starting at `c[0]`) += packed A panel · packed B panel.
    #[allow(clippy::too_many_arguments)]
    fn run(self, kc: usize, a: &[f32], b: &[f32], c: &mut [f32], ldc: usize, mr: usize, nr: usize) {
        assert!(a.len() >= kc * MR && b.len() >= kc * NR);
        assert!((1..=MR).contains(&mr) && (1..=NR).contains(&nr) && nr <= ldc);
        assert!(c.len() >= (mr - 1) * ldc + nr);
        match self {
            Kernel::Scalar => kernel_scalar(kc, a, b, c, ldc, mr, nr),
            // SAFETY: Avx2Fma is only built once AVX2 and FMA were detected; the slice lengths
            // the kernel reads and writes through raw pointers were asserted above.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2Fma => unsafe { avx2::kernel(kc, a, b, c, ldc, mr, nr) },
        }
    }
}

fn kernel_scalar(kc: usize, a: &[f32], b: &[f32], c: &mut [f32], ldc: usize, mr: usize, nr: usize) {
    let mut acc = [[0.0f32; NR]; MR];
    for (ap, bp) in a.chunks_exact(MR).zip(b.chunks_exact(NR)).take(kc) {
        for (acc_r, &av) in acc.iter_mut().zip(ap) {
            for (x, &bv) in acc_r.iter_mut().zip(bp) {
                *x += av * bv;
            }
        }
    }
    for (r, acc_r) in acc.iter().enumerate().take(mr) {
        for (cv, &x) in c[r * ldc..r * ldc + nr].iter_mut().zip(acc_r) {
            *cv += x;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{MR, NR};
    use std::arch::x86_64::*;

    /// # Safety
    /// The CPU must support AVX2 and FMA; `a` must hold `kc * MR` floats, `b` `kc * NR`, and `c`
    /// at least `(mr - 1) * ldc + nr` with `mr <= MR`, `nr <= NR`.
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn kernel(
        kc: usize,
        a: &[f32],
        b: &[f32],
        c: &mut [f32],
        ldc: usize,
        mr: usize,
        nr: usize,
    ) {
        let ap = a.as_ptr();
        let bp = b.as_ptr();
        let mut acc = [[_mm256_setzero_ps(); 2]; MR];
        for p in 0..kc {
            // SAFETY: p < kc, and the caller guarantees kc * NR floats of b and kc * MR of a.
            let (b0, b1) = unsafe {
                (
                    _mm256_loadu_ps(bp.add(p * NR)),
                    _mm256_loadu_ps(bp.add(p * NR + 8)),
                )
            };
            for (r, acc_r) in acc.iter_mut().enumerate() {
                let av = _mm256_set1_ps(unsafe { *ap.add(p * MR + r) });
                acc_r[0] = _mm256_fmadd_ps(av, b0, acc_r[0]);
                acc_r[1] = _mm256_fmadd_ps(av, b1, acc_r[1]);
            }
        }
        if mr == MR && nr == NR {
            for (r, acc_r) in acc.iter().enumerate() {
                let row = &mut c[r * ldc..r * ldc + NR];
                let cp = row.as_mut_ptr();
                // SAFETY: `row` is NR = 16 floats long.
                unsafe {
                    _mm256_storeu_ps(cp, _mm256_add_ps(_mm256_loadu_ps(cp), acc_r[0]));
                    _mm256_storeu_ps(
                        cp.add(8),
                        _mm256_add_ps(_mm256_loadu_ps(cp.add(8)), acc_r[1]),
                    );
                }
            }
        } else {
            // Edge tile: spill and add only the valid part.
            let mut tmp = [[0.0f32; NR]; MR];
            for (t, acc_r) in tmp.iter_mut().zip(&acc) {
                // SAFETY: `t` is NR = 16 floats long.
                unsafe {
                    _mm256_storeu_ps(t.as_mut_ptr(), acc_r[0]);
                    _mm256_storeu_ps(t.as_mut_ptr().add(8), acc_r[1]);
                }
            }
            for (r, t) in tmp.iter().enumerate().take(mr) {
                for (cv, &x) in c[r * ldc..r * ldc + nr].iter_mut().zip(t) {
                    *cv += x;
                }
            }
        }
    }
}

/// Packs rows `pc..pc + kc` of B into `ceil(n / NR)` panels of `kc x NR`, zero padded on the right.
fn pack_b_block(b: &[f32], n: usize, pc: usize, kc: usize, out: &mut [f32]) {
    for (jp, panel) in out.chunks_exact_mut(kc * NR).enumerate() {
        let j0 = jp * NR;
        let w = NR.min(n - j0);
        for (p, dst) in panel.chunks_exact_mut(NR).enumerate() {
            let src = &b[(pc + p) * n + j0..(pc + p) * n + j0 + w];
            dst[..w].copy_from_slice(src);
            dst[w..].fill(0.0);
        }
    }
}

/// Packs A[i0..i0 + rows, pc..pc + kc] into `ceil(rows / MR)` panels of `kc x MR` (k-major),
/// zero padded below.
fn pack_a_block(
    a: &[f32],
    k: usize,
    i0: usize,
    rows: usize,
    pc: usize,
    kc: usize,
    out: &mut [f32],
) {
    for (ip, panel) in out.chunks_exact_mut(kc * MR).enumerate() {
        for r in 0..MR {
            let i = ip * MR + r;
            if i < rows {
                let src = &a[(i0 + i) * k + pc..(i0 + i) * k + pc + kc];
                for (dst, &v) in panel.chunks_exact_mut(MR).zip(src) {
                    dst[r] = v;
                }
            } else {
                for dst in panel.chunks_exact_mut(MR) {
                    dst[r] = 0.0;
                }
            }
        }
    }
}

/// Computes the `rows` rows of C starting at row `i0` into `c_block` (`rows x n`).
#[allow(clippy::too_many_arguments)]
fn row_block(
    kernel: Kernel,
    a: &[f32],
    packed_b: &[f32],
    c_block: &mut [f32],
    i0: usize,
    rows: usize,
    n: usize,
    k: usize,
    a_buf: &mut Vec<f32>,
) {
    c_block.fill(0.0);
    let panels = n.div_ceil(NR);
    let a_panels = rows.div_ceil(MR);
    for pc in (0..k).step_by(KC) {
        let kc = KC.min(k - pc);
        a_buf.resize(a_panels * kc * MR, 0.0);
        pack_a_block(a, k, i0, rows, pc, kc, a_buf);
        // Every earlier k-block is KC deep, so this one starts at pc * panels * NR.
        let b_block = &packed_b[pc * panels * NR..(pc + kc) * panels * NR];
        for (jp, b_panel) in b_block.chunks_exact(kc * NR).enumerate() {
            let j0 = jp * NR;
            let nr = NR.min(n - j0);
            for (ip, a_panel) in a_buf.chunks_exact(kc * MR).enumerate() {
                let r0 = ip * MR;
                let mr = MR.min(rows - r0);
                kernel.run(kc, a_panel, b_panel, &mut c_block[r0 * n + j0..], n, mr, nr);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn packed_gemm(
    kernel: Kernel,
    parallel: bool,
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    m: usize,
    n: usize,
    k: usize,
) {
    check_dims(a, b, c, m, n, k);
    if m == 0 || n == 0 {
        return;
    }
    let panels = n.div_ceil(NR);
    let mut packed_b = vec![0.0f32; k * panels * NR];
    let block_len = KC * panels * NR;
    let pack = |(blk, out): (usize, &mut [f32])| {
        pack_b_block(b, n, blk * KC, out.len() / (panels * NR), out);
    };
    if parallel {
        packed_b
            .par_chunks_mut(block_len)
            .enumerate()
            .for_each(pack);
    } else {
        packed_b.chunks_mut(block_len).enumerate().for_each(pack);
    }

    if parallel {
        // Enough row blocks to balance the threads, but no taller than MC.
        let threads = rayon::current_num_threads();
        let mc = (m.div_ceil(4 * threads).div_ceil(MR) * MR).clamp(MR, MC);
        c.par_chunks_mut(mc * n)
            .enumerate()
            .for_each_init(Vec::new, |a_buf, (bi, c_block)| {
                let rows = c_block.len() / n;
                row_block(kernel, a, &packed_b, c_block, bi * mc, rows, n, k, a_buf);
            });
    } else {
        let mut a_buf = Vec::new();
        for (bi, c_block) in c.chunks_mut(MC * n).enumerate() {
            let rows = c_block.len() / n;
            row_block(
                kernel,
                a,
                &packed_b,
                c_block,
                bi * MC,
                rows,
                n,
                k,
                &mut a_buf,
            );
        }
    }
}

/// One ladder step, by name.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub name: &'static str,
    pub run: MatmulFn,
}

pub const VARIANTS: &[Variant] = &[
    Variant {
        name: "naive_ijk",
        run: naive_ijk,
    },
    Variant {
        name: "reorder_ikj",
        run: reorder_ikj,
    },
    Variant {
        name: "blocked16",
        run: blocked16,
    },
    Variant {
        name: "blocked32",
        run: blocked32,
    },
    Variant {
        name: "blocked64",
        run: blocked64,
    },
    Variant {
        name: "simd_avx2",
        run: simd,
    },
    Variant {
        name: "threaded",
        run: threaded,
    },
    Variant {
        name: "nalgebra",
        run: nalgebra_f32,
    },
];

/// Sizes above this skip `naive_ijk` in [`run_ladder`].
pub const NAIVE_MAX_SIZE: usize = 1024;

#[derive(serde::Serialize, Clone, Debug)]
pub struct LadderRow {
    pub variant: String,
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

/// Times every variant on random square problems of each size: one warm-up, then `reps` timed
/// runs (at least one); the median gives GFLOP/s = 2 size^3 / median. Every run's result is
/// checked against the full f64 reference.
///
/// # Panics
/// If any variant's result fails the check: that is a bug in the variant.
pub fn run_ladder(sizes: &[usize], reps: usize, seed: u64, progress: bool) -> Vec<LadderRow> {
    let reps = reps.max(1);
    let steps: usize = sizes
        .iter()
        .map(|&s| VARIANTS.iter().filter(|v| runs_at(v, s)).count())
        .sum();
    let bar = if progress {
        let bar = ProgressBar::new(steps as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} [{elapsed_precise}] {msg}")
                .expect("static progress template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };

    let mut rows = Vec::new();
    for &size in sizes {
        bar.set_message(format!("size {size}: inputs and f64 reference"));
        let mut rng =
            ChaCha8Rng::seed_from_u64(seed ^ (size as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let a = random_matrix(size, size, &mut rng);
        let b = random_matrix(size, size, &mut rng);
        let want = reference(&a, &b, size, size, size, None);
        for variant in VARIANTS.iter().filter(|v| runs_at(v, size)) {
            bar.set_message(format!("size {size}: {}", variant.name));
            // NaN start: a variant that accumulates into C instead of overwriting it fails.
            let mut c = vec![f32::NAN; size * size];
            let mut max_err = 0.0f64;
            let mut verify = |c: &[f32]| {
                let r = check(c, &want);
                assert!(
                    r.passed(),
                    "CPU variant {} is wrong at size {size}: {} of {} cells fail, max scaled \
                     error {:.3e}, worst (row, col, value, reference) = {:?}",
                    variant.name,
                    r.failures,
                    r.checked,
                    r.max_scaled_error,
                    r.worst
                );
                max_err = max_err.max(r.max_scaled_error);
            };
            (variant.run)(&a, &b, &mut c, size, size, size);
            verify(&c);
            let mut times = Vec::with_capacity(reps);
            for _ in 0..reps {
                let t = Instant::now();
                (variant.run)(&a, &b, &mut c, size, size, size);
                times.push(t.elapsed().as_secs_f64());
                verify(&c);
            }
            let median_s = median(&mut times);
            let flops = 2.0 * (size as f64).powi(3);
            rows.push(LadderRow {
                variant: variant.name.to_string(),
                size,
                median_s,
                gflops: flops / median_s / 1e9,
                max_scaled_error: max_err,
            });
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    rows
}

fn runs_at(variant: &Variant, size: usize) -> bool {
    variant.name != "naive_ijk" || size <= NAIVE_MAX_SIZE
}

/// Prints one line per (size, variant): median time, GFLOP/s, speed-up over `naive_ijk` of the
/// same size (over `reorder_ikj` where naive was skipped, marked `*`), max scaled error.
pub fn print_ladder(rows: &[LadderRow]) {
    println!("CPU SGEMM ladder (simd micro-kernel: {})", simd_backend());
    println!(
        "{:>6}  {:<12} {:>12} {:>10} {:>10}  {:>10}",
        "size", "variant", "median ms", "GFLOP/s", "speed-up", "max err"
    );
    let mut used_reorder = false;
    for row in rows {
        let same = |name: &str| {
            rows.iter()
                .find(|r| r.size == row.size && r.variant == name)
                .map(|r| r.median_s)
        };
        let speedup = match (same("naive_ijk"), same("reorder_ikj")) {
            (Some(base), _) => format!("{:.1}x", base / row.median_s),
            (None, Some(base)) => {
                used_reorder = true;
                format!("{:.1}x*", base / row.median_s)
            }
            (None, None) => "-".to_string(),
        };
        println!(
            "{:>6}  {:<12} {:>12.3} {:>10.2} {:>10}  {:>10.3e}",
            row.size,
            row.variant,
            row.median_s * 1e3,
            row.gflops,
            speedup,
            row.max_scaled_error
        );
    }
    if used_reorder {
        println!(
            "* no naive_ijk at this size (skipped above {NAIVE_MAX_SIZE}): speed-up over reorder_ikj"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::reference::{check, random_matrix, reference};

    fn problem(m: usize, n: usize, k: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (random_matrix(m, k, &mut rng), random_matrix(k, n, &mut rng))
    }

    /// The scalar micro-kernel path must be right on its own, whatever this CPU supports.
    #[test]
    fn scalar_fallback_matches_reference() {
        // (m, n, k): edges in every dimension, and k across a KC boundary.
        for (m, n, k) in [
            (1, 1, 1),
            (7, 17, 3),
            (13, 33, 300),
            (MR, NR, KC),
            (80, 5, 1),
        ] {
            let (a, b) = problem(m, n, k, 7);
            let want = reference(&a, &b, m, n, k, None);
            for parallel in [false, true] {
                let mut c = vec![f32::NAN; m * n];
                packed_gemm(Kernel::Scalar, parallel, &a, &b, &mut c, m, n, k);
                let r = check(&c, &want);
                assert!(r.passed(), "scalar {m}x{n}x{k} parallel={parallel}: {r:?}");
            }
        }
    }

    #[test]
    fn detected_kernel_matches_reference_across_kc() {
        let (m, n, k) = (19, 37, KC + 3);
        let (a, b) = problem(m, n, k, 8);
        let want = reference(&a, &b, m, n, k, None);
        let mut c = vec![f32::NAN; m * n];
        packed_gemm(Kernel::detect(), false, &a, &b, &mut c, m, n, k);
        let r = check(&c, &want);
        assert!(r.passed(), "{} {m}x{n}x{k}: {r:?}", simd_backend());
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
