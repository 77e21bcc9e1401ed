//! Blocked Floyd–Warshall on several GPUs of one host (`host apsp --gpus N`), with NCCL
//! broadcasting the pivot block row of every round.
//!
//! GPU g holds only its contiguous block rows (`rgk_core::apsp::split::block_rows`) and two
//! buffers of one block row for the pivot rows it receives. Round r: the owner of block row r
//! has already closed the pivot block and updated the rest of row r (phases 1 and 2-row, in
//! its own rows); NCCL broadcasts that row (B x padded i32) to every GPU; each GPU updates its
//! blocks of pivot column r (phase 2-column) and then all its other blocks (phase 3).
//!
//! Look-ahead: the owner of row r + 1 does its round-r phase 3 on that row first, then phases
//! 1 and 2-row of round r + 1, and only then the rest of its round-r phase 3; the broadcast of
//! row r + 1 runs on a second, high-priority stream meanwhile, so the other GPUs find row
//! r + 1 waiting when they finish round r. Events order the streams: the broadcast of row r + 1
//! waits for the owner's phase 2-row of r + 1 (on the owner) and for round r - 1 to stop
//! reading the buffer it overwrites (elsewhere); round r + 1 waits for its broadcast.
mod rows;

use std::{ffi::c_int, ops::Range, path::Path, str::FromStr, time::Instant};

use anyhow::{Context as _, Result, bail};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, Function, GridSize},
    launch,
    memory::{DeviceBuffer, DevicePointer},
    stream::{Stream, StreamFlags, StreamWaitEventFlags},
};
use cust_raw::driver_sys;
use gpu_kernels::apsp::{FwMultiConfig, fw_multi_config};
use rgk_core::apsp::{
    format::{Graph, fill_distance_rows},
    split::{PIVOT_BUFFERS, block_rows, bytes_per_gpu, owner},
};
use serde::Serialize;

use super::{
    gpu::{geometry, prefer_shared_memory},
    nccl::{BroadcastPart, Nccl},
};
use crate::gpu::{Gpu, device_count, init_driver};

/// How many GPUs `--gpus` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuCount {
    /// Every GPU the driver sees.
    All,
    Count(u32),
}

impl FromStr for GpuCount {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(GpuCount::All),
            _ => match s.parse::<u32>() {
                Ok(n) if n >= 1 => Ok(GpuCount::Count(n)),
                _ => Err(format!(
                    "expected a number of GPUs (1 or more) or `all`, not {s:?}"
                )),
            },
        }
    }
}

impl GpuCount {
    /// The number of GPUs asked for, given that `present` are visible; one sentence when that
    /// is more than there are.
    pub fn resolve(self, present: u32) -> Result<u32> {
        match self {
            GpuCount::All => Ok(present),
            GpuCount::Count(n) if n <= present => Ok(n),
            GpuCount::Count(n) => Err(rgk_core::BadInput(format!(
                "--gpus {n} asks for {n} GPUs but only {present} {} visible",
                if present == 1 { "is" } else { "are" }
            ))
            .into()),
        }
    }
}

/// Several GPUs, each with the project's kernels, and one NCCL communicator per GPU (none for
/// one GPU: then NCCL is not loaded at all).
pub struct MultiGpu {
    // Dropped first: the communicators before the contexts they use.
    nccl: Option<Nccl>,
    pub gpus: Vec<Gpu>,
}

impl MultiGpu {
    /// Opens devices `0..n` for `count`: fails with [`crate::NoGpu`] without a GPU, and with
    /// one sentence when more GPUs are asked for than are visible or NCCL is missing (N > 1).
    pub fn open(count: GpuCount, ptx: Option<&Path>) -> crate::Result<MultiGpu> {
        Self::open_inner(count, ptx).map_err(crate::Error::from)
    }

