//! The TF32 kernel for A and B row-major with no split pass (`BMajor::N` rows of the f32 list,
//! `tf32.rs`). `wgmma` with TF32 operands reads shared memory K-major only, and B row-major is
//! N-major; but wgmma's *A* operand may come from registers, in any order the threads load it.
//! So the kernel computes Cᵀ = Bᵀ·Aᵀ: Bᵀ (`n x k`) is wgmma's A, loaded by each consumer from B's
//! tile as TMA wrote it (k rows of n, 128-byte swizzle) with `ld.shared.v2` and rounded with
//! `cvt.rna.tf32.f32` (what the split pass does, so the products equal the split path's); A
//! (`m x k`, K-major) is wgmma's B operand from shared memory as in the other kernels. The
//! accumulator fragment is Cᵀ's, so the epilogue stores it transposed.
//!
//! Tile: 256 rows of C (m, wgmma's n256) by 128 columns (n: two consumers of m64 of Cᵀ). A slice
//! holds B's `BK x 128` as four 32-column boxes (4 KB each) and A's `256 x BK` (32 KB): 48 KB,
//! as the other TF32 kernel's. Rows of the m64 fragment are mapped to columns of B so that
//! (1) each thread's two rows (`l/4` and `l/4 + 8`) are neighbouring columns, read by one 8-byte
//! load and stored by one 8-byte store, and (2) the 16 threads of a half-warp, reading 4 k rows
//! (`l%4`) of 8 columns each, hit 8 distinct 16-byte chunks of the swizzled rows: no bank
//! conflicts (see [`Frag`]).
use core::arch::asm;

use cuda_std::kernel;
use seq_macro::seq;

use super::asm90::{
    acc_regs, desc_128b, fence_tensormap, setmaxnreg_dec, setmaxnreg_inc, tma_load_2d,
    wgmma_commit, wgmma_fence, wgmma_m64n256k8_tf32_rs, wgmma_wait,
};
use super::epilogue::Out;
use super::pipeline::{Ring, Walk, consume, produce};
use super::stream_k::StreamK;
use super::tf32::{
    TF32_BK, TF32_CONSUMERS, TF32_ROWS_BOX_N, TF32_ROWS_CONSUMER_REGISTERS,
    TF32_ROWS_PRODUCER_REGISTERS, Tf32Params,
};
use crate::ptx::{fresh_tid_x, ld_shared};

/// One 128-byte-swizzle atom: 8 rows of 128 bytes.
const ATOM: u32 = 1024;
/// Bytes of one tensor map.
const MAP_BYTES: usize = 128;
/// Bytes of one box of B: `TF32_ROWS_BOX_N` columns (128 bytes) by `TF32_BK` k rows.
const BOX_BYTES: u32 = TF32_ROWS_BOX_N * TF32_BK * 4;

/// Where this thread's fragment of Bᵀ and of Cᵀ lies (all from `%tid.x`, recomputed where used
/// so that nothing stays live beside the accumulators).
///
/// Consumer `cw`, warp `w`, lane `l` (`g = l/4`, `t = l%4`) holds rows `g` and `g + 8` of its
/// warp's 16 rows of the m64 fragment. They are columns `col` and `col + 1` of the tile's 128,
/// `col = 32·box + 4·chunk + 2·(g%2)` with `box = 2·cw + w/2` (of the four boxes) and
/// `chunk = 2·(w%2) + g/4 + 4·((g%4)/2)` (16-byte chunk of the box's 128-byte rows). A half-warp
/// (`g/4` fixed) reads k rows `t` (or `t + 4`) of chunks `c0` and `c0 + 4` (`c0 = 2·(w%2) + g/4`):
/// the swizzle puts chunk `c` of row `r` at `c ^ (r % 8)`, so its 8 (chunk, row) pairs land on 8
/// distinct chunks, i.e. all 32 banks.
struct Frag;

impl Frag {
    /// (consumer, warp, g, t).
    #[inline(always)]
    fn ids() -> (u32, u32, u32, u32) {
        let tid = fresh_tid_x();
        let lane = tid % 32;
        (tid / 128 - 1, (tid % 128) / 32, lane / 4, lane % 4)
    }

    /// (box, chunk, word): this thread's 16-byte chunk and its first word in it (0 or 2).
    #[inline(always)]
    fn place() -> (u32, u32, u32) {
        let (cw, w, g, _) = Self::ids();
        (
            2 * cw + w / 2,
            2 * (w % 2) + g / 4 + 4 * ((g % 4) / 2),
            2 * (g % 2),
        )
    }

    /// The shared addresses of this thread's two 8-byte pieces of k step 0 in a slot: k row `t`
    /// (fragment words 0, 1) and `t + 4` (words 2, 3). Step `kk` is `kk` atoms further.
    #[inline(always)]
    fn at(slot: u32) -> (u32, u32) {
        let (_, _, _, t) = Self::ids();
        let (bx, chunk, word) = Self::place();
        let base = slot + bx * BOX_BYTES + 4 * word;
        let x = chunk ^ t;
        (base + t * 128 + 16 * x, base + (t + 4) * 128 + 16 * (x ^ 4))
    }

