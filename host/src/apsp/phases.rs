//! The three phase kernels of one block factor and how they are queued per round, apart from
//! the solvers that use them (`gpu`, `small`, `float`, `dist`): a leaf of `apsp`, so that the
//! one-graph solver and the small-graph schedules can both use it without importing each other.
use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    launch,
    memory::DevicePointer,
    stream::Stream,
};
use cust_raw::driver_sys;
use gpu_kernels::apsp::FwConfig;

use crate::gpu::{Gpu, check_driver};

/// The three phase kernels of one block factor, built under their register caps (see
/// `gpu_kernels::registry::max_registers`), with the launch geometry of a padded matrix.
pub(crate) struct Phases<'a> {
    phase1: Function<'a>,
    phase2: Function<'a>,
    phase3: Function<'a>,
    pub(crate) rounds: u32,
    threads: BlockSize,
    phase2_threads: BlockSize,
    phase3_threads: BlockSize,
    pub(crate) pitch: u32,
    /// The block factor B.
    pub(crate) block: u32,
}

/// Asks the driver for the largest shared-memory carveout for `f`: the register-tiled phases
/// 2–3 of B = 64 keep 6 blocks of 33 KB per SM only with most of the 256 KB of L1 as shared
/// memory.
pub(crate) fn prefer_shared_memory(f: &Function) -> Result<()> {
    // SAFETY: a valid function handle of a loaded module; the attribute takes a percentage.
    let status = unsafe {
        driver_sys::cuFuncSetAttribute(
            f.to_raw(),
            driver_sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
            100,
        )
    };
    Ok(check_driver(
        status,
        "cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)",
    )?)
}

impl<'a> Phases<'a> {
    pub(crate) fn new(
        gpu: &'a Gpu,
        cfg: FwConfig,
        padded: usize,
        pitch: usize,
    ) -> Result<Phases<'a>> {
        let get = |name: &str| gpu.function(name);
        let (phase2, phase3) = (get(cfg.phase2)?, get(cfg.phase3)?);
        prefer_shared_memory(&phase2)?;
        prefer_shared_memory(&phase3)?;
        Ok(Phases {
            phase1: get(cfg.phase1)?,
            phase2,
            phase3,
            rounds: (padded / cfg.block as usize) as u32,
            threads: BlockSize::xy(cfg.threads, cfg.threads),
            phase2_threads: BlockSize::xy(cfg.phase2_threads(), cfg.phase2_threads()),
            phase3_threads: BlockSize::xy(cfg.phase3_threads, cfg.phase3_threads),
            pitch: pitch as u32,
            block: cfg.block,
        })
    }

    /// Rows (and columns) of the padded matrix.
    pub(crate) fn padded(&self) -> usize {
        (self.rounds * self.block) as usize
    }

    /// Every round, three launches each (`small::Schedule::Launches`).
    pub(crate) fn queue_rounds(&self, stream: &Stream, d: DevicePointer<i32>) -> Result<()> {
        for r in 0..self.rounds {
            self.pivot_row_and_column(stream, d, r)?;
            self.rest(stream, d, r)?;
        }
        Ok(())
    }

    /// Phases 1 and 2 of `round`: the pivot block, then its row and column.
    pub(crate) fn pivot_row_and_column(
        &self,
        stream: &Stream,
        d: DevicePointer<i32>,
        round: u32,
    ) -> Result<()> {
        self.pivot(stream, d, round)?;
        self.row_and_column(stream, d, round)
    }

    /// Phase 1 of `round`: the pivot block.
    pub(crate) fn pivot(&self, stream: &Stream, d: DevicePointer<i32>, round: u32) -> Result<()> {
        let (p1, t1, pitch) = (&self.phase1, self.threads, self.pitch);
        // SAFETY: the phase kernels take (d, pitch, round); `d` is the padded x pitch matrix
        // these phases were made for (this module's solves pass their own), and the grid stays
        // inside it (one pivot block).
        unsafe { launch!(p1<<<GridSize::x(1), t1, 0, stream>>>(d, pitch, round)) }
            .context("launching Floyd–Warshall phase 1")
    }

    /// Phase 2 of `round`: the pivot block's row and column.
    pub(crate) fn row_and_column(
        &self,
        stream: &Stream,
        d: DevicePointer<i32>,
        round: u32,
    ) -> Result<()> {
        let (p2, t2, pitch) = (&self.phase2, self.phase2_threads, self.pitch);
        let grid = GridSize::xy(self.rounds, 2);
        // SAFETY: as in `pivot`: the pivot block's row and column of `rounds` blocks each.
        unsafe { launch!(p2<<<grid, t2, 0, stream>>>(d, pitch, round)) }
            .context("launching Floyd–Warshall phase 2")
    }

    /// Phase 3 of `round`: every other block.
    pub(crate) fn rest(&self, stream: &Stream, d: DevicePointer<i32>, round: u32) -> Result<()> {
        let (p3, threads, pitch) = (&self.phase3, self.phase3_threads, self.pitch);
        let grid = GridSize::xy(self.rounds, self.rounds);
        // SAFETY: as in `pivot_row_and_column`: `rounds` x `rounds` blocks of the matrix.
        unsafe { launch!(p3<<<grid, threads, 0, stream>>>(d, pitch, round)) }
            .context("launching Floyd–Warshall phase 3")
    }
}
