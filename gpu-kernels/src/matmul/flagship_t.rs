//! The batched flagship with transposed operations (issue #20, session 9): the tuned body of
//! `flagship.rs` (whose notes apply: warp tiles, the transposed A slice, the pipeline, the
//! register-double-buffered fragments, edges, rasterization, stream-K), problem `blockIdx.y`
//! of a strided batch, with the copies of `op(A) = T` and `op(B) = T`:
//! - A stored `k x m` (`op(A) = T`) is contiguous along m, as the shared slice `As[k][m]` is:
//!   it is copied straight, as the N,N kernels copy B (16-byte pieces with `vec_b`).
//! - B stored `n x k` (`op(B) = T`) is contiguous along k: it is copied transposing, as the
//!   N,N kernels copy A (a warp reads 4 rows x 8 consecutive k in 4-byte `cp.async` copies),
//!   into a slice of pitch `BN + 4` (`≡ 4 mod 32` words: the 32 writes hit 32 banks).
//!
//! A copy of `flagship.rs`'s unit set-up and copies rather than constant branches in them:
//! with the branches, the N,N kernels' PTX changed (FMA operand order, register numbering)
//! although their code did not, and their performance rests on ptxas's allocation of exactly
//! that PTX (docs/matmul.md, "What limits it at 4096"). Kept in step with `flagship.rs` by
//! hand; the parts that are the same text in both, the k-loop (`flagship_k_loop!`) and the
//! unit's end (`flagship_unit_end!`, `fbase!`), are shared macros that expand to the tokens
//! each file held. The N,N rows of `for_each_flagship_batched!` run `flagship.rs`'s body.
use cuda_std::{kernel, shared::dynamic_shared_mem, thread};
use seq_macro::seq;

use super::ffma_order::{ffma_order, order_is_permutation};
use super::flagship_epilogue::{
    ld_global1, ld_global4, partial_index, store4, stream_k_count, stream_k_sum, tile_origin,
};
use super::stream_k::Split;
use super::{FfmaOrder, Op, SgemmOpsParams, SgemmParams};
use crate::ptx::{
    cp_async_ca4, cp_async_cg16, cp_async_commit, cp_async_wait, fresh_ctaid_x, fresh_ctaid_y,
    fresh_tid_x, ld_shared, shared_addr, st_global_cg, st_relaxed_gpu, st_shared,
};

/// One entry: takes [`SgemmOpsParams`] and computes problem `blockIdx.y` of a strided batch.
/// `$p` and `$q` are the body's names for the parameters.
macro_rules! flagship_t_entry {
    ($name:ident, $p:ident, $q:ident, $body:block) => {
        /// # Safety
        /// `bq.g` must satisfy the [`SgemmParams`] contract for problem 0 with this kernel's
        /// operations (A stored `k x m` when `op(A) = T`, B stored `n x k` when `op(B) = T`,
        /// leading dimensions at least the stored widths), every problem `z < gridDim.y` at
        /// `a + z * stride_a` (and likewise B, C) inside its buffer, no C overlapping an A or B
        /// and no two problems' C overlapping; with `vec_b`, the straight-copied operands'
        /// leading dimensions and strides multiples of 4 and their buffers 16-byte aligned
        /// (with `vec_a` alone, A's);
        /// stream-K (`sk_blocks > 0`, `partials` and zeroed `counters` as for the flagship)
        /// only with `gridDim.y == 1`. Launched with this kernel's threads, the grid
        /// `Split::grid` x batch and `FlagshipOpsConfig::shared_bytes` of dynamic shared
        /// memory: every shared address below is inside it and every global one inside the
        /// matrices.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name($q: SgemmOpsParams) {
            let $p = $q.g;
            $body
        }
    };
}

