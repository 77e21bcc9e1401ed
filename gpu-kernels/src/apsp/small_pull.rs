//! Floyd–Warshall on one graph of small V in one launch, blocks pulling their work items
//! (`FW_SMALL` rows of kind `pull`): the items, their order, their dependencies and the
//! per-block counters of `small_flow.rs`, but instead of item t going to block t mod grid, a
//! block takes the next item of the order from a ticket counter (one `atom.add`) whenever it is
//! free. With the static assignment a round's `n² − 1` items, more than the co-resident blocks,
//! ran in uneven waves (a block with a slow item delays every later item of its own); pulled,
//! a free block always takes the earliest item not yet taken, which is the order of priority
//! (the next pivot block, its row and column first). A block takes its next ticket once its
//! item's cells are final, just before it stores them: the atomic's round trip then overlaps
//! the stores and the publication (session 19: with the ticket taken after the publication
//! the block's warps waited at the barrier behind the lead's fence and atomic, 8 % of the
//! kernel's stall samples at V = 5000; docs/apsp.md). Taken earlier (at the start of the item),
//! the next pivot block's item waited behind whatever bulk item its block was busy with
//! (measured on the H200, 2026-11-24: 42.0% of `apsp-peak` at V = 2000 against 47.8% for the
//! static order).
//!
//! Deadlock: a block holds at most one item. Tickets are taken in order, so the earliest
//! unfinished item u has been taken, by a block that is working on it; every item it depends
//! on is earlier and finished, so it runs: with every block resident at once (a cooperative
//! launch) the launch finishes.
//!
//! Also here: `apsp_hold`, a one-thread kernel that spins for a given time, queued before the
//! timed region by `host apsp-small --hold-us` so that the CPU has queued every launch of the
//! solve before the GPU reaches its start event (what the events then time is the GPU's work
//! alone, not the CPU's launch calls).
use core::arch::asm;
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, in_block};
use super::small_flow::{flow_item, publish, wait_for};
use crate::ptx::{
    add_min, atom_add_acq_rel_gpu, atom_add_relaxed_gpu, cp_async_16, cp_async_wait_all,
    ld_global_v4, ld_shared, shared_addr, shfl_idx, st_global, st_shared,
};

macro_rules! fw_pull_kernels {
    ($(($name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $kind:ident)),* $(,)?) => {$(
        fw_pull_kernel!($kind, $name, $b, $t, $c, $q, $s);
    )*};
}

/// The pulling kernels of the list; the other rows are the other files' (`small.rs`,
/// `small_flow.rs`, `small_strip.rs`).
macro_rules! fw_pull_kernel {
    (pull, $name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt) => {
        /// Every round of blocked Floyd–Warshall on the padded matrix at `d` (`rounds * B` rows
        /// of `pitch` i32), each block pulling the next work item (module comment).
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device, `rounds * B` rows of
        /// `pitch` i32 (`pitch` ≥ `rounds * B`, a multiple of `PITCH_ALIGN`, `B x pitch` <
        /// 2^32), non-negative weights and a zero diagonal, nothing else touching it; `done`
        /// `rounds² + 1` zeroed u32 of device memory for this launch alone (the block counters,
        /// then the ticket); `B / C x B / C` threads per block and every block of the 1-D grid
        /// resident at once (a cooperative launch).
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, rounds: u32, done: *mut u32) {
            fw_pull_body!($b, $t, $c, $q, $s, d, pitch, rounds, done, no_stamp, ());
        }
    };
    ($other:ident, $name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt) => {};
}

/// A stamp hook that records nothing (the untraced kernels).
macro_rules! no_stamp {
    ($($x:tt)*) => {};
}

/// The pull kernel's body on `$d`, `$pitch`, `$rounds`, `$done` (the kernel's arguments):
/// `$stamp!($ctx, lead, t, it, point)` runs in every thread at points 0 (ticket read), 1 (the
/// item's dependencies met), 2 (its operands loaded), 3 (its product done), 4 (its closure done,
/// before its stores) and 5 (published): nothing in the kernels of the list, a time stamp in
/// `small_probe.rs`'s traced copies. Expanded only in an `unsafe fn` whose contract is the
/// pull kernel's.
macro_rules! fw_pull_body {
    ($b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $d:ident, $pitch:ident, $rounds:ident, $done:ident,
        $stamp:ident, $ctx:expr) => {{
        const _: () = assert!($t * $c == $b);
        #[address_space(shared)]
        static mut NEXT: MaybeUninit<[u32; 1]> = MaybeUninit::uninit();
        let (d, pitch, done) = ($d, $pitch, $done);
        let n = $rounds;
        let total = 1 + n * (n * n - 1);
        let ticket = done.wrapping_add((n * n) as usize);
        let next_at = shared_addr(addr_of!(NEXT));
        let lead = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
        if lead {
            // SAFETY: the ticket word after the counters (the kernel's contract), touched only
            // atomically; NEXT is this block's word, read after the barrier below.
            unsafe { st_shared::<1>(next_at, [atom_add_acq_rel_gpu(ticket, 1)]) };
        }
        thread::sync_threads();
        // SAFETY: NEXT, written before the barrier above; the lead writes it again only at the
        // end of this item, after the barriers of `wait_for` and of the item.
        let mut t = unsafe { ld_shared::<1>(next_at)[0] };
        while t < total {
            let it = flow_item(t, n);
            $stamp!($ctx, lead, t, it, 0);
            // SAFETY: `done` is the launch's zeroed counters (the kernel's contract).
            unsafe { wait_for(done, n, it, $t) };
            $stamp!($ctx, lead, t, it, 1);
            small_tile_item!($b, $c, $q, $s, d, pitch, own: it.own, a: it.a, b: it.b,
                close: it.close, loaded: { $stamp!($ctx, lead, t, it, 2); },
                multiplied: { $stamp!($ctx, lead, t, it, 3); }, before_store: {
                    $stamp!($ctx, lead, t, it, 4);
                    if lead {
                        // SAFETY: the ticket, as above (relaxed: it orders nothing; the next
                        // item's data waits on the counters); NEXT: every thread read it before
                        // `wait_for`'s barrier.
                        unsafe { st_shared::<1>(next_at, [atom_add_relaxed_gpu(ticket, 1)]) };
                    }
                });
            let value = match (t, it.close) {
                (0, _) => 1,
                (_, true) => it.round + 2,
                _ => it.round + 1,
            };
            // SAFETY: as above; this block wrote `own` for this item alone.
            unsafe { publish(done, n, it.own, value) };
            $stamp!($ctx, lead, t, it, 5);
            // SAFETY: NEXT, written by the lead before `publish`'s barrier.
            t = unsafe { ld_shared::<1>(next_at)[0] };
        }
    }};
}

for_each_fw_small!(fw_pull_kernels);

/// Spins one thread for `ns` nanoseconds of the GPU's global timer (module comment).
///
/// # Safety
/// No memory is touched; any launch geometry is sound (one thread is what it is meant for).
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_hold(ns: u64) {
    let now = || {
        let t: u64;
        // SAFETY: reads the global timer register only.
        unsafe { asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t, options(nostack, nomem)) };
        t
    };
    let start = now();
    while now().wrapping_sub(start) < ns {
        // SAFETY: a sleep only.
        unsafe { asm!("nanosleep.u32 1000;", options(nostack, preserves_flags)) };
    }
}