    fn open_inner(count: GpuCount, ptx: Option<&Path>) -> Result<MultiGpu> {
        init_driver()?;
        let n = count.resolve(device_count()?)?;
        let nccl = if n > 1 {
            let devices: Vec<c_int> = (0..n as c_int).collect();
            Some(Nccl::init_all(&devices)?)
        } else {
            None
        };
        let gpus = (0..n)
            .map(|i| Gpu::on_device(i, ptx).map_err(anyhow::Error::from))
            .collect::<Result<Vec<_>>>()?;
        Ok(MultiGpu { nccl, gpus })
    }

    pub fn len(&self) -> usize {
        self.gpus.len()
    }

    pub fn is_empty(&self) -> bool {
        self.gpus.is_empty()
    }

    /// NCCL's version and file, when loaded.
    pub fn nccl(&self) -> Option<(&str, &str)> {
        self.nccl
            .as_ref()
            .map(|n| (n.version.as_str(), n.path.as_str()))
    }
}

/// Where one GPU's time went during the solve, from CUDA events on its streams.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GpuSplit {
    pub ordinal: u32,
    /// Block rows this GPU holds, and their first.
    pub block_rows: usize,
    pub first_block_row: usize,
    /// Device memory for its rows and the pivot-row buffers.
    pub bytes: usize,
    /// Kernels on the compute stream (the look-ahead rows included).
    pub compute_s: f64,
    /// The compute stream idle, waiting for a pivot row to arrive.
    pub wait_s: f64,
    /// Broadcasts of the pivot rows this GPU owns, from the row being ready to the broadcast's
    /// end on this GPU (the sender's view of the communication).
    pub send_s: f64,
}

/// Seconds in each stage of a multi-GPU solve.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MultiTimes {
    pub fill_s: f64,
    pub host_to_device_s: f64,
    /// Wall time from every GPU idle to every GPU done (host clock).
    pub compute_s: f64,
    pub per_gpu: Vec<GpuSplit>,
}

/// A solved matrix split by block rows over the GPUs of a [`MultiGpu`].
pub struct MultiSolution<'a> {
    multi: &'a MultiGpu,
    /// Block rows per GPU.
    parts: Vec<Range<usize>>,
    /// Each GPU's rows (`None` where it has none).
    rows: Vec<Option<DeviceBuffer<i32>>>,
    vertices: usize,
    block: usize,
    pitch: usize,
    pub repeated_edges: usize,
    pub times: MultiTimes,
}

/// One GPU's kernels and launch geometry.
struct Kernels<'a> {
    pivot: Function<'a>,
    row: Function<'a>,
    col: Function<'a>,
    rest: Function<'a>,
    pivot_threads: BlockSize,
    tile_threads: BlockSize,
}

