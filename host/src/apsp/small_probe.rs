//! Where a small solve's chain spends its time (`host apsp-small --probe`): the probe kernels of
//! `gpu_kernels::apsp::SMALL_PROBES`. An item probe runs the first pivot block's product and
//! closure on one block alone and reads the SM clock at each part, for each closure style (1, 2
//! or 4 Floyd–Warshall steps per barrier) and register tile; its result is checked against the
//! CPU's closure of the same block. A traced solve runs the pull kernel with every item stamped
//! and takes the rounds' chain apart: the item that updates and closes the next pivot block, the
//! two phase-2 items before it, and the hand-offs between them (`summarise`).
use anyhow::{Context as _, Result, ensure};
use cust::{
    event::{Event, EventFlags},
    launch,
    memory::{CopyDestination, DeviceBuffer},
};
use gpu_kernels::apsp::{
    PROBE_ITEM_STAMPS, SMALL_PROBES, SmallKind, SmallProbeConfig, SmallProbeKind, TRACE_WORDS,
    strip_items,
};
use rgk_core::apsp::{
    cpu::floyd_warshall,
    format::{Graph, fill_distances},
};
use serde::Serialize;

use super::gpu::{geometry, init_on_device};
use super::small::{cooperative_grid, launch_cooperative, zero_counters};
use crate::gpu::{Gpu, Timing, median};

/// The probes' block factor (every probe kernel's).
const B: usize = 64;

/// One item probe: medians over its runs, in SM clock cycles.
#[derive(Clone, Debug, Serialize)]
pub struct ItemProbe {
    pub kernel: &'static str,
    pub cells: u32,
    pub close_steps: u32,
    pub load_cycles: f64,
    pub product_cycles: f64,
    pub closure_cycles: f64,
    pub store_cycles: f64,
    /// The closure's cycles per Floyd–Warshall step (B steps).
    pub cycles_per_step: f64,
    /// The whole item by the global timer, µs.
    pub item_us: f64,
    pub runs: usize,
    /// Every run's block equals the CPU's closure of it.
    pub correct: bool,
}

/// Runs every item probe `reps` times (after a warm-up) on the block of the first 64 vertices
/// of `graph`.
pub fn probe_items(gpu: &Gpu, graph: &Graph, reps: usize) -> Result<Vec<ItemProbe>> {
    let v = graph.vertices.min(B);
    let edges = graph
        .edges
        .iter()
        .filter(|e| (e.src as usize) < v && (e.dst as usize) < v)
        .copied()
        .collect();
    let mut tile = vec![0i32; B * B];
    fill_distances(&Graph::from_edges(v, edges)?, B, B, &mut tile);
    let mut closed = tile.clone();
    floyd_warshall(&mut closed, B, B);
    let stream = &gpu.stream;
    let mut out = Vec::new();
    for cfg in SMALL_PROBES
        .iter()
        .filter(|c| c.kind == SmallProbeKind::Item)
    {
        let f = gpu.function(cfg.kernel)?;
        let mut d = DeviceBuffer::from_slice(&tile).context("copying the probe's block")?;
        let stamps = DeviceBuffer::<u64>::zeroed(PROBE_ITEM_STAMPS as usize)?;
        let mut parts = [(); 5].map(|()| Vec::with_capacity(reps));
        let mut correct = true;
        for run in 0..=reps {
            d.copy_from(&tile)?;
            let t = cfg.threads;
            // SAFETY: `d` is a 64 x 64 block (pitch 64) with a zero diagonal and non-negative
            // entries, `stamps` 10 u64, one block of t x t threads (the kernel's contract).
            unsafe {
                launch!(f<<<1, (t, t, 1), 0, stream>>>(d.as_device_ptr(), B as u32,
                    stamps.as_device_ptr()))
            }
            .context("launching an item probe")?;
            stream.synchronize().context("an item probe failed")?;
            let mut s = [0u64; PROBE_ITEM_STAMPS as usize];
            stamps.copy_to(&mut s[..])?;
            let mut got = vec![0i32; B * B];
            d.copy_to(&mut got)?;
            correct &= got == closed;
            if run > 0 {
                for (p, part) in parts.iter_mut().take(4).enumerate() {
                    part.push(s[p + 1].wrapping_sub(s[p]) as f64);
                }
                parts[4].push(s[9].wrapping_sub(s[5]) as f64 / 1e3);
            }
        }
        let [load, product, closure, store, item] = parts.map(|p| median(&p));
        out.push(ItemProbe {
            kernel: cfg.kernel,
            cells: cfg.cells,
            close_steps: cfg.close_steps,
            load_cycles: load,
            product_cycles: product,
            closure_cycles: closure,
            store_cycles: store,
            cycles_per_step: closure / B as f64,
            item_us: item,
            runs: reps,
            correct,
        });
    }
    Ok(out)
}

