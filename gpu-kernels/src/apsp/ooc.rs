//! Out-of-core Floyd–Warshall (`host apsp --device-memory-limit`): the matrix lives in host
//! memory and passes through the GPU a super-block at a time, so an update's own block and its
//! two operands lie in different buffers, each with its own row pitch (the pivot super-row,
//! the pivot super-column, a streamed tile). One kernel does every such update:
//! `own(i, j) = min(own(i, j), ⊗_{k < kblocks} a(i, k) ⊗ b(k, j))` in the (min, +) sense, over
//! a grid of blocks, with one block row and one block column that may be skipped. The
//! update is `fw_tile_update!` (the register tile of phases 2–3) with three pitches; phase 1
//! stays the multi-GPU `pivot` kernel (`multi.rs`), which closes one block of a block row.
//!
//! The schedule that calls it, and the CPU model that checks it, are `rgk_core::apsp::ooc`.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, in_block};
use crate::ptx::{
    add_min, cp_async_16, cp_async_wait_all, ld_global_v4, ld_shared, shared_addr, st_global,
};

macro_rules! fw_ooc_kernels {
    ($(($update:ident, $b:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {$(
        /// Block `(block_idx.y, block_idx.x)` of `own` (row pitch `po`), unless its block row is
        /// `skip_row` or its block column `skip_col` (`u32::MAX`: none), becomes
        /// `min(own, a(i, 0) ⊗ b(0, j), …, a(i, kblocks - 1) ⊗ b(kblocks - 1, j))`, with blocks
        /// of `a` and `b` at row pitches `pa` and `pb`, the k blocks in order (a barrier
        /// between them, since the shared tiles are reused).
        ///
        /// An operand block may be the own block itself when `kblocks` is 1 (phase 2: the block
        /// is read whole into shared memory before it is stored); no block the launch writes
        /// is read by another block of it (the schedule's CPU model checks this).
        ///
        /// # Safety
        /// `own`, `a` and `b` must point to device buffers (or blocks inside them) that hold
        /// every block the grid addresses: `grid.y` x `grid.x` blocks of `own`, `grid.y` x
        /// `kblocks` of `a`, `kblocks` x `grid.x` of `b`, each of `B` rows at its pitch (a
        /// multiple of 4, one block row fewer than 2^32 cells); the launch uses `T3 x T3`
        /// threads; no other launch writes these blocks meanwhile.
        #[kernel]
        #[allow(improper_ctypes_definitions, clippy::too_many_arguments)]
        pub unsafe fn $update(
            own: *mut i32,
            po: u32,
            a: *mut i32,
            pa: u32,
            b: *mut i32,
            pb: u32,
            kblocks: u32,
            skip_row: u32,
            skip_col: u32,
        ) {
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == skip_row || bj == skip_col {
                return;
            }
            let own_at = || block_at::<$b>(own, po, thread::block_idx_y(), thread::block_idx_x());
            let mut k = 0;
            while k < kblocks {
                fw_tile_update!($b, $t3, $n, $q, (po, pa, pb), own: own_at(),
                    a: block_at::<$b>(a, pa, bi, k), b: block_at::<$b>(b, pb, k, bj));
                // The next k refills the shared tiles that slower threads may still read.
                thread::sync_threads();
                k += 1;
            }
        }
    )*};
}

for_each_fw_ooc!(fw_ooc_kernels);
