//! The float Floyd–Warshall kernels (`float.rs` has their table and the conventions): per
//! weight type, phase 1 (the pivot block, in place, one barrier per k), phases 2 and 3 (a
//! register-tiled (min, +) product staged through shared memory, `fwf_tile_update!` in
//! `fw_float_tile.rs`), and the add-min ceiling.
//!
//! Phase 2 is the product `own = P ⊗ own` (row block) or `own ⊗ P` (column block) with the
//! block's *old* values, as in the int32 `tile` layout: P is closed by phase 1 (zero diagonal),
//! so every chain through several pivot vertices is dominated by its direct P entry. Phase 3 is
//! `own = min(own, A ⊗ B)` with A the pivot-column block of its row and B the pivot-row block
//! of its column. The k range is staged `k_chunk` values at a time, so that the slices stay
//! under 48 KB of static shared memory. The weight types' cells and add-min: `float_cell.rs`.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::float::float_type;
use super::float_cell::{Cell, add_min2_nonneg, cp_async_ca_16, prefetch_l2, sm_count};
use super::fw_float_at::cp_async_4;
use super::fw_float_tile::{block_ptr, opaque_ptr};
use super::offsets::in_block;
use crate::ptx::{cp_async_16, cp_async_commit, cp_async_wait, cp_async_wait_all, shared_addr};

macro_rules! fw_float_type_kernels {
    ($(($ty:ident, $es:tt, $p1:ident, $peak:ident, $b:tt, $t1:tt, $r:tt)),* $(,)?) => {$(
        /// Phase 1: closes the pivot block `(round, round)` in place; one block of
        /// `T1 x T1` threads with `R x R` cells `(ty + I*T1, tx + J*T1)` each.
        ///
        /// # Safety
        /// `d` must point to the padded matrix on the device: `rounds * B` rows of `pitch`
        /// cells, `pitch` a multiple of B and at least `rounds * B`, one block row (B x pitch)
        /// fewer than 2^32 cells; `round` < `rounds`; the launch geometry of `FW_FLOAT` (phase
        /// 1: one block; 2: grid `(rounds, 2)`; 3: grid `(rounds, rounds)`), the phases of a
        /// round in order, each launch alone on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p1(d: *mut $ty, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t1;
            const ES: u32 = $es;
            #[repr(C, align(16))]
            struct Tile([$ty; (B * B) as usize]);
            #[address_space(shared)]
            static mut PIVOT: MaybeUninit<Tile> = MaybeUninit::uninit();
            let sp = shared_addr(addr_of!(PIVOT));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let base = block_ptr::<$ty, B>(d, pitch, round, round);
            let mut cell = [[<$ty>::INFINITY; $r]; $r];
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                // SAFETY: cell (i, j), i, j < B, of the pivot block; only this thread stores it.
                // Shared: its PIVOT cell, read by others after the barrier below.
                unsafe {
                    cell[I][J] = *base.add(in_block(pitch, i, j) as usize);
                    <$ty as Cell>::st1_shared(sp + ES * (i * B + j), cell[I][J]);
                }
            }); });
            thread::sync_threads();
            for kk in 0..B {
                let (mut a, mut b) = ([<$ty>::INFINITY; $r], [<$ty>::INFINITY; $r]);
                seq!(I in 0..$r {
                    // SAFETY: PIVOT cells (ty + I*T, kk) and (kk, tx + I*T) < (B, B), stored
                    // before the last barrier; column and row kk do not change in step kk (zero
                    // diagonal, module comment of `float.rs`).
                    unsafe {
                        a[I] = <$ty as Cell>::ld1_shared(sp + ES * ((ty + I * T) * B + kk));
                        b[I] = <$ty as Cell>::ld1_shared(sp + ES * (kk * B + tx + I * T));
                    }
                });
                seq!(I in 0..$r { seq!(J in 0..$r {
                    let via = a[I] + b[J];
                    if via < cell[I][J] {
                        cell[I][J] = via;
                        // SAFETY: this thread's own PIVOT cell; not in row or column kk when it
                        // improves, and the barrier below orders it before step kk + 1.
                        unsafe { <$ty as Cell>::st1_shared(sp + ES * ((ty + I * T) * B + tx + J * T), via) };
                    }
                }); });
                thread::sync_threads();
            }
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                // SAFETY: the cell this thread loaded above, stored by it only.
                unsafe { *base.add(in_block(pitch, i, j) as usize) = cell[I][J] };
            }); });
        }

        /// The add-min ceiling of this weight type: 16 independent chains, 2 x 16 updates per
        /// iteration, each chain updated in place from another chain's value, with `w` from the
        /// host; stores only if the result equals `w` (practically never). In place, not
        /// `apsp_addmin_peak`'s two arrays: rotating x → y → x, ptxas kept 24 `IMAD.MOV` per 32
        /// f64 updates in the loop (session 15), and a ceiling must not be slower than the
        /// kernels' own k loops.
        ///
        /// # Safety
        /// `out` must point to a writable cell of device memory; any grid.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $peak(out: *mut $ty, w: $ty, iters: u32) {
            let t = thread::index_1d();
            let mut x = [<$ty>::INFINITY; 16];
            seq!(I in 0..16 {
                x[I] = ((t.wrapping_mul(2_654_435_761).wrapping_add(I * 40_503)) >> 12) as $ty;
            });
            let mut n = 0;
            while n < iters {
                seq!(I in 0..16 {
                    x[I] = <$ty as Cell>::add_min(x[I], x[(I + 1) % 16], w);
                });
                seq!(I in 0..16 {
                    x[I] = <$ty as Cell>::add_min(x[I], x[(I + 5) % 16], w);
                });
                n += 1;
            }
            let mut s = <$ty>::INFINITY;
            seq!(I in 0..16 {
                s = if x[I] < s { x[I] } else { s };
            });
            if s == w {
                // SAFETY: `out` is a writable cell (the caller's contract) that nothing reads
                // during the launch; threads that store concurrently store the same value (see
                // `apsp_addmin_peak`).
                unsafe { *out = s };
            }
        }
    )*};
}

