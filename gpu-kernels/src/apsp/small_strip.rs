//! Floyd–Warshall on one graph of small V in one launch, the chain split into row strips
//! (`FW_SMALL` rows of kind `stripS`): the pull kernels' items, order, counters and tickets
//! (`small_pull.rs`), except the two items of each round that the next round waits for.
//!
//! Why: at V ≤ 2000 a round costs its chain (docs/apsp-small.md, sessions 22–23): the pivot
//! column's block next to the next pivot block, `C = (r + 1, r)`, updated by the closed pivot
//! `P*`, then the next pivot block `N = (r + 1, r + 1)` updated by `C` and the pivot row's
//! block `R = (r, r + 1)` and closed — two 64³ products and a closure on single SMs, with a
//! hand-off between them. Here, per round r < n − 1, S blocks (the strips) each take B / S rows
//! of `C` and of `N`:
//!
//! ```text
//! C_s = C_s min C_s P*;   N_s = N_s min C_s R        (R as it was before round r)
//! ```
//!
//! Each strip needs only its own rows and the whole `P*` and `R`, so the products run on S SMs
//! at once, and `N` no longer waits for round r's update of `R`: `C P* R = C P* P* R` (`P*` is
//! closed, so `P* P* = P*`), the product the launches compute. A block of `R` read while
//! round r's phase-2 item rewrites it is a mix of old and new cells, each between `R` and
//! `P* R` (that item only lowers cells), so `C_s` times it is that same product too. The strip
//! that arrives last (an arrival count per round) publishes `C`, closes `N` (by quadrants,
//! `small_quad.rs`) and publishes it: the closure follows the products without another hand-off.
//!
//! Counters as in `small_flow.rs`: `C` reaches r + 1 once every strip is stored, `N` r + 2 once
//! closed. What the strips wait for: `P*` at r + 1, `C`, `N` and `R` at r. What they overwrite
//! (`C`, `N`) no earlier round's items read at version r (neither is in pivot row or column
//! r − 1); the later writers of `R` and `P*` (round r + 1's) already wait for column r + 1 (`N`
//! among them) and column r (`C` among them) at r + 1. Item 0 is the first pivot block's
//! closure alone (the flow kernels' product of it with itself adds nothing). Every dependency
//! of an item precedes it in the order (the strips of round r come first in it, before round r's
//! other items and after all of round r − 1's), so the pull kernels' deadlock argument holds.
//!
//! Chain blocks (`K` > 0, `fw_strip_b64s4c`): traced at V = 1000 (session 24), a strip's two
//! products took 2.6 µs and the last one's closure ~9 µs, 2.5 and 1.4 times what they take on
//! an SM of their own: the SMs are shared with two blocks of bulk items. So the first K blocks
//! take only strips, from a ticket of their own (strip u is round u / S, strip u % S), and the
//! other blocks on their SMs leave at the start (where the grid has more than 9 K blocks, so
//! that others remain); the rest take the order without the strips. Each order keeps every
//! dependency of an item earlier in the global order, and each has a resident block, so the
//! earliest unfinished item of either runs: no deadlock.
use core::arch::asm;
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::offsets::{block_at, in_block};
use super::small_flow::{Item, flow_item, publish, wait_counter, wait_for};
use super::strip_items;
use crate::ptx::{
    add_min, atom_add_acq_rel_gpu, atom_add_relaxed_gpu, cp_async_16, cp_async_wait_all,
    fence_acq_rel_gpu, ld_global_v4, ld_shared, shared_addr, shfl_idx, sm_id, st_global,
    st_relaxed_gpu, st_shared,
};

/// Item `t` of a strip kernel.
#[derive(Clone, Copy)]
pub(super) enum StripItem {
    /// Item 0: the first pivot block's closure.
    First,
    /// Strip `strip` of round `round`'s chain (module comment).
    Strip { round: u32, strip: u32 },
    /// A block update of the flow order, never closing.
    Tile(Item),
}

