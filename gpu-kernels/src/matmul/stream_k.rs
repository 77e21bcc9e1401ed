//! How a flagship launch's blocks share out C's tiles: one tile per block (data-parallel), or
//! stream-K, where the k-slices of some tiles are spread evenly over one block per resident
//! slot of the GPU. Compiled for the kernel and the host alike, so both use the same split.
//!
//! Why stream-K: with one tile per block the last wave is partial. At 4096² the 128x256 tile
//! makes 512 blocks for 132 SMs (one block each): 3 full waves and one of 116, so 16 SMs idle
//! for a quarter of the run (3% of the whole), and cuBLAS's 256x128 kernel has the same tail.
//! Stream-K (Osama et al., PPoPP 2023; CUTLASS's "stream-K + data-parallel" hybrid) gives the
//! first `sk_tiles` tiles' slices (the tail wave plus one full wave) to `sk_blocks` blocks, one
//! per resident slot, `total / sk_blocks` slices each, so every block gets between one and two
//! tiles of work and every SM finishes at about the same time; the remaining tiles run one per
//! block, as before. On the H200 at 4096² it took the 128x256 kernel from 2.73 to 2.68 ms.
//!
//! A tile whose slices are split over several blocks ("segments") is summed in a fixed order,
//! segment 0 first, so results do not depend on timing: every segment stores its partial sums
//! in the workspace and counts itself in the tile's counter, and the block that completes the
//! count adds the segments up and writes C. No block ever waits for another, so the schedule
//! cannot deadlock however few blocks are resident.

/// How the flagship's grid covers C's tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// One block per tile, each over every k-slice.
    DataParallel,
    /// Stream-K for the tail (and one full wave), one block per tile for the rest.
    StreamK,
}

impl Schedule {
    pub const ALL: [Schedule; 2] = [Schedule::DataParallel, Schedule::StreamK];

    /// The name in the CLI, the tuning cache and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Schedule::DataParallel => "data-parallel",
            Schedule::StreamK => "stream-k",
        }
    }

    pub fn from_name(name: &str) -> Option<Schedule> {
        Schedule::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The split of one launch: blocks `0..sk_blocks` share the `ktiles` slices of each of tiles
/// `0..sk_tiles` (in rasterized order) evenly; block `sk_blocks + i` computes tile
/// `sk_tiles + i` whole. An iteration is one slice of one tile: `tile * ktiles + slice`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    pub sk_blocks: u32,
    pub sk_tiles: u32,
    pub ktiles: u32,
}

impl Split {
    /// Iterations of the stream-K part.
    #[inline(always)]
    pub const fn total(&self) -> u32 {
        self.sk_tiles * self.ktiles
    }

    /// First iteration of stream-K block `c` (`c <= sk_blocks`; `start(sk_blocks)` is the
    /// total): `total / sk_blocks` each, the first `total % sk_blocks` blocks one more.
    #[inline(always)]
    pub const fn start(&self, c: u32) -> u32 {
        let (q, r) = (self.total() / self.sk_blocks, self.total() % self.sk_blocks);
        c * q + if c < r { c } else { r }
    }

    /// The stream-K block whose range holds iteration `it` (`it < total`).
    #[inline(always)]
    pub const fn block_of(&self, it: u32) -> u32 {
        let (q, r) = (self.total() / self.sk_blocks, self.total() % self.sk_blocks);
        let long = (q + 1) * r;
        if it < long {
            it / (q + 1)
        } else {
            r + (it - long) / q
        }
    }

    /// The first block holding slices of stream-K tile `t`, and how many blocks do (its
    /// segments, in order of their slices).
    #[inline(always)]
    pub const fn segments(&self, t: u32) -> (u32, u32) {
        let first = self.block_of(t * self.ktiles);
        let last = self.block_of((t + 1) * self.ktiles - 1);
        (first, last - first + 1)
    }