/// Medians of an item's parts, µs (the SM clock converted at the trace's own rate).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Parts {
    /// From taking the item to its dependencies met.
    pub wait_us: f64,
    pub load_us: f64,
    pub product_us: f64,
    pub closure_us: f64,
    /// The stores and the counter's publication.
    pub publish_us: f64,
    pub items: usize,
}

/// A traced solve.
#[derive(Clone, Debug, Serialize)]
pub struct TraceSummary {
    pub kernel: &'static str,
    pub close_steps: u32,
    /// The traced solves' compute time (CUDA events), ms.
    pub compute: Timing,
    /// The result equals the reference distances.
    pub identical: bool,
    pub rounds: u32,
    /// SM clock cycles per ns, from the items' own clock and timer readings.
    pub cycles_per_ns: f64,
    /// Median over rounds of the time from one pivot block's closure published to the next's.
    pub chain_round_us: f64,
    /// Median over rounds of the time from one pivot block's closure published to the
    /// dependencies met of the item that closes the next (of the latest of a round's strips).
    pub pivot_to_close_deps_us: f64,
    /// The items that update and close the next pivot block (of a strip kernel, the strip that
    /// arrived last and closed it).
    pub close_items: Parts,
    /// The later of the two phase-2 items that each of those waits for.
    pub chain_phase2: Parts,
    /// The phase-3 items that close nothing.
    pub bulk: Parts,
    /// Median time from a pivot block's closure published to the later of its two phase-2
    /// chain items' dependencies met, µs (global timer).
    pub close_to_phase2_us: f64,
    /// Median time from the later phase-2 chain item published to the next closing item's
    /// dependencies met, µs.
    pub phase2_to_close_us: f64,
}

/// One traced item, decoded.
#[derive(Clone, Copy)]
struct Stamp {
    own: (u32, u32),
    round: u32,
    phase3: bool,
    close: bool,
    clock: [u64; 6],
    timer: [u64; 6],
}