/// Item `t` of the order (module comment): per round r < n − 1 the strips first, then the flow
/// order of round r without its index 1 (block (r + 1, r)) and 2 (n − 1) (block (r + 1, r + 1)).
#[inline(always)]
pub(super) fn strip_item(t: u32, n: u32, s: u32) -> StripItem {
    if t == 0 {
        return StripItem::First;
    }
    // n >= 2 here (a single block row has item 0 alone).
    let (per, flow_per, r1) = (n * n - 3 + s, n * n - 1, n - 1);
    let r = (t - 1) / per;
    if r < r1 {
        let m = (t - 1) % per;
        if m < s {
            return StripItem::Strip { round: r, strip: m };
        }
        let j = m - s;
        let f = if j == 0 {
            0
        } else if j < 2 * r1 - 1 {
            j + 1
        } else {
            j + 2
        };
        StripItem::Tile(flow_item(1 + r * flow_per + f, n))
    } else {
        StripItem::Tile(flow_item(1 + r1 * flow_per + (t - 1 - r1 * per), n))
    }
}

/// Waits (this thread) until the word at `p` is not zero, and returns it.
///
/// # Safety
/// `p` must point to an aligned u32 of global memory that other threads write only atomically.
#[inline(always)]
pub(super) unsafe fn wait_nonzero(p: *mut u32) -> u32 {
    loop {
        let seen: u32;
        // SAFETY: the caller's contract; an atomic read.
        unsafe {
            asm!("ld.relaxed.gpu.global.u32 {v}, [{p}];", v = out(reg32) seen, p = in(reg64) p,
                 options(nostack, preserves_flags));
        }
        if seen != 0 {
            return seen;
        }
        // SAFETY: a sleep only.
        unsafe { asm!("nanosleep.u32 64;", options(nostack, preserves_flags)) };
    }
}

/// Waits (all threads) for what the strips of round `r` read: `P*` at r + 1, `C`, `N` and `R`
/// at r (module comment).
///
/// # Safety
/// As `small_flow.rs`'s `wait_for`; `r + 1 < n`.
#[inline(always)]
pub(super) unsafe fn wait_strip(done: *mut u32, n: u32, r: u32, side: u32) {
    let s = thread::thread_idx_y() * side + thread::thread_idx_x();
    if s < 4 {
        let (block, target) = match s {
            0 => ((r, r), r + 1),
            1 => ((r + 1, r), r),
            2 => ((r + 1, r + 1), r),
            _ => ((r, r + 1), r),
        };
        // SAFETY: the caller's contract; every block named is < (n, n) as r + 1 < n.
        unsafe { wait_counter(done, n, block, target) };
    }
    thread::sync_threads();
}

macro_rules! fw_strip_kernels {
    ($(($name:ident, $b:tt, $t:tt, $c:tt, $q:tt, $s:tt, $kind:ident)),* $(,)?) => {$(
        fw_strip_kernel!($kind, $name);
    )*};
}

/// The strip kernels of the list; the other rows are the other files'.
macro_rules! fw_strip_kernel {
    (strip2, $name:ident) => { fw_strip_kernel!(@ 2, 0, $name); };
    (strip4, $name:ident) => { fw_strip_kernel!(@ 4, 0, $name); };
    (strip4c, $name:ident) => { fw_strip_kernel!(@ 4, 4, $name); };
    (@ $s:tt, $k:tt, $name:ident) => {
        /// Every round of blocked Floyd–Warshall on the padded matrix at `d` (`rounds * 64` rows
        /// of `pitch` i32), blocks pulling the next item, each round's chain in strips (module
        /// comment).
        ///
        /// # Safety
        /// `d` must point to the padded distance matrix on the device, `rounds * 64` rows of
        /// `pitch` i32 (`pitch` ≥ `rounds * 64`, a multiple of `PITCH_ALIGN`, `64 x pitch` <
        /// 2^32), non-negative weights and a zero diagonal, nothing else touching it; `done`
        /// `SmallKind::counter_words` zeroed u32 of device memory for this launch alone; 16 x
        /// 16 threads per block and every block of the 1-D grid resident at once (a cooperative
        /// launch).
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, pitch: u32, rounds: u32, done: *mut u32) {
            fw_strip_body!($s, $k, d, pitch, rounds, done, no_stamp, ());
        }
    };
    ($other:ident, $name:ident) => {};
}