impl<'a> Kernels<'a> {
    fn new(gpu: &'a Gpu, cfg: FwMultiConfig) -> Result<Kernels<'a>> {
        let module = gpu.apsp_module()?;
        let get = |name: &str| {
            module.get_function(name).with_context(|| {
                format!(
                    "kernel {name} is not in {} (run `cargo xtask build-ptx`)",
                    gpu.ptx_source
                )
            })
        };
        let k = Kernels {
            pivot: get(cfg.pivot)?,
            row: get(cfg.row)?,
            col: get(cfg.col)?,
            rest: get(cfg.rest)?,
            pivot_threads: BlockSize::xy(cfg.pivot_threads, cfg.pivot_threads),
            tile_threads: BlockSize::xy(cfg.tile_threads, cfg.tile_threads),
        };
        for f in [&k.row, &k.col, &k.rest] {
            prefer_shared_memory(f)?;
        }
        Ok(k)
    }
}

/// The kernels of `host apsp --gpus N` for `block`, or one sentence naming those there are.
pub fn config(block: u32) -> Result<FwMultiConfig> {
    fw_multi_config(block).with_context(|| {
        let known: Vec<_> = gpu_kernels::apsp::FW_MULTI
            .iter()
            .map(|c| c.block.to_string())
            .collect();
        format!(
            "several GPUs run with block factor {} only, not {block}",
            known.join(", ")
        )
    })
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// The highest priority a stream can have in the current context (cuda.h: lower is higher).
fn greatest_priority() -> Result<i32> {
    let (mut least, mut greatest) = (0, 0);
    let code = unsafe { driver_sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) };
    if code as i32 != 0 {
        bail!(
            "cuCtxGetStreamPriorityRange failed with error {}",
            code as i32
        );
    }
    Ok(greatest)
}

/// Device pointer `cells` i32 past `base`.
fn offset(base: DevicePointer<i32>, cells: usize) -> DevicePointer<i32> {
    DevicePointer::from_raw(base.as_raw() + 4 * cells as u64)
}

/// Per-GPU state during the solve.
struct Lane<'a> {
    gpu: &'a Gpu,
    kernels: Kernels<'a>,
    comm: Stream,
    rows: Option<DevicePointer<i32>>,
    blocks: Range<usize>,
    pivots: Vec<DeviceBuffer<i32>>,
    /// Per round: compute start (after the wait for the pivot row) and end.
    start: Vec<Event>,
    end: Vec<Event>,
    /// Per round: the broadcast of its pivot row done on this GPU (several GPUs only).
    recv: Vec<Event>,
    /// Per round this GPU owns: (round, its pivot row ready to send).
    ready: Vec<(usize, Event)>,
    /// Recorded before the first round.
    begin: Event,
}

