//! The warp-specialised skeleton every Hopper GEMM kernel shares (16-bit in `wgmma.rs`, TF32 and
//! 3xTF32 in `tf32_kernel.rs`): the ring of k-slices in shared memory with its mbarriers, the
//! walk over C's tiles, the producer's loop and the consumers' loop. A kernel supplies what
//! differs as closures: which TMA copies fill a slice, which wgmma multiply it, what happens
//! after a slice (3xTF32's flush) and the epilogue (`epilogue.rs`).
//!
//! The walk: block `b` of a grid of `g` takes tiles `b, b + g, b + 2g, …` in grouped order (runs
//! of `group` tile rows walked down before moving right, so that a wave of blocks shares panels
//! of A and B in L2). A grid of one block per tile is the classic launch; a grid of one block per
//! SM is persistent: the ring and its barrier phases run on across tiles, so the producer fills
//! slices of the next tile while the consumers store the last one. With stream-K the last
//! `sk_tiles` tiles are instead cut along k into one equal run of slices per block, done first
//! (`Walk`; the partial sums are combined by `stream_k.rs`).
use cuda_std::{shared::dynamic_shared_mem, thread};

use super::asm90::{
    cluster_rank, cluster_sync, fence_mbarrier_init, grid_blocks, mbar_arrive, mbar_arrive_cluster,
    mbar_arrive_expect_tx, mbar_init, mbar_wait, wgmma_wait,
};
use crate::ptx::{fresh_ctaid_x, fresh_tid_x, shared_addr};

/// Alignment of the slices (the 128-byte swizzle's period).
const ALIGN: u32 = super::SWIZZLE_ALIGN;

/// `STAGES` slices of `stage_bytes` each at the 1024-byte aligned start of the dynamic shared
/// memory, then a "full" mbarrier (TMA's bytes arrived) and an "empty" one (the consumers are
/// done with the slice) per slice.
///
/// In a cluster of two blocks (`Ring::new_pair`) each slot is filled by both blocks' TMA
/// copies (multicast), so a slot is free again only when the consumers of both blocks are done
/// with it: each consumer releases it in its own block and in the other one.
#[derive(Clone, Copy)]
pub(super) struct Ring<const STAGES: u32> {
    base: u32,
    stage_bytes: u32,
    pair: bool,
}

impl<const STAGES: u32> Ring<STAGES> {
    /// Sets the ring up (thread 0 initialises the barriers: one arrival a phase for "full", the
    /// producer's `expect_tx`; `consumers` for "empty") and synchronises the block.
    ///
    /// # Safety
    /// The launch's dynamic shared memory must hold `ALIGN + STAGES * stage_bytes + 16 * STAGES`
    /// bytes, and every thread of the block must call this once, first.
    #[inline(always)]
    pub(super) unsafe fn new(stage_bytes: u32, consumers: u32) -> Ring<STAGES> {
        // SAFETY: the caller's contract.
        unsafe { Self::with_arrivals(stage_bytes, 1, consumers) }
    }

    /// [`Ring::new`] with `producers` arrivals a phase on each "full" barrier (a producer
    /// whose threads store into the slice arrive each, `tf32_load.rs`).
    ///
    /// # Safety
    /// As [`Ring::new`].
    #[inline(always)]
    pub(super) unsafe fn with_arrivals(
        stage_bytes: u32,
        producers: u32,
        consumers: u32,
    ) -> Ring<STAGES> {
        // SAFETY: the caller's contract.
        unsafe { Ring::init(stage_bytes, producers, consumers, false) }
    }

    /// [`Ring::new`] in a cluster of two blocks: each "empty" barrier counts both blocks'
    /// consumers, and the cluster synchronises (the other block's copies and arrivals reach
    /// this block's barriers only after they are initialised).
    ///
    /// # Safety
    /// As [`Ring::new`], the launch's clusters two blocks each; every thread of both blocks
    /// calls this once, first, and [`cluster_sync`] before it exits.
    #[inline(always)]
    pub(super) unsafe fn new_pair(stage_bytes: u32, consumers: u32) -> Ring<STAGES> {
        // SAFETY: the caller's contract.
        let ring = unsafe { Ring::init(stage_bytes, 1, 2 * consumers, true) };
        cluster_sync();
        ring
    }

