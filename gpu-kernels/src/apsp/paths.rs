//! Blocked Floyd–Warshall carrying a path matrix (`host apsp --paths`): successors or
//! predecessors (`mode`, [`PATHS_MODE_SUCCESSORS`] / [`PATHS_MODE_PREDECESSORS`]) in a second
//! int32 matrix `p` with the pitch of the distances `d`. The rule is the CPU reference's (`rgk_core::apsp::paths::cpu`):
//! when `d[i][k] + d[k][j] < d[i][j]`, `p[i][j] = p[i][k]` (successors) or `p[k][j]`
//! (predecessors).
//!
//! Phase 1 is the distance kernels' in-place k loop with a shared tile of path cells beside the
//! distances. Phases 2–3 keep the distance kernels' inner loop, one add-min per update, on
//! packed operands (see [`super::PATHS_CODE_BITS`]): the minimum's low bits name the first k
//! that attains it, and only cells that improved read one path cell and write one (predicated,
//! no branch per cell). The path matrix costs no work per update, only per cell. Phase 2 also
//! writes its blocks packed into strips (`s`, [`super::paths_strip_words`]) from which phase 3
//! copies its operands as they are, with no packing pass.
use core::arch::asm;
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::fw::{lds, sts};
use super::offsets::{block_at, in_block};
use super::{
    PATHS_CODE_BITS, PATHS_INF_PACKED, PATHS_MODE_PREDECESSORS, PATHS_MODE_PREFETCH,
    PATHS_MODE_SUCCESSORS,
};
use crate::ptx::{
    cp_async_16, cp_async_wait_all, ld_global, ld_global_v4, ld_shared, shared_addr, st_global,
    st_shared,
};

/// A path cell that a thread leaves as it is (no path cell is negative but the two "none").
pub(super) const UNCHANGED: u32 = i32::MIN as u32;
/// Mask of the code bits of a packed value.
pub(super) const CODE_MASK: u32 = (1 << PATHS_CODE_BITS) - 1;
// `st_global_changed` tests for this value as an immediate.
const _: () = assert!(UNCHANGED == 0x8000_0000);

/// `min(c, a + b)` on u32 as one inline-PTX block (packed operands; see `add_min` for why
/// one block).
#[inline(always)]
pub(super) fn add_min_u32(c: u32, a: u32, b: u32) -> u32 {
    let mut c = c;
    // SAFETY: register arithmetic only.
    unsafe {
        asm!("{{ .reg .u32 t; add.u32 t, {a}, {b}; min.u32 {c}, {c}, t; }}", c = inout(reg32) c,
             a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack, preserves_flags));
    }
    c
}

/// The packed operand of distance `d` (a raw cell) with `code` in its low bits: `d << 6 | code`,
/// or [`PATHS_INF_PACKED`] where that is not below it. Two instructions (shift-or, unsigned min),
/// no select: INF (2^30 − 1) shifted wraps to `0xFFFF_FFC0 | code`, above the packed "no path",
/// and so does every finite value above [`super::PATHS_MAX_DISTANCE`] + 1 (all below 2^26).
#[inline(always)]
pub(super) fn pack(d: u32, code: u32) -> u32 {
    ((d << PATHS_CODE_BITS) | code).min(PATHS_INF_PACKED)
}

/// `base[idx]` where `cond`, else `default`: one multiply-add for the address and one predicated
/// load, no branch (the epilogue's gather).
///
/// # Safety
/// Where `cond` holds, `base + idx` is an aligned readable word of global memory.
#[inline(always)]
pub(super) unsafe fn ld_global_if(base: *const u32, idx: u32, cond: bool, default: u32) -> u32 {
    let mut v = default;
    // SAFETY: the load happens only where `cond` holds (the caller's contract).
    unsafe {
        asm!("{{ .reg .pred q; .reg .b64 a; setp.ne.u32 q, {c}, 0; mad.wide.u32 a, {i}, 4, {p}; @q ld.global.b32 {v}, [a]; }}",
             v = inout(reg32) v, c = in(reg32) cond as u32, i = in(reg32) idx, p = in(reg64) base,
             options(nostack, readonly, preserves_flags));
    }
    v
}