pub fn solve<'a>(multi: &'a MultiGpu, graph: &Graph, block: u32) -> Result<MultiSolution<'a>> {
    let cfg = config(block)?;
    let b = block as usize;
    let n = multi.len();
    let (padded, pitch) = geometry(graph.vertices, block);
    let nb = padded / b;
    let parts = block_rows(nb, n);
    if (b * pitch) as u64 > u32::MAX as u64 {
        bail!(
            "V = {} is too large: one block row would exceed 2^32 cells",
            graph.vertices
        );
    }
    let mut times = MultiTimes::default();
    for (g, gpu) in multi.gpus.iter().enumerate() {
        gpu.make_current()?;
        let bytes = bytes_per_gpu(parts[g].len(), b, pitch);
        let (free, _) = cust::memory::mem_get_info()?;
        if bytes > free {
            bail!(
                "V = {} on {n} GPU(s) needs {:.2} GiB on GPU {} ({} of {nb} block rows of {b} \
                 plus {PIVOT_BUFFERS} pivot rows) but only {:.2} GiB is free there",
                graph.vertices,
                gib(bytes),
                gpu.ordinal(),
                parts[g].len(),
                gib(free)
            );
        }
        times.per_gpu.push(GpuSplit {
            ordinal: gpu.ordinal(),
            block_rows: parts[g].len(),
            first_block_row: parts[g].start,
            bytes,
            ..Default::default()
        });
    }

    // Fill and upload one GPU's rows at a time: the host never holds the whole matrix.
    let mut rows = Vec::with_capacity(n);
    let mut repeated_edges = 0;
    for (g, gpu) in multi.gpus.iter().enumerate() {
        gpu.make_current()?;
        let r = parts[g].start * b..parts[g].end * b;
        if r.is_empty() {
            rows.push(None);
            continue;
        }
        let t = Instant::now();
        let mut host = vec![0i32; r.len() * pitch];
        repeated_edges += fill_distance_rows(graph, r, pitch, &mut host);
        times.fill_s += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let d = DeviceBuffer::from_slice(&host)
            .with_context(|| format!("copying rows to GPU {}", gpu.ordinal()))?;
        times.host_to_device_s += t.elapsed().as_secs_f64();
        rows.push(Some(d));
    }

    let mut lanes = Vec::with_capacity(n);
    for (g, gpu) in multi.gpus.iter().enumerate() {
        gpu.make_current()?;
        let pivots = if n > 1 {
            (0..PIVOT_BUFFERS)
                .map(|_| unsafe { DeviceBuffer::<i32>::uninitialized(b * pitch) })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        lanes.push(Lane {
            gpu,
            kernels: Kernels::new(gpu, cfg)?,
            comm: Stream::new(StreamFlags::NON_BLOCKING, Some(greatest_priority()?))?,
            rows: rows[g]
                .as_ref()
                .map(|d: &DeviceBuffer<i32>| d.as_device_ptr()),
            blocks: parts[g].clone(),
            pivots,
            start: Vec::with_capacity(nb),
            end: Vec::with_capacity(nb),
            recv: Vec::with_capacity(nb),
            ready: Vec::new(),
            begin: Event::new(EventFlags::DEFAULT)?,
        });
    }
    for lane in &lanes {
        lane.gpu.make_current()?;
        lane.gpu.stream.synchronize()?;
    }

    warm_up(multi, &lanes, b * pitch)?;

    let t = Instant::now();
    let run = Rounds {
        lanes: &mut lanes,
        multi,
        parts: parts.clone(),
        nb,
        b,
        pitch,
    };
    run.all()?;
    for lane in &lanes {
        lane.gpu.make_current()?;
        lane.gpu.stream.synchronize().with_context(|| {
            format!(
                "Floyd–Warshall kernels failed on GPU {}",
                lane.gpu.ordinal()
            )
        })?;
        lane.comm.synchronize().with_context(|| {
            format!("a pivot-row broadcast failed on GPU {}", lane.gpu.ordinal())
        })?;
    }
    times.compute_s = t.elapsed().as_secs_f64();

    for (lane, split) in lanes.iter().zip(&mut times.per_gpu) {
        lane.gpu.make_current()?;
        let ms = |a: &Event, b: &Event| -> Result<f64> { Ok(b.elapsed_time_f32(a)? as f64) };
        let mut prev = &lane.begin;
        let (mut compute, mut wait, mut send) = (0.0, 0.0, 0.0);
        for (s, e) in lane.start.iter().zip(&lane.end) {
            wait += ms(prev, s)?;
            compute += ms(s, e)?;
            prev = e;
        }
        for (r, ready) in &lane.ready {
            if let Some(done) = lane.recv.get(*r) {
                send += ms(ready, done)?;
            }
        }
        (split.compute_s, split.wait_s, split.send_s) = (compute / 1e3, wait / 1e3, send / 1e3);
    }
    for lane in lanes {
        lane.gpu.make_current()?;
        drop(lane);
    }
    Ok(MultiSolution {
        multi,
        parts,
        rows,
        vertices: graph.vertices,
        block: b,
        pitch,
        repeated_edges,
        times,
    })
}

/// One broadcast of `count` i32 from every rank, into the pivot buffers, before the clock
/// starts: NCCL sets up its connections at the first collective that needs them (about 30 ms
/// here), which is set-up, not Floyd–Warshall.
fn warm_up(multi: &MultiGpu, lanes: &[Lane], count: usize) -> Result<()> {
    let Some(nccl) = multi.nccl.as_ref() else {
        return Ok(());
    };
    for root in 0..lanes.len() {
        let parts: Vec<_> = lanes
            .iter()
            .map(|l| {
                let buf = l.pivots[0].as_device_ptr().as_raw();
                BroadcastPart {
                    send: buf,
                    recv: buf,
                    stream: l.comm.as_inner() as *mut std::ffi::c_void,
                }
            })
            .collect();
        nccl.broadcast_i32(&parts, count, root)
            .context("warming up NCCL")?;
    }
    for lane in lanes {
        lane.gpu.make_current()?;
        lane.comm.synchronize().context("warming up NCCL")?;
    }
    Ok(())
}