    /// The one setup behind [`Ring::with_arrivals`] and [`Ring::new_pair`]: `producers`
    /// arrivals a phase on each "full" barrier, `consumers` on each "empty" one; `pair` makes
    /// [`Ring::release`] arrive in the other block of the cluster too.
    ///
    /// # Safety
    /// As [`Ring::new`]; with `pair`, as [`Ring::new_pair`].
    #[inline(always)]
    unsafe fn init(stage_bytes: u32, producers: u32, consumers: u32, pair: bool) -> Ring<STAGES> {
        // cuda_std's dynamic-shared symbol is 16-byte aligned; the slices need 1024.
        let start = shared_addr(dynamic_shared_mem::<u8>());
        let ring = Ring {
            base: (start + ALIGN - 1) & !(ALIGN - 1),
            stage_bytes,
            pair,
        };
        if fresh_tid_x() == 0 {
            let mut s = 0;
            while s < STAGES {
                // SAFETY: the barrier slots are inside the dynamic shared memory (the caller's
                // contract) and nothing uses them before the bar.sync below.
                unsafe {
                    mbar_init(ring.full(s), producers);
                    mbar_init(ring.empty(s), consumers);
                }
                s += 1;
            }
            fence_mbarrier_init();
        }
        thread::sync_threads();
        ring
    }

    /// The shared address of slice `s` (1024-byte aligned).
    #[inline(always)]
    pub(super) fn slot(&self, s: u32) -> u32 {
        self.base + s * self.stage_bytes
    }

    #[inline(always)]
    pub(super) fn full(&self, s: u32) -> u32 {
        self.base + STAGES * self.stage_bytes + 8 * s
    }

    #[inline(always)]
    pub(super) fn empty(&self, s: u32) -> u32 {
        self.base + STAGES * self.stage_bytes + 8 * (STAGES + s)
    }

    /// The shared address of the epilogue's store boxes (`epilogue.rs`): the first 1024-byte
    /// boundary after the barriers (inside every Hopper kernel's `shared_bytes`: `WgmmaConfig`'s
    /// and `Tf32Config`'s count `EPI_BYTES` after the ring).
    #[inline(always)]
    pub(super) fn epilogue(&self) -> u32 {
        (self.base + STAGES * self.stage_bytes + 16 * STAGES + ALIGN - 1) & !(ALIGN - 1)
    }

    /// Releases slot `s` (one consumer warp group's arrival; in a pair, in both blocks).
    ///
    /// # Safety
    /// Initialised barriers; every wgmma reading the slot has retired; in a pair, the other
    /// block has not exited.
    #[inline(always)]
    unsafe fn release(&self, s: u32) {
        // SAFETY: the caller's contract; the other block's barrier is at the same offset.
        unsafe {
            mbar_arrive(self.empty(s));
            if self.pair {
                mbar_arrive_cluster(self.empty(s), cluster_rank() ^ 1);
            }
        }
    }
}

/// C's tiles in grouped order, and the work of each block: its share of the stream-K tiles
/// (the last `sk_tiles` of the order, their `sk_tiles · ktiles` slices cut into `grid`
/// contiguous runs, one per block, so a tile may be split along k between neighbouring
/// blocks) and the data-parallel tiles `b, b + grid, …` below them: the run's units first,
/// then the data-parallel tiles, then the run's last unit if it is the start of a split tile
/// (see [`Walk::next`]; `stream_k.rs` combines the split tiles' partial sums).
#[derive(Clone, Copy)]
pub(super) struct Walk {
    // The launch's own values (kernel parameters, which the compiler can read again from the
    // parameter bank at each use, and constants): everything derived from them is computed
    // where it is needed, so that nothing of the walk stays live beside the 128 accumulators.
    m: u32,
    n: u32,
    k: u32,
    bm: u32,
    bn: u32,
    bk: u32,
    group: u32,
    sk_tiles: u32,
    sk_last: u32,
    /// log2 of the blocks that walk each tile together (a cluster of 2: 1): the walk's "block"
    /// is the cluster.
    shift: u32,
}

/// One piece of a block's work: slices `kb..ke` of tile `tile` (its origin in C:
/// [`Walk::origin`], computed where needed: fewer registers live through the k loop).
#[derive(Clone, Copy)]
pub(super) struct Unit {
    pub tile: u32,
    pub kb: u32,
    pub ke: u32,
}

