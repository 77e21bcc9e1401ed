//! The f32 Floyd–Warshall phases 2–3 with the A operand transposed in shared memory (list word
//! `tgrid`, [`super::float::FwFloatConfig::a_transposed`]); the macros expand in `fw_float.rs`,
//! whose imports their bodies use.
//!
//! Why: the row-major A slice of `fwf_tile_update!` is read 4 k at a time (one 16-byte load per
//! row), so a k step keeps 8 rows × 4 k of A live beside the 64 cells, and the shape needs
//! 130–168 registers: 3 blocks of 128 threads (12 warps) per SM, too few to cover the FADD →
//! FMNMX and shared-load latencies of an issue-bound kernel. Stored k-major (A^T[k][row], as B
//! is), one k needs only two 16-byte loads of A and two of B — the same 4 loads per 64
//! add-mins as before — and 16 operand registers, so the two-own-block shape fits 128
//! registers: 4 blocks (16 warps) per SM with 48 KB of shared memory each.
//!
//! The transpose happens in the copy: 4-byte `cp.async` (through L1, the only way 4-byte copies
//! go), lane `l` of a warp copying row `4·qg + l % 4`, k = `8·kq + l / 4`, so that a warp
//! instruction reads 4 rows × 32 contiguous bytes. A^T rows are 256 bytes, unpadded (the A
//! slice and both B slices fill the 48 KB of static shared memory), the 16-byte quads of row k
//! swizzled by `quad ^ (k % 8)`: the copy's 32 lanes then write 32 different banks, and a
//! thread's quads of row k are `ty ^ (k % 8)` and `8 + (ty ^ (k % 8))`. The product walks k as
//! `8·kk + u`: u (the swizzle) per loop iteration, kk unrolled with immediate offsets; min is
//! exact and order-free, so the result is the same bits as in ascending k.

/// 4 bytes global → shared asynchronously through L1 (`cp.async.ca`, 4-byte copies go no other
/// way).
///
/// # Safety
/// `dst` a 4-byte aligned word of this block's shared memory, `src` a readable, aligned word of
/// global memory; no thread touches `dst` before the copy's group is waited for.
#[inline(always)]
pub(super) unsafe fn cp_async_4(dst: u32, src: *const f32) {
    // SAFETY: the caller's contract.
    unsafe {
        core::arch::asm!("cp.async.ca.shared.global [{d}], [{s}], 4;", d = in(reg32) dst,
            s = in(reg64) src, options(nostack, preserves_flags));
    }
}