for_each_float_type!(fw_float_type_kernels);

/// The add-min ceiling of the f32 `nonneg` kernels ([`super::float::FLOAT_NONNEG_PEAK`]): as
/// `apsp_addmin_peak_f32`, but each update is their `add_min2_nonneg` (two add-mins, a 3-input
/// integer min), each from two other chains' previous values: 2 x 16 updates, 64 add-mins, per
/// iteration. The chains leave +0 ..= +inf (`w` is −1, as for the other ceilings), which
/// changes the values the integer min picks, not the instructions or their cost.
///
/// # Safety
/// `out` must point to a writable f32 of device memory; any grid.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_addmin_peak_f32nn(out: *mut f32, w: f32, iters: u32) {
    let t = thread::index_1d();
    let w2 = w * 1.5;
    let mut x = [f32::INFINITY; 16];
    let mut y = [f32::INFINITY; 16];
    seq!(I in 0..16 {
        x[I] = ((t.wrapping_mul(2_654_435_761).wrapping_add(I * 40_503)) >> 12) as f32;
    });
    let mut n = 0;
    while n < iters {
        seq!(I in 0..16 {
            y[I] = add_min2_nonneg(x[I], x[(I + 1) % 16], w, x[(I + 7) % 16], w2);
        });
        seq!(I in 0..16 {
            x[I] = add_min2_nonneg(y[I], y[(I + 5) % 16], w, y[(I + 3) % 16], w2);
        });
        n += 1;
    }
    let mut s = f32::INFINITY;
    seq!(I in 0..16 {
        s = if x[I] < s { x[I] } else { s };
    });
    if s == w {
        // SAFETY: as `apsp_addmin_peak_f32`'s store.
        unsafe { *out = s };
    }
}

/// A list row's phase-2 stages: a persistent row's phase 2 stages its slices one at a time.
macro_rules! fwf_phase2_stages {
    (grid, $st:tt) => {
        $st
    };
    (persist, $st:tt) => {
        1
    };
}

macro_rules! fw_float_tile_kernels {
    ($(($v:ident, $p2:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt,
        $st:tt, $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt,
        $sch:ident])),* $(,)?) => {$(
        fwf_phase2_kernel!($sch, ($v, $p2, $p3, $ty, $tx, $tyn, $cr, $cc, $kc, $st, $ak, $cap, [$own_at, $pf, $acp, $cpy, $tl, $un]));
        fwf_phase3_kernel!($sch, ($v, $p3, $ty, $tx, $tyn, $cr, $cc, $kc, $st, $ak, $cap, [$own_at, $pf, $acp, $cpy, $tl, $un]));
    )*};
}

