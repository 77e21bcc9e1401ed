//! The packed, register-blocked SGEMM (B packed once into NR-wide panels, A per block into
//! MR-tall panels, a 6x16 micro-kernel), on one thread or spread over threads by row blocks of C.

use rayon::prelude::*;

use super::check_dims;

/// Packed, register-blocked GEMM on one thread: an AVX2+FMA 6x16 micro-kernel where the CPU has
/// both (checked at run time), otherwise a portable scalar micro-kernel with the same packing.
pub fn simd(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    packed_gemm(Kernel::detect(), Schedule::Serial, a, b, c, m, n, k);
}

/// [`simd`] over threads with a static split: each thread gets one contiguous range of row
/// blocks of C, fixed before it starts (OpenMP's `schedule(static)`).
pub fn threaded_static(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    packed_gemm(Kernel::detect(), Schedule::Static, a, b, c, m, n, k);
}

/// [`simd`] over rayon's pool: idle threads steal row blocks of C (like `schedule(dynamic)`).
pub fn threaded_rayon(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    packed_gemm(Kernel::detect(), Schedule::Rayon, a, b, c, m, n, k);
}

/// Which micro-kernel [`simd`] and the threaded variants use on this CPU: `"avx2+fma"` or
/// `"scalar"`.
pub fn simd_backend() -> &'static str {
    match Kernel::detect() {
        Kernel::Scalar => "scalar",
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2Fma => "avx2+fma",
    }
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
                // SAFETY: p < kc and r < MR (`acc` has MR rows), so p * MR + r < kc * MR, which
                // the caller guarantees `a` holds.
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

/// How [`packed_gemm`] spreads its work (row blocks of C, and the packing of B) over threads.
/// Both threaded schedules use rayon's thread count and the same blocks, so that only the
/// assignment of blocks to threads differs between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Schedule {
    Serial,
    /// `T` threads of `std::thread::scope`, each taking one contiguous range of
    /// `ceil(blocks / T)` blocks. No coordination after the start, but the product waits for
    /// the slowest range: one with a block more than the others, or one whose thread loses its
    /// core to another process.
    Static,
    /// rayon's work stealing over the blocks: a thread that runs out takes blocks from a busy
    /// one, at the cost of splitting the range into tasks and the stealing itself.
    Rayon,
}

