//! How the rounds of one solve are run ([`Schedule`]). At small V a round is a few µs of work,
//! so what it costs besides the work decides the rate: the classic three launches per round
//! ([`Schedule::Launches`]), the same launches captured once into a CUDA graph and replayed
//! ([`Schedule::Graph`]: no CPU launch cost and shorter gaps between kernels), or one persistent
//! cooperative launch for every round (`Persistent*`: `gpu_kernels::apsp::FW_SMALL`, grid-wide
//! barriers, phase 1 folded into phase 3), or the same work items in one launch ordered by
//! per-block counters instead of barriers (`Flow*`: rounds overlap), or those items taken by
//! whichever block is free from a ticket counter (`Pull*`). [`default_schedule`] is the one
//! place that picks.
use std::{cell::Cell, ptr};

use anyhow::{Context as _, Result, bail};
use cust::{
    function::BlockSize,
    launch,
    memory::{DeviceBuffer, DevicePointer},
    stream::Stream,
};
use cust_raw::driver_sys;
use gpu_kernels::apsp::{FwSmallConfig, SMALL_HOLD_KERNEL, SmallKind, fw_small_config};
use serde::Serialize;

use super::phases::{Phases, prefer_shared_memory};
use crate::gpu::{Gpu, check_driver};

/// Graphs up to this many vertices get a small-V schedule by default ([`default_schedule`]):
/// on the H200 (docs/apsp.md, session 8, 2026-11-24) `pull64x8` leads every other schedule at
/// V = 4000 and 5000 (70.2% and 72.0% of `apsp-peak` against 63.0% and 69.8% for the best of the
/// launches); above, not measured, the launches.
pub const SMALL_MAX_VERTICES: usize = 5000;
/// Up to this many vertices the flow kernel uses B = 32 by default (twice the rounds, but four
/// times the blocks per round for the SMs: 12.1% against 11.0% at V = 750, session 4).
pub const SMALL_B32_MAX_VERTICES: usize = 800;
/// Up to this many vertices the strip kernel with chain blocks (`strips4c`), above it the one
/// without (`strips4`): on the H200 (session 24, docs/apsp-small.md) 56.6% against 54.9% at V =
/// 2000, 59.3% against 61.1% at 2500; halfway.
pub const SMALL_CHAIN_MAX_VERTICES: usize = 2250;
/// Above this many vertices the pull kernel with 8 x 8 cells per thread (`pull64x8`), up to it
/// the strip kernels with 4 x 4: session 24, three processes, `strips4` 60.4–61.3% against
/// `pull64x8` 57.3–58.8% at V = 2500, 65.3% against 65.8% at 2750 (two), 65.6–66.7% against
/// 67.5–68.1% at 3000; halfway between 2500 and 2750.
pub const SMALL_X4_MAX_VERTICES: usize = 2625;

/// How the rounds of a solve run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// Phases 1, 2 and 3 as three launches per round (the block factor's `FW_CONFIGS` kernels).
    Launches,
    /// The same launches, captured once into a CUDA graph and launched as one.
    Graph,
    /// One persistent cooperative launch with B = 32 (`fw_small_b32`).
    Persistent32,
    /// One persistent cooperative launch with B = 64 (`fw_small_b64`).
    Persistent64,
    /// One cooperative launch with B = 32, work items ordered by per-block counters
    /// (`fw_flow_b32`).
    Flow32,
    /// As `Flow32` with B = 64 (`fw_flow_b64`).
    Flow64,
    /// The flow kernel's items, order and counters with B = 32, each block pulling the next
    /// item from a ticket counter when free (`fw_pull_b32`).
    Pull32,
    /// As `Pull32` with B = 64 (`fw_pull_b64`: 16 x 16 threads of 4 x 4 cells).
    Pull64,
    /// As `Pull64` with 8 x 8 threads of 8 x 8 cells (`fw_pull_b64c8`: the launches' phase-3
    /// register tile).
    #[value(name = "pull64x8")]
    #[serde(rename = "pull64x8")]
    Pull64x8,
    /// As `Pull64`, each round's chain (the pivot column's block next to the next pivot block,
    /// then that block) split into 2 row strips on 2 blocks, both products in each, the last to
    /// finish closing the next pivot block (`fw_strip_b64s2`).
    Strips2,
    /// As `Strips2` with 4 strips (`fw_strip_b64s4`).
    Strips4,
    /// As `Strips4`, the strips taken by 4 chain blocks alone, from a ticket of their own, the
    /// other blocks on their SMs leaving (`fw_strip_b64s4c`).
    #[value(name = "strips4c")]
    #[serde(rename = "strips4c")]
    Strips4c,
}