/// Runs the traced pull kernel `cfg` on `graph` `reps` times (after a warm-up), checks each
/// result against `reference` (V x V) and summarises the last run's trace.
pub fn trace(
    gpu: &Gpu,
    graph: &Graph,
    cfg: &SmallProbeConfig,
    reference: &[i32],
    reps: usize,
) -> Result<TraceSummary> {
    let v = graph.vertices;
    let (padded, pitch) = geometry(v, B as u32);
    let n = (padded / B) as u32;
    // The traced kernel's order and counters: the pull kernels' or a strip kernel's.
    let (items, kind) = match cfg.kind {
        SmallProbeKind::StripTrace { strips, chain } => (
            strip_items(n, strips) as usize,
            SmallKind::Strip { strips, chain },
        ),
        _ => (1 + n as usize * (n * n - 1) as usize, SmallKind::Pull),
    };
    let f = gpu.function(cfg.kernel)?;
    let grid = cooperative_grid(gpu, cfg.kernel, &f, cfg.threads, kind.round_items(n))?;
    let stream = &gpu.stream;
    // SAFETY: every cell is written by the init kernel before the solve reads it.
    let d = unsafe { DeviceBuffer::<i32>::uninitialized(padded * pitch) }?;
    let done = DeviceBuffer::<u32>::zeroed(kind.counter_words(n))?;
    let words = DeviceBuffer::<u64>::zeroed(items * TRACE_WORDS as usize)?;
    let (mut samples, mut identical) = (Vec::with_capacity(reps), true);
    let mut raw = vec![0u64; items * TRACE_WORDS as usize];
    let mut dist = vec![0i32; padded * pitch];
    for run in 0..=reps {
        // SAFETY: `d` is the padded x pitch matrix (pitch ≥ padded ≥ V, a multiple of 4).
        let edges =
            unsafe { init_on_device(gpu, &graph.edges, d.as_device_ptr(), padded, 0, pitch) }?;
        zero_counters(&done, stream)?;
        let (start, stop) = (
            Event::new(EventFlags::DEFAULT)?,
            Event::new(EventFlags::DEFAULT)?,
        );
        let (mut dp, mut pp, mut rounds) = (d.as_device_ptr().as_raw(), pitch as u32, n);
        let (mut cp, mut tp) = (
            done.as_device_ptr().as_raw(),
            words.as_device_ptr().as_raw(),
        );
        let mut params = [
            (&raw mut dp).cast::<std::ffi::c_void>(),
            (&raw mut pp).cast(),
            (&raw mut rounds).cast(),
            (&raw mut cp).cast(),
            (&raw mut tp).cast(),
        ];
        start.record(stream)?;
        // SAFETY: (d, pitch, rounds, done, trace): the padded matrix of n · 64 rows of `pitch`
        // (non-negative weights, zero diagonal), the kind's counters zeroed on this stream just
        // before, one trace slot per item; a co-resident grid (sized from the occupancy; the
        // driver refuses one that is not).
        unsafe { launch_cooperative(&f, grid, (cfg.threads, cfg.threads), stream, &mut params) }?;
        stop.record(stream)?;
        stop.synchronize().context("the traced solve failed")?;
        drop(edges);
        if run > 0 {
            samples.push(stop.elapsed_time_f32(&start)? as f64);
        }
        d.copy_to(&mut dist)?;
        identical &=
            (0..v).all(|i| dist[i * pitch..i * pitch + v] == reference[i * v..(i + 1) * v]);
    }
    words.copy_to(&mut raw)?;
    let stamps: Vec<Stamp> = raw.chunks_exact(TRACE_WORDS as usize).map(decode).collect();
    ensure!(
        stamps.iter().all(|s| s.timer[5] >= s.timer[0]),
        "a traced item was not stamped"
    );
    Ok(summarise(
        cfg,
        Timing::from_samples(samples),
        identical,
        n,
        &stamps,
    ))
}

fn decode(w: &[u64]) -> Stamp {
    let mut clock = [0u64; 6];
    let mut timer = [0u64; 6];
    clock.copy_from_slice(&w[2..8]);
    timer.copy_from_slice(&w[8..14]);
    Stamp {
        own: (
            ((w[0] >> 32) & 0xffff) as u32,
            ((w[0] >> 16) & 0xffff) as u32,
        ),
        round: (w[1] >> 2) as u32,
        phase3: w[1] & 2 != 0,
        close: w[1] & 1 != 0,
        clock,
        timer,
    }
}

