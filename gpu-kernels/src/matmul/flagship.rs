//! The flagship SGEMM: C = alpha·A·B + beta·C on unpadded row-major matrices, edge tiles
//! handled here (see `SgemmParams` for the contract).
//!
//! Structure (why):
//! - Warp tiles: a warp owns a `WTM x WTN` piece of the block tile, its lanes a `LY x LX` grid,
//!   each lane `RM x RN` outputs as 4x4 groups spaced `4*LY` rows / `4*LX` columns apart. Every
//!   fragment load is then one `ld.shared.v4` whose warp touches one contiguous span of at most
//!   128 bytes: a single shared-memory wavefront, conflict-free, mostly broadcast.
//! - A is stored transposed (`As[k][m]`, rows `BM + 4` floats: 16-byte aligned, and `≡ 4 mod 32`
//!   words so the transposing writes hit 32 distinct banks). `cp.async` cannot transpose 16-byte
//!   pieces, so A moves in 4-byte `cp.async.ca` copies: a warp reads 4 rows x 8 consecutive k
//!   (four full 32-byte sectors). B rows are copied as they are, in 16-byte pieces when `ldb`
//!   and the pointer allow (`vec_b`), else 4-byte ones.
//! - `STAGES` k-slices are in flight (`cp.async` groups, one per slice, waited with
//!   `wait_group STAGES-2`), in dynamic shared memory (more than the 48 KB of static shared
//!   memory); one barrier per slice.
//! - Fragments are double-buffered in registers: the loads for step `kk + 1` are issued before
//!   the FMAs of step `kk`. All register arrays are indexed by `seq!` constants only.
//! - Edges: A rows past M are clamped to row M-1 (they only feed C rows that are never stored);
//!   B columns past N and every k past K are zero-filled by `cp.async`'s source size, so a
//!   partial k-slice adds exact zeros (never 0·Inf: both factors are zero-filled). Only the last
//!   k-slice pays for the k checks. Stores are vectorized in full tiles with an aligned C,
//!   predicated per element elsewhere.
//! - Rasterization: `group` tile rows are walked down before moving right, so the blocks of one
//!   wave share A and B panels in L2.
//! - Stream-K (`stream_k.rs`, docs/stream-k.md): a block works through a range of
//!   `tile * ktiles + slice` iterations, one unit (a tile's run of slices) at a time; a tile
//!   split over blocks is summed from a workspace by the block that completes it. With
//!   `sk_blocks == 0` every block's range is one whole tile: the data-parallel kernel.
//!
//! The k-loop is `flagship_k_loop!` (`flagship_pipeline.rs`) and the end of a unit (C stored,
//! or the stream-K fix-up) `flagship_unit_end!` (`flagship_unit.rs`): macros shared with
//! `flagship_t.rs`, expanded here to the tokens this file held.
use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::ffma_order::{ffma_order, order_is_permutation};
use super::flagship_epilogue::{
    ld_global1, ld_global4, partial_index, store4, stream_k_count, stream_k_sum, tile_origin,
};
use super::stream_k::Split;
use super::{FfmaOrder, SgemmOpsParams, SgemmParams};
use crate::ptx::{
    cp_async_ca4, cp_async_cg16, cp_async_commit, cp_async_wait, fresh_ctaid_x, fresh_ctaid_y,
    fresh_tid_x, ld_shared, shared_addr, st_global_cg, st_relaxed_gpu, st_shared,
};

