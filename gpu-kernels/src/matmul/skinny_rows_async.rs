//! The pipelined row kernels (small N): the work split of `skinny_rows.rs` (a warp owns `RW` rows
//! of A, its lanes 4 consecutive k each; B's slice transposed in shared memory, shared by the 8
//! warps; the warp's sums reduced by butterfly shuffles at the end), with both operands' slices
//! copied into dynamic shared memory by cp.async, [`ASYNC_KC`] k per stage, `STAGES - 1` slices
//! ahead of the FMAs (see `for_each_skinny_rows_async!` for why).
//!
//! - A's slice: `8 * RW` rows of `ASYNC_KC` words. With `vec` (rows a multiple of 4 floats apart,
//!   A 16-byte aligned) a warp copies one row's 512 contiguous bytes in 16-byte pieces, else
//!   word by word. k past the split are zero-filled by the copy (never read); rows past M are
//!   clamped to row M-1 (read, never stored).
//! - B's slice: `ASYNC_KC x NC`, copied word by word into `Bs[j][k]` (rows `ASYNC_KC + 4` words,
//!   16-byte aligned), so a lane's 4 k of column j are one `ld.shared.v4`; columns past N and k
//!   past the split are zero-filled, so they add exact zeros (never 0·Inf).
//! - Iteration i issues slice i (when there is one) and commits a group, waits until slice
//!   i - (STAGES - 1) has landed, and computes on it between two barriers: the first makes every
//!   thread's copies visible, the second keeps the stage from being refilled (at iteration
//!   i + 1) while a warp still reads it.
use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::skinny::{ASYNC_KC, SKINNY_THREADS, SKINNY_WARPS, SkinnyParams, async_stage_words};
use super::skinny_reduce::finish;
use crate::ptx::{
    cp_async_ca4, cp_async_cg16, cp_async_commit, cp_async_wait, ld_shared, shared_addr, shfl_bfly,
};

/// Row pitch of the transposed B slice, in words.
const BP: u32 = ASYNC_KC + 4;

// The unrolled loops and the wait below are written for these (seq! needs literals; the
// pipeline depth is the wait's immediate).
const _: () = assert!(SKINNY_THREADS == 256 && SKINNY_WARPS == 8 && ASYNC_KC == 128);