impl Schedule {
    pub const ALL: [Schedule; 12] = [
        Schedule::Launches,
        Schedule::Graph,
        Schedule::Persistent32,
        Schedule::Persistent64,
        Schedule::Flow32,
        Schedule::Flow64,
        Schedule::Pull32,
        Schedule::Pull64,
        Schedule::Pull64x8,
        Schedule::Strips2,
        Schedule::Strips4,
        Schedule::Strips4c,
    ];

    /// The persistent kernel's block factor, if this is one.
    pub const fn persistent_block(self) -> Option<u32> {
        match self {
            Schedule::Persistent32 | Schedule::Flow32 | Schedule::Pull32 => Some(32),
            Schedule::Persistent64
            | Schedule::Flow64
            | Schedule::Pull64
            | Schedule::Pull64x8
            | Schedule::Strips2
            | Schedule::Strips4
            | Schedule::Strips4c => Some(64),
            Schedule::Launches | Schedule::Graph => None,
        }
    }

    /// The persistent kernel's kind, if this is one.
    pub const fn persistent_kind(self) -> Option<SmallKind> {
        match self {
            Schedule::Persistent32 | Schedule::Persistent64 => Some(SmallKind::Barrier),
            Schedule::Flow32 | Schedule::Flow64 => Some(SmallKind::Flow),
            Schedule::Pull32 | Schedule::Pull64 | Schedule::Pull64x8 => Some(SmallKind::Pull),
            Schedule::Strips2 => Some(SmallKind::Strip {
                strips: 2,
                chain: 0,
            }),
            Schedule::Strips4 => Some(SmallKind::Strip {
                strips: 4,
                chain: 0,
            }),
            Schedule::Strips4c => Some(SmallKind::Strip {
                strips: 4,
                chain: 4,
            }),
            Schedule::Launches | Schedule::Graph => None,
        }
    }

    /// The persistent kernel's cells per thread along each side.
    pub const fn persistent_cells(self) -> u32 {
        match self {
            Schedule::Pull64x8 => 8,
            _ => 4,
        }
    }

    /// Whether this schedule runs a matrix padded to a multiple of `block` (the block factor of
    /// the solve): the persistent kernels need their own block factor to divide it.
    pub const fn fits(self, block: u32) -> bool {
        match self.persistent_block() {
            Some(b) => block.is_multiple_of(b),
            None => true,
        }
    }
}

/// The schedule a solve of `vertices` vertices at block factor `block` runs unless told
/// otherwise: the one place the choice is made. Measured with `scripts/gpu-run.sh small`.
pub fn default_schedule(vertices: usize, block: u32) -> Schedule {
    if vertices > SMALL_MAX_VERTICES {
        return Schedule::Launches;
    }
    let preferred = if vertices <= SMALL_B32_MAX_VERTICES {
        Schedule::Flow32
    } else if vertices <= SMALL_CHAIN_MAX_VERTICES {
        Schedule::Strips4c
    } else if vertices <= SMALL_X4_MAX_VERTICES {
        Schedule::Strips4
    } else {
        Schedule::Pull64x8
    };
    [preferred, Schedule::Flow32]
        .into_iter()
        .find(|s| s.fits(block))
        .unwrap_or(Schedule::Launches)
}