/// One flagship entry: `plain` takes [`SgemmParams`] (the N,N kernels of `FLAGSHIP`, whose
/// PTX this macro leaves as it was); `batched` takes [`SgemmOpsParams`] and computes problem
/// `blockIdx.y` of a strided batch (`FLAGSHIP_BATCHED`), with the same body. `$p` and `$q` are
/// the body's names for the parameters (passed in, so the body's tokens resolve to them).
macro_rules! flagship_entry {
    (plain, $name:ident, $p:ident, $q:ident, $body:block) => {
        /// # Safety
        /// `p` must satisfy the [`SgemmParams`] contract (`a`, `b`, `c` of `m x k`, `k x n`,
        /// `m x n` with their leading dimensions, `c` overlapping neither `a` nor `b`; with
        /// `vec_b`, `ldb % 4 == 0` and `b` 16-byte aligned; with `sk_blocks > 0`, `partials` of
        /// `2 * sk_blocks * bm * bn` floats and `sk_tiles` zeroed `counters`), and the launch must
        /// use this kernel's [`FlagshipConfig::threads`], the grid `Split::grid` and
        /// [`FlagshipConfig::shared_bytes`] of dynamic shared memory: every shared address below is
        /// inside it and every global one inside the matrices.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name($p: SgemmParams) $body
    };
    (batched, $name:ident, $p:ident, $q:ident, $body:block) => {
        /// # Safety
        /// `bq.g` must satisfy the [`SgemmParams`] contract above for problem 0 (N,N, B aligned
        /// and `ldb % 4 == 0`), and every problem `z < gridDim.y` at `a + z * stride_a` (and
        /// likewise B, C) inside its buffer, `stride_b % 4 == 0`, no C overlapping an A or B and
        /// no two problems' C overlapping; stream-K (`sk_blocks > 0`) only with
        /// `gridDim.y == 1`. Launched as the plain kernel, with the batch as `gridDim.y`.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name($q: SgemmOpsParams) {
            let $p = $q.g;
            $body
        }
    };
}