/// `own = min(own, A ⊗ B)` for f32 64 x 64 blocks at `$own`, `$a`, `$b` (top-left cells, row
/// pitch `$pitch`), by 8 x 8 threads per own block with 8 x 8 cells each (rows `(R / 4)·32 + 4·ty
/// + R % 4`, columns likewise, as `fwf_tile_update!`), the k range staged `$kc` at a time: A
/// transposed and shared by the `$tl` own blocks of the block (tile `$half`, threads stacked
/// along y), a B slice per own block. `$un` values of the swizzle class u per loop iteration
/// (8 k each). The own cells by row from the thread's first cell with 32-bit offsets, as
/// `lean32`. `$sign`: `any` (one `add_min` per k) or `nonneg` (values in +0 ..= +inf only: two
/// k of a cell per `add_min2_nonneg`, the k steps of an iteration in pairs).
macro_rules! fwf_at_update {
    (($kc:tt, $tl:tt, $un:tt, $sign:ident), $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr, half: $half:expr,
        store: $store:expr) => {{
        const B: u32 = 64;
        const TX: u32 = 8;
        const TY: u32 = 8;
        const ES: u32 = 4;
        const GR: u32 = 4 * TY;
        const GC: u32 = 4 * TX;
        const TILES: u32 = $tl;
        // k per slice, slices (one after the other: copy, wait, barrier, product, barrier),
        // groups of 8 k per slice.
        const KC: u32 = $kc;
        const CHUNKS: u32 = B / KC;
        const KQN: u32 = KC / 8;
        const NT: u32 = TX * TY;
        // Bytes of one A^T / B row (k), of the B slice of one own block.
        const ROW: u32 = B * ES;
        const SB_BYTES: u32 = KC * ROW;
        // A^T copiers: every tile's threads; warps of them, and the row groups of 4 per warp.
        const NWA: u32 = NT * TILES / 32;
        const NJ: u32 = (B / 4) / NWA;
        // B copies: quads per row, rows per step, copies per thread (as the lean copies).
        const QB: u32 = B * ES / 16;
        const RSB: u32 = NT / QB;
        const NB: u32 = KC * QB / NT;
        const _: () = assert!(NJ * NWA * 4 == B && NB <= 16 && NJ <= 16 && B % KC == 0 && KC % 8 == 0);
        const _: () = assert!($un == 1 || $un == 2);
        const NONNEG: bool = fwf_nonneg!($sign);
        const _: () = assert!(!NONNEG || KQN % 2 == 0);
        #[repr(C, align(128))]
        struct ATile([f32; (KC * B) as usize]);
        #[repr(C, align(128))]
        struct BTile([f32; (KC * B * TILES) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();
        let pitch: u32 = $pitch;
        let sa = shared_addr(addr_of!(A_TILE));
        let sb = shared_addr(addr_of!(B_TILE));
        let half: u32 = $half;
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y() - half * TY);
        let t = ty * TX + tx;

        // This thread's first own cell: its rows by multiples of the pitch, its column groups an
        // immediate offset.
        let first = move |p: *mut f32| -> *mut f32 {
            // SAFETY: cell (4·ty, 4·tx) < (B, B) of the B x B block at `p`.
            unsafe { opaque_ptr(p).add(in_block(pitch, 4 * ty, 4 * tx) as usize) }
        };
        let mut cell = [[f32::INFINITY; 8]; 8];
        let mut v = [f32::INFINITY; 4];
        let own0 = first($own);
        seq!(R in 0..8 { seq!(Q in 0..8 {
            if Q % 4 == 0 {
                // SAFETY: cells (i, j..j + 4) of the own block, i = (R / 4)·GR + 4·ty + R % 4 < B,
                // j = (Q / 4)·GC + 4·tx, j + 3 < B, from its cell (4·ty, 4·tx); 16-byte aligned
                // (j a multiple of 4, the pitch a multiple of B). Only this thread stores them,
                // after its load.
                v = unsafe { <f32 as Cell>::ld4_global(own0.add((((R / 4) * GR + R % 4) * pitch) as usize).add(((Q / 4) * GC) as usize)) };
            }
            cell[R][Q] = v[Q % 4];
        }); });

        let (pa, pb): (*mut f32, *mut f32) = (opaque_ptr($a), opaque_ptr($bb));
        // A^T: copier thread ta (warp w, lane l) copies rows 4·(w + NWA·j) + l % 4, slice k =
        // 8·kq + l / 4, to word (k, row) of A_TILE with the row's quad swizzled by k % 8 = l / 4.
        let ta = half * NT + t;
        let (w, l) = (ta / 32, ta % 32);
        let (rr, g) = (l % 4, l / 4);
        // B: this tile's thread t copies quad t % QB of slice rows t / QB + N·RSB.
        let (rb, qb) = (t / QB, t % QB);
        let db = sb + half * SB_BYTES + rb * ROW + qb * 16;
        // k = 8·kk + u of a slice: row k of A^T has this thread's quads at (ty ^ u) and 8 + (ty ^ u).
        let b_row0 = sb + half * SB_BYTES + 16 * tx;
        let mut c = 0;
        while c < CHUNKS {
            if c > 0 {
                // Every thread is done with the previous slice before it is overwritten.
                thread::sync_threads();
            }
            let c0 = c * KC;
            seq!(J in 0..16 {
                if J < NJ {
                    let qg = w + NWA * J;
                    let src = pa.wrapping_add(((4 * qg + rr) * pitch + c0 + g) as usize) as *const f32;
                    let dst = sa + g * ROW + rr * ES + ((qg ^ g) << 4);
                    seq!(KQ in 0..8 {
                        if KQ < KQN {
                            // SAFETY: global: cell (4·qg + rr, c0 + 8·KQ + g) < (B, B) of the A
                            // block (qg < B / 4, c0 + KC <= B), not written in this launch
                            // before the barrier below (phase 3 never writes the pivot column;
                            // phase 2's own block is stored after the product). Shared: word
                            // (8·KQ + g, 4·qg + rr) of A_TILE, its quad swizzled within the row's
                            // 128-byte half (a bijection), copied by this thread only, read after
                            // the wait and barrier below; the barrier above ended every read of
                            // the slice it held before.
                            unsafe { cp_async_4(dst + KQ * 8 * ROW, src.add((KQ * 8) as usize)) };
                        }
                    });
                }
            });
            let gb = in_block(pitch, c0 + rb, qb * 16 / ES);
            seq!(N in 0..16 {
                if N < NB {
                    // SAFETY: row c0 + rb + N·RSB < c0 + KC, quad qb < QB of the B block
                    // (read-only in this launch, as A); this tile's B slice, copied by this
                    // thread only, as for A.
                    unsafe { cp_async_16(db + N * RSB * ROW, pb.add((gb + N * RSB * pitch) as usize) as *const u32) };
                }
            });
            cp_async_wait_all();
            thread::sync_threads();

            let mut u = 0;
            while u < 8 {
                seq!(UN in 0..$un {{
                    let uu = u + UN;
                    let a_u = sa + uu * ROW + ((ty ^ uu) << 4);
                    let b_u = b_row0 + uu * ROW;
                    seq!(KK in 0..8 {{
                        if KK < KQN && !NONNEG {
                            // SAFETY: slice row k = 8·KK + uu < KC of A_TILE, this thread's two
                            // quads (rows 4·ty.. and 32 + 4·ty..); of the B slice, columns
                            // 4·tx.. and 32 + 4·tx..; 16-byte aligned; landed before the barrier
                            // above, not written before the next barrier.
                            let (a0, a1, b0, b1) = unsafe {
                                (
                                    <f32 as Cell>::ld4_shared(a_u + KK * 8 * ROW),
                                    <f32 as Cell>::ld4_shared(a_u + KK * 8 * ROW + 128),
                                    <f32 as Cell>::ld4_shared(b_u + KK * 8 * ROW),
                                    <f32 as Cell>::ld4_shared(b_u + KK * 8 * ROW + 128),
                                )
                            };
                            let a = [a0[0], a0[1], a0[2], a0[3], a1[0], a1[1], a1[2], a1[3]];
                            let b = [b0[0], b0[1], b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]];
                            seq!(R in 0..8 { seq!(Q in 0..8 {
                                cell[R][Q] = <f32 as Cell>::add_min(cell[R][Q], a[R], b[Q]);
                            }); });
                        }
                        if KK < KQN && NONNEG && KK % 2 == 0 {
                            // SAFETY: as above, for slice rows k = 8·KK + uu and 8·(KK + 1) + uu
                            // < KC (KQN is even).
                            let (a0, a1, b0, b1, a2, a3, b2, b3) = unsafe {
                                (
                                    <f32 as Cell>::ld4_shared(a_u + KK * 8 * ROW),
                                    <f32 as Cell>::ld4_shared(a_u + KK * 8 * ROW + 128),
                                    <f32 as Cell>::ld4_shared(b_u + KK * 8 * ROW),
                                    <f32 as Cell>::ld4_shared(b_u + KK * 8 * ROW + 128),
                                    <f32 as Cell>::ld4_shared(a_u + (KK + 1) * 8 * ROW),
                                    <f32 as Cell>::ld4_shared(a_u + (KK + 1) * 8 * ROW + 128),
                                    <f32 as Cell>::ld4_shared(b_u + (KK + 1) * 8 * ROW),
                                    <f32 as Cell>::ld4_shared(b_u + (KK + 1) * 8 * ROW + 128),
                                )
                            };
                            let a = [a0[0], a0[1], a0[2], a0[3], a1[0], a1[1], a1[2], a1[3]];
                            let b = [b0[0], b0[1], b0[2], b0[3], b1[0], b1[1], b1[2], b1[3]];
                            let a_ = [a2[0], a2[1], a2[2], a2[3], a3[0], a3[1], a3[2], a3[3]];
                            let b_ = [b2[0], b2[1], b2[2], b2[3], b3[0], b3[1], b3[2], b3[3]];
                            seq!(R in 0..8 { seq!(Q in 0..8 {
                                cell[R][Q] = add_min2_nonneg(cell[R][Q], a[R], b[Q], a_[R], b_[Q]);
                            }); });
                        }
                    }});
                }});
                u += $un;
            }
            c += 1;
        }

        if $store {
            let own0 = first($own);
            seq!(R in 0..8 { seq!(Q in 0..8 {
                v[Q % 4] = cell[R][Q];
                if Q % 4 == 3 {
                    // SAFETY: the 4 own cells this thread loaded at the start (same rows and
                    // columns from the same first cell), stored by it only, after every thread
                    // read its operands (the barrier above).
                    unsafe { <f32 as Cell>::st4_global(own0.add((((R / 4) * GR + R % 4) * pitch) as usize).add(((Q / 4) * GC) as usize), v) };
                }
            }); });
        }
    }};
}

