//! The column kernels (small M, matrix–vector y = xᵀ·B for M = 1): see `skinny.rs` for the
//! design.
//!
//! Why this shape of work:
//! - B is read once, so the kernel is bound by its stream: a thread owns 4 consecutive columns
//!   of C and reads their 4 cells of each row of B with one `ld.global.nc.v4` (a warp's load is
//!   512 contiguous bytes), 8 rows' loads issued before their FMAs.
//! - A's `MR x KC` slice is read by every thread of the block: staged once per slice in shared
//!   memory as `As[k][r]`, where a k-step's reads are the same word for every thread (a
//!   broadcast).
//! - Rows past M read as zeros and are never stored; columns past N are neither loaded nor
//!   stored; k past the split is neither loaded (B) nor staged (A is zero there).
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::skinny::{COLS_KC, SKINNY_THREADS, SkinnyParams};
use super::skinny_reduce::finish;
use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_shared};

// The unrolled loops below are written for these (seq! needs literals).
const _: () = assert!(SKINNY_THREADS == 256 && COLS_KC == 64);

/// Rows of B whose loads are issued together.
const UNROLL: u32 = 8;

macro_rules! skinny_cols_kernels {
    ($(($name:ident, $mr:tt)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`SkinnyParams`] contract (with `vec == 1` only when `ldb % 4 == 0`
        /// and B is 16-byte aligned; with `splits > 1`, `work` of `splits * m * n` floats), and the
        /// launch must use 256 threads and the grid `SkinnyConfig::grid_xy` x `splits`.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: SkinnyParams) {
            const MR: u32 = $mr;
            /// A slice elements each thread stages.
            const PER: u32 = (MR * COLS_KC).div_ceil(SKINNY_THREADS);
            #[address_space(shared)]
            static mut AS: [MaybeUninit<f32>; (MR * COLS_KC) as usize] =
                [MaybeUninit::uninit(); (MR * COLS_KC) as usize];
            // SAFETY: only the address of the shared static is taken.
            let as_ = shared_addr(unsafe { addr_of!(AS) });

            let tid = thread::thread_idx_x();
            let col = thread::block_idx_x() * (4 * SKINNY_THREADS) + 4 * tid;
            let row0 = thread::block_idx_y() * MR;
            let kb = thread::block_idx_z() * p.k_chunk;
            let ke = if p.k - kb < p.k_chunk { p.k } else { kb + p.k_chunk };
            let ldb = p.ldb as usize;
            let full = p.vec != 0 && col + 4 <= p.n;
            // Column `col + J`, clamped into B (only loaded when `col + J < n`).
            let mut cols = [0usize; 4];
            seq!(J in 0..4 { cols[J] = if col + J < p.n { (col + J) as usize } else { 0 }; });
            let mut acc = [[0.0f32; 4]; $mr];

            let mut k0 = kb;
            while k0 < ke {
                // Every thread is done with the previous slice.
                thread::sync_threads();
                seq!(I in 0..4 {
                    // Element e of the slice: k e % KC of row e / KC (consecutive threads read
                    // consecutive cells of a row of A).
                    let e = tid + I * SKINNY_THREADS;
                    if I < PER && e < MR * COLS_KC {
                        let (kk, r) = (e % COLS_KC, e / COLS_KC);
                        let (row, kg) = (row0 + r, k0 + kk);
                        let v = if row < p.m && kg < ke {
                            // SAFETY: row < m and kg < k: a cell of A.
                            let q = unsafe { p.a.add(row as usize * p.lda as usize + kg as usize) };
                            // SAFETY: a readable cell of A, which no thread writes.
                            f32::from_bits(unsafe { ld_global_nc::<1>(q as *const u32) }[0])
                        } else {
                            0.0
                        };
                        // SAFETY: kk < KC, r < MR: word kk * MR + r of AS; between the barriers
                        // only this thread writes it.
                        unsafe { st_shared::<1>(as_ + 4 * (kk * MR + r), [v.to_bits()]) };
                    }
                });
                thread::sync_threads();

                let mut kk = 0;
                while kk < COLS_KC {
                    let mut bv = [[0.0f32; 4]; UNROLL as usize];
                    seq!(U in 0..8 {{
                        let kg = k0 + kk + U;
                        if kg < ke {
                            // SAFETY: kg < k: row kg of B.
                            let brow = unsafe { p.b.add(kg as usize * ldb) };
                            if full {
                                // SAFETY: col + 4 <= n: 4 cells of row kg, 16-byte aligned (vec:
                                // ldb % 4 == 0, B aligned, col a multiple of 4); never written.
                                let v = unsafe { ld_global_nc::<4>(brow.add(col as usize) as *const u32) };
                                seq!(J in 0..4 { bv[U][J] = f32::from_bits(v[J]); });
                            } else {
                                seq!(J in 0..4 {
                                    if col + J < p.n {
                                        // SAFETY: col + J < n: a cell of row kg, never written.
                                        let v = unsafe { ld_global_nc::<1>(brow.add(cols[J]) as *const u32) };
                                        bv[U][J] = f32::from_bits(v[0]);
                                    }
                                });
                            }
                        }
                    }});
                    seq!(U in 0..8 {
                        seq!(R in 0..$mr {{
                            // SAFETY: word (kk + U) * MR + R of AS (kk + U < KC), written before
                            // the barrier above; every thread reads the same word.
                            let [w] = unsafe { ld_shared::<1>(as_ + 4 * ((kk + U) * MR + R)) };
                            let a = f32::from_bits(w);
                            seq!(J in 0..4 { acc[R][J] += a * bv[U][J]; });
                        }});
                    });
                    kk += UNROLL;
                }
                k0 += COLS_KC;
            }

            seq!(R in 0..$mr {
                seq!(J in 0..4 {
                    let (r, c) = (row0 + R, col + J);
                    if r < p.m && c < p.n {
                        // SAFETY: r < m, c < n, this thread alone writes the output.
                        unsafe { finish(&p, r, c, acc[R][J]) };
                    }
                });
            });
        }
    )*};
}
for_each_skinny_cols!(skinny_cols_kernels);