/// What a queued solve keeps alive until its stream has run: the instantiated graph or the
/// persistent kernel's counters.
#[derive(Default)]
pub struct Keep {
    // Held for their drops only.
    _exec: Option<GraphExec>,
    _barrier: Option<DeviceBuffer<u32>>,
}

/// An instantiated CUDA graph, destroyed after its stream is idle.
pub(crate) struct GraphExec {
    exec: driver_sys::CUgraphExec,
    stream: driver_sys::CUstream,
}

impl Drop for GraphExec {
    fn drop(&mut self) {
        // SAFETY: `exec` was instantiated by `Prepared::new` and is destroyed once, here, after
        // the stream it was launched on has finished it. Errors cannot be reported from a drop.
        unsafe {
            let _ = driver_sys::cuStreamSynchronize(self.stream);
            let _ = driver_sys::cuGraphExecDestroy(self.exec);
        }
    }
}

/// A schedule made ready before the timed region: the graph captured and instantiated, or the
/// persistent kernel loaded and its grid sized.
pub(crate) enum Prepared<'a> {
    Launches,
    Graph(GraphExec),
    Persistent {
        f: cust::function::Function<'a>,
        cfg: FwSmallConfig,
        grid: u32,
        barrier: DeviceBuffer<u32>,
        /// The counters are still as allocated (zero): the first launch needs no memset.
        zeroed: Cell<bool>,
    },
}