    /// The first of this thread's two neighbouring columns of C in the tile.
    #[inline(always)]
    fn col() -> u32 {
        let (bx, chunk, word) = Self::place();
        TF32_ROWS_BOX_N * bx + 4 * chunk + word
    }

    /// The first of this thread's rows of C in the tile (then +1, +8, +9, …).
    #[inline(always)]
    fn row() -> u32 {
        let (_, _, _, t) = Self::ids();
        2 * t
    }
}

/// A word of B rounded to TF32 as the split pass rounds (`cvt.rna.tf32.f32`, as
/// `asm90::tf32_rna`). Not `pure`: an asm with side effects stays in program order with the other
/// ones, so every rounding is done before `wgmma_fence` (wgmma reads these registers, and PTX
/// wants their writes before the fence; a pure asm could be scheduled after it).
#[inline(always)]
fn rna(x: u32) -> u32 {
    let r: u32;
    // SAFETY: a register conversion; touches no memory.
    unsafe {
        asm!("cvt.rna.tf32.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x,
             options(nostack, preserves_flags));
    }
    r
}

/// One slice of a consumer: each k8 step loads its fragment of Bᵀ (4 registers), rounds it and
/// issues its `wgmma` as a group of its own, then waits until only that group is in flight. So
/// at most two steps' fragments are live (8 registers beside the 128 accumulators: ptxas holds
/// this kernel's consumers at 168, docs/sm90.md, Session 18) while the tensor core always has
/// this warp group's next step queued (session 8's kernel retired two halves of a slice in turn,
/// draining it between them). The slice's last step is left in flight: `consume` waits at depth
/// 1 (retiring the step before it) and releases the slot once that last step retired too.
///
/// # Safety
/// `slot` is a full slot of the ring (not yet released), `bt_bytes` its B part.
#[inline(always)]
unsafe fn rows_slice_rolling(acc: &mut [u32; 128], slot: u32, bt_bytes: u32, first: bool) {
    let (f0, f1) = Frag::at(slot);
    let b = slot + bt_bytes;
    seq!(Q in 0..4 {
        // SAFETY: inside the slot's boxes (`Frag`), full (the caller).
        let (lo, hi) = unsafe { (ld_shared::<2>(f0 + Q * ATOM), ld_shared::<2>(f1 + Q * ATOM)) };
        let frag = [rna(lo[0]), rna(lo[1]), rna(hi[0]), rna(hi[1])];
        wgmma_fence();
        let scale = if Q == 0 && first { 0u32 } else { 1u32 };
        // K-major A (wgmma's B), 128-byte swizzle: a k8 step is 32 bytes along the row.
        let db = desc_128b(b + 32 * Q, 16, ATOM);
        // SAFETY: the descriptor addresses the slot's A part (the caller); the fence above
        // orders the fragment's writes before the wgmma that reads it.
        unsafe {
            wgmma_m64n256k8_tf32_rs!((*acc), frag, db, scale);
        }
        wgmma_commit();
        if Q < 3 {
            wgmma_wait::<1>();
        }
    });
}

/// Stores a consumer's accumulators, Cᵀ's fragment of the tile at (`n0`, `m0`), into C.
/// Fragment element (row r, column 8J + 2t + e) of Cᵀ, r = g + 8I, is C's row m0 + 8J + 2t + e,
/// column n0 + col + I; the two I are neighbours in C's row. Where all 64 rows and the pair are
/// inside C (with 8-byte pairs and beta 0), one address and a row step instead of a check per
/// pair (epilogue.rs).
///
/// # Safety
/// Every wgmma writing `acc` has retired; the caller owns these elements of C (the stream-K
/// contract).
#[inline(always)]
unsafe fn store_ct(out: &Out, pairs: bool, acc: &[u32; 128], n0: u32, m0: u32) {
    let (row0, col) = (m0 + Frag::row(), n0 + Frag::col());
    // SAFETY: the caller's contract; `Out` checks each element against C's bounds (or, on the
    // fast path, `whole` did for all of them).
    unsafe {
        if out.whole(pairs, row0 + 8 * 31 + 1, col + 1) {
            let (p, ld) = (out.at(row0, col), out.ldc as usize);
            seq!(J in 0..32 {
                seq!(E in 0..2 {
                    out.put_pair(p.wrapping_add((8 * J + E) * ld), acc[J * 4 + E], acc[J * 4 + 2 + E]);
                });
            });
        } else {
            seq!(J in 0..32 {
                seq!(E in 0..2 {
                    out.store_pair(pairs, row0 + 8 * J + E, col, acc[J * 4 + E], acc[J * 4 + 2 + E]);
                });
            });
        }
    }
}