/// Where a block is in its walk: its next stream-K slice `it` (its run ends at the next block's
/// start), then data-parallel tile `t`.
#[derive(Clone, Copy)]
pub(super) struct Cursor {
    it: u32,
    t: u32,
}

impl Walk {
    /// The tiles of an `m x n` C in `bm x bn` tiles of `ceil(k / bk)` slices each, runs of
    /// `group` (0 means 1) tile rows; the last `sk_tiles` (at most all; `sk_tiles · ktiles`
    /// below 2^32, the host's rule) split along k, each block's share taken before its
    /// data-parallel tiles, or after them with `sk_last` != 0.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn new(
        m: u32,
        n: u32,
        k: u32,
        bm: u32,
        bn: u32,
        bk: u32,
        group: u32,
        sk_tiles: u32,
        sk_last: u32,
    ) -> Walk {
        Walk {
            m,
            n,
            k,
            bm,
            bn,
            bk,
            group,
            sk_tiles,
            sk_last,
            shift: 0,
        }
    }

    /// The same walk for clusters of two blocks: cluster `c` of `grid / 2` takes tiles `c, c +
    /// grid / 2, …` (no stream-K), each block of it a part of every tile.
    #[inline(always)]
    pub(super) fn paired(self) -> Walk {
        Walk {
            shift: 1,
            sk_tiles: 0,
            ..self
        }
    }

    /// The walk's index of this block (its cluster's with [`Walk::paired`]) and their count.
    #[inline(always)]
    fn me(&self) -> (u32, u32) {
        (fresh_ctaid_x() >> self.shift, grid_blocks() >> self.shift)
    }

    #[inline(always)]
    fn tiles_m(&self) -> u32 {
        self.m.div_ceil(self.bm)
    }

    #[inline(always)]
    fn tiles_n(&self) -> u32 {
        self.n.div_ceil(self.bn)
    }

    #[inline(always)]
    fn group(&self) -> u32 {
        if self.group == 0 { 1 } else { self.group }
    }

    /// Slices of a tile.
    #[inline(always)]
    pub(super) fn ktiles(&self) -> u32 {
        self.k.div_ceil(self.bk)
    }

    #[inline(always)]
    fn count(&self) -> u32 {
        self.tiles_m() * self.tiles_n()
    }

    #[inline(always)]
    fn sk_tiles(&self) -> u32 {
        let count = self.count();
        if self.sk_tiles > count {
            count
        } else {
            self.sk_tiles
        }
    }

    /// Tiles computed whole, one block each (those before the stream-K ones).
    #[inline(always)]
    pub(super) fn dp_tiles(&self) -> u32 {
        self.count() - self.sk_tiles()
    }

    /// The first stream-K slice of block `b` of `grid` (`b == grid`: the end): the runs differ
    /// in length by at most one slice.
    #[inline(always)]
    pub(super) fn sk_start(&self, b: u32, grid: u32) -> u32 {
        let total = self.sk_tiles() * self.ktiles();
        let (q, r) = (total / grid, total % grid);
        b * q + if b < r { b } else { r }
    }

    /// This block's cursor at the start of its walk.
    #[inline(always)]
    pub(super) fn cursor(&self) -> Cursor {
        let (b, grid) = self.me();
        Cursor {
            it: self.sk_start(b, grid),
            t: b,
        }
    }

    /// The block's next unit, `None` at the end of its walk. A run of stream-K slices that
    /// ends inside a tile ends with the start of that tile (`kb == 0`, `ke < ktiles`): the
    /// block owns it and must add the next blocks' partial sums, which they compute first
    /// thing; so that it never waits for them, it takes that unit last, after its
    /// data-parallel tiles. With `sk_last`, the data-parallel tiles come first (every block
    /// starts them at once, so the blocks of a wave read the same k-slices of A and B), then
    /// the whole run in order.
    #[inline(always)]
    pub(super) fn next(&self, c: &mut Cursor) -> Option<Unit> {
        let dp = self.dp_tiles();
        let ktiles = self.ktiles();
        let (b, grid) = self.me();
        let end = self.sk_start(b + 1, grid);
        if c.it < end {
            let tile = dp + c.it / ktiles;
            let kb = c.it % ktiles;
            let left = end - c.it;
            let ke = if ktiles - kb < left {
                ktiles
            } else {
                kb + left
            };
            let owned_tail = kb == 0 && ke < ktiles;
            if (self.sk_last == 0 && !owned_tail) || c.t >= dp {
                c.it += ke - kb;
                return Some(Unit { tile, kb, ke });
            }
        }
        if c.t < dp {
            let u = Unit {
                tile: c.t,
                kb: 0,
                ke: ktiles,
            };
            c.t += grid;
            return Some(u);
        }
        None
    }

    /// The first row and column of C of tile `t` (grouped order).
    #[inline(always)]
    pub(super) fn origin(&self, t: u32) -> (u32, u32) {
        let (tiles_m, group) = (self.tiles_m(), self.group());
        let per_group = group * self.tiles_n();
        let first = (t / per_group) * group;
        let rows = if tiles_m - first < group {
            tiles_m - first
        } else {
            group
        };
        let tm = first + (t % per_group) % rows;
        let tn = (t % per_group) / rows;
        (tm * self.bm, tn * self.bn)
    }
}