/// The strip kernel's body on `$d`, `$pitch`, `$rounds`, `$done` (the kernel's arguments), `$s`
/// strips a round, `$k` chain blocks (0: none, the strips in the one order; module comment): `$stamp!($ctx, lead, t, it, point)` (`no_stamp!` of `small_pull.rs`, or a
/// time stamp) runs in every thread at the points of `fw_pull_body!` (for a strip, `it` names block (r + 1, r + 1) as a closing
/// phase-3 item; point 4 is its arrival counted, or for the last, its closure done): nothing in
/// the kernels of the list, a time stamp in `small_probe.rs`'s traced copy. Expanded only in an
/// `unsafe fn` whose contract is the strip kernel's.
macro_rules! fw_strip_body {
    ($s:tt, $k:tt, $d:ident, $pitch:ident, $rounds:ident, $done:ident, $stamp:ident,
        $ctx:expr) => {{
        const S: u32 = $s;
        const K: u32 = $k;
        const SC: u32 = $crate::apsp::small_tile::a_tile_pitch(64);
        #[repr(C, align(16))]
        struct XTile([i32; (64 / S * SC) as usize]);
        #[address_space(shared)]
        static mut X_TILE: MaybeUninit<XTile> = MaybeUninit::uninit();
        // [0] the next ticket, [1] whether this block's strip arrived last.
        #[address_space(shared)]
        static mut NEXT: MaybeUninit<[u32; 2]> = MaybeUninit::uninit();
        let (d, pitch, done) = ($d, $pitch, $done);
        let (sa, sb) = small_tiles!(64);
        let sx = shared_addr(addr_of!(X_TILE));
        let next_at = shared_addr(addr_of!(NEXT));
        let n = $rounds;
        // The counters (`SmallKind::counter_words`): n² blocks', the ticket, n arrival counts,
        // the chain blocks' ticket, their K SM ids.
        let arrivals = done.wrapping_add((n * n + 1) as usize);
        let chain_ids = done.wrapping_add((n * n + n + 2) as usize);
        let lead = thread::thread_idx_x() == 0 && thread::thread_idx_y() == 0;
        let (me, grid) = (thread::block_idx_x(), thread::grid_dim_x());
        let chain = me < K;
        if chain && lead {
            // SAFETY: word me < K of the chain ids (the kernel's contract), written once here,
            // read atomically by the others below.
            unsafe { st_relaxed_gpu(chain_ids.wrapping_add(me as usize), sm_id() + 1) };
        }
        // The other blocks on a chain block's SM leave, so that the chain's items have its SM to
        // themselves; only where the grid is large enough that blocks remain for the rest (at
        // most 8 blocks an SM share it with a chain block).
        if K > 0 && !chain && grid > 9 * K {
            if lead {
                let (mine, mut leave) = (sm_id() + 1, 0u32);
                let mut c = 0;
                while c < K {
                    // SAFETY: chain id c < K, as above; the chain blocks are resident (the
                    // grid is) and write it at their start.
                    let id = unsafe { wait_nonzero(chain_ids.wrapping_add(c as usize)) };
                    leave |= (id == mine) as u32;
                    c += 1;
                }
                // SAFETY: NEXT[1], read by every thread after the barrier below.
                unsafe { st_shared::<1>(next_at + 4, [leave]) };
            }
            thread::sync_threads();
            // SAFETY: NEXT[1], written before the barrier above; no ticket is held yet.
            if unsafe { ld_shared::<1>(next_at + 4)[0] } != 0 {
                return;
            }
        }
        // The chain blocks take strips (round u / S, strip u % S) from their own ticket, the
        // others the order without them; both orders keep every dependency earlier.
        let (ticket, total) = match (K, chain) {
            (0, _) => (n * n, strip_items(n, S)),
            (_, true) => (n * n + n + 1, (n - 1) * S),
            (_, false) => (n * n, strip_items(n, 0)),
        };
        let ticket = done.wrapping_add(ticket as usize);
        // A chain block's strip u is item main + u of a trace (after the other order's).
        let trace_base = if chain { strip_items(n, 0) } else { 0 };
        // Takes the next ticket into NEXT[0] (lead only; relaxed: it orders nothing, the next
        // item's data waits on the counters).
        let take = || {
            if lead {
                // SAFETY: this block's ticket word (the kernel's contract), touched only
                // atomically; NEXT[0] is read by every thread after a later barrier, and every
                // thread read its previous value before this item's first barrier.
                unsafe { st_shared::<1>(next_at, [atom_add_relaxed_gpu(ticket, 1)]) };
            }
        };
        take();
        thread::sync_threads();
        // SAFETY: NEXT[0], written before the barrier above.
        let mut u = unsafe { ld_shared::<1>(next_at)[0] };
        while u < total {
            let t = trace_base + u;
            let item = match (K, chain) {
                (0, _) => strip_item(u, n, S),
                (_, true) => StripItem::Strip {
                    round: u / S,
                    strip: u % S,
                },
                (_, false) => strip_item(u, n, 0),
            };
            match item {
                StripItem::First => {
                    let it = flow_item(0, n);
                    $stamp!($ctx, lead, t, it, 0);
                    $stamp!($ctx, lead, t, it, 1);
                    $stamp!($ctx, lead, t, it, 2);
                    $stamp!($ctx, lead, t, it, 3);
                    strip_close!(d, pitch, (0, 0), sa, before_store: {
                        $stamp!($ctx, lead, t, it, 4);
                        take();
                    });
                    // SAFETY: `done` is the launch's zeroed counters (the kernel's contract);
                    // this block wrote (0, 0) alone.
                    unsafe { publish(done, n, (0, 0), 1) };
                    $stamp!($ctx, lead, t, it, 5);
                }
                StripItem::Tile(it) => {
                    $stamp!($ctx, lead, t, it, 0);
                    // SAFETY: as above.
                    unsafe { wait_for(done, n, it, 16) };
                    $stamp!($ctx, lead, t, it, 1);
                    small_tile_item!(64, 4, 4, 0, d, pitch, own: it.own, a: it.a, b: it.b,
                        close: false, tiles: (sa, sb),
                        loaded: { $stamp!($ctx, lead, t, it, 2); },
                        multiplied: { $stamp!($ctx, lead, t, it, 3); },
                        before_store: {
                            $stamp!($ctx, lead, t, it, 4);
                            take();
                        });
                    // SAFETY: as above; this block wrote `own` for this item alone.
                    unsafe { publish(done, n, it.own, it.round + 1) };
                    $stamp!($ctx, lead, t, it, 5);
                }
                StripItem::Strip { round: r, strip } => {
                    let it = Item {
                        own: (r + 1, r + 1),
                        a: (r + 1, r),
                        b: (r, r + 1),
                        round: r,
                        phase3: true,
                        close: true,
                    };
                    $stamp!($ctx, lead, t, it, 0);
                    // SAFETY: as above; r + 1 < n for a strip.
                    unsafe { wait_strip(done, n, r, 16) };
                    $stamp!($ctx, lead, t, it, 1);
                    small_strip_item!($s, d, pitch, r, strip, sa, sb, sx,
                        loaded: { $stamp!($ctx, lead, t, it, 2); },
                        before_store: { $stamp!($ctx, lead, t, it, 3); });
                    thread::sync_threads();
                    if lead {
                        // Release this strip's stores (made the lead's by the barrier), then
                        // count it; the last arrival acquires the others'.
                        fence_acq_rel_gpu();
                        let arrival = arrivals.wrapping_add(r as usize);
                        // SAFETY: arrival count r < n of the launch's array (the kernel's
                        // contract), touched only by this atomic.
                        let old = unsafe { atom_add_acq_rel_gpu(arrival, 1) };
                        let last = old == S - 1;
                        if last {
                            fence_acq_rel_gpu();
                        } else {
                            take();
                        }
                        // SAFETY: NEXT[1], read by every thread after the barrier below and
                        // written again only in a later strip, after its first barrier.
                        unsafe { st_shared::<1>(next_at + 4, [last as u32]) };
                    }
                    thread::sync_threads();
                    // SAFETY: NEXT[1], written before the barrier above.
                    if unsafe { ld_shared::<1>(next_at + 4)[0] } != 0 {
                        // Every strip is stored: C is final for round r.
                        // SAFETY: as above; no block writes C before round r + 1's items,
                        // which wait for this counter.
                        unsafe { publish(done, n, (r + 1, r), r + 1) };
                        strip_close!(d, pitch, (r + 1, r + 1), sa, before_store: {
                            $stamp!($ctx, lead, t, it, 4);
                            take();
                        });
                        // SAFETY: as above; the strips and this closure alone wrote N.
                        unsafe { publish(done, n, (r + 1, r + 1), r + 2) };
                    } else {
                        $stamp!($ctx, lead, t, it, 4);
                    }
                    $stamp!($ctx, lead, t, it, 5);
                }
            }
            // SAFETY: NEXT[0], written by the lead before the item's last barrier.
            u = unsafe { ld_shared::<1>(next_at)[0] };
        }
    }};
}

for_each_fw_small!(fw_strip_kernels);
