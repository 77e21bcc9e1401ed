//! What one round of the classic launches costs, phase by phase (`host apsp-small` reports it
//! beside the schedules): each phase kernel launched for every round back to back, alone, so
//! the per-launch time includes the gap between launches as in `Schedule::Launches`. It bounds
//! what any schedule of the rounds can reach: a round's critical path is phase 1, then one block
//! of phase 2, then phase 3.
use anyhow::Result;
use serde::Serialize;

use super::{
    gpu::{config, start_on_device_with},
    phases::Phases,
    small::Schedule,
};
use crate::gpu::{Gpu, time_on_stream};
use rgk_core::apsp::format::Graph;

/// Median GPU time per launch of each phase, µs, at one block factor.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RoundCosts {
    pub block: u32,
    pub rounds: u32,
    /// Phase 1 (the pivot block, one block of threads).
    pub phase1_us: f64,
    /// Phase 2 (the pivot row and column).
    pub phase2_us: f64,
    /// Phase 3 (every other block).
    pub phase3_us: f64,
    /// The three in order, per round (`Schedule::Launches` divided by the rounds).
    pub round_us: f64,
    /// Timed passes over every round, per phase (median taken).
    pub reps: usize,
}

/// Times each phase of `block` on the matrix of `graph` (solved first, so the kernels run on
/// real distances; phase 1 then stores nothing, which makes it, if anything, a little fast).
pub fn round_costs(gpu: &Gpu, graph: &Graph, block: u32, reps: usize) -> Result<RoundCosts> {
    let sol = start_on_device_with(gpu, graph, block, Schedule::Launches)?.finish()?;
    let phases = Phases::new(gpu, config(block)?, sol.padded, sol.pitch)?;
    let (d, stream, rounds) = (sol.dist.as_device_ptr(), &gpu.stream, phases.rounds);
    let per_launch = |f: &dyn Fn(u32) -> Result<()>| -> Result<f64> {
        let t = time_on_stream(stream, 1, reps, || (0..rounds).try_for_each(f))?;
        Ok(t.median_ms * 1e3 / rounds as f64)
    };
    Ok(RoundCosts {
        block,
        rounds,
        phase1_us: per_launch(&|r| phases.pivot(stream, d, r))?,
        phase2_us: per_launch(&|r| phases.row_and_column(stream, d, r))?,
        phase3_us: per_launch(&|r| phases.rest(stream, d, r))?,
        round_us: per_launch(&|r| {
            phases.pivot_row_and_column(stream, d, r)?;
            phases.rest(stream, d, r)
        })?,
        reps,
    })
}
