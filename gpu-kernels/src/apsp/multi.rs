//! Blocked Floyd–Warshall with the matrix split by block rows between GPUs (`host apsp --gpus
//! N`): each GPU holds a contiguous slice of block rows (`rows`, row pitch `pitch`, block row 0
//! = the slice's first) and receives the pivot block row of every round into a separate buffer
//! (`pivot`, one block row with the same pitch). Block offsets are 64-bit (`block_at`, as in the
//! one-GPU kernels), so one GPU's slice may exceed 2^32 cells.
//!
//! Per round: the owner of the pivot block row closes the pivot block (`pivot` kernel) and
//! updates the rest of that row (`row`), in its own slice; the row is broadcast; every GPU then
//! updates its blocks of the pivot column (`col`) and the rest of its blocks (`rest`). The
//! updates are those of `fw.rs` (`fw_pivot_block!`, `fw_tile_update!`) on other operands.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::fw::{lds, sts};
use super::offsets::{block_at, in_block};
use crate::ptx::{
    add_min, cp_async_16, cp_async_wait_all, ld_global, ld_global_v4, ld_shared, shared_addr,
    st_global,
};

macro_rules! fw_multi_kernels {
    ($(($pivot:ident, $row:ident, $col:ident, $rest:ident, $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {$(
        /// Phase 1: closes block `round` of the pivot block row `row` (the owner's slice,
        /// pointed at that block row). One block of `T x T` threads.
        ///
        /// # Safety
        /// `rows` (or `row`, the pivot block row inside it) must point to this GPU's slice of whole
        /// block rows and `pivot` to one block row, B rows of `pitch` i32 each, `pitch` a multiple
        /// of `PITCH_ALIGN` covering every block column, `round` < block columns; the grid must
        /// stay inside them as the host's launches do (`host/src/apsp/multi`: one block for the
        /// pivot, one per block column for the row, one per local block row for the column,
        /// `(block columns, count)` from `first` for the rest, `skip` the local pivot row or
        /// `u32::MAX`), and the launches of a round run in order on one stream.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $pivot(row: *mut i32, pitch: u32, round: u32) {
            fw_pivot_block!($b, $t, $r, block_at::<$b>(row, pitch, 0, round), pitch);
        }

        /// Phase 2, pivot row: block `block_idx.x` of the pivot block row `row` (skipping the
        /// pivot block) as `own = min(own, P ⊗ own)`. Grid: one block per block column.
        ///
        /// # Safety
        /// `rows` (or `row`, the pivot block row inside it) must point to this GPU's slice of whole
        /// block rows and `pivot` to one block row, B rows of `pitch` i32 each, `pitch` a multiple
        /// of `PITCH_ALIGN` covering every block column, `round` < block columns; the grid must
        /// stay inside them as the host's launches do (`host/src/apsp/multi`: one block for the
        /// pivot, one per block column for the row, one per local block row for the column,
        /// `(block columns, count)` from `first` for the rest, `skip` the local pivot row or
        /// `u32::MAX`), and the launches of a round run in order on one stream.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $row(row: *mut i32, pitch: u32, round: u32) {
            if thread::block_idx_x() == round {
                return;
            }
            let own = || block_at::<$b>(row, pitch, 0, thread::block_idx_x());
            fw_tile_update!($b, $t3, $n, $q, pitch, own: own(),
                a: block_at::<$b>(row, pitch, 0, round), b: own());
        }

        /// Phase 2, pivot column: block (`block_idx.x`, `round`) of this GPU's slice, skipping
        /// local block row `skip` (the pivot row on its owner; `u32::MAX` elsewhere), as
        /// `own = min(own, own ⊗ P)` with P from the broadcast pivot row. Grid: one block per
        /// local block row.
        ///
        /// # Safety
        /// `rows` (or `row`, the pivot block row inside it) must point to this GPU's slice of whole
        /// block rows and `pivot` to one block row, B rows of `pitch` i32 each, `pitch` a multiple
        /// of `PITCH_ALIGN` covering every block column, `round` < block columns; the grid must
        /// stay inside them as the host's launches do (`host/src/apsp/multi`: one block for the
        /// pivot, one per block column for the row, one per local block row for the column,
        /// `(block columns, count)` from `first` for the rest, `skip` the local pivot row or
        /// `u32::MAX`), and the launches of a round run in order on one stream.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $col(rows: *mut i32, pivot: *mut i32, pitch: u32, round: u32, skip: u32) {
            if thread::block_idx_x() == skip {
                return;
            }
            let own = || block_at::<$b>(rows, pitch, thread::block_idx_x(), round);
            fw_tile_update!($b, $t3, $n, $q, pitch, own: own(), a: own(),
                b: block_at::<$b>(pivot, pitch, 0, round));
        }

        /// Phase 3 on local block rows `first + block_idx.y` (skipping `skip`) and every block
        /// column but `round`: `own = min(own, C ⊗ R)` with C this row's pivot-column block and
        /// R the broadcast pivot row's block of this column.
        ///
        /// # Safety
        /// `rows` (or `row`, the pivot block row inside it) must point to this GPU's slice of whole
        /// block rows and `pivot` to one block row, B rows of `pitch` i32 each, `pitch` a multiple
        /// of `PITCH_ALIGN` covering every block column, `round` < block columns; the grid must
        /// stay inside them as the host's launches do (`host/src/apsp/multi`: one block for the
        /// pivot, one per block column for the row, one per local block row for the column,
        /// `(block columns, count)` from `first` for the rest, `skip` the local pivot row or
        /// `u32::MAX`), and the launches of a round run in order on one stream.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $rest(
            rows: *mut i32,
            pivot: *mut i32,
            pitch: u32,
            round: u32,
            first: u32,
            skip: u32,
        ) {
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y() + first);
            if bi == skip || bj == round {
                return;
            }
            let own = || {
                let bi = thread::block_idx_y() + first;
                block_at::<$b>(rows, pitch, bi, thread::block_idx_x())
            };
            fw_tile_update!($b, $t3, $n, $q, pitch, own: own(),
                a: block_at::<$b>(rows, pitch, bi, round), b: block_at::<$b>(pivot, pitch, 0, bj));
        }
    )*};
}

for_each_fw_multi!(fw_multi_kernels);