/// The phase-2 kernel of one list row: A transposed (`tgrid`, `fw_float_at.rs`) or the tile
/// product of `fwf_tile_update!` (the others).
macro_rules! fwf_phase2_kernel {
    (tgrid, ($v:ident, $p2:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt,
        $st:tt, $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {
        fwf_at_kernels!($p2, $p3, $kc, $tl, $un, $un, any);
    };
    (tgridnn, ($v:ident, $p2:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt,
        $st:tt, $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {
        fwf_at_kernels!($p2, $p3, $kc, $tl, $un, 1, nonneg);
    };
    ($sch:ident, ($v:ident, $p2:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt,
        $st:tt, $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {
        /// Phase 2: the pivot row's blocks (`block_idx.y == 0`, `own = P ⊗ own`) and the
        /// pivot column's (`block_idx.y == 1`, `own = own ⊗ P`); `block_idx.x` walks them,
        /// skipping the pivot. One own block per block and the loop copies whatever the row
        /// says (phase 2 is a few blocks per round; the lean copies spill in f64's phase 2
        /// under the 128-register cap).
        ///
        /// # Safety
        /// As phase 1 (`fwf32_phase1_b64`), with this variant's block of threads.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p2(d: *mut $ty, pitch: u32, round: u32) {
            if thread::block_idx_x() == round {
                return;
            }
            let own = move || {
                let x = thread::block_idx_x();
                let (bi, bj) = if thread::block_idx_y() == 0 { (round, x) } else { (x, round) };
                block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, bi, bj)
            };
            let pivot = block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, round, round);
            let in_row = thread::block_idx_y() == 0;
            let a = if in_row { pivot } else { own() };
            let b = if in_row { own() } else { pivot };
            fwf_tile_update!($ty, { float_type(stringify!($ty)).cell_bytes },
                { float_type(stringify!($ty)).block }, ($tx, $tyn, $cr, $cc, $kc, { fwf_phase2_stages!($sch, $st) }, $ak, [$own_at, $pf, $acp, loop, 1, $un]),
                pitch, own: own(), a: a, b: b, ahead: None, half: 0, store: true);
        }
    };
}

/// The phase-3 kernel of one list row: one block per work item (`grid`), or persistent
/// (`persist`, `fwf_persist_update!`).
macro_rules! fwf_phase3_kernel {
    // (Emitted with its phase 2 by `fwf_phase2_kernel!`.)
    (tgrid, ($v:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt, $st:tt,
        $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {};
    (tgridnn, ($v:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt, $st:tt,
        $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {};
    (persist, ($v:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt, $st:tt,
        $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {
        /// Phase 3, persistent: a grid of co-resident blocks (x only), each walking the round's
        /// work items (`fw_float_persist.rs`).
        ///
        /// # Safety
        /// As phase 1, with `pitch == rounds * B` and a grid `(g, 1)` of this variant's block of
        /// threads for any g ≥ 1.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p3(d: *mut $ty, pitch: u32, round: u32) {
            fwf_persist_update!($ty, { float_type(stringify!($ty)).cell_bytes },
                { float_type(stringify!($ty)).block }, ($tx, $tyn, $cr, $cc, $kc, $ak, $tl, $un),
                d, pitch, round);
        }
    };
    (grid, ($v:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt, $st:tt,
        $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])) => {
        /// Phase 3: every block outside the pivot row and column.
        ///
        /// # Safety
        /// As phase 1.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p3(d: *mut $ty, pitch: u32, round: u32) {
            const TILES: u32 = $tl;
            // (own block column, tile of this thread, whether it stores), from the special
            // registers each time (not kept live across the k loop). With 2 tiles, block x
            // takes blocks 2x and 2x + 1 of the `rounds - 1` off the pivot column; the second
            // of an odd count repeats the first without storing it. A block row's blocks return
            // at once where there is none (the pivot row, or x past them).
            let col = move || {
                if TILES == 1 {
                    return (thread::block_idx_x(), 0, true);
                }
                let off = thread::grid_dim_y() - 1;
                let j0 = thread::block_idx_x() * TILES;
                let half = thread::thread_idx_y() / $tyn;
                let (j, store) = if j0 + half < off { (j0 + half, true) } else { (j0, false) };
                (if j < round { j } else { j + 1 }, half, store)
            };
            let bi = thread::block_idx_y();
            let (bj, half, _) = col();
            if bi == round || bj == round || (TILES > 1 && thread::block_idx_x() * TILES >= thread::grid_dim_y() - 1) {
                return;
            }
            let own = || block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, thread::block_idx_y(), col().0);
            // The block `$pf` blocks per SM later in launch order (x fastest), which runs about
            // one wave of `$pf` co-resident blocks per SM after this one, if it updates.
            const AHEAD: u32 = $pf;
            let ahead = if AHEAD == 0 {
                None
            } else {
                // (bi, bj + later) carried over the rows: 32-bit divisions only.
                let (n, later) = (thread::grid_dim_x(), bj + AHEAD * sm_count());
                let (li, lj) = (bi + later / n, later % n);
                if li < thread::grid_dim_y() && li != round && lj != round {
                    Some(block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, li, lj) as *const $ty)
                } else {
                    None
                }
            };
            fwf_tile_update!($ty, { float_type(stringify!($ty)).cell_bytes },
                { float_type(stringify!($ty)).block }, ($tx, $tyn, $cr, $cc, $kc, $st, $ak, [$own_at, $pf, $acp, $cpy, $tl, $un]),
                pitch, own: own(),
                a: block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, bi, round),
                b: block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, round, bj),
                ahead: ahead, half: half, store: col().2);
        }
    };
}

for_each_fw_float!(fw_float_tile_kernels);