macro_rules! flagship_t_kernels {
    ($oa:ident, $ob:ident; $(($name:ident { tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
        stages: $st:tt, vec_b: $vec:tt, thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt,
        a_copies: $al:tt, b_copies: $bl:tt, ffma_order: $ord:ident $(, vec_a: $va:tt)? })),* $(,)?) => {$(
        flagship_t_entry! { $name, p, bq, {
            flagship_tile_consts! { tile: $bm x $bn x $bk, warps: $wm x $wn, lanes: $ly x $lx,
                stages: $st, vec_b: $vec, thread_tile: $rm x $rn, groups: $ga x $gb,
                a_copies: $al, b_copies: $bl, ffma_order: $ord, pitch_b: BP }
            /// A stored `k x m` (TA) copied in 16-byte pieces: with `VEC`, or alone where a row
            /// says `vec_a: true` (the `_ub_fl` kernels: A's rows aligned, B's not).
            const VEC_A: bool = VEC $(|| $va)?;
            /// `op(A) = T` (A stored `k x m`, copied straight) and `op(B) = T` (B stored
            /// `n x k`, copied transposing); both false in the plain and N,N batched kernels,
            /// whose code the constant branches below leave as it was.
            const TA: bool = Op::$oa.is_t();
            const TB: bool = Op::$ob.is_t();
            /// Row pitch of the B slice: `BN + 4` when B is stored transposed into it (the
            /// transposing writes then hit 32 distinct banks, as A's), else `BN`.
            const BP: u32 = if TB { BN + 4 } else { BN };
            /// A copied straight (TA): pieces of `AW` floats, `APR` per slice row, slice rows
            /// `A_ROW_STEP` apart between a thread's copies, `A_COPIES` copies per thread.
            const AW: u32 = if VEC_A { 4 } else { 1 };
            const APR: u32 = BM / AW;
            const A_ROW_STEP: u32 = NT / APR;
            const A_COPIES: u32 = BK * APR / NT;
            /// B copied transposing (TB), as A is in the N,N kernels: `IPK_B` rows per 8-k
            /// group, `4 * NW` rows apart, `BT_COPIES` copies per thread.
            const IPK_B: u32 = BN / 4 / NW;
            const BT_COPIES: u32 = IPK_B * (BK / 8);
            // The transposed operations' copies, unrolled over at most 16 (`seq!` below).
            const _: () = {
                assert!(!TA || (NT % APR == 0 && A_COPIES * NT == BK * APR && A_COPIES <= 16));
                assert!(!TB || (IPK_B * NW * 4 == BN && BT_COPIES <= 16));
            };

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
                        a_src[(I % IPK) as usize] = unsafe { fbase!(batched, p, bq, a, stride_a).add(row as usize * lda + a_k0 as usize) };
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
                let b_src = unsafe { fbase!(batched, p, bq, b, stride_b).add(b_row as usize * ldb + b_col_addr as usize) };
                let b_step = B_ROW_STEP as usize * ldb;
                let b_dst = smem + A_BYTES + 4 * (b_row * BN + tid % BPR * BW);
                // The transposed operations' copies. Each is computed under its constant (`TA`,
                // `TB`), so the N,N kernels' code never holds it, not even as dead values that
                // could reorder what ptxas allocates (their PTX stays as it was).
                //
                // TA: A stored `k x m` is copied as B is above: piece column `tid % APR`, slice
                // rows `at_row + I * A_ROW_STEP`; pieces past m read nothing. The pointer is
                // formed with `wrapping_add`: for K <= at_row it is past A and only read where
                // the k check below passes.
                let (at_row, at_bytes, at_col_addr, at_src, at_dst) = if TA {
                    let at_col = m0 + tid % APR * AW;
                    let at_row = tid / APR;
                    let at_bytes = if at_col >= m {
                        0
                    } else if m - at_col >= AW {
                        4 * AW
                    } else {
                        4 * (m - at_col)
                    };
                    let at_col_addr = if at_bytes == 0 { (m - 1) / AW * AW } else { at_col };
                    let at_src = fbase!(batched, p, bq, a, stride_a)
                        .wrapping_add(at_row as usize * lda + at_col_addr as usize);
                    (at_row, at_bytes, at_col_addr, at_src, smem + 4 * (at_row * AP + tid % APR * AW))
                } else {
                    (0, 0, 0, core::ptr::null(), 0)
                };
                // TB: B stored `n x k` is copied as A is above, lane row `4 * warp + lane / 8`
                // of the tile's rows (its columns of op(B)), k `bt_k = lane % 8`. One row
                // pointer and a row step, not one clamped pointer per row (up to 8 with 256
                // columns, held through the main loop): `bt_rows` of the `IPK_B` rows are
                // inside B; the others read row `bt0` (clamped below n) in full slices, whose
                // values feed only columns of C that are never stored, and nothing in the
                // partial one.
                let (bt_k, bt_rows, bt_src, bt_step, bt_dst) = if TB {
                    let bt_row = 4 * warp + lane / 8;
                    let bt_k = lane % 8;
                    let inside = n0 + bt_row < n;
                    let bt_rows = if inside { (n - n0 - bt_row).div_ceil(4 * NW) } else { 0 };
                    let bt0 = if inside { n0 + bt_row } else { n - 1 };
                    let bt_src = fbase!(batched, p, bq, b, stride_b)
                        .wrapping_add(bt0 as usize * ldb + bt_k as usize);
                    let bt_dst = smem + A_BYTES + 4 * (bt_k * BP + bt_row);
                    (bt_k, bt_rows, bt_src, 4 * NW as usize * ldb, bt_dst)
                } else {
                    (0, 0, core::ptr::null(), 0, 0)
                };

                // Issues the copies of k-slice `t` into the stage at byte offset `stage`.
                let load_tile = |t: u32, stage: u32| {
                    let k0 = t * BK;
                    if t < kfull {
                        if TA {
                            seq!(I in 0..16 {
                                if I < A_COPIES {
                                    let src = at_src.wrapping_add((k0 + I * A_ROW_STEP) as usize * lda);
                                    let dst = at_dst + stage + 4 * I * A_ROW_STEP * AP;
                                    if VEC_A {
                                        // SAFETY: `dst`: piece tid % APR of slice row at_row + I * A_ROW_STEP <
                                        // BK, inside this stage's A slice and 16-byte aligned (AP and the column
                                        // multiples of 4); `src` has `at_bytes` readable bytes of row k0 + at_row +
                                        // I * A_ROW_STEP < K (a full slice) of the stored k x m A, columns below
                                        // m, aligned (VEC_A: lda and the stride multiples of 4, A aligned). Ordered
                                        // as the N,N copies.
                                        unsafe { cp_async_cg16(dst, src, at_bytes) };
                                    } else {
                                        // SAFETY: as above with 4-byte pieces: `src` readable when `at_bytes` is 4.
                                        unsafe { cp_async_ca4(dst, src, at_bytes) };
                                    }
                                }
                            });
                        } else {
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
                        }
                        if TB {
                            seq!(I in 0..16 {{
                                const ROW: u32 = I % IPK_B;
                                const KG: u32 = I / IPK_B;
                                if I < BT_COPIES {
                                    let row = if ROW < bt_rows { ROW as usize * bt_step } else { 0 };
                                    let src = bt_src.wrapping_add(row + (k0 + 8 * KG) as usize);
                                    let dst = bt_dst + stage + 4 * (8 * KG * BP + 4 * NW * ROW);
                                    // SAFETY: `dst` is inside this stage's B slice (k row bt_k + 8 * KG < BK of
                                    // pitch BP, column bt_row + 4 * NW * ROW < BN); `src` is a cell of the stored
                                    // n x k B: row n0 + bt_row + 4 * NW * ROW < n, or row bt0 < n, at k0 + 8 *
                                    // KG + bt_k < k0 + BK <= K. Ordered as the N,N copies.
                                    unsafe { cp_async_ca4(dst, src, 4) };
                                }
                            }});
                        } else {
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
                        }
                    } else {
                        // The last, partial slice: k past K reads nothing (address kept valid).
                        if TA {
                            seq!(I in 0..16 {
                                if I < A_COPIES {
                                    let ok = k0 + at_row + I * A_ROW_STEP < k;
                                    let src = if ok {
                                        at_src.wrapping_add((k0 + I * A_ROW_STEP) as usize * lda)
                                    } else {
                                        fbase!(batched, p, bq, a, stride_a).wrapping_add(at_col_addr as usize)
                                    };
                                    let bytes = if ok { at_bytes } else { 0 };
                                    let dst = at_dst + stage + 4 * I * A_ROW_STEP * AP;
                                    if VEC_A {
                                        // SAFETY: `src` has `bytes` readable, aligned bytes (row below K, or 0
                                        // bytes at column `at_col_addr` < m of A's first row); `dst` as in the full
                                        // slice.
                                        unsafe { cp_async_cg16(dst, src, bytes) };
                                    } else {
                                        // SAFETY: as above with 4-byte pieces.
                                        unsafe { cp_async_ca4(dst, src, bytes) };
                                    }
                                }
                            });
                        } else {
                            seq!(I in 0..$al {{
                                const ROW: u32 = I % IPK;
                                const KG: u32 = I / IPK;
                                let ok = k0 + 8 * KG + a_k0 < k;
                                let src = if ok {
                                    // SAFETY: `ok`: k0 + 8 * KG + a_k0 < K, so the source is inside row
                                    // `row` of A.
                                    unsafe { a_src[ROW as usize].add((k0 + 8 * KG) as usize) }
                                } else {
                                    fbase!(batched, p, bq, a, stride_a)
                                };
                                let dst = a_dst + stage + 4 * (8 * KG * AP + 4 * NW * ROW);
                                // SAFETY: `src` is a readable cell of A when `ok`, else nothing is read
                                // (0 bytes, the address `p.a` kept valid); `dst` as in the full slice.
                                unsafe { cp_async_ca4(dst, src, if ok { 4 } else { 0 }) };
                            }});
                        }
                        if TB {
                            seq!(I in 0..16 {{
                                const ROW: u32 = I % IPK_B;
                                const KG: u32 = I / IPK_B;
                                if I < BT_COPIES {
                                    let ok = ROW < bt_rows && k0 + 8 * KG + bt_k < k;
                                    let src = if ok {
                                        bt_src.wrapping_add(ROW as usize * bt_step + (k0 + 8 * KG) as usize)
                                    } else {
                                        fbase!(batched, p, bq, b, stride_b)
                                    };
                                    let dst = bt_dst + stage + 4 * (8 * KG * BP + 4 * NW * ROW);
                                    // SAFETY: `src` is a cell of B when `ok` (row below n, k below K), else
                                    // nothing is read (0 bytes, B's base kept as a valid address); `dst` as in
                                    // the full slice.
                                    unsafe { cp_async_ca4(dst, src, if ok { 4 } else { 0 }) };
                                }
                            }});
                        } else {
                            seq!(I in 0..$bl {
                                let ok = k0 + b_row + I * B_ROW_STEP < k;
                                let src = if ok {
                                    // SAFETY: `ok`: row k0 + b_row + I * B_ROW_STEP < K, column
                                    // b_col_addr < n: inside B.
                                    unsafe { b_src.add(k0 as usize * ldb + I * b_step) }
                                } else {
                                    // SAFETY: column `b_col_addr` < n of B's first row: a valid
                                    // (aligned) address; nothing is read from it.
                                    unsafe { fbase!(batched, p, bq, b, stride_b).add(b_col_addr as usize) }
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
                    }
                };

                flagship_k_loop!(smem, kb, ke, load_tile, a_frag, b_frag, acc;
                    pitch_b: BP, stages: $st, bk: $bk, thread_tile: $rm x $rn, groups: $ga x $gb,
                    ffma_order: $ord);
                flagship_unit_end!(batched, p, bq, smem, split, acc, it;
                    size: m x n, ktiles: ktiles, thread_tile: $rm x $rn, groups: $ga x $gb);
            }
        }}
    )*};
}

/// The batched kernels with a transposed operation (`FLAGSHIP_BATCHED`'s rows other than N,N):
/// each row's `ops` passed as the body's `TA`, `TB`.
macro_rules! flagship_t_batched_kernels {
    ($(($name:ident { ops: $oa:ident x $ob:ident, $($rest:tt)* })),* $(,)?) => {$(
        flagship_t_one!($oa, $ob, ($name { $($rest)* }));
    )*};
}
macro_rules! flagship_t_one {
    (N, N, $row:tt) => {};
    ($oa:ident, $ob:ident, $row:tt) => {
        flagship_t_kernels!($oa, $ob; $row);
    };
}
for_each_flagship_batched!(flagship_t_batched_kernels);
// After the batched rows, so that every kernel before comes out as it was.
for_each_flagship_t_u!(flagship_t_batched_kernels);
