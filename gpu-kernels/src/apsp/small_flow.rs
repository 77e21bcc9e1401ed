//! Floyd–Warshall on one graph of small V in one launch without grid-wide barriers
//! (`FW_SMALL` rows of kind `flow`): the work items of `small.rs` (phase 2 and 3 block updates,
//! phase 1 folded into the phase-3 update of the next pivot block) in one global order, each
//! started as soon as the blocks it reads and writes are ready, tracked by one counter per
//! block of the matrix. So phases 2–3 of round r overlap phases 1–2 of round r + 1 (the next
//! pivot block, its row and its column come first in round r's order), and a round costs its
//! critical path (phase 3 of the next pivot block with its closure, then phase 2 of a block
//! next to it) instead of a barrier after each phase.
//!
//! `done[i][j]` (row-major, `rounds²` u32, zero at the launch) counts the rounds applied to
//! block (i, j): an item of round r that writes (i, j) publishes r + 1 (r + 2 for the item that
//! also closes the next pivot block; 1 for item 0, the first pivot block). Before its loads an
//! item of round r waits for:
//! - its own block at r (its previous update, by whichever block, is stored);
//! - its operands at r + 1: the pivot block for phase 2; for phase 3 the pivot-column block of
//!   its row and the pivot-row block of its column;
//! - the readers of what it overwrites: version r of (i, j) is read by round r − 1 only if
//!   (i, j) was in that round's pivot row (i = r − 1: read by every block of column j) or
//!   column (j = r − 1: by every block of row i), so then the whole column j (row i) at r.
//!
//! Item t goes to block t mod grid, and each block takes its items in increasing order. Every
//! dependency of an item precedes it in the order, so the smallest unfinished item can always
//! run: with every block resident at once (a cooperative launch) this cannot deadlock.
//!
//! Memory ordering: an item's stores reach later readers through its counter: bar.sync, then
//! one thread's `fence.acq_rel.gpu` and relaxed store (a release); the waiting threads' acquire
//! loads and `fence.acq_rel.gpu`, then bar.sync. Operands are read with `cp.async.cg` (L2),
//! the own cells with coherent loads, as in `small.rs`.
use core::arch::asm;
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, in_block};
use crate::ptx::{
    add_min, cp_async_16, cp_async_wait_all, fence_acq_rel_gpu, ld_global_v4, ld_shared,
    shared_addr, st_global, st_relaxed_gpu, st_shared,
};

/// A work item: `(own, a, b)` as block coordinates (`own = min(own, a ⊗ b)`), its round,
/// whether it is phase 3 (else phase 2, or item 0) and whether it closes `own` afterwards.
#[derive(Clone, Copy)]
pub(super) struct Item {
    pub(super) own: (u32, u32),
    pub(super) a: (u32, u32),
    pub(super) b: (u32, u32),
    pub(super) round: u32,
    pub(super) phase3: bool,
    pub(super) close: bool,
}

/// Work item `t` of a matrix of `n` block rows. Order: item 0 closes (0, 0); then per round r
/// its `n² − 1` items: phase 2 with the row and column blocks alternating outward from the
/// pivot, then phase 3 with block (r + 1, r + 1) first (it closes it), then the rest of row and
/// column r + 1, then the others row by row.
#[inline(always)]
pub(super) fn flow_item(t: u32, n: u32) -> Item {
    if t == 0 {
        let z = (0, 0);
        return Item {
            own: z,
            a: z,
            b: z,
            round: 0,
            phase3: false,
            close: true,
        };
    }
    let (per, r1) = (n * n - 1, n - 1);
    let (r, m) = ((t - 1) / per, (t - 1) % per);
    let p = (r, r);
    let at = |x: u32| (r + 1 + x) % n;
    if m < 2 * r1 {
        let x = at(m / 2);
        let (own, a, b) = if m % 2 == 0 {
            ((r, x), p, (r, x))
        } else {
            ((x, r), (x, r), p)
        };
        return Item {
            own,
            a,
            b,
            round: r,
            phase3: false,
            close: false,
        };
    }
    let m = m - 2 * r1;
    // Offsets (x, y) in 0..r1 from block (r + 1, r + 1).
    let (x, y) = if m == 0 {
        (0, 0)
    } else if m < 2 * r1 - 1 {
        let q = (m - 1) / 2 + 1;
        if (m - 1) % 2 == 0 { (0, q) } else { (q, 0) }
    } else {
        let m = m - (2 * r1 - 1);
        (1 + m / (r1 - 1), 1 + m % (r1 - 1))
    };
    let (bi, bj) = (at(x), at(y));
    Item {
        own: (bi, bj),
        a: (bi, r),
        b: (r, bj),
        round: r,
        phase3: true,
        close: x == 0 && y == 0 && r + 1 < n,
    }
}