/// Asks L2 for the 128-byte line of `p` (no data returned, no registers).
///
/// # Safety
/// `p` is an address inside a global allocation.
#[inline(always)]
pub(super) unsafe fn prefetch_l2(p: *const u32) {
    // SAFETY: a prefetch reads nothing into the program (the caller's contract keeps it inside).
    unsafe {
        asm!("prefetch.global.L2 [{p}];", p = in(reg64) p, options(nostack, readonly, preserves_flags))
    };
}

/// Stores `v` to `*p` unless it is [`UNCHANGED`]: one predicated store, no branch.
///
/// # Safety
/// Where `v != UNCHANGED`, `p` is an aligned word of global memory the caller may write.
#[inline(always)]
pub(super) unsafe fn st_global_changed(p: *mut u32, v: u32) {
    // SAFETY: the store happens only where `v != UNCHANGED` (the caller's contract).
    unsafe {
        asm!("{{ .reg .pred q; setp.ne.u32 q, {v}, 0x80000000; @q st.global.b32 [{p}], {v}; }}",
             v = in(reg32) v, p = in(reg64) p, options(nostack, preserves_flags));
    }
}

/// Phase 3's A operand of block row `x` (the pivot column block `(x, round)`), packed with codes
/// by phase 2 into the strips `s`: a `B x B` block of pitch B at `x · B²`. The strips hold
/// `rounds · B²` words of these, then the B operands ([`strip_row`]).
#[inline(always)]
fn strip_column<const B: u32>(s: *mut u32, x: u32) -> *mut u32 {
    // SAFETY: not checked here: x < rounds (the caller's grid), and the host allocates
    // `B · (rounds · B + pitch)` words (`PATHS_STRIP_WORDS`).
    unsafe { s.add((x * B * B) as usize) }
}

/// Phase 3's B operand of block column `x` (the pivot row block `(round, x)`), packed by phase 2:
/// `B` rows of pitch `pitch` (the matrix's) after the A operands, at column `x · B`. Phases 2
/// and 3 both run `rounds` blocks along x (`grid_dim_x`).
#[inline(always)]
fn strip_row<const B: u32>(s: *mut u32, x: u32) -> *mut u32 {
    let rounds = thread::grid_dim_x();
    // SAFETY: as `strip_column`: x < rounds, and the B operands start at rounds · B².
    unsafe { s.add((rounds * B * B + x * B) as usize) }
}

/// Whether `fwp_tile_update!`'s operands arrive packed (`packed`) or raw (`raw`).
macro_rules! fwp_operands {
    (packed) => {
        true
    };
    (raw) => {
        false
    };
}