/// The round loop over every GPU (see the module documentation).
struct Rounds<'l, 'a> {
    lanes: &'l mut [Lane<'a>],
    multi: &'a MultiGpu,
    parts: Vec<Range<usize>>,
    nb: usize,
    b: usize,
    pitch: usize,
}

impl Rounds<'_, '_> {
    fn owner(&self, r: usize) -> usize {
        owner(&self.parts, r)
    }

    /// The owner's copy of block row `r` in its rows.
    fn row_ptr(&self, g: usize, r: usize) -> DevicePointer<i32> {
        let lane = &self.lanes[g];
        let rows = lane.rows.expect("the owner of a row has rows");
        offset(rows, (r - lane.blocks.start) * self.b * self.pitch)
    }

    /// Where GPU `g` reads pivot row `r`: its own rows on the owner (broadcast in place), else
    /// the buffer the broadcast fills.
    fn pivot_ptr(&self, g: usize, r: usize) -> DevicePointer<i32> {
        if self.owner(r) == g {
            self.row_ptr(g, r)
        } else {
            self.lanes[g].pivots[r % PIVOT_BUFFERS].as_device_ptr()
        }
    }

    fn all(mut self) -> Result<()> {
        let pitch = self.pitch as u32;
        let nb = self.nb as u32;
        for lane in self.lanes.iter() {
            lane.gpu.make_current()?;
            lane.begin.record(&lane.gpu.stream)?;
        }
        // Row 0: phases 1 and 2-row on its owner, then its broadcast.
        let o = self.owner(0);
        self.lanes[o].gpu.make_current()?;
        let ready = self.pivot_row(o, 0)?;
        self.lanes[o].ready.push((0, ready));
        self.broadcast(0)?;
        for r in 0..self.nb {
            let own_r = self.owner(r);
            let next_owner = (r + 1 < self.nb).then(|| self.owner(r + 1));
            for g in 0..self.lanes.len() {
                let lane = &self.lanes[g];
                lane.gpu.make_current()?;
                let stream = &lane.gpu.stream;
                if let Some(received) = lane.recv.get(r) {
                    stream.wait_event(received, StreamWaitEventFlags::DEFAULT)?;
                }
                let start = Event::new(EventFlags::DEFAULT)?;
                start.record(stream)?;
                let mut ready = None;
                if let Some(rows) = lane.rows {
                    let k = &lane.kernels;
                    let local = lane.blocks.len() as u32;
                    let skip = if own_r == g {
                        (r - lane.blocks.start) as u32
                    } else {
                        u32::MAX
                    };
                    let piv = self.pivot_ptr(g, r);
                    let (col, rest, tt) = (&k.col, &k.rest, k.tile_threads);
                    let round = r as u32;
                    unsafe {
                        launch!(col<<<GridSize::x(local), tt, 0, stream>>>(
                            rows, piv, pitch, round, skip
                        ))?;
                    }
                    let launch_rest = |first: u32, count: u32| -> Result<()> {
                        if count > 0 {
                            unsafe {
                                launch!(rest<<<GridSize::xy(nb, count), tt, 0, stream>>>(
                                    rows, piv, pitch, round, first, skip
                                ))?;
                            }
                        }
                        Ok(())
                    };
                    if next_owner == Some(g) {
                        // Look-ahead: row r + 1 first, its phases 1 and 2-row, then the rest.
                        let l = (r + 1 - lane.blocks.start) as u32;
                        launch_rest(l, 1)?;
                        ready = Some(self.pivot_row(g, r + 1)?);
                        launch_rest(0, l)?;
                        launch_rest(l + 1, local - l - 1)?;
                    } else {
                        launch_rest(0, local)?;
                    }
                }
                let end = Event::new(EventFlags::DEFAULT)?;
                end.record(stream)?;
                let lane = &mut self.lanes[g];
                lane.start.push(start);
                lane.end.push(end);
                if let Some(ready) = ready {
                    lane.ready.push((r + 1, ready));
                }
            }
            if r + 1 < self.nb {
                self.broadcast(r + 1)?;
            }
        }
        Ok(())
    }

