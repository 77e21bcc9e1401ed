//! Floyd–Warshall on one graph of small V in one persistent launch (`FW_SMALL`): at V ≤ 5000 a
//! round's work is a few µs at the add-min peak, so the three launches per round of `fw.rs`
//! (and phase 1 alone on one SM) cost more than the work. Here every block stays resident for
//! all rounds and the stages meet at grid-wide barriers ([`grid_barrier`]):
//!
//! - stage 0: block 0 closes pivot block (0, 0);
//! - per round r, stage A: phase 2, the blocks of pivot row r and column r as one (min, +)
//!   product with the closed pivot block (the `tile` layout's phase 2 in `fw.rs` says why that
//!   equals the in-place k loop);
//! - per round r, stage B: phase 3, every other block; the block that updates (r+1, r+1), which
//!   is item 0 and so starts first, closes it right away (phase 1 of round r+1, which needs
//!   nothing else of stage B), so no stage holds phase 1 alone.
//!
//! Blocks take the items of a stage round-robin. Every item is the tile update `own = min(own,
//! A ⊗ B)` of `fw.rs`'s `tile` layout with 4 x 4 cells per thread (rows `4 ty + 0..4`, columns
//! `4 tx + 0..4`): operands by `cp.async` into shared memory, own cells in registers.
//!
//! Memory ordering: a stage's stores reach the next stage's loads through the barrier (bar.sync,
//! then `fence.sc.gpu` and the arrival by one thread; the waiting thread's acquire load, a
//! `fence.sc.gpu`, bar.sync), the pattern of CUDA's cooperative-groups grid sync. Operands are
//! read with `cp.async.cg` (L2) and the own cells with coherent loads.
use core::arch::asm;
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, in_block};
use crate::ptx::{
    add_min, cp_async_16, cp_async_wait_all, ld_global_v4, ld_shared, shared_addr, st_global,
    st_shared,
};

/// Waits until `target` block arrivals have been counted at `bar` (this block's included): the
/// n-th barrier of a launch of G blocks waits for `n * G`. One thread per block arrives and
/// spins; the block's other threads wait at bar.sync.
///
/// # Safety
/// `bar` must point to a u32 of global memory that was 0 at the launch and that only this
/// function touches; every block of the grid must be resident at once (a cooperative launch)
/// and call it with the same sequence of targets, or the grid deadlocks.
#[inline(always)]
unsafe fn grid_barrier(bar: *mut u32, target: u32) {
    thread::sync_threads();
    if thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0 {
        // SAFETY: `bar` is the launch's barrier counter (the caller's contract), touched only by
        // these atomic and acquire accesses; the fences order this block's earlier global stores
        // (made this thread's by the bar.sync above) before the arrival, and the arrivals of the
        // others before this block's later loads.
        unsafe {
            asm!("fence.sc.gpu;", "red.relaxed.gpu.global.add.u32 [{p}], 1;", p = in(reg64) bar,
                 options(nostack, preserves_flags));
            loop {
                let seen: u32;
                asm!("ld.acquire.gpu.global.u32 {v}, [{p}];", v = out(reg32) seen, p = in(reg64) bar,
                     options(nostack, preserves_flags));
                if seen >= target {
                    break;
                }
            }
            asm!("fence.sc.gpu;", options(nostack, preserves_flags));
        }
    }
    thread::sync_threads();
}

/// The work item `m` of stage `s` in a matrix of `rounds` block rows: `(own, a, b)` as block
/// coordinates (`own = min(own, a ⊗ b)`) and whether the block closes `own` afterwards.
/// Stage 0 is the first pivot block (a product with itself first: a valid relaxation, then the
/// closure); stage 2r + 1 is phase 2 of round r, stage 2r + 2 its phase 3.
#[inline(always)]
fn item(s: u32, m: u32, rounds: u32) -> ((u32, u32), (u32, u32), (u32, u32), bool) {
    let r1 = rounds - 1;
    if s == 0 {
        return ((0, 0), (0, 0), (0, 0), true);
    }
    let r = (s - 1) / 2;
    let p = (r, r);
    if s % 2 == 1 {
        if m < r1 {
            let own = (r, (r + 1 + m) % rounds);
            (own, p, own, false)
        } else {
            let own = ((r + 1 + m - r1) % rounds, r);
            (own, own, p, false)
        }
    } else {
        let (bi, bj) = ((r + 1 + m / r1) % rounds, (r + 1 + m % r1) % rounds);
        ((bi, bj), (bi, r), (r, bj), m == 0 && r + 1 < rounds)
    }
}

/// Work items of stage `s` (see [`item`]).
#[inline(always)]
fn items(s: u32, rounds: u32) -> u32 {
    let r1 = rounds - 1;
    match s {
        0 => 1,
        _ if s % 2 == 1 => 2 * r1,
        _ => r1 * r1,
    }
}

macro_rules! fw_small_kernels {
    ($(($name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $kind:ident)),* $(,)?) => {$(
        fw_small_kernel!($kind, $name, $b, $t, $s);
    )*};
}

/// The barrier kernels of the list; the other rows are the other files' (`small_flow.rs`,
/// `small_pull.rs`, `small_strip.rs`).
macro_rules! fw_small_kernel {
    (barrier, $name:ident, $b:tt, $t:tt, $s:tt) => {
        /// Every round of blocked Floyd–Warshall on the padded matrix at `d` (`rounds * B` rows
        /// of `pitch` i32), persistent (module comment).
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device, `rounds * B` rows of
        /// `pitch` i32 (`pitch` ≥ `rounds * B`, a multiple of `PITCH_ALIGN`, `B x pitch` <
        /// 2^32), non-negative weights and a zero diagonal, nothing else touching it; `bar` a
        /// zeroed u32 of device memory for this launch alone; `B / 4 x B / 4` threads per block
        /// and every block of the 1-D grid resident at once (a cooperative launch).
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, rounds: u32, bar: *mut u32) {
            const _: () = assert!($t * 4 == $b);
            let (grid, me) = (thread::grid_dim_x(), thread::block_idx_x());
            let stages = 1 + 2 * rounds;
            let mut s = 0;
            while s < stages {
                let n = items(s, rounds);
                let mut m = me;
                while m < n {
                    let ((oi, oj), (ai, aj), (bi, bj), close) = item(s, m, rounds);
                    small_tile_item!($b, 4, 4, $s, d, pitch, own: (oi, oj), a: (ai, aj), b: (bi, bj),
                        close: close);
                    m += grid;
                }
                s += 1;
                if s < stages {
                    // SAFETY: `bar` is this launch's zeroed counter and the grid is co-resident
                    // (the kernel's contract); every block reaches the same s-th barrier.
                    unsafe { grid_barrier(bar, s * grid) };
                }
            }
        }
    };
    ($other:ident, $name:ident, $b:tt, $t:tt, $s:tt) => {};
}

for_each_fw_small!(fw_small_kernels);
