//! How a Hopper GEMM launch walks C's tiles (`gpu_kernels::sm90` pipeline): the wgmma wait
//! depth (which kernel), the grid (one block per tile, or persistent: one per SM, each walking
//! several tiles) and the tile order's group. Both runners (16-bit and f32) take one, and
//! `host matmul --kernel wgmma_…` names them, so that one binary times every rung. With
//! stream-K (`sk`), the launch's last tiles are cut along k between the blocks
//! (`gpu_kernels::sm90` `stream_k.rs`), which needs a workspace (`StreamKWork`).
use std::collections::HashMap;
use std::{cell::RefCell, rc::Rc};

use anyhow::{Context as _, Result};
use cust::memory::DeviceBuffer;

use crate::gpu::Gpu;

/// How many blocks a launch has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocks {
    /// One block per tile (each computes one tile and exits).
    PerTile,
    /// One block per SM, each walking tiles `b, b + grid, …` (persistent).
    PerSm,
    /// At most this many blocks (tests: several tiles per block at small shapes).
    AtMost(u32),
}

/// One launch schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// wgmma groups left in flight at each slice's wait (0 or 1; 3xTF32 has 0 only).
    pub depth: u32,
    pub blocks: Blocks,
    /// Tile order: runs of this many tile rows walked down before moving right (L2 reuse of
    /// B's panels across the blocks in flight).
    pub group: u32,
    /// Stream-K: `None` walks whole tiles only; `Some(w)` cuts the last partial wave of tiles
    /// and `w` full waves before it along k into one equal run of slices per block (see
    /// [`Schedule::sk_tiles`]). The grid is then at most one block per SM (every block must be
    /// resident: an owner block waits for the partial sums of the next ones).
    pub stream_k: Option<u32>,
    /// Stream-K: a block takes its share of the split tiles after its data-parallel tiles
    /// rather than before them.
    pub sk_last: bool,
    /// With `stream_k` `None`: let the launch's tile count decide ([`Schedule::resolve`]:
    /// `skl` where the tiles make many waves, whole tiles elsewhere). The library's default.
    pub sk_auto: bool,
    /// The 16-bit pair kernels: clusters of two blocks on 256 x 256 tiles, B's panel
    /// multicast (wait depth 0, no stream-K; the f32 kernels ignore it).
    pub pair: bool,
    /// The 16-bit one-block kernels store C from registers even where the TMA store would do
    /// (`beta` 0, C's rows 16-byte aligned; `gpu_kernels::sm90` `epilogue.rs`): token `ds`, for
    /// measuring one against the other (the f32 kernels always store from registers).
    pub direct_store: bool,
}

/// [`Schedule::resolve`] takes stream-K (`skl`) from this many whole waves of tiles up (tiles
/// at least this many times the grid), where the last wave is at most [`SK_AUTO_MAX_FILL`]
/// full. Measured on the H200 with ours and cuBLAS interleaved (docs/sm90.md, "Default by
/// wave count"; 128 x 256 tiles on 132 SMs): `skl` won 1-2 % at 8192² (15.5 waves, the last
/// 52 % full) for BF16, FP16 and TF32, and lost at 4096² (3.9 waves, 88 %), 5120² (6.1, 6 %),
/// 6144² (8.7, 73 %) and 7168² (11.9, 88 %): split work costs more than the idle part of the
/// last wave unless there are many waves and the idle part is large.
pub const SK_AUTO_MIN_WAVES: u32 = 12;

/// The fullest last wave (tiles past the whole waves, as a fraction of the grid) for which
/// [`Schedule::resolve`] takes stream-K: 3/5.
pub const SK_AUTO_MAX_FILL: (u32, u32) = (3, 5);

impl Schedule {
    /// The first rung: one block per tile, every wgmma retired at each slice.
    pub const CLASSIC: Schedule = Schedule {
        depth: 0,
        blocks: Blocks::PerTile,
        group: 8,
        stream_k: None,
        sk_last: false,
        sk_auto: false,
        pair: false,
        direct_store: false,
    };

