//! Blocked Floyd–Warshall with paths on a matrix split by block rows between GPUs (`host apsp
//! --gpus N --paths`): the four roles of `multi.rs` (pivot, pivot row, pivot column, rest) with
//! the path updates of `paths.rs` (`fwp_pivot_block!`, `fwp_tile_update!`). Each GPU holds its
//! block rows of both matrices (`d`, `p`, row pitch `pitch`) and receives both pivot block rows
//! of every round (`dp`, `pp`): the predecessor rule reads the path cell (k, j) of the pivot row.
//!
//! The operands are packed inside each kernel (`raw`), as one GPU's phase 2 does, instead of
//! from strips written by phase 2: a GPU's phase 3 reads its own pivot column blocks and the
//! broadcast row, so there is no strip to share. The minimum found, the first k attaining it,
//! and so every path cell are those of the one-GPU kernels.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::fw::{lds, sts};
use super::offsets::{block_at, in_block};
use super::paths::{
    CODE_MASK, UNCHANGED, add_min_u32, ld_global_if, pack, prefetch_l2, st_global_changed,
};
use super::{PATHS_CODE_BITS, PATHS_INF_PACKED, PATHS_MODE_PREDECESSORS, PATHS_MODE_PREFETCH};
use crate::ptx::{
    cp_async_16, cp_async_wait_all, ld_global, ld_global_v4, ld_shared, shared_addr, st_global,
    st_shared,
};

macro_rules! fw_multi_paths_kernels {
    ($(($p1:ident, $p2:ident, $p3:ident, $pivot:ident, $row:ident, $col:ident, $rest:ident,
        $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {$(
        /// Phase 1 with paths: closes block `round` of the pivot block row (`d`, `p`: the
        /// owner's copies of that block row). One block of `T x T` threads.
        ///
        /// # Safety
        /// `d` and `p` (and `dp`, `pp`) point to this GPU's slice of whole block rows (or to one
        /// block row) of the distances and of the path matrix, B rows of `pitch` i32 each,
        /// `pitch` a multiple of `PITCH_ALIGN` covering every block column, `round` < block
        /// columns, `mode` a `PATHS_MODE_*` kind with optional flags; the grids stay inside them
        /// as the host's launches do (those of `multi.rs`), and the launches of a round run in
        /// order on one stream.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $pivot(d: *mut i32, p: *mut i32, pitch: u32, round: u32, mode: u32) {
            fwp_pivot_block!($b, $t, $r, block_at::<$b>(d, pitch, 0, round),
                block_at::<$b>(p, pitch, 0, round), pitch, mode);
        }

        /// Phase 2, pivot row: block `block_idx.x` of the pivot block row (skipping the pivot
        /// block) as `own = min(own, P ⊗ own)`, with its path cells. One block per block column.
        ///
        /// # Safety
        /// As `$pivot`.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $row(d: *mut i32, p: *mut i32, pitch: u32, round: u32, mode: u32) {
            let x = thread::block_idx_x();
            if x == round {
                return;
            }
            fwp_tile_update!($b, $t3, $n, $q, pitch, mode,
                own: block_at::<$b>(d, pitch, 0, x), own_paths: block_at::<$b>(p, pitch, 0, x),
                a: block_at::<$b>(d, pitch, 0, round), b: block_at::<$b>(d, pitch, 0, x),
                a_paths: block_at::<$b>(p, pitch, 0, round), b_paths: block_at::<$b>(p, pitch, 0, x),
                operands: raw(pitch, pitch), strip: None);
        }

        /// Phase 2, pivot column: block (`block_idx.x`, `round`) of this GPU's rows, skipping
        /// local block row `skip` (the pivot row on its owner, `u32::MAX` elsewhere), as
        /// `own = min(own, own ⊗ P)` with P and its path cells from the broadcast pivot rows.
        ///
        /// # Safety
        /// As `$pivot`; one block per local block row.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $col(
            d: *mut i32,
            p: *mut i32,
            dp: *mut i32,
            pp: *mut i32,
            pitch: u32,
            round: u32,
            skip: u32,
            mode: u32,
        ) {
            let bi = thread::block_idx_x();
            if bi == skip {
                return;
            }
            fwp_tile_update!($b, $t3, $n, $q, pitch, mode,
                own: block_at::<$b>(d, pitch, bi, round), own_paths: block_at::<$b>(p, pitch, bi, round),
                a: block_at::<$b>(d, pitch, bi, round), b: block_at::<$b>(dp, pitch, 0, round),
                a_paths: block_at::<$b>(p, pitch, bi, round), b_paths: block_at::<$b>(pp, pitch, 0, round),
                operands: raw(pitch, pitch), strip: None);
        }

        /// Phase 3 on local block rows `first + block_idx.y` (skipping `skip`) and every block
        /// column but `round`: `own = min(own, C ⊗ R)`, C this row's pivot-column block and R the
        /// broadcast pivot row's block of this column, with their path cells.
        ///
        /// # Safety
        /// As `$pivot`; grid `(block columns, count)` from `first`.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $rest(
            d: *mut i32,
            p: *mut i32,
            dp: *mut i32,
            pp: *mut i32,
            pitch: u32,
            round: u32,
            first: u32,
            skip: u32,
            mode: u32,
        ) {
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y() + first);
            if bi == skip || bj == round {
                return;
            }
            fwp_tile_update!($b, $t3, $n, $q, pitch, mode,
                own: block_at::<$b>(d, pitch, bi, bj), own_paths: block_at::<$b>(p, pitch, bi, bj),
                a: block_at::<$b>(d, pitch, bi, round), b: block_at::<$b>(dp, pitch, 0, bj),
                a_paths: block_at::<$b>(p, pitch, bi, round), b_paths: block_at::<$b>(pp, pitch, 0, bj),
                operands: raw(pitch, pitch), strip: None);
        }
    )*};
}

for_each_fw_paths!(fw_multi_paths_kernels);
