//! Out-of-core Floyd–Warshall (`host apsp --device-memory-limit SIZE`, or a matrix larger than
//! the GPU): what runs where, CUDA-free, so that the schedule the GPU runner executes is the
//! one a CPU model checks in CI.
//!
//! The padded matrix (`padded x pitch` i32) lives in host memory. The blocks of B x B are
//! grouped into super-blocks of S x S blocks (the last ones smaller). For each pivot
//! super-block K, in order:
//! 1. its super-row (S block rows, every column: the `Row` buffer) and its super-column (every
//!    other block row, S block columns: `Col`) come to the GPU and stay there;
//! 2. the rounds of K run on that cross exactly as the in-core solver runs them (phase 1 on the
//!    pivot block, phase 2 on its row and column, phase 3 on the rest of the cross);
//! 3. every other super-block (I, J) streams through the GPU, alternating between two tile
//!    buffers and two streams so that one tile's copies overlap the other's compute:
//!    `D(I, J) = min(D(I, J), D(I, K) ⊗ D(K, J))` (min, +), from the final cross;
//! 4. the cross goes back to the host.
//!
//! That is the blocked Floyd–Warshall at super-block granularity, so the result is the exact
//! shortest distances, byte for byte those of the in-core solver (`model` runs the schedule on
//! the CPU and the tests compare).
//!
//! - this module: the [`Plan`] (S from a memory budget) and the choice between in-core and
//!   out-of-core ([`Mode`]);
//! - `schedule`: the operations of one pivot super-block ([`Op`]), which the GPU runner and
//!   the model both execute;
//! - `model`: the CPU execution, the check that no launch reads what another block of it
//!   writes, and the cost of each round (PCIe bytes against add-mins).
mod model;
mod schedule;
#[cfg(test)]
mod tests;

use std::ops::Range;

use anyhow::Result;

pub use model::{CostModel, RoundCost, run_on_cpu};
pub use schedule::{Buf, LANES, Op, Rect, Update};

use super::format::distance_pitch;
use crate::memory::human_bytes;

/// How a solve fits the device memory it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The whole padded matrix on the GPU.
    InCore,
    /// Streamed through the GPU a super-block at a time.
    OutOfCore(Plan),
}

/// Device bytes of the in-core solve of `vertices` at block factor `block`: the padded matrix
/// and the edge list uploaded to build it (`edge_bytes`).
pub fn in_core_bytes(vertices: usize, block: usize, edge_bytes: u64) -> u64 {
    let padded = vertices.div_ceil(block) * block;
    (padded * distance_pitch(padded) * 4) as u64 + edge_bytes
}

impl Mode {
    /// In core when the padded matrix and the edges fit in `budget` bytes of device memory,
    /// else the out-of-core plan with the largest super-blocks that fit; one sentence when not
    /// even that does.
    pub fn choose(vertices: usize, block: usize, edge_bytes: u64, budget: u64) -> Result<Mode> {
        if in_core_bytes(vertices, block, edge_bytes) <= budget {
            return Ok(Mode::InCore);
        }
        Ok(Mode::OutOfCore(Plan::for_budget(vertices, block, budget)?))
    }
}

/// The geometry of an out-of-core solve: the padded matrix of `blocks` x `blocks` blocks of
/// `block` x `block` cells, in super-blocks of `s` x `s` blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub vertices: usize,
    /// Block factor B (cells per block side).
    pub block: usize,
    /// Rows (and columns) of the padded matrix, a multiple of B.
    pub padded: usize,
    /// Row pitch (i32) of the host matrix and of the `Row` buffer.
    pub pitch: usize,
    /// Blocks per side of the padded matrix.
    pub blocks: usize,
    /// Blocks per side of a super-block (S).
    pub s: usize,
}

impl Plan {
    /// The plan with super-blocks of `s` x `s` blocks (at least 1, at most the matrix).
    pub fn new(vertices: usize, block: usize, s: usize) -> Plan {
        let padded = vertices.max(1).div_ceil(block) * block;
        let blocks = padded / block;
        Plan {
            vertices,
            block,
            padded,
            pitch: distance_pitch(padded),
            blocks,
            s: s.clamp(1, blocks),
        }
    }

    /// The plan with the largest super-blocks whose buffers fit in `budget` bytes; one
    /// sentence naming both numbers when even one block per super-block does not.
    pub fn for_budget(vertices: usize, block: usize, budget: u64) -> Result<Plan> {
        let smallest = Plan::new(vertices, block, 1);
        if smallest.device_bytes() > budget {
            return crate::bad_input(format!(
                "V = {vertices} out of core needs at least {} of device memory (a pivot row \
                 and column of {block} x {} cells and {LANES} tiles) but may use {}",
                human_bytes(smallest.device_bytes() as u128),
                smallest.padded,
                human_bytes(budget as u128)
            ));
        }
        // Device bytes grow with s: the largest s that fits, by bisection.
        let (mut lo, mut hi) = (1, smallest.blocks);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            match Plan::new(vertices, block, mid).device_bytes() <= budget {
                true => lo = mid,
                false => hi = mid - 1,
            }
        }
        Ok(Plan::new(vertices, block, lo))
    }

    /// Cells per side of a (full) super-block: the pitch of `Col` and of the tiles.
    pub fn side(&self) -> usize {
        self.s * self.block
    }

    /// Super-blocks per side (the last may have fewer than S blocks).
    pub fn count(&self) -> usize {
        self.blocks.div_ceil(self.s)
    }

    /// The blocks of super-block `k` (along either side).
    pub fn blocks_of(&self, k: usize) -> Range<usize> {
        k * self.s..((k + 1) * self.s).min(self.blocks)
    }

    /// Row pitch (i32) of a buffer.
    pub fn pitch_of(&self, buf: Buf) -> usize {
        match buf {
            Buf::Host | Buf::Row => self.pitch,
            Buf::Col | Buf::Tile(_) => self.side(),
        }
    }

    /// Cells of a buffer: the host matrix, S block rows of it, every block row of S block
    /// columns, one super-block.
    pub fn len_of(&self, buf: Buf) -> usize {
        match buf {
            Buf::Host => self.padded * self.pitch,
            Buf::Row => self.side() * self.pitch,
            Buf::Col => self.padded * self.side(),
            Buf::Tile(_) => self.side() * self.side(),
        }
    }

    /// Device bytes of the buffers: `Row`, `Col` and [`LANES`] tiles.
    pub fn device_bytes(&self) -> u64 {
        let cells =
            self.len_of(Buf::Row) + self.len_of(Buf::Col) + LANES * self.len_of(Buf::Tile(0));
        cells as u64 * 4
    }

    /// Host bytes of the matrix.
    pub fn host_bytes(&self) -> u64 {
        self.len_of(Buf::Host) as u64 * 4
    }
}