    /// Applies one `_`-separated token of a variant name: `w0`/`w1` (depth), `np` (a block per
    /// tile), `p` (persistent, a block per SM), `p<N>` (at most N blocks), `g<N>` (group N),
    /// `sk` / `sk<W>` (stream-K over the last partial wave / and W full waves before it, W in
    /// 0..=4096), `skl` / `skl<W>` (the same, each block's split slices after its whole tiles),
    /// `dp` (no stream-K), `ska` (stream-K chosen by the tile count: [`Schedule::resolve`]),
    /// `c1` / `c2` (one block a tile / pairs of blocks in clusters, B multicast), `ds` (C
    /// stored from registers, no TMA store). False for a token it does not know (or a number out of range).
    pub fn apply(&mut self, token: &str) -> bool {
        let number = |rest: &str| rest.parse::<u32>().ok().filter(|n| (1..=4096).contains(n));
        if token == "ska" {
            self.stream_k = None;
            self.sk_auto = true;
            return true;
        }
        let (last, rest) = match token.strip_prefix("skl") {
            Some(w) => (true, Some(w)),
            None => (false, token.strip_prefix("sk")),
        };
        if let Some(w) = rest {
            let digits = w.bytes().all(|b| b.is_ascii_digit());
            match (w.is_empty(), w.parse::<u32>()) {
                (true, _) => self.stream_k = Some(0),
                (false, Ok(n)) if n <= 4096 && digits => self.stream_k = Some(n),
                _ => return false,
            }
            self.sk_last = last;
            return true;
        }
        match token {
            "ds" => self.direct_store = true,
            "c1" => self.pair = false,
            "c2" => self.pair = true,
            "w0" => self.depth = 0,
            "w1" => self.depth = 1,
            "dp" => {
                self.stream_k = None;
                self.sk_auto = false;
            }

            "np" => self.blocks = Blocks::PerTile,
            "p" => self.blocks = Blocks::PerSm,
            t => match (t.strip_prefix('p'), t.strip_prefix('g')) {
                (Some(n), _) => match number(n) {
                    Some(n) => self.blocks = Blocks::AtMost(n),
                    None => return false,
                },
                (_, Some(n)) => match number(n) {
                    Some(n) => self.group = n,
                    None => return false,
                },
                _ => return false,
            },
        }
        true
    }

    /// `base` with the tokens of `name` after its `wgmma` prefix (`wgmma`, `wgmma_w1_p`, …)
    /// applied, `other` deciding tokens the schedule does not know; `None` if a token is
    /// neither's or the name does not start with `wgmma`.
    pub fn parse_name(
        name: &str,
        base: Schedule,
        mut other: impl FnMut(&str) -> bool,
    ) -> Option<Schedule> {
        let rest = name.strip_prefix("wgmma")?;
        let mut s = base;
        if rest.is_empty() {
            return Some(s);
        }
        for token in rest.strip_prefix('_')?.split('_') {
            if !s.apply(token) && !other(token) {
                return None;
            }
        }
        Some(s)
    }

    /// The schedule a launch over `tiles` tiles with a grid of `grid` blocks (this schedule's
    /// [`Schedule::grid`]) runs: with `sk_auto` (and no `stream_k` named), `skl` (the last
    /// partial wave split along k, after the whole tiles) where the tiles make at least
    /// [`SK_AUTO_MIN_WAVES`] waves and the last one is partial and at most
    /// [`SK_AUTO_MAX_FILL`] full, whole tiles otherwise; any other schedule as it is. The one
    /// place the library's stream-K choice is made.
    pub fn resolve(&self, tiles: u32, grid: u32) -> Schedule {
        if self.pair {
            return Schedule {
                stream_k: None,
                sk_auto: false,
                ..*self
            };
        }
        let (fill, of) = SK_AUTO_MAX_FILL;
        let many = grid > 0
            && tiles / grid >= SK_AUTO_MIN_WAVES
            && !tiles.is_multiple_of(grid)
            && u64::from(tiles % grid) * u64::from(of) <= u64::from(grid) * u64::from(fill)
            && self.blocks == Blocks::PerSm;
        if self.sk_auto && self.stream_k.is_none() && many {
            Schedule {
                stream_k: Some(0),
                sk_last: true,
                sk_auto: false,
                ..*self
            }
        } else {
            Schedule {
                sk_auto: false,
                ..*self
            }
        }
    }