impl<'a> Prepared<'a> {
    /// Prepares `schedule` for the matrix at `d` (rounds and pitch from `phases`), on
    /// `gpu.stream`. The graph's capture records the launches only; nothing runs yet.
    pub(crate) fn new(
        gpu: &'a Gpu,
        schedule: Schedule,
        phases: &Phases,
        d: DevicePointer<i32>,
    ) -> Result<Prepared<'a>> {
        let stream = &gpu.stream;
        match schedule {
            Schedule::Launches => Ok(Prepared::Launches),
            Schedule::Graph => {
                let raw = stream.as_inner();
                let mode = driver_sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
                // SAFETY: a valid stream of this context; the capture is ended below on every
                // path (the launches in between are only recorded).
                let begun = unsafe { driver_sys::cuStreamBeginCapture(raw, mode) };
                check_driver(begun, "cuStreamBeginCapture")?;
                let recorded = phases.queue_rounds(stream, d);
                let mut graph = ptr::null_mut();
                // SAFETY: ends the capture begun above on the same stream.
                let ended = unsafe { driver_sys::cuStreamEndCapture(raw, &mut graph) };
                recorded?;
                check_driver(ended, "cuStreamEndCapture")?;
                let mut exec = ptr::null_mut();
                // SAFETY: `graph` is the captured graph; it is destroyed once instantiated (the
                // executable graph is independent of it).
                let status = unsafe { driver_sys::cuGraphInstantiate(&mut exec, graph, 0) };
                // SAFETY: as above: `graph` is not used after this. A failure to free it leaks a
                // host-side description only.
                let _ = unsafe { driver_sys::cuGraphDestroy(graph) };
                check_driver(status, "cuGraphInstantiate")?;
                Ok(Prepared::Graph(GraphExec { exec, stream: raw }))
            }
            Schedule::Persistent32
            | Schedule::Persistent64
            | Schedule::Flow32
            | Schedule::Flow64
            | Schedule::Pull32
            | Schedule::Pull64
            | Schedule::Pull64x8
            | Schedule::Strips2
            | Schedule::Strips4
            | Schedule::Strips4c => {
                let block = schedule.persistent_block().expect("a persistent schedule");
                let kind = schedule.persistent_kind().expect("a persistent schedule");
                let cells = schedule.persistent_cells();
                let cfg = fw_small_config(block, kind, cells).context("no persistent kernel")?;
                if !(phases.block).is_multiple_of(block) {
                    bail!(
                        "the persistent B = {block} kernel needs a matrix padded to a multiple of \
                         {block}, not of {}",
                        phases.block
                    );
                }
                let f = gpu.function(cfg.kernel)?;
                let rounds = phases.padded() as u32 / block;
                // Barrier kernels: no stage has more items than phase 3; the others: one
                // round's items (each block then has an item in about every round).
                let most_items = kind.round_items(rounds);
                let grid = cooperative_grid(gpu, cfg.kernel, &f, cfg.threads, most_items)?;
                // The kind's counters (`SmallKind::counter_words`), zeroed here (outside the
                // timed region) for the first launch, in stream order before any later one
                // ([`Prepared::queue`]).
                let words = kind.counter_words(rounds);
                // SAFETY: every word is zeroed by the memset below before any launch reads it.
                let barrier = unsafe { DeviceBuffer::<u32>::uninitialized(words) }
                    .context("allocating the persistent kernel's counters")?;
                zero_counters(&barrier, stream)?;
                Ok(Prepared::Persistent {
                    f,
                    cfg,
                    grid,
                    barrier,
                    zeroed: Cell::new(true),
                })
            }
        }
    }

    /// Queues every round on `stream` (the one given to [`Prepared::new`]) for the matrix at
    /// `d`. May be called again for another run of the same matrix buffer.
    pub(crate) fn queue(
        &self,
        phases: &Phases,
        stream: &Stream,
        d: DevicePointer<i32>,
    ) -> Result<()> {
        match self {
            Prepared::Launches => phases.queue_rounds(stream, d),
            Prepared::Graph(g) => {
                // SAFETY: an executable graph of this context, its kernels recorded for `d`.
                let launched = unsafe { driver_sys::cuGraphLaunch(g.exec, stream.as_inner()) };
                Ok(check_driver(launched, "cuGraphLaunch")?)
            }
            Prepared::Persistent {
                f,
                cfg,
                grid,
                barrier,
                zeroed,
            } => {
                let counter = barrier.as_device_ptr().as_raw();
                if !zeroed.replace(false) {
                    zero_counters(barrier, stream)?;
                }
                let (mut dp, mut pitch) = (d.as_raw(), phases.pitch);
                let mut rounds = phases.padded() as u32 / cfg.block;
                let mut bar = counter;
                let mut params = [
                    (&raw mut dp).cast::<std::ffi::c_void>(),
                    (&raw mut pitch).cast(),
                    (&raw mut rounds).cast(),
                    (&raw mut bar).cast(),
                ];
                // SAFETY: the kernel takes (d, pitch, rounds, counters): `d` the padded matrix
                // of `phases` (rounds * B rows of `pitch`, B dividing its block factor), the
                // zeroed counters (`SmallKind::counter_words` of its kind); the
                // cooperative launch refuses a grid that cannot be resident at once (sized from
                // the occupancy above), so the barriers cannot deadlock.
                unsafe {
                    launch_cooperative(f, *grid, (cfg.threads, cfg.threads), stream, &mut params)
                }
            }
        }
    }

    /// What must outlive the queued work.
    pub(crate) fn into_keep(self) -> Keep {
        match self {
            Prepared::Launches => Keep::default(),
            Prepared::Graph(exec) => Keep {
                _exec: Some(exec),
                _barrier: None,
            },
            Prepared::Persistent { barrier, .. } => Keep {
                _exec: None,
                _barrier: Some(barrier),
            },
        }
    }
}

/// Queues on `gpu.stream` a one-thread kernel that spins for `ns` nanoseconds
/// (`gpu_kernels::apsp::SMALL_HOLD_KERNEL`): queued before a solve's start event, it keeps the
/// GPU busy while the CPU queues the rounds, so that the events time the GPU's work and not the
/// CPU's launch calls (`host apsp-small --hold-us`).
pub fn hold(gpu: &Gpu, ns: u64) -> Result<()> {
    let f = gpu.function(SMALL_HOLD_KERNEL)?;
    let stream = &gpu.stream;
    // SAFETY: the kernel takes one u64 and touches no memory.
    unsafe { launch!(f<<<1, 1, 0, stream>>>(ns)) }.context("launching the hold kernel")
}