macro_rules! tf32_rows_kernels {
    ($(($name:ident, $kind:ident, $major:ident, $bm:literal, $bn:literal, $stages:literal, $depth:tt)),* $(,)?) => {$(
        tf32_rows_kernels!(@kernel $major, $name, $bm, $bn, $stages, $depth);
    )*};
    // K-major B: `tf32_kernel.rs`.
    (@kernel K, $($rest:tt)*) => {};
    (@kernel L, $($rest:tt)*) => {};
    (@kernel H, $($rest:tt)*) => {};
    (@kernel N, $name:ident, $bm:literal, $bn:literal, $stages:literal, 1) => {
        /// # Safety
        /// `p` must satisfy the [`Tf32Params`] contract for this kernel (map 0 over B `k x n`
        /// row-major, map 1 over A `m x k` row-major, C of `m x n`), and the launch must use
        /// 384 threads, any number of blocks (block `b` computes tiles `b, b + grid, …` of Cᵀ)
        /// and the config's `shared_bytes` of dynamic shared memory: every shared address below
        /// is inside it.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: Tf32Params) {
            /// Rows of C (m) per tile: wgmma's n.
            const BM: u32 = $bm;
            /// Columns of C (n) per tile: the two consumers' m64 of Cᵀ.
            const BN: u32 = $bn;
            const STAGES: u32 = $stages;
            /// B's tile (wgmma's A): BN / TF32_ROWS_BOX_N boxes.
            const BT_BYTES: u32 = BN * TF32_BK * 4;
            const STAGE_BYTES: u32 = BT_BYTES + BM * TF32_BK * 4;
            const _: () = assert!(BN == 4 * TF32_ROWS_BOX_N && BN == 64 * TF32_CONSUMERS);
            // SAFETY: the dynamic shared memory holds the ring (the launch contract); every
            // thread calls this first.
            let ring = unsafe { Ring::<STAGES>::new(STAGE_BYTES, TF32_CONSUMERS) };
            // The walk over Cᵀ (n x m): tiles of BN rows of n by BM columns of m, so a unit's
            // origin is (n0, m0).
            let walk = Walk::new(p.n, p.m, p.k, BN, BM, TF32_BK, p.group, p.sk_tiles, p.sk_last);
            let tid = fresh_tid_x();
            if tid / 128 == 0 {
                setmaxnreg_dec::<TF32_ROWS_PRODUCER_REGISTERS>();
                if tid == 0 {
                    // SAFETY: the tensor maps are 128-byte blocks of global memory (the
                    // contract); a slice's boxes (four of B, BK rows by 32 columns each, then
                    // A's BK x BM) fill exactly STAGE_BYTES of the 1024-byte aligned slot, each
                    // box at a multiple of 1024 bytes, and complete on its barrier.
                    unsafe {
                        fence_tensormap(p.tmaps);
                        fence_tensormap(p.tmaps.add(MAP_BYTES));
                        produce(ring, walk, STAGE_BYTES, |slot, bar, kt, n0, m0| {
                            seq!(J in 0..4 {
                                tma_load_2d(slot + J * BOX_BYTES, p.tmaps, n0 + J * TF32_ROWS_BOX_N, kt * TF32_BK, bar);
                            });
                            tma_load_2d(slot + BT_BYTES, p.tmaps.add(MAP_BYTES), kt * TF32_BK, m0, bar);
                        });
                    }
                }
            } else {
                setmaxnreg_inc::<TF32_ROWS_CONSUMER_REGISTERS>();
                let sk = StreamK::new(p.work, walk);
                let mut acc = [0u32; 128];
                // SAFETY: the fragment loads and the descriptor address the slot the pipeline
                // hands over (full, not yet released; the addresses are inside its boxes,
                // `Frag`); wgmma_fence separates each step's fragment writes (and the
                // epilogue's reads of the accumulators) from its wgmma, and a step's fragment
                // registers stay untouched until the wait after the next step retires it
                // (ptxas sees the wgmma reading them until that wait); a slot is released after
                // its last step retired (`consume` at depth 1); the epilogue runs after every
                // wgmma retired, in every thread of the warp group for the same unit (the
                // stream-K contract; `work` is the launch's), and each element of C has one
                // owner thread.
                unsafe {
                    consume::<STAGES, 1, _>(
                        ring,
                        walk,
                        tid % 128 == 0,
                        &mut acc,
                        |acc, slot, first| rows_slice_rolling(acc, slot, BT_BYTES, first),
                        |_, _| {},
                        |acc, u| {
                            sk.finish(acc, u, |acc, n0, m0| {
                                // C's view made here: nothing of it stays live through the k
                                // loop beside the accumulators and fragments.
                                let out = Out { c: p.c, m: p.m, n: p.n, ldc: p.ldc, alpha: p.alpha, beta: p.beta };
                                store_ct(&out, out.pairs(), acc, n0, m0)
                            })
                        },
                    );
                }
            }
        }
    };
}

crate::for_each_wgmma_tf32!(tf32_rows_kernels);