    /// The grid of a pair launch over `pairs` tiles of 256 x 256 on a GPU that holds
    /// `resident` pairs at once: two blocks a tile (per tile), or at most the resident pairs
    /// (persistent: every pair starts at once), an even count.
    pub fn pair_grid(&self, resident: u32, pairs: u32) -> u32 {
        let half = match self.blocks {
            Blocks::PerTile => pairs,
            Blocks::PerSm => pairs.min(resident),
            Blocks::AtMost(n) => pairs.min(n / 2).min(resident),
        };
        2 * half.max(1)
    }

    /// The grid for `tiles` tiles on `gpu` (with stream-K at most one block per SM).
    pub fn grid(&self, gpu: &Gpu, tiles: u32) -> Result<u32> {
        let grid = match self.blocks {
            Blocks::PerTile => tiles,
            Blocks::PerSm => tiles.min(gpu.multiprocessors()?),
            Blocks::AtMost(n) => tiles.min(n),
        };
        Ok(match self.stream_k {
            Some(_) => grid.min(gpu.multiprocessors()?),
            None => grid,
        })
    }

    /// How many of the last tiles a launch of `grid` blocks over `tiles` tiles of `ktiles`
    /// slices cuts along k: none without stream-K or when the tiles fill whole waves (every
    /// block then walks as many tiles); else the last partial wave and `w` full waves before
    /// it, at most every tile. None either where the slices to share would not fit the
    /// kernel's 32-bit count.
    pub fn sk_tiles(&self, tiles: u32, grid: u32, ktiles: u32) -> u32 {
        let Some(w) = self.stream_k else { return 0 };
        if grid == 0 || tiles.is_multiple_of(grid) {
            return 0;
        }
        let sk = (tiles % grid)
            .saturating_add(w.saturating_mul(grid))
            .min(tiles);
        match sk.checked_mul(ktiles) {
            Some(slices) if slices < 1 << 31 => sk,
            _ => 0,
        }
    }
}

/// The stream-K workspace of a GPU (`gpu_kernels::sm90::stream_k_words`: a partial tile per
/// block, then flags, which must be zero before a launch and which every launch leaves zero),
/// grown on demand and shared by the launches on the GPU's one stream, which run one after
/// another. Kept per GPU (`Gpu::runner_state`).
#[derive(Default)]
pub(crate) struct StreamKWork(RefCell<Option<Rc<DeviceBuffer<u32>>>>);

impl StreamKWork {
    /// A workspace of at least `words` words (zeroed when allocated).
    pub(crate) fn get(gpu: &Gpu, words: usize) -> Result<Rc<DeviceBuffer<u32>>> {
        let cache = gpu.runner_state::<StreamKWork>();
        let mut slot = cache.0.borrow_mut();
        if let Some(buf) = slot.as_ref().filter(|b| b.len() >= words) {
            return Ok(buf.clone());
        }
        let buf =
            Rc::new(DeviceBuffer::zeroed(words).context("allocating the stream-K workspace")?);
        *slot = Some(buf.clone());
        Ok(buf)
    }
}

/// The TF32 split pass's scratch (`tf32.rs`): four parts (A's hi, B's hi, A's lo, B's lo),
/// each grown on demand and reused by later launches on the GPU's one stream. Those run one
/// after another, each launch's split pass before its product, so a part rewritten by a later
/// launch is no longer read by an earlier one. A library call then neither allocates nor frees
/// (cuMemFree synchronises the device), and the tensor maps over the scratch repeat (hits in
/// [`MapCache`]); the price is the largest parts staying allocated. Kept per GPU
/// (`Gpu::runner_state`).
#[derive(Default)]
pub(crate) struct SplitScratch(RefCell<[Option<Rc<DeviceBuffer<f32>>>; 4]>);