fn summarise(
    cfg: &SmallProbeConfig,
    compute: Timing,
    identical: bool,
    n: u32,
    items: &[Stamp],
) -> TraceSummary {
    let cycles: u64 = items.iter().map(|s| s.clock[5] - s.clock[0]).sum();
    let ns: u64 = items.iter().map(|s| s.timer[5] - s.timer[0]).sum();
    let rate = cycles as f64 / ns.max(1) as f64;
    let parts = |set: &[&Stamp]| -> Parts {
        let part = |a: usize, b: usize| {
            median_or_nan(
                set.iter()
                    .map(|s| (s.clock[b] - s.clock[a]) as f64 / rate / 1e3)
                    .collect(),
            )
        };
        Parts {
            wait_us: part(0, 1),
            load_us: part(1, 2),
            product_us: part(2, 3),
            closure_us: part(3, 4),
            publish_us: part(4, 5),
            items: set.len(),
        }
    };
    // closing[r + 1]: the item that closes pivot block r + 1 (closing[0] is item 0); phase2[r]:
    // round r's phase-2 items of blocks (r, r + 1) and (r + 1, r), which closing[r + 1] waits
    // for. One pass over the items.
    let n_us = n as usize;
    let mut closing: Vec<Option<&Stamp>> = vec![None; n_us];
    let mut phase2: Vec<Vec<&Stamp>> = vec![Vec::new(); n_us];
    closing[0] = items.first();
    for s in items.iter().skip(1) {
        let r = s.round as usize;
        if s.phase3 && s.close && r + 1 < n_us {
            // A strip kernel's round has several: the one that closed published last.
            if closing[r + 1].is_none_or(|c| c.timer[5] < s.timer[5]) {
                closing[r + 1] = Some(s);
            }
        } else if !s.phase3 && r < n_us {
            let x = (s.round + 1) % n;
            if s.own == (s.round, x) || s.own == (x, s.round) {
                phase2[r].push(s);
            }
        }
    }
    // The latest dependencies met among the items stamped as closing each round's next pivot.
    let mut deps_met = vec![0u64; n_us];
    for s in items.iter().skip(1) {
        let r = s.round as usize;
        if s.phase3 && s.close && r + 1 < n_us {
            deps_met[r + 1] = deps_met[r + 1].max(s.timer[1]);
        }
    }
    let to_deps: Vec<f64> = (1..n_us)
        .filter_map(|r| {
            let prev = closing[r - 1]?;
            closing[r]?;
            Some(deps_met[r].saturating_sub(prev.timer[5]) as f64 / 1e3)
        })
        .collect();
    let closing: Vec<&Stamp> = closing.into_iter().flatten().collect();
    let (mut chain_p2, mut round_us, mut to_p2, mut to_close) = (vec![], vec![], vec![], vec![]);
    for (r, p2) in phase2
        .iter()
        .enumerate()
        .take(closing.len().saturating_sub(1))
    {
        let (prev, next) = (closing[r], closing[r + 1]);
        let Some(later) = p2.iter().max_by_key(|s| s.timer[5]) else {
            continue;
        };
        chain_p2.push(*later);
        let met = p2.iter().map(|s| s.timer[1]).max().unwrap_or(0);
        to_p2.push(met.saturating_sub(prev.timer[5]) as f64 / 1e3);
        to_close.push(next.timer[1].saturating_sub(later.timer[5]) as f64 / 1e3);
        round_us.push(next.timer[5].saturating_sub(prev.timer[5]) as f64 / 1e3);
    }
    let bulk: Vec<&Stamp> = items.iter().filter(|s| s.phase3 && !s.close).collect();
    TraceSummary {
        kernel: cfg.kernel,
        close_steps: cfg.close_steps,
        compute,
        identical,
        rounds: n,
        cycles_per_ns: rate,
        chain_round_us: median_or_nan(round_us),
        pivot_to_close_deps_us: median_or_nan(to_deps),
        close_items: parts(&closing),
        chain_phase2: parts(&chain_p2),
        bulk: parts(&bulk),
        close_to_phase2_us: median_or_nan(to_p2),
        phase2_to_close_us: median_or_nan(to_close),
    }
}

/// The median of `x`, NaN when it is empty (a solve of one or two block rows has no round or
/// no phase-2 item to take apart).
fn median_or_nan(x: Vec<f64>) -> f64 {
    if x.is_empty() { f64::NAN } else { median(&x) }
}