/// Phase 1 with paths on the `B x B` block at `$d` (distances) and `$p` (path cells), row pitch
/// `$pitch`: `fw_pivot_block!`'s in-place k loop, a path tile beside the distance tile. An
/// improved cell takes the path cell (i, k) or (k, j) of the tile; neither is written in step k
/// (row and column k do not improve in step k, see `fw.rs`), so one barrier per k still suffices.
macro_rules! fwp_pivot_block {
    ($b:tt, $t:tt, $r:tt, $d:expr, $p:expr, $pitch:ident, $mode:ident) => {{
        const B: u32 = $b;
        const T: u32 = $t;
        #[address_space(shared)]
        static mut DIST: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
        #[address_space(shared)]
        static mut PATH: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
        let (sd, sp) = (shared_addr(addr_of!(DIST)), shared_addr(addr_of!(PATH)));
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let pitch: u32 = $pitch;
        let pred = $mode & PATHS_MODE_PREDECESSORS != 0;
        let (d, p): (*mut u32, *mut u32) = ($d, $p);
        let mut cell = [[0i32; $r]; $r];
        seq!(I in 0..$r { seq!(J in 0..$r {
            let (i, j) = (ty + I * T, tx + J * T);
            let off = in_block(pitch, i, j) as usize;
            // SAFETY: `d` and `p` are the top-left cells of a B x B block of their matrices (the
            // caller's), i, j < B: inside them. Shared: cell (i, j) of both tiles, this thread's
            // own, read by others after the barrier below.
            unsafe {
                cell[I][J] = ld_global(d.add(off)) as i32;
                sts(sd + 4 * (i * B + j), cell[I][J]);
                sts(sp + 4 * (i * B + j), ld_global(p.add(off)) as i32);
            }
        }); });
        thread::sync_threads();
        for kk in 0..B {
            let (mut a, mut b) = ([0i32; $r], [0i32; $r]);
            seq!(I in 0..$r {
                // SAFETY: column kk and row kk of the distance tile, inside it; not written in
                // step kk (module comment of `fw.rs`), earlier stores ordered by the barrier.
                unsafe {
                    a[I] = lds(sd + 4 * ((ty + I * T) * B + kk));
                    b[I] = lds(sd + 4 * (kk * B + tx + I * T));
                }
            });
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                let via = a[I] + b[J];
                if via < cell[I][J] {
                    cell[I][J] = via;
                    let from = if pred { kk * B + j } else { i * B + kk };
                    // SAFETY: path cell (k, j) or (i, k) of the tile: in row or column kk, which
                    // nobody writes in step kk; cell (i, j) of both tiles is this thread's own,
                    // improved, so in neither row nor column kk; read by others after the barrier.
                    unsafe {
                        sts(sd + 4 * (i * B + j), via);
                        sts(sp + 4 * (i * B + j), lds(sp + 4 * from));
                    }
                }
            }); });
            thread::sync_threads();
        }
        seq!(I in 0..$r { seq!(J in 0..$r {
            let (i, j) = (ty + I * T, tx + J * T);
            let off = in_block(pitch, i, j) as usize;
            // SAFETY: the cells this thread loaded (inside the blocks), stored by it only; its path
            // cell in shared memory was last written by itself, before the last barrier.
            unsafe {
                st_global::<1>(d.add(off), [cell[I][J] as u32]);
                st_global::<1>(p.add(off), [lds(sp + 4 * (i * B + j)) as u32]);
            }
        }); });
    }};
}