/// The producer (one thread): for each of this block's units and each of its slices, waits
/// until the slot is free, announces `bytes` on its "full" barrier and calls
/// `load(slot, full_barrier, kt, m0, n0)`, which issues the TMA copies completing on it.
///
/// # Safety
/// `ring` as [`Ring::new`]; `load` must write exactly `bytes` into the slot through TMA copies
/// that complete on the barrier it is given.
#[inline(always)]
pub(super) unsafe fn produce<const STAGES: u32>(
    ring: Ring<STAGES>,
    walk: Walk,
    bytes: u32,
    mut load: impl FnMut(u32, u32, u32, u32, u32),
) {
    let mut cur = walk.cursor();
    let mut it = 0u32;
    while let Some(u) = walk.next(&mut cur) {
        let (m0, n0) = walk.origin(u.tile);
        let mut kt = u.kb;
        while kt < u.ke {
            let s = it % STAGES;
            let round = it / STAGES;
            // SAFETY: initialised barriers (`Ring::new`); the consumers released the slot (the
            // empty barrier's phase of the previous round) before TMA writes it again.
            unsafe {
                if round > 0 {
                    mbar_wait(ring.empty(s), (round - 1) & 1);
                }
                mbar_arrive_expect_tx(ring.full(s), bytes);
            }
            load(ring.slot(s), ring.full(s), kt, m0, n0);
            kt += 1;
            it += 1;
        }
    }
}

/// A consumer warp group: for each of this block's units, waits for each slice, calls
/// `mma(state, slot, first)` (which issues `wgmma.fence`, the slice's wgmma, the unit's first
/// with scale-d 0 when `first`, and `commit_group`), waits until at most `DEPTH` (0 or 1) groups
/// are in flight and releases the slices whose wgmma retired, then calls `after(state, kt)`;
/// after the unit's last slice it waits for every group and calls `finish(state, unit)`.
///
/// # Safety
/// `ring` and `walk` as the producer's (same arguments), `lead` true in exactly one thread of
/// the warp group; `mma` must read only the slot it is given.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn consume<const STAGES: u32, const DEPTH: u32, S>(
    ring: Ring<STAGES>,
    walk: Walk,
    lead: bool,
    state: &mut S,
    mut mma: impl FnMut(&mut S, u32, bool),
    mut after: impl FnMut(&mut S, u32),
    mut finish: impl FnMut(&mut S, Unit),
) {
    let mut cur = walk.cursor();
    let mut it = 0u32;
    while let Some(u) = walk.next(&mut cur) {
        let mut kt = u.kb;
        while kt < u.ke {
            let s = it % STAGES;
            // SAFETY: the full barrier's phase of this round completes once TMA has written the
            // slot; a slot is released (empty barrier) only after `wgmma.wait_group` retired
            // every wgmma reading it.
            unsafe {
                mbar_wait(ring.full(s), (it / STAGES) & 1);
                mma(state, ring.slot(s), kt == u.kb);
                wgmma_wait::<DEPTH>();
                if lead {
                    if DEPTH == 0 {
                        ring.release(s);
                    } else if kt > u.kb {
                        ring.release((it + STAGES - 1) % STAGES);
                    }
                }
            }
            after(state, kt);
            kt += 1;
            it += 1;
        }
        if DEPTH > 0 {
            wgmma_wait::<0>();
            if lead {
                // SAFETY: the unit's last slot, its wgmma retired just above.
                unsafe { ring.release((it + STAGES - 1) % STAGES) };
            }
        }
        finish(state, u);
    }
}
