//! Probes of the small-graph solver's chain (`SMALL_PROBES`; `host apsp-small --probe`): one
//! work item on one block alone, stamped with the SM clock at each part (the operands' loads,
//! the product, the closure at 1, 2 or 4 steps per barrier, the stores), and the pull kernel
//! with every item stamped (`fw_pull_body!` with a recording hook), so that the rounds' chain
//! can be taken apart item by item. Not used by any solve.
use core::arch::asm;
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, in_block};
use super::small_flow::{Item, flow_item, publish, wait_for};
use super::small_strip::{StripItem, strip_item, wait_nonzero, wait_strip};
use super::{TRACE_WORDS, strip_items};
use crate::ptx::{
    add_min, atom_add_acq_rel_gpu, atom_add_relaxed_gpu, cp_async_16, cp_async_wait_all,
    fence_acq_rel_gpu, ld_global_v4, ld_shared, shared_addr, shfl_idx, sm_id, st_global,
    st_relaxed_gpu, st_shared,
};

/// The SM clock and the global timer (ns), read together.
#[inline(always)]
fn clocks() -> (u64, u64) {
    let (c, g): (u64, u64);
    // SAFETY: reads two special registers; not `pure`, so it stays where it is among the
    // memory operations around it.
    unsafe {
        asm!("mov.u64 {c}, %clock64;", "mov.u64 {g}, %globaltimer;", c = out(reg64) c,
             g = out(reg64) g, options(nostack, preserves_flags))
    };
    (c, g)
}

/// Stores `v` at `p` in the threads where `on` holds, without a branch. The stamps must not
/// branch on the lead thread: LLVM threads two such branches on either side of a block barrier
/// into one, duplicating the barrier into divergent paths (the first build of these probes did,
/// and hung on the H200).
///
/// # Safety
/// Where `on` holds, `p` must point to a writable, 8-byte aligned u64 of global memory that no
/// other thread accesses meanwhile.
#[inline(always)]
unsafe fn st_u64_where(on: bool, p: *mut u64, v: u64) {
    // SAFETY: the store runs only where `on` holds, to a word the caller's contract allows.
    unsafe {
        asm!("{{ .reg .pred q; setp.ne.u32 q, {on}, 0; @q st.global.u64 [{p}], {v}; }}",
             on = in(reg32) on as u32, p = in(reg64) p, v = in(reg64) v,
             options(nostack, preserves_flags));
    }
}

/// Point `$p` of item `$t` (`fw_pull_body!`'s stamp hook): the lead thread writes the clocks
/// into the item's `TRACE_WORDS` words of `$trace` (and at point 0 its SM, own block, block
/// index and kind).
macro_rules! trace_stamp {
    ($trace:expr, $lead:ident, $t:ident, $it:ident, $p:tt) => {{
        let (c, g) = clocks();
        let at = $trace.wrapping_add(($t * TRACE_WORDS) as usize);
        // SAFETY: words t · TRACE_WORDS.. of the trace (the kernel's contract: one slot per
        // item), written by the lead of the one block that runs item t.
        unsafe {
            if $p == 0 {
                let who = ((sm_id() as u64) << 48)
                    | (($it.own.0 as u64) << 32)
                    | (($it.own.1 as u64) << 16)
                    | (thread::block_idx_x() as u64 & 0xffff);
                let kind =
                    (($it.round as u64) << 2) | (($it.phase3 as u64) << 1) | $it.close as u64;
                st_u64_where($lead, at, who);
                st_u64_where($lead, at.wrapping_add(1), kind);
            }
            st_u64_where($lead, at.wrapping_add(2 + $p), c);
            st_u64_where($lead, at.wrapping_add(8 + $p), g);
        }
    }};
}

/// Item stamp `$p` of a probe: the lead writes both clocks.
macro_rules! item_stamp {
    ($stamps:ident, $lead:ident, $p:tt) => {{
        let (c, g) = clocks();
        // SAFETY: words p and 5 + p of the stamps (the kernel's contract: 10 u64), written by
        // the lead alone.
        unsafe {
            st_u64_where($lead, $stamps.wrapping_add($p), c);
            st_u64_where($lead, $stamps.wrapping_add(5 + $p), g);
        }
    }};
}

macro_rules! small_probes {
    ($(($name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $kind:ident)),* $(,)?) => {$(
        small_probe!($kind, $name, $b, $t, $c, $q, $s);
    )*};
}

macro_rules! small_probe {
    (item, $name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt) => {
        /// The first pivot block's product with itself and its closure (item 0 of a solve), by
        /// one block, stamped (module comment).
        ///
        /// # Safety
        /// `d` must point to a B x B block (row pitch `pitch` i32, a multiple of 4) of device
        /// memory with non-negative values and a zero diagonal, nothing else touching it;
        /// `stamps` 10 writable u64; one block of `B / C x B / C` threads.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, stamps: *mut u64) {
            let lead = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
            item_stamp!(stamps, lead, 0);
            small_tile_item!($b, $c, $q, $s, d, pitch, own: (0, 0), a: (0, 0), b: (0, 0),
                close: true, loaded: { item_stamp!(stamps, lead, 1); },
                multiplied: { item_stamp!(stamps, lead, 2); },
                before_store: { item_stamp!(stamps, lead, 3); });
            thread::sync_threads();
            item_stamp!(stamps, lead, 4);
        }
    };
    (trace, $name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt) => {
        /// The pull kernel with every item stamped (module comment).
        ///
        /// # Safety
        /// As the pull kernels (`small_pull.rs`), and `trace` `TRACE_WORDS` writable u64 per
        /// item (`1 + rounds (rounds² − 1)` items).
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, rounds: u32, done: *mut u32, trace: *mut u64) {
            fw_pull_body!($b, $t, $c, $q, $s, d, pitch, rounds, done, trace_stamp, trace);
        }
    };
    (strace4, $name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt) => {
        small_probe!(@strace 4, 0, $name);
    };
    (strace4c, $name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt) => {
        small_probe!(@strace 4, 4, $name);
    };
    (@strace $s:tt, $k:tt, $name:ident) => {
        /// A strip kernel (`small_strip.rs`) with every item stamped as in `trace`
        /// (`SmallProbeKind::StripTrace`).
        ///
        /// # Safety
        /// As the strip kernel's, and `trace` `TRACE_WORDS` writable u64 per item
        /// (`strip_items(rounds, strips)` items).
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, rounds: u32, done: *mut u32, trace: *mut u64) {
            fw_strip_body!($s, $k, d, pitch, rounds, done, trace_stamp, trace);
        }
    };
}

for_each_small_probe!(small_probes);
