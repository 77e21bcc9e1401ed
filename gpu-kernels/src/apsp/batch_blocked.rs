//! The blocked algorithm for a batch of graphs too large for one block (`BATCH_BLOCKED`): the
//! one-graph solver's register-tiled phase kernels of block factor B (`fw_pivot_block!`,
//! `fw_tile_update!` in `fw.rs`, the same updates), with the graph's index in the last grid
//! dimension, so that one launch per phase and round serves every graph of a size class. The
//! matrices are `n x n` (pitch n, a multiple of B) one after another.
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

/// The first cell of matrix `g` of a batch of `n x n` matrices: a 64-bit offset.
#[inline(always)]
fn graph_at(d: *mut i32, n: u32, g: u32) -> *mut i32 {
    // SAFETY: not checked here: every caller passes a graph index of its launch grid, which
    // the host sizes to the matrices in `d` (kernel contracts below).
    unsafe { d.add(g as usize * (n as usize * n as usize)) }
}

macro_rules! batch_blocked_kernels {
    ($(($p1:ident, $p2:ident, $p3:ident, $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt, $max:tt)),* $(,)?) => {$(
        /// Phase 1 of `round` for graph `block_idx.x`: closes its pivot block.
        ///
        /// # Safety
        /// `d` must point to `grid.x` (phase 1), `grid.z` (phases 2 and 3) matrices of `n x n`
        /// i32 of device memory one after another, each the padded distance matrix of one graph
        /// (non-negative weights, zero diagonal, INF padding), `n` a multiple of B with `n * B`
        /// below 2^32; `round` < n / B; launched with `BATCH_BLOCKED`'s geometry, the phases of
        /// a round in order, each launch alone on the matrices.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p1(d: *mut i32, n: u32, round: u32) {
            let m = graph_at(d, n, thread::block_idx_x());
            fw_pivot_block!($b, $t, $r, block_at::<$b>(m, n, round, round), n);
        }

        /// Phase 2 of `round` for graph `block_idx.z`: the blocks of its pivot row
        /// (`block_idx.y == 0`) and column (`block_idx.y == 1`), as `fw_phase23!(tile, ..)`.
        ///
        /// # Safety
        /// As phase 1's.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p2(d: *mut i32, n: u32, round: u32) {
            if thread::block_idx_x() == round {
                return;
            }
            let m = graph_at(d, n, thread::block_idx_z());
            let own = move || {
                let x = thread::block_idx_x();
                let (bi, bj) = if thread::block_idx_y() == 0 { (round, x) } else { (x, round) };
                block_at::<$b>(m, n, bi, bj)
            };
            let pivot = block_at::<$b>(m, n, round, round);
            let in_row = thread::block_idx_y() == 0;
            let a = if in_row { pivot } else { own() };
            let b = if in_row { own() } else { pivot };
            fw_tile_update!($b, $t3, $n, $q, n, own: own(), a: a, b: b);
        }

        /// Phase 3 of `round` for graph `block_idx.z`: every block outside its pivot row and
        /// column.
        ///
        /// # Safety
        /// As phase 1's.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p3(d: *mut i32, n: u32, round: u32) {
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == round || bj == round {
                return;
            }
            let m = graph_at(d, n, thread::block_idx_z());
            let own = || block_at::<$b>(m, n, thread::block_idx_y(), thread::block_idx_x());
            fw_tile_update!($b, $t3, $n, $q, n, own: own(),
                a: block_at::<$b>(m, n, bi, round), b: block_at::<$b>(m, n, round, bj));
        }
    )*};
}

for_each_batch_blocked!(batch_blocked_kernels);
