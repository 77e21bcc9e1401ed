//! The flagship SGEMM for transposed operands and strided batches: C = alpha·op(A)·op(B) +
//! beta·C, problem `blockIdx.y` of the batch (see `SgemmOpsParams`). The main loop, the
//! pipeline, the fragments, the epilogue and stream-K are the flagship's (`flagship.rs`, whose
//! notes apply); what differs is how a k-slice reaches shared memory.
//!
//! Shared memory holds the slice as `As[k][m]` (pitch `BM + 4`) and `Bs[k][n]` whatever the
//! operations, so the FMA loop is the same for all four pairs. Each global→shared copy reads
//! along the operand's contiguous dimension, so every warp's reads are whole sectors:
//! - a transposed copy (A with `op(A) = N`, B with `op(B) = T`: k is contiguous in memory) is the
//!   flagship's A copy: a warp reads 4 rows x 8 consecutive k in 4-byte `cp.async` copies and
//!   writes them transposed; the slice's pitch is `≡ 4 mod 32` words (`BM + 4`, `BN + 4`), so the
//!   32 writes hit 32 distinct banks;
//! - a straight copy (A with `op(A) = T`, B with `op(B) = N`: m or n contiguous) is the
//!   flagship's B copy: rows of the slice copied as they are, in 16-byte pieces with `vec`.
//!
//! Edges: rows past M or N and every k past K are zero-filled by `cp.async`'s source size
//! (never 0·Inf in a partial slice: both factors are zero there). The transposed copies keep one
//! row pointer and a row stride instead of the flagship's clamped pointer per row, so that an
//! operand of 256 rows (B of the 128x256 tile) does not hold 8 pointers through the main loop.
use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::ffma_order::ffma_order;
use super::flagship_epilogue::{
    SUM_GROUP, partial_index, store4, stream_k_count, stream_k_sum_group, tile_origin,
};
use super::stream_k::Split;
use super::{FfmaOrder, Op, SgemmOpsParams, SgemmParams};
use crate::ptx::{
    cp_async_ca4, cp_async_cg16, cp_async_commit, cp_async_wait, fresh_ctaid_x, fresh_tid_x,
    ld_shared, shared_addr, st_global_cg, st_relaxed_gpu, st_shared,
};