impl SplitScratch {
    /// Part `part` (0..4) with room for at least `words` f32; its contents are whatever an
    /// earlier launch left (the split pass writes every element the kernel reads).
    pub(crate) fn get(gpu: &Gpu, part: usize, words: usize) -> Result<Rc<DeviceBuffer<f32>>> {
        let cache = gpu.runner_state::<SplitScratch>();
        let mut slots = cache.0.borrow_mut();
        if let Some(buf) = slots[part].as_ref().filter(|b| b.len() >= words) {
            return Ok(buf.clone());
        }
        // SAFETY: f32 has no invalid bit patterns, and the split pass writes every element the
        // kernel reads before it reads it.
        let buf = unsafe { DeviceBuffer::<f32>::uninitialized(words) }
            .context("allocating the f32 Hopper GEMM's scratch")?;
        let buf = Rc::new(buf);
        slots[part] = Some(buf.clone());
        Ok(buf)
    }
}

/// Tensor maps already in device memory, by their bytes: a library call with the operands of a
/// previous one reuses them instead of allocating, copying and (with cuMemFree) synchronising
/// on every call. Kept per GPU (`Gpu::runner_state`); a handful of entries, oldest dropped.
#[derive(Default)]
pub(crate) struct MapCache(RefCell<HashMap<Vec<u8>, CachedMaps>>);

/// A device copy of tensor maps and when it was last used (a counter).
type CachedMaps = (u64, Rc<DeviceBuffer<u8>>);

/// Entries a [`MapCache`] keeps.
const CACHED_MAPS: usize = 16;