/// The grid of the persistent kernel `kernel` (`f`) with `threads x threads` threads per block:
/// as many blocks as can be resident at once, but no more than `most_items` (at least 1) work
/// items at a time.
pub(crate) fn cooperative_grid(
    gpu: &Gpu,
    kernel: &str,
    f: &cust::function::Function<'_>,
    threads: u32,
    most_items: u32,
) -> Result<u32> {
    prefer_shared_memory(f)?;
    let per_sm = f
        .max_active_blocks_per_multiprocessor(BlockSize::xy(threads, threads), 0)
        .context("the persistent kernel's occupancy")?;
    if per_sm == 0 {
        bail!("the persistent kernel {kernel} does not fit on an SM");
    }
    Ok((per_sm * gpu.multiprocessors()?).min(most_items.max(1)))
}

/// Launches `f` cooperatively: `grid` blocks of `block` (x, y) threads, on `stream`.
///
/// # Safety
/// `params` must be the kernel's arguments in order, each pointing to a value of the type the
/// kernel takes, valid for what the kernel does with them; the driver refuses a grid that
/// cannot be resident at once.
pub(crate) unsafe fn launch_cooperative(
    f: &cust::function::Function<'_>,
    grid: u32,
    block: (u32, u32),
    stream: &Stream,
    params: &mut [*mut std::ffi::c_void],
) -> Result<()> {
    // SAFETY: the caller's contract (the arguments); the launch geometry is checked by the
    // driver.
    let status = unsafe {
        driver_sys::cuLaunchCooperativeKernel(
            f.to_raw(),
            grid,
            1,
            1,
            block.0,
            block.1,
            1,
            0,
            stream.as_inner(),
            params.as_mut_ptr(),
        )
    };
    Ok(check_driver(status, "cuLaunchCooperativeKernel")?)
}

/// Queues the zeroing of a persistent kernel's counters on `stream`.
pub(crate) fn zero_counters(counters: &DeviceBuffer<u32>, stream: &Stream) -> Result<()> {
    let p = counters.as_device_ptr().as_raw();
    // SAFETY: the u32s of device memory owned by `counters`, zeroed in stream order before the
    // launch that counts in them (queued after this on the same stream).
    let status = unsafe { driver_sys::cuMemsetD32Async(p, 0, counters.len(), stream.as_inner()) };
    Ok(check_driver(
        status,
        "cuMemsetD32Async (the persistent kernel's counters)",
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_graphs_get_a_small_schedule_that_fits_the_block() {
        assert_eq!(default_schedule(500, 64), Schedule::Flow32);
        assert_eq!(default_schedule(801, 64), Schedule::Strips4c);
        assert_eq!(default_schedule(2250, 64), Schedule::Strips4c);
        assert_eq!(default_schedule(2251, 64), Schedule::Strips4);
        assert_eq!(default_schedule(2625, 64), Schedule::Strips4);
        assert_eq!(default_schedule(2626, 64), Schedule::Pull64x8);
        assert_eq!(default_schedule(5000, 64), Schedule::Pull64x8);
        assert_eq!(default_schedule(5001, 64), Schedule::Launches);
        // B = 64 does not divide a matrix padded to 32 (B = 32 does), nor 32 one padded to 16.
        assert_eq!(default_schedule(2000, 32), Schedule::Flow32);
        assert_eq!(default_schedule(1000, 16), Schedule::Launches);
        for s in Schedule::ALL {
            assert!(s.fits(64));
            if let (Some(b), Some(k)) = (s.persistent_block(), s.persistent_kind()) {
                assert_eq!(
                    fw_small_config(b, k, s.persistent_cells()).map(|c| (c.block, c.kind)),
                    Some((b, k))
                );
            }
        }
    }
}