macro_rules! flagship_ops_kernels {
    ($(($name:ident { ops: $oa:ident x $ob:ident, tile: $bm:tt x $bn:tt x $bk:tt,
        warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt, stages: $st:tt, vec: $vec:tt,
        thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt, a_copies: $al:tt,
        b_copies: $bl:tt })),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`SgemmOpsParams`] contract: `p.g` the [`SgemmParams`] one for
        /// problem 0 with `op(A)`, `op(B)` as this kernel's operations (A stored `k x m` when
        /// transposed, B `n x k`), and every problem `z < gridDim.y` at `a + z * stride_a` (and
        /// likewise B, C) inside its buffer, no C overlapping an A or B, and no two problems'
        /// C overlapping; with `vec`, the straight-copied operands' leading dimensions and
        /// strides multiples of 4 and their buffers 16-byte aligned; stream-K
        /// (`sk_blocks > 0`) only with `gridDim.y == 1`. Launched with this kernel's threads,
        /// the grid `Split::grid` x batch and `FlagshipOpsConfig::shared_bytes` of dynamic
        /// shared memory.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: SgemmOpsParams) {
            flagship_shape_consts! { tile: $bm x $bn x $bk, warps: $wm x $wn, lanes: $ly x $lx, stages: $st }
            const TA: bool = Op::$oa.is_t();
            const TB: bool = Op::$ob.is_t();
            /// Straight copies in 16-byte pieces.
            const W: u32 = if $vec { 4 } else { 1 };
            const AP: u32 = BM + 4;
            const BP: u32 = if TB { BN + 4 } else { BN };
            const A_BYTES: u32 = 4 * BK * AP;
            const STAGE_BYTES: u32 = A_BYTES + 4 * BK * BP;
            // Transposed copies: IPK_X copies per 8-k group (rows 4 * NW apart).
            const IPK_A: u32 = BM / 4 / NW;
            const IPK_B: u32 = BN / 4 / NW;
            // Straight copies: PR_X pieces per slice row, ROWS_X slice rows between a thread's
            // consecutive copies.
            const PR_A: u32 = BM / W;
            const PR_B: u32 = BN / W;
            const ROWS_A: u32 = NT / PR_A;
            const ROWS_B: u32 = NT / PR_B;
            const _: () = {
                assert!(LY * LX == 32);
                assert!(WTM == LY * $rm && WTN == LX * $rn);
                assert!($rm == 4 * $ga && $rn == 4 * $gb);
                assert!(BK % 8 == 0 && BM % 32 == 0 && BN % 32 == 0 && BK <= 16);
                assert!(STAGES >= 2 && STAGES <= 5);
                assert!(if TA {
                    NT % PR_A == 0 && BK * PR_A == NT * $al
                } else {
                    IPK_A * NW * 4 == BM && IPK_A * (BK / 8) == $al
                });
                assert!(if TB {
                    IPK_B * NW * 4 == BN && IPK_B * (BK / 8) == $bl
                } else {
                    NT % PR_B == 0 && BK * PR_B == NT * $bl
                });
                // 16-byte copies only where something is copied straight.
                assert!(W == 1 || TA || !TB);
            };

            let g = p.g;
            let (m, n, k) = (g.m, g.n, g.k);
            let (lda, ldb) = (g.lda as usize, g.ldb as usize);
            let ktiles = k.div_ceil(BK);
            let kfull = k / BK;
            let split = Split { sk_blocks: g.sk_blocks, sk_tiles: g.sk_tiles, ktiles };
            // This block's problem of the batch.
            let z = thread::block_idx_y() as usize;
            let a_z = g.a.wrapping_add(z * p.stride_a as usize);
            let b_z = g.b.wrapping_add(z * p.stride_b as usize);
            // As in flagship.rs: the dynamic allocation follows cuda_std's 16-byte symbol.
            let smem = shared_addr(dynamic_shared_mem::<u32>());
            const STASH: u32 = STAGES * STAGE_BYTES;

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
                let (m0, n0) = tile_origin::<BM, BN>(&g, tile);
                // SAFETY: `STASH + 4 * tid` + 4 <= the launch's dynamic shared memory; word tid
                // is this thread's alone (as in flagship.rs).
                unsafe { st_shared::<1>(smem + STASH + 4 * tid, [it]) };
                let a_frag = 4 * (warp / WN * WTM + lane / LX * 4);
                let b_frag = A_BYTES + 4 * (warp % WN * WTN + lane % LX * 4);

                // Transposed copies (k contiguous): lane reads row `4*warp + lane/8 (+ 4*NW*ROW)`
                // at k `lane % 8 (+ 8*KG)`; pointers formed with `wrapping_add` may be past the
                // matrix, and are read only where the row and k checks pass.
                let t_row = 4 * warp + lane / 8;
                let t_k = lane % 8;
                let a_t_dst = 4 * (t_k * AP + t_row);
                let b_t_dst = A_BYTES + 4 * (t_k * BP + t_row);
                let a_t_ptr = a_z.wrapping_add((m0 + t_row) as usize * lda + t_k as usize);
                let b_t_ptr = b_z.wrapping_add((n0 + t_row) as usize * ldb + t_k as usize);
                let (a_rstep, b_rstep) = (4 * NW as usize * lda, 4 * NW as usize * ldb);
                // Straight copies (m or n contiguous): piece column `tid % PR`, slice rows
                // `tid / PR + I * ROWS`. `bytes` is what the piece holds inside the matrix;
                // an empty piece keeps a valid, aligned address.
                let straight = |x0: u32, pr: u32, ext: u32| {
                    let col = x0 + tid % pr * W;
                    let bytes = if col >= ext { 0 } else if ext - col >= W { 4 * W } else { 4 * (ext - col) };
                    (if bytes == 0 { (ext - 1) / W * W } else { col }, bytes)
                };
                let (a_col, a_bytes) = straight(m0, PR_A, m);
                let (b_col, b_bytes) = straight(n0, PR_B, n);
                let a_s_ptr = a_z.wrapping_add((tid / PR_A) as usize * lda + a_col as usize);
                let b_s_ptr = b_z.wrapping_add((tid / PR_B) as usize * ldb + b_col as usize);
                let a_s_dst = 4 * ((tid / PR_A) * AP + tid % PR_A * W);
                let b_s_dst = A_BYTES + 4 * ((tid / PR_B) * BP + tid % PR_B * W);

                // Issues the copies of k-slice `t` into the stage at byte offset `stage`.
                let load_tile = |t: u32, stage: u32| {
                    let k0 = t * BK;
                    let full = t < kfull;
                    if TA {
                        seq!(I in 0..$al {{
                            let kr = k0 + tid / PR_A + I * ROWS_A;
                            let ok = full || kr < k;
                            let src = a_s_ptr.wrapping_add((k0 + I * ROWS_A) as usize * lda);
                            let bytes = if ok { a_bytes } else { 0 };
                            let dst = smem + stage + a_s_dst + 4 * I * ROWS_A * AP;
                            // SAFETY: `dst`: piece tid % PR_A of slice row tid / PR_A + I * ROWS_A
                            // < BK, inside this stage's A slice (16-byte aligned with vec: AP and
                            // the column are multiples of 4). `src` has `bytes` readable bytes:
                            // row kr < K of the stored k x m matrix, columns below m (0 bytes
                            // otherwise, address `a_z` or inside A); aligned with vec (lda, the
                            // stride and A, by the contract). No thread reads the stage before
                            // the wait and barrier that retire this group (see flagship.rs).
                            unsafe {
                                if W == 4 {
                                    cp_async_cg16(dst, if bytes > 0 { src } else { a_z }, bytes)
                                } else {
                                    cp_async_ca4(dst, if bytes > 0 { src } else { a_z }, bytes)
                                }
                            };
                        }});
                    } else {
                        seq!(I in 0..$al {{
                            const ROW: u32 = I % IPK_A;
                            const KG: u32 = I / IPK_A;
                            let ok = m0 + t_row + 4 * NW * ROW < m && (full || k0 + 8 * KG + t_k < k);
                            let src = a_t_ptr.wrapping_add(ROW as usize * a_rstep + (k0 + 8 * KG) as usize);
                            let dst = smem + stage + a_t_dst + 4 * (8 * KG * AP + 4 * NW * ROW);
                            // SAFETY: `dst` is inside this stage's A slice (k row t_k + 8 * KG <
                            // BK, column t_row + 4 * NW * ROW < BM); `src` is a cell of A when `ok`
                            // (row below m, k below K), else nothing is read from `a_z`. Ordered
                            // as above.
                            unsafe { cp_async_ca4(dst, if ok { src } else { a_z }, if ok { 4 } else { 0 }) };
                        }});
                    }
                    if TB {
                        seq!(I in 0..$bl {{
                            const ROW: u32 = I % IPK_B;
                            const KG: u32 = I / IPK_B;
                            let ok = n0 + t_row + 4 * NW * ROW < n && (full || k0 + 8 * KG + t_k < k);
                            let src = b_t_ptr.wrapping_add(ROW as usize * b_rstep + (k0 + 8 * KG) as usize);
                            let dst = smem + stage + b_t_dst + 4 * (8 * KG * BP + 4 * NW * ROW);
                            // SAFETY: `dst` is inside this stage's B slice (k row < BK of pitch
                            // BP, column < BN); `src` a cell of the stored n x k B when `ok`, else
                            // nothing is read from `b_z`. Ordered as above.
                            unsafe { cp_async_ca4(dst, if ok { src } else { b_z }, if ok { 4 } else { 0 }) };
                        }});
                    } else {
                        seq!(I in 0..$bl {{
                            let kr = k0 + tid / PR_B + I * ROWS_B;
                            let ok = full || kr < k;
                            let src = b_s_ptr.wrapping_add((k0 + I * ROWS_B) as usize * ldb);
                            let bytes = if ok { b_bytes } else { 0 };
                            let dst = smem + stage + b_s_dst + 4 * I * ROWS_B * BP;
                            // SAFETY: as the straight A copy: `dst` inside this stage's B slice,
                            // `src` `bytes` readable (aligned with vec) bytes of row kr < K of B.
                            unsafe {
                                if W == 4 {
                                    cp_async_cg16(dst, if bytes > 0 { src } else { b_z }, bytes)
                                } else {
                                    cp_async_ca4(dst, if bytes > 0 { src } else { b_z }, bytes)
                                }
                            };
                        }});
                    }
                };

                flagship_k_loop!(smem, kb, ke, load_tile, a_frag, b_frag, acc;
                    pitch_b: BP, stages: $st, bk: $bk, thread_tile: $rm x $rn, groups: $ga x $gb,
                    ffma_order: Columns);
                let (tid, pid) = (fresh_tid_x(), fresh_ctaid_x());
                let (warp, lane) = (tid / 32, tid % 32);
                // SAFETY: this thread's own stash word, stored by it at the unit's start.
                let [at] = unsafe { ld_shared::<1>(smem + STASH + 4 * tid) };
                let (tile, kb, ke) = split.unit(at, split.range(pid).1);
                let (m0, n0) = tile_origin::<BM, BN>(&g, tile);
                // This problem's C.
                let pc = SgemmParams {
                    c: g.c.wrapping_add(thread::block_idx_y() as usize * p.stride_c as usize),
                    ..g
                };

                let fast = m0 + BM <= m && n0 + BN <= n && pc.ldc % 4 == 0 && (pc.c as usize) % 16 == 0;
                let row0 = m0 + warp / WN * WTM + lane / LX * 4;
                let col0 = n0 + warp % WN * WTN + lane % LX * 4;
                if kb == 0 && ke == ktiles {
                    seq!(G in 0..$ga {
                        seq!(I in 0..4 {
                            seq!(H in 0..$gb {
                                let v = acc4!(acc, G * 4 + I, H);
                                // SAFETY: `store4`'s contract: `pc` is this problem's C (inside
                                // its buffer by the contract), the cell in this block's tile,
                                // stored by this thread only; `fast` only for an aligned tile
                                // inside C.
                                unsafe { store4(&pc, row0 + G * LY * 4 + I, col0 + H * LX * 4, v, fast) };
                            });
                        });
                    });
                } else {
                    // A split tile (batch of 1): segments store their sums, the block that
                    // completes the set adds them up, segment 0 first (stream_k.rs).
                    let slot = split.slot(pid, tile);
                    seq!(G in 0..$ga {
                        seq!(I in 0..4 {
                            seq!(H in 0..$gb {{
                                const Q: u32 = (G * 4 + I) * $gb + H;
                                let v = acc4!(acc, G * 4 + I, H);
                                seq!(J in 0..4 {
                                    let idx = partial_index::<NT, { BM * BN }>(slot, 4 * Q + J, tid);
                                    // SAFETY: `idx` < 2 * sk_blocks * BM * BN, inside `partials`
                                    // (as in flagship.rs); one thread per (slot, value, thread).
                                    unsafe { st_global_cg(g.partials.add(idx) as *mut u32, v[J].to_bits()) };
                                });
                            }});
                        });
                    });
                    let (seg0, nseg) = split.segments(tile);
                    // SAFETY: `g` is the launch's and `tile` a split tile, below sk_tiles.
                    if unsafe { stream_k_count(&g, tile, nseg) } {
                        const _: () = assert!(($rm * $rn / 4) % SUM_GROUP == 0);
                        let mut q0 = 0;
                        while q0 < $rm * $rn / 4 {
                            // SAFETY: as `stream_k_sum_group` requires (q0 + SUM_GROUP <=
                            // RM * RN / 4, segments visible through `stream_k_count`).
                            let vs = unsafe {
                                stream_k_sum_group::<NT, { BM * BN }>(&g, &split, tile, seg0, nseg, q0)
                            };
                            seq!(Q in 0..8 {{
                                let q = q0 + Q;
                                let (gi, i, h) = (q / 4 / $gb, q / $gb % 4, q % $gb);
                                // SAFETY: as the data-parallel store above.
                                unsafe { store4(&pc, row0 + gi * LY * 4 + i, col0 + h * LX * 4, vs[Q], fast) };
                            }});
                            q0 += SUM_GROUP;
                        }
                        if tid == 0 {
                            // SAFETY: `tile` < sk_tiles: its counter, no longer used this launch.
                            unsafe { st_relaxed_gpu(g.counters.add(tile as usize), 0) };
                        }
                    }
                }
                it = at + ke - kb;
            }
        }
    )*};
}
for_each_flagship_ops!(flagship_ops_kernels);