    /// Phases 1 and 2-row of round `r` on its owner `g`'s compute stream (its context
    /// current); returns the event the broadcast of row `r` waits for.
    fn pivot_row(&self, g: usize, r: usize) -> Result<Event> {
        let row = self.row_ptr(g, r);
        let lane = &self.lanes[g];
        let (pitch, round, nb) = (self.pitch as u32, r as u32, self.nb as u32);
        let stream = &lane.gpu.stream;
        let k = &lane.kernels;
        let (p, w, pt, tt) = (&k.pivot, &k.row, k.pivot_threads, k.tile_threads);
        unsafe {
            launch!(p<<<GridSize::x(1), pt, 0, stream>>>(row, pitch, round))?;
            launch!(w<<<GridSize::x(nb), tt, 0, stream>>>(row, pitch, round))?;
        }
        let ready = Event::new(EventFlags::DEFAULT)?;
        ready.record(stream)?;
        Ok(ready)
    }

    /// Enqueues the broadcast of pivot row `r` from its owner on every GPU's comm stream, after
    /// the row is ready (on the owner) and after round `r - 2`, the last reader of the buffer
    /// it fills, is done (elsewhere). Nothing to do on one GPU.
    fn broadcast(&mut self, r: usize) -> Result<()> {
        let Some(nccl) = self.multi.nccl.as_ref() else {
            return Ok(());
        };
        let root = self.owner(r);
        let mut parts = Vec::with_capacity(self.lanes.len());
        for (g, lane) in self.lanes.iter().enumerate() {
            lane.gpu.make_current()?;
            let after = if g == root {
                lane.ready.iter().find(|(i, _)| *i == r).map(|(_, e)| e)
            } else {
                r.checked_sub(PIVOT_BUFFERS).map(|i| &lane.end[i])
            };
            if let Some(e) = after {
                lane.comm.wait_event(e, StreamWaitEventFlags::DEFAULT)?;
            }
            let buf = self.pivot_ptr(g, r).as_raw();
            parts.push(BroadcastPart {
                send: buf,
                recv: buf,
                stream: lane.comm.as_inner() as *mut std::ffi::c_void,
            });
        }
        nccl.broadcast_i32(&parts, self.b * self.pitch, root)
            .with_context(|| format!("broadcasting pivot row {r}"))?;
        for lane in self.lanes.iter_mut() {
            lane.gpu.make_current()?;
            let done = Event::new(EventFlags::DEFAULT)?;
            done.record(&lane.comm)?;
            lane.recv.push(done);
        }
        Ok(())
    }
}

impl Drop for MultiSolution<'_> {
    fn drop(&mut self) {
        // Each GPU's memory is freed with its own context current.
        for (gpu, rows) in self.multi.gpus.iter().zip(&mut self.rows) {
            if gpu.make_current().is_ok() {
                drop(rows.take());
            }
        }
    }
}

/// For GPU tests: `n` GPUs, or `None` after printing why the test is skipped (no GPU, or fewer
/// than `n`). As [`crate::gpu::gpu_for_test`], `REQUIRE_GPU=1` turns a missing driver into a
/// failure; too few GPUs stays a skip, since a one-GPU machine runs the same tests.
pub fn gpus_for_test(test: &str, n: u32) -> Option<MultiGpu> {
    crate::gpu::gpu_for_test(test)?;
    let present = device_count().unwrap_or_else(|e| panic!("{test}: {e:#}"));
    if present < n {
        rgk_core::testdata::skip(test, &format!("needs {n} GPUs, {present} present"));
        return None;
    }
    Some(
        MultiGpu::open(GpuCount::Count(n), None)
            .unwrap_or_else(|e| panic!("{test}: {n} GPUs are present but setup failed: {e:#}")),
    )
}