    /// Where block `c` stores its partial sums of tile `t`: two slots per block, one for the
    /// tile its range starts in and one for the tile it ends in (the only two that can be split).
    #[inline(always)]
    pub const fn slot(&self, c: u32, t: u32) -> u32 {
        2 * c
            + if self.start(c) / self.ktiles == t {
                0
            } else {
                1
            }
    }

    /// The iterations of block `pid` of the launch: a share of the stream-K tiles' slices, or
    /// one whole tile.
    #[inline(always)]
    pub const fn range(&self, pid: u32) -> (u32, u32) {
        if pid < self.sk_blocks {
            (self.start(pid), self.start(pid + 1))
        } else {
            let t = self.sk_tiles + (pid - self.sk_blocks);
            (t * self.ktiles, (t + 1) * self.ktiles)
        }
    }

    /// The unit of work that starts at iteration `it` of a range ending at `end`: tile
    /// `.0`, slices `.1..​.2` of it.
    #[inline(always)]
    pub const fn unit(&self, it: u32, end: u32) -> (u32, u32, u32) {
        let tile = it / self.ktiles;
        let base = tile * self.ktiles;
        let ke = if end - base < self.ktiles {
            end - base
        } else {
            self.ktiles
        };
        (tile, it - base, ke)
    }

    /// Blocks in the launch for `tiles` tiles.
    pub const fn grid(&self, tiles: u32) -> u32 {
        self.sk_blocks + tiles - self.sk_tiles
    }

    /// Partial-sum slots the workspace needs.
    pub const fn slots(&self) -> u32 {
        2 * self.sk_blocks
    }
}

/// The split for `tiles` tiles of `ktiles` slices each on a GPU that holds `resident` blocks of
/// the kernel at once (multiprocessors × blocks per multiprocessor).
///
/// Stream-K only where a last, partial wave follows at least one full one: the tail plus one
/// full wave go to `resident` stream-K blocks, so each gets one to two tiles of slices and a
/// tile is split in at most two. A grid of one partial wave stays data-parallel: spread over
/// every slot it was slower on the H200 (2048², 128 tiles of 128x256 on 132 SMs: 45.3 against
/// 48.9 TFLOP/s; 1024² with 64x128 tiles: 29.2 against 33.4; docs/matmul.md), the partial sums
/// costing more than the idle multiprocessors.
pub const fn plan(schedule: Schedule, tiles: u32, ktiles: u32, resident: u32) -> Split {
    let dp = Split {
        sk_blocks: 0,
        sk_tiles: 0,
        ktiles,
    };
    match schedule {
        Schedule::DataParallel => dp,
        Schedule::StreamK => {
            if resident == 0 || tiles <= resident || tiles.is_multiple_of(resident) {
                return dp;
            }
            Split {
                sk_blocks: resident,
                sk_tiles: tiles % resident + resident,
                ktiles,
            }
        }
    }
}

/// Most blocks one tile's slices are spread over by [`plan_balanced`]: the block that completes
/// a tile sums its segments one after another from memory (`stream_k_sum`), so each segment adds
/// a memory round trip per accumulator vector to the launch.
pub const MAX_SEGMENTS: u32 = 8;
/// Data-parallel balance (the average SM's tiles over the busiest SM's, in percent) below which
/// [`plan_balanced`] spreads every tile's slices over the GPU.
pub const BALANCE_PERCENT: u32 = 75;
/// Fewest k-slices a block of [`plan_balanced`] computes (its pipeline fill and fix-up must
/// amortize).
pub const MIN_SLICES_PER_BLOCK: u32 = 16;