/// Waits (all threads of the block) until every counter `item` depends on has reached its
/// target (module comment); the counter slots are spread over the `side x side` threads.
///
/// # Safety
/// `done` must point to the launch's `n²` counters, touched otherwise only by [`publish`].
#[inline(always)]
pub(super) unsafe fn wait_for(done: *mut u32, n: u32, it: Item, side: u32) {
    let (i, j) = it.own;
    let r = it.round;
    // Item 0 waits for nothing; phase 2's operands are its own block and the pivot block.
    let first = it.close && !it.phase3;
    let row = r > 0 && j == r - 1;
    let col = r > 0 && i == r - 1;
    let mut s = thread::thread_idx_y() * side + thread::thread_idx_x();
    while s < 3 + 2 * n {
        // (block, target) of slot s, or none.
        let slot = if s == 0 {
            Some((it.own, r))
        } else if s == 1 && !first {
            Some((if it.phase3 { it.a } else { (r, r) }, r + 1))
        } else if s == 2 && it.phase3 {
            Some((it.b, r + 1))
        } else if (3..3 + n).contains(&s) && row {
            Some(((i, s - 3), r))
        } else if s >= 3 + n && col {
            Some(((s - 3 - n, j), r))
        } else {
            None
        };
        if let Some((block, target)) = slot {
            // SAFETY: the caller's contract; (bi, bj) < (n, n).
            unsafe { wait_counter(done, n, block, target) };
        }
        s += side * side;
    }
    thread::sync_threads();
}

/// Waits (this thread) until block `(bi, bj)`'s counter has reached `target`, then orders this
/// thread's later loads after what its publisher stored (the acquire and a fence; the caller's
/// barrier passes that on to the block's other threads).
///
/// # Safety
/// As [`wait_for`], and `(bi, bj) < (n, n)`.
#[inline(always)]
pub(super) unsafe fn wait_counter(done: *mut u32, n: u32, (bi, bj): (u32, u32), target: u32) {
    let p = done.wrapping_add((bi * n + bj) as usize);
    loop {
        let seen: u32;
        // SAFETY: counter (bi, bj) < (n, n) of the launch's array (the caller's contract), read
        // atomically; written only by `publish`'s atomic store.
        unsafe {
            asm!("ld.acquire.gpu.global.u32 {v}, [{p}];", v = out(reg32) seen,
                 p = in(reg64) p, options(nostack, preserves_flags));
        }
        if seen >= target {
            break;
        }
        // SAFETY: a sleep only; spinning without it takes issue slots from the blocks that
        // compute on the same SM.
        unsafe { asm!("nanosleep.u32 64;", options(nostack, preserves_flags)) };
    }
    fence_acq_rel_gpu();
}

/// Publishes `value` as block `own`'s counter once every thread's stores are done.
///
/// # Safety
/// As [`wait_for`]; this block must be the only writer of `own` now (its item's dependencies).
#[inline(always)]
pub(super) unsafe fn publish(done: *mut u32, n: u32, own: (u32, u32), value: u32) {
    thread::sync_threads();
    if thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0 {
        fence_acq_rel_gpu();
        // SAFETY: counter own < (n, n) of the launch's array (the caller's contract), read by
        // the others atomically only.
        unsafe { st_relaxed_gpu(done.wrapping_add((own.0 * n + own.1) as usize), value) };
    }
}

macro_rules! fw_flow_kernels {
    ($(($name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $kind:ident)),* $(,)?) => {$(
        fw_flow_kernel!($kind, $name, $b, $t, $s);
    )*};
}

/// The dataflow kernels of the list; the other rows are the other files' (`small.rs`,
/// `small_pull.rs`, `small_strip.rs`).
macro_rules! fw_flow_kernel {
    (flow, $name:ident, $b:tt, $t:tt, $s:tt) => {
        /// Every round of blocked Floyd–Warshall on the padded matrix at `d` (`rounds * B` rows
        /// of `pitch` i32), each work item started when its blocks are ready (module comment).
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device, `rounds * B` rows of
        /// `pitch` i32 (`pitch` ≥ `rounds * B`, a multiple of `PITCH_ALIGN`, `B x pitch` <
        /// 2^32), non-negative weights and a zero diagonal, nothing else touching it; `done`
        /// `rounds²` zeroed u32 of device memory for this launch alone; `B / 4 x B / 4` threads
        /// per block and every block of the 1-D grid resident at once (a cooperative launch).
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, rounds: u32, done: *mut u32) {
            const _: () = assert!($t * 4 == $b);
            let (grid, me) = (thread::grid_dim_x(), thread::block_idx_x());
            let n = rounds;
            let total = 1 + n * (n * n - 1);
            let mut t = me;
            while t < total {
                let it = flow_item(t, n);
                // SAFETY: `done` is the launch's zeroed counters (the kernel's contract).
                unsafe { wait_for(done, n, it, $t) };
                small_tile_item!($b, 4, 4, $s, d, pitch, own: it.own, a: it.a, b: it.b, close: it.close);
                let value = match (t, it.close) {
                    (0, _) => 1,
                    (_, true) => it.round + 2,
                    _ => it.round + 1,
                };
                // SAFETY: as above; this block wrote `own` for this item alone.
                unsafe { publish(done, n, it.own, value) };
                t += grid;
            }
        }
    };
    ($other:ident, $name:ident, $b:tt, $t:tt, $s:tt) => {};
}

for_each_fw_small!(fw_flow_kernels);