/// Phases 2 and 3 of one `tgrid` or `tgridnn` list row (f32, 8 x 8 threads of 8 x 8 cells per
/// own block, k slices `$kc` deep, `$tl` own blocks per phase-3 block, `$un` swizzle classes per
/// iteration (`$un2` in phase 2), `$sign` `any` or `nonneg`).
macro_rules! fwf_at_kernels {
    ($p2:ident, $p3:ident, $kc:tt, $tl:tt, $un:tt, $un2:tt, $sign:ident) => {
        /// Phase 2 (A transposed): as `fwf32_phase2_b64`, one own block per block, `$un2`
        /// swizzle classes per iteration; one k per add-min whatever `$sign` says (phase 2 is
        /// 2 (rounds − 1) blocks a round against phase 3's (rounds − 1)², and the pairs spill in
        /// it under the 128-register cap, as a 32-deep slice with `$un2` = 2 does).
        ///
        /// # Safety
        /// As phase 1 (`fwf32_phase1_b64`), with this variant's block of threads.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p2(d: *mut f32, pitch: u32, round: u32) {
            if thread::block_idx_x() == round {
                return;
            }
            let own = move || {
                let x = thread::block_idx_x();
                let (bi, bj) = if thread::block_idx_y() == 0 { (round, x) } else { (x, round) };
                block_ptr::<f32, 64>(d, pitch, bi, bj)
            };
            let pivot = block_ptr::<f32, 64>(d, pitch, round, round);
            let in_row = thread::block_idx_y() == 0;
            let a = if in_row { pivot } else { own() };
            let b = if in_row { own() } else { pivot };
            fwf_at_update!(($kc, 1, $un2, any), pitch, own: own(), a: a, b: b, half: 0, store: true);
        }

        /// Phase 3 (A transposed): every block outside the pivot row and column, `$tl` own
        /// blocks of a block row per block (as the `grid` kernels).
        ///
        /// # Safety
        /// As phase 1.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p3(d: *mut f32, pitch: u32, round: u32) {
            const TILES: u32 = $tl;
            // (own block column, tile of this thread, whether it stores), as the grid kernel.
            let col = move || {
                if TILES == 1 {
                    return (thread::block_idx_x(), 0, true);
                }
                let off = thread::grid_dim_y() - 1;
                let j0 = thread::block_idx_x() * TILES;
                let half = thread::thread_idx_y() / 8;
                let (j, store) = if j0 + half < off { (j0 + half, true) } else { (j0, false) };
                (if j < round { j } else { j + 1 }, half, store)
            };
            let bi = thread::block_idx_y();
            let (bj, half, _) = col();
            if bi == round || bj == round || (TILES > 1 && thread::block_idx_x() * TILES >= thread::grid_dim_y() - 1) {
                return;
            }
            let own = || block_ptr::<f32, 64>(d, pitch, thread::block_idx_y(), col().0);
            fwf_at_update!(($kc, $tl, $un, $sign), pitch, own: own(),
                a: block_ptr::<f32, 64>(d, pitch, bi, round),
                b: block_ptr::<f32, 64>(d, pitch, round, bj),
                half: half, store: col().2);
        }
    };
}