/// [`plan`] on a GPU of `sms` multiprocessors holding `per_sm` blocks each, and, for a grid of
/// at most one wave whose tiles spread unevenly over the multiprocessors (thin outputs, deep K:
/// 16 tiles on 132 SMs keep 116 idle; 192 tiles put two on 60 SMs and one on the rest, 73%
/// balanced), stream-K over every tile: the tiles' slices shared evenly by up to one block per
/// resident slot, at most [`MAX_SEGMENTS`] per tile and at least [`MIN_SLICES_PER_BLOCK`]
/// slices per block. Grids whose tiles are balanced within [`BALANCE_PERCENT`] keep `plan`'s
/// split (one partial wave data-parallel: spread over every slot it was slower at 2048², see
/// `plan`).
pub const fn plan_balanced(
    schedule: Schedule,
    tiles: u32,
    ktiles: u32,
    sms: u32,
    per_sm: u32,
) -> Split {
    let resident = sms.saturating_mul(per_sm);
    if matches!(schedule, Schedule::StreamK) && sms > 0 && tiles > 0 && tiles <= resident {
        let busiest = tiles.div_ceil(sms);
        if 100 * (tiles as u64) < (BALANCE_PERCENT * busiest) as u64 * sms as u64 {
            let total = tiles as u64 * ktiles as u64;
            let mut blocks = resident as u64;
            if blocks > tiles as u64 * MAX_SEGMENTS as u64 {
                blocks = tiles as u64 * MAX_SEGMENTS as u64;
            }
            if blocks > total / MIN_SLICES_PER_BLOCK as u64 {
                blocks = total / MIN_SLICES_PER_BLOCK as u64;
            }
            if blocks > tiles as u64 {
                return Split {
                    sk_blocks: blocks as u32,
                    sk_tiles: tiles,
                    ktiles,
                };
            }
        }
    }
    plan(schedule, tiles, ktiles, resident)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every iteration of every tile belongs to exactly one block, segments are contiguous and
    /// their slots distinct: simulated on the CPU for many shapes.
    #[test]
    fn every_slice_is_computed_once_and_stored_in_its_own_slot() {
        for tiles in [
            1, 2, 31, 32, 116, 128, 131, 132, 133, 263, 264, 265, 512, 2048, 2049,
        ] {
            for ktiles in [1, 2, 3, 7, 128, 512, 1024] {
                for resident in [1, 3, 132, 264, 396] {
                    let s = plan(Schedule::StreamK, tiles, ktiles, resident);
                    assert!(s.sk_tiles <= tiles && s.grid(tiles) >= 1);
                    if s.sk_blocks == 0 {
                        assert!(tiles <= resident || tiles % resident == 0);
                        continue;
                    }
                    // At most one wave of stream-K blocks, each with work.
                    assert!(s.sk_blocks <= resident);
                    let mut owner = vec![u32::MAX; s.total() as usize];
                    for c in 0..s.sk_blocks {
                        assert!(s.start(c) < s.start(c + 1), "{s:?} block {c} is empty");
                        // The units of a block's range tile it in order.
                        let (mut it, end) = s.range(c);
                        while it < end {
                            let (t, kb, ke) = s.unit(it, end);
                            assert!(kb < ke && ke <= ktiles && t * ktiles + kb == it);
                            it = t * ktiles + ke;
                        }
                        for it in s.start(c)..s.start(c + 1) {
                            assert_eq!(owner[it as usize], u32::MAX);
                            owner[it as usize] = c;
                            assert_eq!(s.block_of(it), c, "{s:?} it {it}");
                        }
                    }
                    assert!(owner.iter().all(|&o| o != u32::MAX));
                    assert_eq!(s.start(s.sk_blocks), s.total());
                    for t in 0..s.sk_tiles {
                        let (first, count) = s.segments(t);
                        let slots: Vec<u32> =
                            (first..first + count).map(|c| s.slot(c, t)).collect();
                        for (i, &a) in slots.iter().enumerate() {
                            assert!(a < s.slots());
                            assert!(slots[i + 1..].iter().all(|&b| b != a));
                        }
                        assert!(count <= 2, "{s:?} tile {t}: {count} segments");
                    }
                    // Two tiles' segments never share a slot.
                    let mut used = std::collections::HashSet::new();
                    for t in 0..s.sk_tiles {
                        let (first, count) = s.segments(t);
                        if count > 1 {
                            for c in first..first + count {
                                assert!(used.insert(s.slot(c, t)), "{s:?} tile {t} block {c}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn balanced_plans_split_every_tile_of_an_uneven_wave() {
        // 256 x 256 x 16384 with 64x64x16 tiles: 16 tiles of 1024 slices, 4 blocks per SM.
        let s = plan_balanced(Schedule::StreamK, 16, 1024, 132, 4);
        assert_eq!((s.sk_blocks, s.sk_tiles, s.grid(16)), (128, 16, 128));
        // 12288 x 128 x 12288 with 64x128x16 tiles: 192 tiles on 132 SMs, 3 per SM.
        let s = plan_balanced(Schedule::StreamK, 192, 768, 132, 3);
        assert_eq!((s.sk_blocks, s.sk_tiles), (396, 192));
        // Balanced waves keep `plan`: 2048² with 128x256 tiles (128 tiles, 1 per SM), and the
        // hybrid for grids of more than one wave.
        for (tiles, per_sm) in [(128, 1), (264, 2), (512, 1)] {
            assert_eq!(
                plan_balanced(Schedule::StreamK, tiles, 256, 132, per_sm),
                plan(Schedule::StreamK, tiles, 256, 132 * per_sm)
            );
        }
        // Too few slices to share: one tile of 4 slices stays whole.
        assert_eq!(plan_balanced(Schedule::StreamK, 1, 4, 132, 4).sk_blocks, 0);
        assert_eq!(
            plan_balanced(Schedule::DataParallel, 16, 1024, 132, 4).sk_blocks,
            0
        );
        // Every balanced plan covers every slice once, in at most MAX_SEGMENTS segments.
        for tiles in [1, 2, 5, 16, 60, 100, 192, 300] {
            for ktiles in [1, 16, 17, 100, 1024] {
                for per_sm in [1, 3, 8] {
                    let s = plan_balanced(Schedule::StreamK, tiles, ktiles, 132, per_sm);
                    if s.sk_blocks == 0 {
                        continue;
                    }
                    assert!(s.sk_blocks <= 132 * per_sm && s.sk_blocks <= s.total());
                    assert_eq!(s.start(s.sk_blocks), s.total());
                    for c in 0..s.sk_blocks {
                        assert!(s.start(c) < s.start(c + 1), "{s:?} block {c} is empty");
                    }
                    for t in 0..s.sk_tiles {
                        let (first, count) = s.segments(t);
                        assert!(count <= MAX_SEGMENTS + 1, "{s:?} tile {t}: {count}");
                        let slots: Vec<u32> =
                            (first..first + count).map(|c| s.slot(c, t)).collect();
                        for (i, &a) in slots.iter().enumerate() {
                            assert!(a < s.slots() && !slots[i + 1..].contains(&a));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_plan_fills_the_last_wave() {
        // 4096² with 128x256 tiles on 132 SMs: 512 tiles, a tail of 116.
        let s = plan(Schedule::StreamK, 512, 512, 132);
        assert_eq!((s.sk_blocks, s.sk_tiles, s.grid(512)), (132, 248, 396));
        // The data-parallel blocks follow, one tile each.
        assert_eq!(s.range(132), (248 * 512, 249 * 512));
        assert_eq!(s.range(395), (511 * 512, 512 * 512));
        // Whole waves and the data-parallel schedule need no stream-K.
        assert_eq!(plan(Schedule::StreamK, 264, 512, 132).sk_blocks, 0);
        assert_eq!(plan(Schedule::DataParallel, 512, 512, 132).sk_blocks, 0);
        // One partial wave stays data-parallel.
        assert_eq!(plan(Schedule::StreamK, 128, 256, 132).sk_blocks, 0);
        // A tail of one tile: 133 tiles' slices over 132 blocks.
        let s = plan(Schedule::StreamK, 265, 4, 132);
        assert_eq!((s.sk_blocks, s.sk_tiles, s.grid(265)), (132, 133, 264));
        for sch in Schedule::ALL {
            assert_eq!(Schedule::from_name(sch.name()), Some(sch));
        }
    }
}
