//! The one-launch matrix–vector kernels (M = 1: y = xᵀ·B, B `k x n`), `sgemv_strips_u*`: see
//! `skinny.rs` (`SkinnyKind::VecMat`) for the host-visible half.
//!
//! Why a kernel of its own (H200, docs/matmul.md "Session 9: mid-size problems"): the column
//! kernel `sgemm_cols_m1` ran 1 x 4096 x 4096 as 64 K-splits plus a separate reduction launch,
//! about 11 µs of fixed cost against cuBLAS's 7–8 µs. Here:
//! - A block owns a strip of `GEMV_STRIP` = 128 columns and one K range (grid z); its 8 warps
//!   take interleaved groups of `U` rows of that range, each lane 4 consecutive columns: one
//!   `ld.global.nc.v4` of B per row (a warp's load is 512 contiguous bytes), `U` rows' loads
//!   (and x's, one broadcast word each) issued before their FMAs.
//! - The 8 warps' sums meet in shared memory and are added in warp order.
//! - With K split, each block stores its 128 sums to the workspace, and the last block of the
//!   strip to arrive (a GPU-scope fence and an atomic counter, as the flagship's stream-K
//!   fix-up) adds the splits' sums in split order, split 0 first, and writes C: the result does
//!   not depend on which block came last, and no second launch is needed. It leaves the counter
//!   at zero for the next launch.
//! - Any M runs (one row of A and C per grid y), but only M = 1 is routed here.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::skinny::{GEMV_STRIP, GEMV_WARPS, SKINNY_THREADS, SkinnyParams};
use super::skinny_reduce::write_c;
use crate::ptx::{
    atom_add_acq_rel_gpu, fence_acq_rel_gpu, ld_global_cg, ld_global_nc, ld_shared, shared_addr,
    st_global_cg, st_relaxed_gpu, st_shared,
};

// The code below is written for these: 4 columns per lane, one warp per 32 lanes.
const _: () = assert!(SKINNY_THREADS == 32 * GEMV_WARPS && GEMV_STRIP == 4 * 32);

/// Split sums of the fix-up loaded together (the `seq!` below is written for 16).
const FIX_UNROLL: u32 = 16;