macro_rules! skinny_rows_async_kernels {
    ($(($name:ident, $nc:tt, $rw:tt, $st:tt)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`SkinnyParams`] contract (with `vec == 1` only when `lda % 4 == 0`
        /// and A is 16-byte aligned; with `splits > 1`, `work` of `splits * m * n` floats, and
        /// `k_chunk` a multiple of 4), and the launch must use 256 threads, the grid
        /// `SkinnyConfig::grid_xy` x `splits` and `SkinnyConfig::dynamic_shared_bytes` of
        /// dynamic shared memory.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: SkinnyParams) {
            const NC: u32 = $nc;
            const RW: u32 = $rw;
            const STAGES: u32 = $st;
            const ROWS: u32 = SKINNY_WARPS * RW;
            const A_WORDS: u32 = ROWS * ASYNC_KC;
            const STAGE: u32 = async_stage_words(NC, RW);
            // B's copies per thread per slice.
            const B_COPIES: u32 = NC * ASYNC_KC / SKINNY_THREADS;
            const _: () = assert!(STAGES == 4 && A_WORDS == 4 * SKINNY_THREADS * RW);
            const _: () = assert!(B_COPIES * SKINNY_THREADS == NC * ASYNC_KC && STAGE % 4 == 0);
            // cuda_std's dynamic-shared symbol is 16-byte aligned (as the flagship uses it); the
            // launch gives it STAGES * STAGE words.
            let smem = shared_addr(dynamic_shared_mem::<u32>());

            let tid = thread::thread_idx_x();
            let (warp, lane) = (tid / 32, tid % 32);
            let row_b = thread::block_idx_x() * ROWS;
            let col0 = thread::block_idx_y() * NC;
            let kb = thread::block_idx_z() * p.k_chunk;
            let ke = if p.k - kb < p.k_chunk { p.k } else { kb + p.k_chunk };
            let nk = (ke - kb).div_ceil(ASYNC_KC);
            let lda = p.lda as usize;
            let vec = p.vec != 0;
            // The rows this thread copies: piece c = tid + I * 256 of the slice is row c / 32,
            // words 4 * (c % 32) .. + 4, so row tid / 32 + 8 * I.
            let mut copy_rows = [core::ptr::null::<f32>(); $rw];
            seq!(I in 0..$rw {
                let r = row_b + tid / 32 + SKINNY_WARPS * I;
                let r = if r < p.m { r } else { p.m - 1 };
                // SAFETY: r < m: the start of a row of A.
                copy_rows[I] = unsafe { p.a.add(r as usize * lda) };
            });
            let kq = 4 * (tid % 32);
            let mut acc = [[0.0f32; $nc]; $rw];

            let mut i = 0;
            while i < nk + STAGES - 1 {
                if i < nk {
                    let k0 = kb + i * ASYNC_KC;
                    let base = smem + 4 * (i % STAGES) * STAGE;
                    let kg = k0 + kq;
                    seq!(I in 0..$rw {{
                        let dst = base + 4 * ((tid / 32 + SKINNY_WARPS * I) * ASYNC_KC + kq);
                        if vec {
                            let bytes = if kg >= ke { 0 } else if ke - kg >= 4 { 16 } else { 4 * (ke - kg) };
                            // A 16-byte aligned source even when nothing is read.
                            let at = if bytes == 0 { kb } else { kg };
                            // SAFETY: dst is 16 bytes of this stage's A slice (16-byte aligned:
                            // STAGE and the row offsets are multiples of 4 words); the source
                            // is row I's word `at` (a multiple of 4, lda % 4 == 0, A aligned),
                            // `bytes` of it inside the row's first k; the stage is not read
                            // until its group is waited for and the barrier passed.
                            unsafe { cp_async_cg16(dst, copy_rows[I].add(at as usize), bytes) };
                        } else {
                            seq!(J in 0..4 {
                                let ok = kg + J < ke;
                                let at = if ok { kg + J } else { kb };
                                // SAFETY: dst + 4 J is a word of this stage's A slice; the
                                // source is a cell of row I of A (at < k), read only when ok.
                                unsafe { cp_async_ca4(dst + 4 * J, copy_rows[I].add(at as usize), if ok { 4 } else { 0 }) };
                            });
                        }
                    }});
                    let mut e = tid;
                    while e < NC * ASYNC_KC {
                        let (j, kk) = (e % NC, e / NC);
                        let (col, kg) = (col0 + j, k0 + kk);
                        let ok = col < p.n && kg < ke;
                        // SAFETY: when ok, kg < k and col < n: a cell of B, which no thread
                        // writes; else B's first cell, not read.
                        let src = unsafe { p.b.add(if ok { kg as usize * p.ldb as usize + col as usize } else { 0 }) };
                        // SAFETY: word j * BP + kk (j < NC, kk < KC) of this stage's B slice; not
                        // read until its group is waited for and the barrier passed.
                        unsafe { cp_async_ca4(base + 4 * (A_WORDS + j * BP + kk), src, if ok { 4 } else { 0 }) };
                        e += SKINNY_THREADS;
                    }
                }
                // SAFETY: closes this thread's group (empty past the last slice, which keeps the
                // count the wait below relies on).
                unsafe { cp_async_commit() };
                if i >= STAGES - 1 {
                    let t = i - (STAGES - 1);
                    // SAFETY: waits only: every group but the 3 newest, slice t's included, has
                    // landed.
                    unsafe { cp_async_wait::<3>() };
                    thread::sync_threads();
                    let base = smem + 4 * (t % STAGES) * STAGE;
                    let mut av = [[0.0f32; 4]; $rw];
                    seq!(R in 0..$rw {{
                        // SAFETY: 4 words (16-byte aligned) of row warp * RW + R of slice t's A,
                        // copied and made visible by the wait and barrier above.
                        let v = unsafe { ld_shared::<4>(base + 4 * ((warp * RW + R) * ASYNC_KC + 4 * lane)) };
                        seq!(Q in 0..4 { av[R][Q] = f32::from_bits(v[Q]); });
                    }});
                    seq!(J in 0..$nc {{
                        // SAFETY: words J * BP + 4 lane .. + 4 of slice t's B (16-byte aligned:
                        // BP % 4 == 0), copied and made visible as above.
                        let bv = unsafe { ld_shared::<4>(base + 4 * (A_WORDS + J * BP + 4 * lane)) };
                        seq!(Q in 0..4 {
                            let b = f32::from_bits(bv[Q]);
                            seq!(R in 0..$rw { acc[R][J] += av[R][Q] * b; });
                        });
                    }});
                    // Every warp is done with stage t % STAGES before iteration i + 1 refills it.
                    thread::sync_threads();
                }
                i += 1;
            }

            let row0 = row_b + warp * RW;
            rows_warp_sums!(acc, $rw, $nc, row0, col0, lane, p);
        }
    )*};
}
for_each_skinny_rows_async!(skinny_rows_async_kernels);