macro_rules! flagship_kernels {
    ($mode:ident; $(($name:ident { tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
        stages: $st:tt, vec_b: $vec:tt, thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt,
        a_copies: $al:tt, b_copies: $bl:tt, ffma_order: $ord:ident })),* $(,)?) => {$(
        flagship_entry! { $mode, $name, p, bq, {
            flagship_tile_consts! { tile: $bm x $bn x $bk, warps: $wm x $wn, lanes: $ly x $lx,
                stages: $st, vec_b: $vec, thread_tile: $rm x $rn, groups: $ga x $gb,
                a_copies: $al, b_copies: $bl, ffma_order: $ord, pitch_b: BN }

            let (m, n, k) = (p.m, p.n, p.k);
            let (lda, ldb) = (p.lda as usize, p.ldb as usize);
            let ktiles = k.div_ceil(BK);
            let kfull = k / BK;
            let split = Split { sk_blocks: p.sk_blocks, sk_tiles: p.sk_tiles, ktiles };
            // cuda_std declares its dynamic-shared symbol as a 16-byte `.extern .shared` array,
            // which ptxas counts as 16 static bytes (the "16" in its report); the dynamic
            // allocation follows them, so [symbol, symbol + dynamic bytes) is inside the block's
            // shared memory (compute-sanitizer memcheck: no findings).
            let smem = shared_addr(dynamic_shared_mem::<u32>());
            // Each thread's word after the stages, where it parks its position (`it`) during
            // the main loop.
            const STASH: u32 = STAGES * STAGE_BYTES;

            // This block's iterations (`tile * ktiles + slice`, stream_k.rs): a share of the
            // stream-K tiles' slices, or one whole tile; one unit per tile it touches.
            //
            // Through the main loop only the unit's end slice stays in a register: the thread
            // and block index are read afresh (`fresh_*`, which the compiler can neither hoist
            // nor merge) before it and after it, `it` is parked in shared memory, and the rest
            // is recomputed from those. (Kept live, the unit's state costs registers, and
            // ptxas's allocation of the main loop then puts 553 of the 1024 FFMAs of a k-slice
            // on conflicting register banks instead of 116.)
            let mut it = split.range(fresh_ctaid_x()).0;
            loop {
                let (tid, pid) = (fresh_tid_x(), fresh_ctaid_x());
                let (warp, lane) = (tid / 32, tid % 32);
                let end = split.range(pid).1;
                if it >= end {
                    break;
                }
                // Every warp is done reading the last unit's stages.
                thread::sync_threads();
                let (tile, kb, ke) = split.unit(it, end);
                let (m0, n0) = tile_origin::<BM, BN>(&p, tile);
                // SAFETY: `STASH + 4 * tid` + 4 <= STAGES * STAGE_BYTES + 4 * NT, the dynamic
                // shared memory of the launch; word tid is this thread's alone, read back only by
                // it (line `at` below).
                unsafe { st_shared::<1>(smem + STASH + 4 * tid, [it]) };
                let a_frag = 4 * (warp / WN * WTM + lane / LX * 4);
                let b_frag = A_BYTES + 4 * (warp % WN * WTN + lane % LX * 4);

                // A copies: copy I of a warp covers rows `4*warp + lane/8 + A_ROW(I)` and k
                // `lane%8 + A_K(I)` of the slice: `IPK` copies per 8-k group, so that every
                // copy's shared offset, and its global offset from one of `IPK` row pointers, is
                // a constant.
                const IPK: u32 = BM / 4 / NW;
                let a_row0 = m0 + 4 * warp + lane / 8;
                let a_k0 = lane % 8;
                let mut a_src = [core::ptr::null::<f32>(); IPK as usize];
                seq!(I in 0..$al {
                    if I < IPK {
                        let r = a_row0 + 4 * NW * I;
                        let row = if r < m { r } else { m - 1 };
                        // SAFETY: `row` is clamped to m - 1 and a_k0 < 8: a cell of A when a_k0 < K
                        // (lda >= K). For K <= a_k0 (K < 8) the pointer is formed but never
                        // dereferenced: the partial slice reads only k < K (see `store4` on forming
                        // such pointers).
                        a_src[(I % IPK) as usize] = unsafe { fbase!($mode, p, bq, a, stride_a).add(row as usize * lda + a_k0 as usize) };
                    }
                });
                let a_dst = smem + 4 * (a_k0 * AP + 4 * warp + lane / 8);
                // B copies: piece column `tid % BPR`, rows `tid / BPR + I*B_ROW_STEP`.
                let b_col = n0 + tid % BPR * BW;
                let b_row = tid / BPR;
                let b_bytes = if b_col >= n {
                    0
                } else if n - b_col >= BW {
                    4 * BW
                } else {
                    4 * (n - b_col)
                };
                // Out-of-range pieces still need a valid (and for 16-byte copies aligned) address.
                let b_col_addr = if b_bytes == 0 { (n - 1) / BW * BW } else { b_col };
                // SAFETY: `b_col_addr` < n (clamped when out of range), and rows `b_row` < BK of B.
                // For k > b_row it is a cell of B; otherwise (k < BK) the pointer is formed but
                // never dereferenced, as the partial slice reads only rows below k (see `store4` on
                // forming such pointers).
                let b_src = unsafe { fbase!($mode, p, bq, b, stride_b).add(b_row as usize * ldb + b_col_addr as usize) };
                let b_step = B_ROW_STEP as usize * ldb;
                let b_dst = smem + A_BYTES + 4 * (b_row * BN + tid % BPR * BW);

                // Issues the copies of k-slice `t` into the stage at byte offset `stage`.
                let load_tile = |t: u32, stage: u32| {
                    let k0 = t * BK;
                    if t < kfull {
                        seq!(I in 0..$al {{
                            const ROW: u32 = I % IPK;
                            const KG: u32 = I / IPK;
                            // SAFETY: t < kfull: k0 + 8 * KG + a_k0 < k0 + BK <= K, so the source
                            // is inside row `row` of A.
                            let src = unsafe { a_src[ROW as usize].add((k0 + 8 * KG) as usize) };
                            let dst = a_dst + stage + 4 * (8 * KG * AP + 4 * NW * ROW);
                            // SAFETY: `dst` is inside this stage's A slice (a_k0 + 8 * KG < BK rows
                            // of AP words, column 4 * warp + lane / 8 + 4 * NW * ROW < BM); no
                            // thread reads the stage until the wait and barrier that retire its
                            // group, and the stage it overwrites was released by the barrier before
                            // (see the main loop).
                            unsafe { cp_async_ca4(dst, src, 4) };
                        }});
                        // SAFETY: k0 + BK <= K: rows k0.. of the B column are inside B.
                        let b_slice = unsafe { b_src.add(k0 as usize * ldb) };
                        seq!(I in 0..$bl {
                            // SAFETY: row k0 + b_row + I * B_ROW_STEP < k0 + BK <= K (the B copies
                            // tile the slice exactly).
                            let src = unsafe { b_slice.add(I * b_step) };
                            let dst = b_dst + stage + 4 * I * B_ROW_STEP * BN;
                            if VEC {
                                // SAFETY: `dst`: piece tid % BPR of slice row b_row + I *
                                // B_ROW_STEP < BK, inside this stage's B slice and 16-byte aligned;
                                // `src` has `b_bytes` readable bytes (the row's columns below n)
                                // and is aligned (vec_b: ldb % 4 == 0, B aligned, b_col a multiple
                                // of 4). Ordered as the A copies.
                                unsafe { cp_async_cg16(dst, src, b_bytes) };
                            } else {
                                // SAFETY: as above with 4-byte pieces: `src` readable when
                                // `b_bytes` is 4.
                                unsafe { cp_async_ca4(dst, src, b_bytes) };
                            }
                        });
                    } else {
                        // The last, partial slice: k past K reads nothing (address kept valid).
                        seq!(I in 0..$al {{
                            const ROW: u32 = I % IPK;
                            const KG: u32 = I / IPK;
                            let ok = k0 + 8 * KG + a_k0 < k;
                            let src = if ok {
                                // SAFETY: `ok`: k0 + 8 * KG + a_k0 < K, so the source is inside row
                                // `row` of A.
                                unsafe { a_src[ROW as usize].add((k0 + 8 * KG) as usize) }
                            } else {
                                fbase!($mode, p, bq, a, stride_a)
                            };
                            let dst = a_dst + stage + 4 * (8 * KG * AP + 4 * NW * ROW);
                            // SAFETY: `src` is a readable cell of A when `ok`, else nothing is read
                            // (0 bytes, the address `p.a` kept valid); `dst` as in the full slice.
                            unsafe { cp_async_ca4(dst, src, if ok { 4 } else { 0 }) };
                        }});
                        seq!(I in 0..$bl {
                            let ok = k0 + b_row + I * B_ROW_STEP < k;
                            let src = if ok {
                                // SAFETY: `ok`: row k0 + b_row + I * B_ROW_STEP < K, column
                                // b_col_addr < n: inside B.
                                unsafe { b_src.add(k0 as usize * ldb + I * b_step) }
                            } else {
                                // SAFETY: column `b_col_addr` < n of B's first row: a valid
                                // (aligned) address; nothing is read from it.
                                unsafe { fbase!($mode, p, bq, b, stride_b).add(b_col_addr as usize) }
                            };
                            let bytes = if ok { b_bytes } else { 0 };
                            let dst = b_dst + stage + 4 * I * B_ROW_STEP * BN;
                            if VEC {
                                // SAFETY: `src` has `bytes` readable bytes (0 past K), aligned;
                                // `dst` as in the full slice.
                                unsafe { cp_async_cg16(dst, src, bytes) };
                            } else {
                                // SAFETY: as above with 4-byte pieces.
                                unsafe { cp_async_ca4(dst, src, bytes) };
                            }
                        });
                    }
                };

                flagship_k_loop!(smem, kb, ke, load_tile, a_frag, b_frag, acc;
                    pitch_b: BN, stages: $st, bk: $bk, thread_tile: $rm x $rn, groups: $ga x $gb,
                    ffma_order: $ord);
                flagship_unit_end!($mode, p, bq, smem, split, acc, it;
                    size: m x n, ktiles: ktiles, thread_tile: $rm x $rn, groups: $ga x $gb);
            }
        }}
    )*};
}

macro_rules! flagship_plain_kernels {
    ($($row:tt)*) => { flagship_kernels!(plain; $($row)*); };
}
/// The N,N rows of `for_each_flagship_batched!` (`ops: N x N` taken off); the other pairs are
/// `flagship_t.rs`'s.
macro_rules! flagship_batched_kernels {
    ($(($name:ident { ops: $oa:ident x $ob:ident, $($rest:tt)* })),* $(,)?) => {
        flagship_batched_nn! { [] $(($oa $ob ($name { $($rest)* })))* }
    };
}
/// Collects the N,N rows into one `flagship_kernels!(batched; …)`, in list order.
macro_rules! flagship_batched_nn {
    ([$($done:tt)*] (N N $row:tt) $($more:tt)*) => {
        flagship_batched_nn! { [$($done)* $row,] $($more)* }
    };
    ([$($done:tt)*] ($oa:ident $ob:ident $row:tt) $($more:tt)*) => {
        flagship_batched_nn! { [$($done)*] $($more)* }
    };
    ([$($done:tt)*]) => {
        flagship_kernels!(batched; $($done)*);
    };
}
for_each_flagship!(flagship_plain_kernels);
for_each_flagship_batched!(flagship_batched_kernels);