macro_rules! gemv_kernels {
    ($(($name:ident, $u:tt)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`SkinnyParams`] contract (with `vec == 1` only when `ldb % 4 == 0`
        /// and B is 16-byte aligned; with `splits > 1`, `work` of `splits * m * n` floats and
        /// `counters` of `m * ceil(n / GEMV_STRIP)` zeroed words that nothing else uses during
        /// the launch), and the launch must use 256 threads and the grid `SkinnyConfig::grid_xy`
        /// x `splits`.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: SkinnyParams) {
            /// Rows of B per warp per step.
            const U: u32 = $u;
            #[address_space(shared)]
            static mut RED: [MaybeUninit<f32>; (GEMV_WARPS * GEMV_STRIP) as usize] =
                [MaybeUninit::uninit(); (GEMV_WARPS * GEMV_STRIP) as usize];
            // SAFETY: only the address of the shared static is taken.
            let red = shared_addr(unsafe { addr_of!(RED) });

            let tid = thread::thread_idx_x();
            let (lane, warp) = (tid % 32, tid / 32);
            let strip = thread::block_idx_x();
            let row = thread::block_idx_y();
            let split = thread::block_idx_z();
            let col = strip * GEMV_STRIP + 4 * lane;
            let kb = split * p.k_chunk;
            let ke = if p.k - kb < p.k_chunk { p.k } else { kb + p.k_chunk };
            let ldb = p.ldb as usize;
            let full = p.vec != 0 && col + 4 <= p.n;
            // Column `col + J`, clamped into B (only loaded when `col + J < n`).
            let mut cols = [0usize; 4];
            seq!(J in 0..4 { cols[J] = if col + J < p.n { (col + J) as usize } else { 0 }; });
            // SAFETY: row < m (grid y): row `row` of A, the vector x.
            let x = unsafe { p.a.add(row as usize * p.lda as usize) };
            let mut acc = [0.0f32; 4];

            let mut k0 = kb + warp * U;
            while k0 < ke {
                let mut bv = [[0.0f32; 4]; $u];
                let mut xv = [0.0f32; $u];
                seq!(I in 0..$u {{
                    let kg = k0 + I;
                    if kg < ke {
                        // SAFETY: kg < k: a cell of x, never written.
                        xv[I] = f32::from_bits(unsafe { ld_global_nc::<1>(x.add(kg as usize) as *const u32) }[0]);
                        // SAFETY: kg < k: row kg of B.
                        let brow = unsafe { p.b.add(kg as usize * ldb) };
                        if full {
                            // SAFETY: col + 4 <= n: 4 cells of row kg, 16-byte aligned (vec:
                            // ldb % 4 == 0, B aligned, col a multiple of 4); never written.
                            let v = unsafe { ld_global_nc::<4>(brow.add(col as usize) as *const u32) };
                            seq!(J in 0..4 { bv[I][J] = f32::from_bits(v[J]); });
                        } else {
                            seq!(J in 0..4 {
                                if col + J < p.n {
                                    // SAFETY: col + J < n: a cell of row kg, never written.
                                    let v = unsafe { ld_global_nc::<1>(brow.add(cols[J]) as *const u32) };
                                    bv[I][J] = f32::from_bits(v[0]);
                                }
                            });
                        }
                    }
                }});
                seq!(I in 0..$u {
                    seq!(J in 0..4 { acc[J] += xv[I] * bv[I][J]; });
                });
                k0 += GEMV_WARPS * U;
            }

            // The warps' sums, added in warp order by the strip's first 128 threads.
            // SAFETY: words warp * STRIP + 4 * lane .. + 4 of RED (16-byte aligned), this thread's
            // alone until the barrier; nobody read RED before.
            unsafe {
                st_shared::<4>(red + 4 * (warp * GEMV_STRIP + 4 * lane), acc.map(f32::to_bits))
            };
            thread::sync_threads();
            let c = strip * GEMV_STRIP + tid;
            let mine = tid < GEMV_STRIP && c < p.n;
            let mut v = 0.0f32;
            if mine {
                seq!(W in 0..8 {
                    // SAFETY: word W * STRIP + tid of RED (tid < STRIP), stored before the barrier.
                    v += f32::from_bits(unsafe { ld_shared::<1>(red + 4 * (W * GEMV_STRIP + tid)) }[0]);
                });
            }
            if p.splits <= 1 {
                if mine {
                    // SAFETY: row < m, c < n; this thread alone writes the output.
                    unsafe { write_c(&p, row, c, v) };
                }
                return;
            }
            let slice = p.m as usize * p.n as usize;
            let at = row as usize * p.n as usize + c as usize;
            if mine {
                // SAFETY: split < splits, row < m, c < n: inside the `splits * m * n` floats of
                // `work`; only this thread writes the word in this launch.
                unsafe { st_global_cg(p.work.add(split as usize * slice + at) as *mut u32, v.to_bits()) };
            }
            // Every thread's sum is visible GPU-wide before thread 0 counts the block.
            fence_acq_rel_gpu();
            thread::sync_threads();
            // SAFETY: row < m, strip < grid x = ceil(n / STRIP): one of the contract's counters.
            let ctr = unsafe { p.counters.add((row * thread::grid_dim_x() + strip) as usize) };
            // SAFETY: the counter is accessed only atomically during the launch (the contract).
            let last = tid == 0 && unsafe { atom_add_acq_rel_gpu(ctr, 1) } + 1 == p.splits;
            if thread::sync_threads_or(last as u32) == 0 {
                return;
            }
            fence_acq_rel_gpu();
            if mine {
                // SAFETY: split 0's sum of this output, stored and made visible before the count.
                let mut t = f32::from_bits(unsafe { ld_global_cg(p.work.add(at) as *const u32) });
                let mut s = 1;
                while s < p.splits {
                    let mut w = [0u32; FIX_UNROLL as usize];
                    seq!(I in 0..16 {
                        if s + I < p.splits {
                            // SAFETY: s + I < splits: inside `work`, stored by that split's block
                            // before it counted.
                            w[I] = unsafe { ld_global_cg(p.work.add((s + I) as usize * slice + at) as *const u32) };
                        }
                    });
                    seq!(I in 0..16 {
                        if s + I < p.splits {
                            t += f32::from_bits(w[I]);
                        }
                    });
                    s += FIX_UNROLL;
                }
                // SAFETY: row < m, c < n; only the strip's last block writes the output.
                unsafe { write_c(&p, row, c, t) };
            }
            if tid == 0 {
                // SAFETY: every block of the strip has counted; the next launch (same stream,
                // in order) finds the counter at zero.
                unsafe { st_relaxed_gpu(ctr, 0) };
            }
        }
    )*};
}
for_each_skinny_gemv!(gemv_kernels);