impl Schedule {
    /// Runs `f(index, chunk, scratch)` on every `chunk_len`-long chunk of `data` (the last one
    /// may be shorter). `scratch` is one buffer per thread, reused across its chunks.
    fn for_each_chunk<F>(self, data: &mut [f32], chunk_len: usize, f: F)
    where
        F: Fn(usize, &mut [f32], &mut Vec<f32>) + Sync,
    {
        if data.is_empty() {
            return;
        }
        let run_range = |first: usize, range: &mut [f32]| {
            let mut scratch = Vec::new();
            for (i, chunk) in range.chunks_mut(chunk_len).enumerate() {
                f(first + i, chunk, &mut scratch);
            }
        };
        match self {
            Schedule::Serial => run_range(0, data),
            Schedule::Rayon => data
                .par_chunks_mut(chunk_len)
                .enumerate()
                .for_each_init(Vec::new, |scratch, (i, chunk)| f(i, chunk, scratch)),
            Schedule::Static => {
                let chunks = data.len().div_ceil(chunk_len);
                let per_thread = chunks.div_ceil(rayon::current_num_threads().clamp(1, chunks));
                let mut ranges = data.chunks_mut(per_thread * chunk_len);
                // The calling thread takes the first range itself instead of idling in the join.
                let first = ranges.next().expect("data is not empty");
                std::thread::scope(|s| {
                    for (t, range) in ranges.enumerate() {
                        let run_range = &run_range;
                        s.spawn(move || run_range((t + 1) * per_thread, range));
                    }
                    run_range(0, first);
                });
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn packed_gemm(
    kernel: Kernel,
    schedule: Schedule,
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
    schedule.for_each_chunk(&mut packed_b, KC * panels * NR, |blk, out, _| {
        pack_b_block(b, n, blk * KC, out.len() / (panels * NR), out);
    });

    let mc = match schedule {
        Schedule::Serial => MC,
        // About four blocks per thread, so that stealing has something to balance, but no
        // taller than MC (the A block must stay in L2).
        Schedule::Static | Schedule::Rayon => {
            let threads = rayon::current_num_threads();
            (m.div_ceil(4 * threads).div_ceil(MR) * MR).clamp(MR, MC)
        }
    };
    schedule.for_each_chunk(c, mc * n, |bi, c_block, a_buf| {
        let rows = c_block.len() / n;
        row_block(kernel, a, &packed_b, c_block, bi * mc, rows, n, k, a_buf);
    });
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::matmul::reference::{check, random_matrix, reference};

    const SCHEDULES: [Schedule; 3] = [Schedule::Serial, Schedule::Static, Schedule::Rayon];

    fn problem(m: usize, n: usize, k: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (random_matrix(m, k, &mut rng), random_matrix(k, n, &mut rng))
    }

    fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a rayon pool")
            .install(f)
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
            for schedule in SCHEDULES {
                let mut c = vec![f32::NAN; m * n];
                packed_gemm(Kernel::Scalar, schedule, &a, &b, &mut c, m, n, k);
                let r = check(&c, &want);
                assert!(r.passed(), "scalar {m}x{n}x{k} {schedule:?}: {r:?}");
            }
        }
    }

    #[test]
    fn detected_kernel_matches_reference_across_kc() {
        let (m, n, k) = (19, 37, KC + 3);
        let (a, b) = problem(m, n, k, 8);
        let want = reference(&a, &b, m, n, k, None);
        let mut c = vec![f32::NAN; m * n];
        packed_gemm(Kernel::detect(), Schedule::Serial, &a, &b, &mut c, m, n, k);
        let r = check(&c, &want);
        assert!(r.passed(), "{} {m}x{n}x{k}: {r:?}", simd_backend());
    }

    /// Every chunk is visited once, with its own index, whatever the thread count: more threads
    /// than chunks, a count that does not divide them, a short last chunk.
    #[test]
    fn every_schedule_visits_each_chunk_once() {
        for threads in [1, 2, 3, 5] {
            for (len, chunk_len) in [(1, 1), (10, 3), (12, 4), (7, 10), (100, 7)] {
                for schedule in SCHEDULES {
                    let mut data = vec![f32::NAN; len];
                    in_pool(threads, || {
                        schedule.for_each_chunk(&mut data, chunk_len, |i, chunk, _| {
                            chunk.fill(i as f32);
                        })
                    });
                    let want: Vec<f32> = (0..len).map(|x| (x / chunk_len) as f32).collect();
                    assert_eq!(
                        data, want,
                        "{schedule:?} {threads} threads, {len}/{chunk_len}"
                    );
                }
            }
        }
        let mut empty: [f32; 0] = [];
        Schedule::Static.for_each_chunk(&mut empty, 4, |_, _, _| panic!("no chunks"));
    }

    /// The static split on thread counts this machine may not have, and on row counts that
    /// leave some threads without a block.
    #[test]
    fn static_split_matches_reference_on_any_thread_count() {
        for threads in [1, 3, 4] {
            for (m, n, k) in [(5, 17, 9), (MC + 1, 33, KC + 1), (4 * MC + 7, 20, 31)] {
                let (a, b) = problem(m, n, k, 9);
                let want = reference(&a, &b, m, n, k, None);
                let mut c = vec![f32::NAN; m * n];
                in_pool(threads, || threaded_static(&a, &b, &mut c, m, n, k));
                let r = check(&c, &want);
                assert!(r.passed(), "{threads} threads {m}x{n}x{k}: {r:?}");
            }
        }
    }
}