impl MapCache {
    /// The device copy of `bytes` (tensor maps, 128 bytes each; 256-byte aligned), made on
    /// first use.
    pub(crate) fn get(gpu: &Gpu, bytes: &[u8]) -> Result<Rc<DeviceBuffer<u8>>> {
        let cache = gpu.runner_state::<MapCache>();
        let mut map = cache.0.borrow_mut();
        let stamp = map.values().map(|(s, _)| *s).max().map_or(0, |s| s + 1);
        if let Some((used, buf)) = map.get_mut(bytes) {
            *used = stamp;
            return Ok(buf.clone());
        }
        if map.len() >= CACHED_MAPS
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, (s, _))| *s)
                .map(|(k, _)| k.clone())
        {
            map.remove(&oldest);
        }
        let buf = Rc::new(DeviceBuffer::from_slice(bytes).context("copying the tensor maps")?);
        map.insert(bytes.to_vec(), (stamp, buf.clone()));
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_k_splits_the_last_partial_wave() {
        let sk = |w| Schedule {
            stream_k: w,
            ..Schedule::CLASSIC
        };
        let late = Schedule {
            sk_last: true,
            ..sk(Some(0))
        };
        assert_eq!(late.sk_tiles(512, 132, 64), 116);
        // 4096² in 128 x 256 tiles on 132 SMs: 512 tiles, 3 whole waves and 116 tiles.
        assert_eq!(sk(None).sk_tiles(512, 132, 64), 0);
        assert_eq!(sk(Some(0)).sk_tiles(512, 132, 64), 116);
        assert_eq!(sk(Some(1)).sk_tiles(512, 132, 64), 248);
        assert_eq!(sk(Some(9)).sk_tiles(512, 132, 64), 512);
        // Whole waves (8192²: 2048 tiles on 128 blocks) need none.
        assert_eq!(sk(Some(0)).sk_tiles(2048, 128, 128), 0);
        // Fewer tiles than blocks: every tile is split.
        assert_eq!(sk(Some(0)).sk_tiles(6, 132, 10), 6);
        // Slices beyond the kernel's 32-bit count: none.
        assert_eq!(sk(Some(0)).sk_tiles(5, 3, 1 << 30), 0);
    }

    #[test]
    fn stream_k_by_wave_count() {
        let auto = Schedule {
            blocks: Blocks::PerSm,
            sk_auto: true,
            ..Schedule::CLASSIC
        };
        let skl = Schedule {
            stream_k: Some(0),
            sk_last: true,
            sk_auto: false,
            ..auto
        };
        let whole = Schedule {
            sk_auto: false,
            ..auto
        };
        // 132 SMs, 128 x 256 tiles. 8192²: 2048 tiles, 15.5 waves: the tail is split.
        assert_eq!(auto.resolve(2048, 132), skl);
        assert_eq!(auto.resolve(2048, 132).sk_tiles(2048, 132, 128), 68);
        // 4096²: 512 tiles, 3.9 waves: whole tiles.
        assert_eq!(auto.resolve(512, 132), whole);
        // 5120², 6144², 7168²: 6.1, 8.7, 11.9 waves (the last 6 %, 73 %, 88 % full): whole tiles.
        for tiles in [800, 1152, 1568] {
            assert_eq!(auto.resolve(tiles, 132), whole, "{tiles}");
        }
        // From SK_AUTO_MIN_WAVES whole waves up, only with a partial last wave at most 3/5 full.
        let from = SK_AUTO_MIN_WAVES * 132;
        assert_eq!(auto.resolve(from - 1, 132), whole);
        assert_eq!(auto.resolve(from + 1, 132), skl);
        assert_eq!(auto.resolve(from + 79, 132), skl);
        assert_eq!(auto.resolve(from + 80, 132), whole);
        assert_eq!(auto.resolve(2 * from, 132), whole);
        // A named schedule is taken as it is (no `ska`, or stream-K named, or not persistent).
        assert_eq!(whole.resolve(2048, 132), whole);
        let named = Schedule {
            stream_k: Some(1),
            ..auto
        };
        assert_eq!(named.resolve(2048, 132).stream_k, Some(1));
        let per_tile = Schedule {
            blocks: Blocks::PerTile,
            ..auto
        };
        assert_eq!(per_tile.resolve(2048, 2048).stream_k, None);
        assert_eq!(auto.resolve(0, 0), whole);
        // Pairs take no stream-K.
        let pair = Schedule { pair: true, ..auto };
        assert_eq!(pair.resolve(2048, 132).stream_k, None);
    }

    #[test]
    fn names_select_schedules() {
        let base = Schedule::CLASSIC;
        let none = |_: &str| false;
        assert_eq!(Schedule::parse_name("wgmma", base, none), Some(base));
        let s = Schedule::parse_name("wgmma_w1_p_g16", base, none).unwrap();
        assert_eq!((s.depth, s.blocks, s.group), (1, Blocks::PerSm, 16));
        let s = Schedule::parse_name("wgmma_p3", base, none).unwrap();
        assert_eq!(s.blocks, Blocks::AtMost(3));
        let s = Schedule::parse_name("wgmma_p_sk", base, none).unwrap();
        assert_eq!((s.blocks, s.stream_k), (Blocks::PerSm, Some(0)));
        let s = Schedule::parse_name("wgmma_sk2_g4", base, none).unwrap();
        assert_eq!((s.stream_k, s.group), (Some(2), 4));
        let s = Schedule::parse_name("wgmma_p_skl1", base, none).unwrap();
        assert_eq!((s.stream_k, s.sk_last), (Some(1), true));
        let s = Schedule::parse_name("wgmma_p_c2", base, none).unwrap();
        assert!(
            s.pair
                && !Schedule::parse_name("wgmma_c2_c1", base, none)
                    .unwrap()
                    .pair
        );
        let s = Schedule::parse_name("wgmma_p_ds", base, none).unwrap();
        assert!(s.direct_store && !base.direct_store && s.blocks == Blocks::PerSm);
        let s = Schedule::parse_name("wgmma_sk_dp", base, none).unwrap();
        assert_eq!(s.stream_k, None);
        let s = Schedule::parse_name("wgmma_p_ska", base, none).unwrap();
        assert_eq!((s.stream_k, s.sk_auto), (None, true));
        let s = Schedule::parse_name("wgmma_dp", s, none).unwrap();
        assert_eq!((s.stream_k, s.sk_auto), (None, false));
        for bad in [
            "wgmma_",
            "wgmma_x",
            "wgmma_p0",
            "wgmma_g",
            "wgmmax",
            "sm90",
            "wgmma_w2",
            "wgmma_skx",
            "wgmma_sk-1",
            "wgmma_sk+1",
            "wgmma_sk5000",
            "wgmma_sklx",
            "wgmma_ska1",
            "wgmma_c3",
        ] {
            assert_eq!(Schedule::parse_name(bad, base, none), None, "{bad}");
        }
        let mut seen = Vec::new();
        let s = Schedule::parse_name("wgmma_rn_w1", base, |t| {
            seen.push(t.to_string());
            t == "rn"
        });
        assert_eq!(s.map(|s| s.depth), Some(1));
        assert_eq!(seen, ["rn"]);
    }
}
