//! The row kernels (small N, matrix–vector y = A·x for N = 1): see `skinny.rs` for the design.
//!
//! Why this shape of work:
//! - A is read once, so the kernel is bound by its stream: a warp reads `RW` rows, each lane 4
//!   consecutive k per row per step with one `ld.global.nc.v4` (a warp's load is 512 contiguous
//!   bytes), and all `2 * RW` loads of a slice are issued before their FMAs, so a lane keeps 8-16
//!   of them in flight.
//! - B's `KC x NC` slice is read by every warp of the block: staged once per slice in shared
//!   memory, transposed (`Bs[j][k]`, rows `KC + 4` words: 16-byte aligned, and the transposing
//!   stores of consecutive j land 4 banks apart), so a lane's 4 k of column j are one
//!   `ld.shared.v4` and a warp's is 512 contiguous bytes (conflict-free).
//! - Rows past M are clamped to row M-1 (read, never stored); B's columns past N and k past the
//!   split are zero in shared memory, and A's k past the split are zero in registers, so they add
//!   exact zeros (never 0·Inf).
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::skinny::{ROWS_KC, SKINNY_THREADS, SkinnyParams};
use super::skinny_reduce::finish;
use crate::ptx::{ld_global_nc, ld_shared, shared_addr, shfl_bfly, st_shared};

/// Row pitch of the transposed B slice, in words.
const BP: u32 = ROWS_KC + 4;

// The unrolled loops below are written for these (seq! needs literals).
const _: () = assert!(SKINNY_THREADS == 256 && ROWS_KC == 256);

/// The warp's sums of a row kernel's accumulators `$acc[R][J]` (`$rw` rows of `$nc` columns,
/// from output cell `($row0, $col0)`): a butterfly leaves every lane with all of them; lane
/// `(R * NC + J) % 32` writes output `(row0 + R, col0 + J)` through `finish`. The epilogue of
/// both row kernels (`skinny_rows_async.rs` too); `NC`, `shfl_bfly` and `finish` are the
/// caller's.
macro_rules! rows_warp_sums {
    ($acc:ident, $rw:tt, $nc:tt, $row0:expr, $col0:expr, $lane:expr, $p:ident) => {
        seq!(R in 0..$rw {
            seq!(J in 0..$nc {{
                let mut v = $acc[R][J];
                seq!(S in 0..5 {
                    v += f32::from_bits(shfl_bfly(v.to_bits(), 16 >> S));
                });
                let (r, c) = ($row0 + R, $col0 + J);
                if $lane == (R * NC + J) % 32 && r < $p.m && c < $p.n {
                    // SAFETY: r < m, c < n, this thread alone writes the output.
                    unsafe { finish(&$p, r, c, v) };
                }
            }});
        });
    };
}

