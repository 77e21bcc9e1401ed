//! How a Hopper GEMM launch walks C's tiles (`gpu_kernels::sm90` pipeline): the wgmma wait
//! depth (which kernel), the grid (one block per tile, or persistent: one per SM, each walking
//! several tiles) and the tile order's group. Both runners (16-bit and f32) take one, and
//! `host matmul --kernel wgmma_…` names them, so that one binary times every rung.
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
}

impl Schedule {
    /// The first rung: one block per tile, every wgmma retired at each slice.
    pub const CLASSIC: Schedule = Schedule {
        depth: 0,
        blocks: Blocks::PerTile,
        group: 8,
    };

    /// Applies one `_`-separated token of a variant name: `w0`/`w1` (depth), `np` (a block per
    /// tile), `p` (persistent, a block per SM), `p<N>` (at most N blocks), `g<N>` (group N).
    /// False for a token it does not know (or a number out of 1..=4096).
    pub fn apply(&mut self, token: &str) -> bool {
        let number = |rest: &str| rest.parse::<u32>().ok().filter(|n| (1..=4096).contains(n));
        match token {
            "w0" => self.depth = 0,
            "w1" => self.depth = 1,
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

    /// The grid for `tiles` tiles on `gpu`.
    pub fn grid(&self, gpu: &Gpu, tiles: u32) -> Result<u32> {
        Ok(match self.blocks {
            Blocks::PerTile => tiles,
            Blocks::PerSm => tiles.min(gpu.multiprocessors()?),
            Blocks::AtMost(n) => tiles.min(n),
        })
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
    fn names_select_schedules() {
        let base = Schedule::CLASSIC;
        let none = |_: &str| false;
        assert_eq!(Schedule::parse_name("wgmma", base, none), Some(base));
        let s = Schedule::parse_name("wgmma_w1_p_g16", base, none).unwrap();
        assert_eq!((s.depth, s.blocks, s.group), (1, Blocks::PerSm, 16));
        let s = Schedule::parse_name("wgmma_p3", base, none).unwrap();
        assert_eq!(s.blocks, Blocks::AtMost(3));
        for bad in [
            "wgmma_", "wgmma_x", "wgmma_p0", "wgmma_g", "wgmmax", "sm90", "wgmma_w2",
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