/// `fw_tile_update!` with paths: `own = min(own, A ⊗ B)` for the distance blocks `own`, `a`, `b`,
/// and for each cell that improves strictly, its path cell from the path block `a_paths` at (i, k)
/// (successors) or `b_paths` at (k, j) (predecessors), k the first that attains the minimum.
/// Same register tile, copies and shared layout. `operands: raw(pa, pb)`: the copied A and B
/// quads (row pitches `pa`, `pb`) are packed in place (each thread its own quads, after its
/// copies land) before the barrier (phase 2); `packed(pa, pb)`: they arrive packed (phase 3,
/// from the strips). `strip: Some((s, pitch, mask))` also writes the new own block packed, with
/// code `j & mask`, to `s` (phase 2); `None` does not. The cells start at
/// "no path"; the own distances are read after the k loop (no extra registers across it). Path
/// cells are gathered into the cell registers, then a barrier, then stored: in phase 2 the
/// gathered block is the own block of another thread's cells.
macro_rules! fwp_tile_update {
    ($b:tt, $t3:tt, $n:tt, $q:tt, $pitch:ident, $mode:ident, own: $own:expr, own_paths: $ownp:expr,
     a: $a:expr, b: $bb:expr, a_paths: $ap:expr, b_paths: $bp:expr, operands: $packed:ident
     ($pa_pitch:expr, $pb_pitch:expr), strip: $strip:expr) => {{
        const B: u32 = $b;
        const T: u32 = $t3;
        const CELLS: u32 = $n;
        const GS: u32 = B / (CELLS / 4);
        const SC: u32 = B + 4;
        const KQ: u32 = B / 4;
        const _: () = assert!(T * CELLS == B && CELLS % 4 == 0 && B <= 1 << PATHS_CODE_BITS);
        const _: () = assert!($q * T * T == B * KQ && (T * T) % KQ == 0);
        const ROWS_PER_STEP: u32 = T * T / KQ;
        #[repr(C, align(16))]
        struct ATile([u32; (B * SC) as usize]);
        #[repr(C, align(16))]
        struct BTile([u32; (B * B) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();
        let pitch: u32 = $pitch;
        let sa = shared_addr(addr_of!(A_TILE));
        let sb = shared_addr(addr_of!(B_TILE));
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let t = ty * T + tx;
        let (r0, c4) = (t / KQ, 4 * (t % KQ));
        let (pa, pb): (*const u32, *const u32) = ($a, $bb);
        let (pa_pitch, pb_pitch): (u32, u32) = ($pa_pitch, $pb_pitch);
        // SAFETY: as in `fw_tile_update!`: row r0 < B, columns c4..c4 + 4 <= B of each block.
        let (ga, gb) = unsafe {
            (pa.add(in_block(pa_pitch, r0, c4) as usize), pb.add(in_block(pb_pitch, r0, c4) as usize))
        };
        let (sa0, sb0) = (sa + 4 * (r0 * SC + c4), sb + 4 * (r0 * B + c4));
        seq!(N in 0..$q {
            // SAFETY: as in `fw_tile_update!`: 16 aligned bytes of rows r0 + N * ROWS_PER_STEP < B
            // of A and B, not written in this launch before the barrier below; the shared quads
            // are this thread's, untouched until its wait.
            unsafe {
                let step_a = in_block(pa_pitch, N * ROWS_PER_STEP, 0) as usize;
                let step_b = in_block(pb_pitch, N * ROWS_PER_STEP, 0) as usize;
                cp_async_16(sa0 + 4 * N * ROWS_PER_STEP * SC, ga.add(step_a));
                cp_async_16(sb0 + 4 * N * ROWS_PER_STEP * B, gb.add(step_b));
            }
        });
        if $mode & PATHS_MODE_PREFETCH != 0 {
            // The own block's row t (two 128-byte lines) towards L2, so that the epilogue's
            // loads of the old distances after the k loop find it there.
            let own: *mut u32 = $own;
            if t < B {
                // SAFETY: row t < B of the own block (a prefetch touches no data).
                unsafe { prefetch_l2(own.add(in_block(pitch, t, 0) as usize)) };
                // SAFETY: as above, columns 32..64 of row t (B = 64).
                unsafe { prefetch_l2(own.add(in_block(pitch, t, B / 2) as usize)) };
            }
        }
        cp_async_wait_all();
        // Phase 3's operands come packed from phase 2 (`strip`); phase 2 packs its own here.
        if !fwp_operands!($packed) { seq!(N in 0..$q {
            // SAFETY: the quads this thread's own copies just filled (complete after the wait);
            // no other thread reads them before the barrier below.
            unsafe {
                let (qa, qb) = (sa0 + 4 * N * ROWS_PER_STEP * SC, sb0 + 4 * N * ROWS_PER_STEP * B);
                let (x, y) = (ld_shared::<4>(qa), ld_shared::<4>(qb));
                st_shared::<4>(qa, [pack(x[0], c4), pack(x[1], c4 + 1), pack(x[2], c4 + 2), pack(x[3], c4 + 3)]);
                st_shared::<4>(qb, [pack(y[0], 0), pack(y[1], 0), pack(y[2], 0), pack(y[3], 0)]);
            }
        }); }
        thread::sync_threads();

        let mut cell = [[PATHS_INF_PACKED; $n]; $n];
        let a_base = sa + 4 * (4 * ty * SC);
        let b_base = sb + 4 * (4 * tx);
        let mut k = 0;
        while k < B {
            let mut a = [[0u32; 4]; $n];
            seq!(R in 0..$n {
                // SAFETY: as in `fw_tile_update!` (A_TILE row < B, columns k..k + 4 < SC).
                a[R] = unsafe { ld_shared::<4>(a_base + 4 * (((R / 4) * GS + R % 4) * SC + k)) };
            });
            seq!(U in 0..4 {
                let mut b = [0u32; $n];
                let mut vb = [0u32; 4];
                seq!(Q in 0..$n {
                    if Q % 4 == 0 {
                        // SAFETY: as in `fw_tile_update!` (B_TILE row k + U < B).
                        vb = unsafe { ld_shared::<4>(b_base + 4 * ((k + U) * B + (Q / 4) * GS)) };
                    }
                    b[Q] = vb[Q % 4];
                });
                seq!(R in 0..$n { seq!(Q in 0..$n {
                    cell[R][Q] = add_min_u32(cell[R][Q], a[R][U], b[Q]);
                }); });
            });
            k += 4;
        }

        // Old distances in, improved ones out; the path cell of each improved cell gathered.
        // Branch-free (about ten instructions a cell): the mode is a uniform branch around two
        // copies of the loop, so the gather's address is one multiply-add.
        let own: *mut u32 = $own;
        if $mode & PATHS_MODE_PREDECESSORS != 0 {
            fwp_epilogue!(true, cell, $n, GS, pitch, (tx, ty), own: own, gather: $bp, strip: $strip);
        } else {
            fwp_epilogue!(false, cell, $n, GS, pitch, (tx, ty), own: own, gather: $ap, strip: $strip);
        }
        thread::sync_threads();
        let own_paths: *mut u32 = $ownp;
        seq!(R in 0..$n {
            let i = (R / 4) * GS + 4 * ty + R % 4;
            // SAFETY: cell (i, 4 tx) of the own path block (i < B, 4 tx < GS <= B).
            let row = unsafe { own_paths.add(in_block(pitch, i, 4 * tx) as usize) };
            seq!(Q in 0..$n {
                // SAFETY: this thread's own path cell (i, j), j = 4 tx + (Q / 4) GS + Q % 4 < B,
                // of the own block (a constant offset from `row`), written only if it changed;
                // every gather of the block happened before the barrier above.
                unsafe { st_global_changed(row.add(((Q / 4) * GS + Q % 4) as usize), cell[R][Q]) };
            });
        });
    }};
}

/// The first half of `fwp_tile_update!`'s epilogue for one mode (`$pred`, a literal): reads the
/// thread's old distances, stores the new ones (4 at a time), and leaves in `$cell` the gathered
/// path cell of each strictly improved cell, [`UNCHANGED`] elsewhere. Improved means
/// `c < pack(old, 0)`: the packed minimum below the old distance packed with code 0 (an old INF
/// packs to "no path", which no minimum is below).
macro_rules! fwp_epilogue {
    ($pred:literal, $cell:ident, $n:tt, $gs:ident, $pitch:ident, ($tx:ident, $ty:ident),
     own: $own:ident, gather: $gather:expr, strip: $strip:expr) => {{
        let gather: *const u32 = $gather;
        let strip: Option<(*mut u32, u32, u32)> = $strip;
        let mut v = [0u32; 4];
        seq!(R in 0..$n {
            let i = (R / 4) * $gs + 4 * $ty + R % 4;
            // Successors gather (i, k): row i of the A path block; predecessors (k, j).
            let grow = if $pred { 0 } else { in_block($pitch, i, 0) };
            seq!(Q in 0..$n {
                let j0 = (Q / 4) * $gs + 4 * $tx;
                if Q % 4 == 0 {
                    // SAFETY: the 4 own cells (i, j0..j0 + 4) inside the block, 16-byte
                    // aligned; only this thread accesses them.
                    v = unsafe { ld_global_v4($own.add(in_block($pitch, i, j0) as usize)) };
                }
                let c = $cell[R][Q];
                let nd = c >> PATHS_CODE_BITS;
                let improved = c < PATHS_INF_PACKED && (nd as i32) < v[Q % 4] as i32;
                v[Q % 4] = if improved { nd } else { v[Q % 4] };
                let k = c & CODE_MASK;
                let from = if $pred { k * $pitch + j0 + Q % 4 } else { grow + k };
                // SAFETY: where improved, c is a finite packed minimum, so k < B names a column
                // of the block: cell (k, j) or (i, k) of a B x B path block (the caller's
                // `a_paths` / `b_paths`), not written before the barrier after this loop.
                $cell[R][Q] = unsafe { ld_global_if(gather, from, improved, UNCHANGED) };
                if Q % 4 == 3 {
                    // SAFETY: the 4 cells loaded above; the distance blocks read by other threads
                    // were copied to shared memory before the first barrier.
                    unsafe { st_global::<4>($own.add(in_block($pitch, i, j0) as usize), v) };
                    if let Some((sp, spitch, mask)) = strip {
                        // Codes: the column (A operand, mask B − 1) or 0 for all four (mask 0).
                        let w = [pack(v[0], j0 & mask), pack(v[1], (j0 + 1) & mask),
                                 pack(v[2], (j0 + 2) & mask), pack(v[3], (j0 + 3) & mask)];
                        // SAFETY: cells (i, j0..j0 + 4) of this block's B x B block of the
                        // strips (the kernel's `s`), 16-byte aligned, written by this thread
                        // only and read by phase 3 in a later launch.
                        unsafe { st_global::<4>(sp.add(in_block(spitch, i, j0) as usize), w) };
                    }
                }
            });
        });
    }};
}

macro_rules! fw_paths_kernels {
    ($(($p1:ident, $p2:ident, $p3:ident, $pivot:ident, $row:ident, $col:ident, $rest:ident,
        $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {$(
        /// Phase 1 with paths: closes the pivot block `(round, round)` of `d` and `p`. One block.
        ///
        /// # Safety
        /// As the distance kernels' (`fw.rs`), for `d` and for `p`, a path matrix of the same
        /// shape and pitch from `apsp_init_paths` and the earlier rounds; `mode` as there.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p1(d: *mut i32, p: *mut i32, pitch: u32, round: u32, mode: u32) {
            fwp_pivot_block!($b, $t, $r, block_at::<$b>(d, pitch, round, round),
                block_at::<$b>(p, pitch, round, round), pitch, mode);
        }

        /// Phase 2 with paths (register tile): the pivot row (`block_idx.y == 0`: own =
        /// min(own, P ⊗ own)) and column (`1`: own = min(own, own ⊗ P)) with their path blocks.
        ///
        /// # Safety
        /// As `$p1`; grid `(rounds, 2)` of `T3 x T3` threads; `s` has
        /// `paths_strip_words(B, rounds · B, pitch)` words, which this phase writes for phase 3.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p2(d: *mut i32, p: *mut i32, pitch: u32, round: u32, mode: u32, s: *mut u32) {
            let x = thread::block_idx_x();
            if x == round {
                return;
            }
            let in_row = thread::block_idx_y() == 0;
            let (bi, bj) = if in_row { (round, x) } else { (x, round) };
            let (ai, aj, ci, cj) = if in_row { (round, round, bi, bj) } else { (bi, bj, round, round) };
            // This block's operand of phase 3: a row block is a B operand (code 0), a column
            // block an A operand (code k, its column).
            let strip = if in_row {
                (strip_row::<$b>(s, x), pitch, 0)
            } else {
                (strip_column::<$b>(s, x), $b, $b - 1)
            };
            fwp_tile_update!($b, $t3, $n, $q, pitch, mode,
                own: block_at::<$b>(d, pitch, bi, bj), own_paths: block_at::<$b>(p, pitch, bi, bj),
                a: block_at::<$b>(d, pitch, ai, aj), b: block_at::<$b>(d, pitch, ci, cj),
                a_paths: block_at::<$b>(p, pitch, ai, aj), b_paths: block_at::<$b>(p, pitch, ci, cj),
                operands: raw(pitch, pitch), strip: Some(strip));
        }

        /// Phase 3 with paths: every block outside the pivot row and column, from the pivot
        /// column block of its row (A) and the pivot row block of its column (B).
        ///
        /// # Safety
        /// As `$p1`; grid `(rounds, rounds)` of `T3 x T3` threads; `s` as phase 2 of this round
        /// left it.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p3(d: *mut i32, p: *mut i32, pitch: u32, round: u32, mode: u32, s: *mut u32) {
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == round || bj == round {
                return;
            }
            fwp_tile_update!($b, $t3, $n, $q, pitch, mode,
                own: block_at::<$b>(d, pitch, bi, bj), own_paths: block_at::<$b>(p, pitch, bi, bj),
                a: strip_column::<$b>(s, bi), b: strip_row::<$b>(s, bj),
                a_paths: block_at::<$b>(p, pitch, bi, round), b_paths: block_at::<$b>(p, pitch, round, bj),
                operands: packed($b, pitch), strip: None);
        }
    )*};
}

for_each_fw_paths!(fw_paths_kernels);

// The modes are the only two values `pred` distinguishes.
const _: () = assert!(PATHS_MODE_SUCCESSORS != PATHS_MODE_PREDECESSORS);