macro_rules! skinny_rows_kernels {
    ($(($name:ident, $nc:tt, $rw:tt)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`SkinnyParams`] contract (with `vec == 1` only when `lda % 4 == 0`
        /// and A is 16-byte aligned; with `splits > 1`, `work` of `splits * m * n` floats), and the
        /// launch must use 256 threads and the grid `SkinnyConfig::grid_xy` x `splits`.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: SkinnyParams) {
            const NC: u32 = $nc;
            const RW: u32 = $rw;
            #[address_space(shared)]
            static mut BS: [MaybeUninit<f32>; (NC * BP) as usize] =
                [MaybeUninit::uninit(); (NC * BP) as usize];
            // SAFETY: only the address of the shared static is taken.
            let bs = shared_addr(unsafe { addr_of!(BS) });

            let tid = thread::thread_idx_x();
            let (warp, lane) = (tid / 32, tid % 32);
            let row0 = thread::block_idx_x() * (8 * RW) + warp * RW;
            let col0 = thread::block_idx_y() * NC;
            let kb = thread::block_idx_z() * p.k_chunk;
            let ke = if p.k - kb < p.k_chunk { p.k } else { kb + p.k_chunk };
            let lda = p.lda as usize;
            let vec = p.vec != 0;
            let mut rows = [core::ptr::null::<f32>(); $rw];
            seq!(R in 0..$rw {
                let r = row0 + R;
                let r = if r < p.m { r } else { p.m - 1 };
                // SAFETY: r < m: the start of a row of A.
                rows[R] = unsafe { p.a.add(r as usize * lda) };
            });
            let mut acc = [[0.0f32; $nc]; $rw];

            let mut k0 = kb;
            while k0 < ke {
                // Both steps' loads of A (2 * RW per lane) go out first: their DRAM latency
                // overlaps B's staging (L2) and the barriers, which need no A.
                let mut av = [[[0.0f32; 4]; $rw]; 2];
                seq!(U in 0..2 {
                    let kg = k0 + U * 128 + 4 * lane;
                    seq!(R in 0..$rw {
                        if vec && kg + 4 <= ke {
                            // SAFETY: kg + 4 <= k: 4 cells of row R of A, 16-byte aligned (vec:
                            // lda % 4 == 0, A aligned, kg a multiple of 4 as k_chunk is); never
                            // written.
                            let v = unsafe { ld_global_nc::<4>(rows[R].add(kg as usize) as *const u32) };
                            seq!(J in 0..4 { av[U][R][J] = f32::from_bits(v[J]); });
                        } else {
                            seq!(J in 0..4 {
                                if kg + J < ke {
                                    // SAFETY: kg + J < k: a cell of row R of A, never written.
                                    let v = unsafe { ld_global_nc::<1>(rows[R].add((kg + J) as usize) as *const u32) };
                                    av[U][R][J] = f32::from_bits(v[0]);
                                }
                            });
                        }
                    });
                });
                // Every warp is done with the previous slice.
                thread::sync_threads();
                // The slice has NC x KC = 256 x NC elements: NC per thread. All NC loads are
                // issued before the first store (the asm keeps program order), so their L2
                // latencies overlap instead of adding up.
                let mut sv = [0u32; $nc];
                seq!(I in 0..$nc {
                    // Element e of the slice: column e % NC, k e / NC (consecutive threads read
                    // consecutive columns of a row of B).
                    let e = tid + I * SKINNY_THREADS;
                    let (col, kg) = (col0 + e % NC, k0 + e / NC);
                    if col < p.n && kg < ke {
                        // SAFETY: kg < k and col < n: a cell of B, which no thread writes.
                        let q = unsafe { p.b.add(kg as usize * p.ldb as usize + col as usize) };
                        // SAFETY: as above.
                        sv[I] = unsafe { ld_global_nc::<1>(q as *const u32) }[0];
                    }
                });
                seq!(I in 0..$nc {{
                    let e = tid + I * SKINNY_THREADS;
                    let (j, kk) = (e % NC, e / NC);
                    // SAFETY: j < NC, kk < KC (e < NC * KC): word j * BP + kk of BS; between the
                    // barriers only this thread writes it.
                    unsafe { st_shared::<1>(bs + 4 * (j * BP + kk), [sv[I]]) };
                }});
                thread::sync_threads();

                seq!(U in 0..2 {{
                    let kl = U * 128 + 4 * lane;
                    seq!(J in 0..$nc {{
                        // SAFETY: word J * BP + kl (kl + 4 <= KC, a multiple of 4) of BS, 16-byte
                        // aligned (BP % 4 == 0); written before the barrier above.
                        let bv = unsafe { ld_shared::<4>(bs + 4 * (J * BP + kl)) };
                        seq!(Q in 0..4 {
                            let b = f32::from_bits(bv[Q]);
                            seq!(R in 0..$rw { acc[R][J] += av[U][R][Q] * b; });
                        });
                    }});
                }});
                k0 += ROWS_KC;
            }

            rows_warp_sums!(acc, $rw, $nc, row0, col0, lane, p);
        }
    )*};
}
for_each_skinny_rows!(skinny_rows_kernels);
