//! Out-of-core Floyd–Warshall on one GPU (`host apsp --device-memory-limit SIZE`, or a graph
//! whose matrix does not fit in the GPU): the padded matrix stays in pinned host memory and
//! passes through the GPU a super-block at a time. The schedule (what is copied and launched,
//! in which order, on which stream) is `rgk_core::apsp::ooc`, checked on the CPU in CI; this
//! module executes it: copies as 2-D `cuMemcpy2DAsync` between the pinned matrix and the
//! device buffers, phase 1 as the multi-GPU `pivot` kernel, every other update as
//! `fwo_update_b64`, and the schedule's lanes as two streams that meet at its joins.
//!
//! Host memory short too: the matrix could be a memory-mapped file registered with
//! `cuMemHostRegister` instead of `cuMemHostAlloc` memory (the schedule does not change; the
//! file's pages must then fit in the page cache for the copies to keep their speed). Not
//! built yet: the pinned matrix is checked against the available host memory first.
mod file;

pub use file::{OocReport, solve_graph_ooc};

use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, Function, GridSize},
    launch,
    memory::DeviceBuffer,
    stream::{Stream, StreamFlags, StreamWaitEventFlags},
};
use cust_raw::driver_sys;
use gpu_kernels::apsp::{fw_multi_config, fw_ooc_config};
use rgk_core::{
    apsp::{
        format::{Edge, Graph, count_repeated, fill_distances},
        limits::ensure_gpu_addressable,
        ooc::{Buf, LANES, Mode, Op, Plan, Rect, Update},
    },
    memory,
};
use serde::Serialize;

use super::{phases::prefer_shared_memory, rows::DeviceRows};
use crate::{
    gpu::{Gpu, check_driver, free_memory},
    pinned::PortablePinned,
};

/// The block factor of the out-of-core kernels.
pub const OOC_BLOCK: u32 = 64;

/// How `graph` is solved on the current GPU when the solver may use `limit` bytes of device
/// memory (`None`: all that is free): in core if the matrix and its edges fit, else out of
/// core with the largest super-blocks that fit.
pub fn choose(graph: &Graph, block: u32, limit: Option<u64>) -> Result<Mode> {
    let free = free_memory()? as u64;
    let budget = limit.map_or(free, |l| l.min(free));
    let edges = (graph.edges.len() * size_of::<Edge>()) as u64;
    let mode = Mode::choose(graph.vertices, block as usize, edges, budget)?;
    if matches!(mode, Mode::OutOfCore(_)) && block != OOC_BLOCK {
        return rgk_core::bad_input(format!(
            "V = {} does not fit in the device memory the solver may use and runs out of \
             core, which needs --block {OOC_BLOCK}",
            graph.vertices
        ));
    }
    Ok(mode)
}

/// What an out-of-core solve did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct OocTimes {
    /// Blocks per side of a super-block, cells per side, super-blocks per side.
    pub super_blocks: usize,
    pub side: usize,
    pub rounds: usize,
    /// Device and (pinned) host memory of the buffers.
    pub device_bytes: u64,
    pub host_bytes: u64,
    /// Bytes copied each way over the whole solve.
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Allocating and pinning; building the matrix on the host.
    pub setup_s: f64,
    pub fill_s: f64,
    /// Every round, first copy to last (CUDA events).
    pub compute_s: f64,
}

/// A matrix solved out of core: in pinned host memory, read by rows.
pub struct OocSolution {
    pub(crate) host: PortablePinned,
    pub plan: Plan,
    pub repeated_edges: usize,
    pub times: OocTimes,
}

impl OocSolution {
    /// The solved padded matrix (`padded x pitch` of the plan).
    pub fn matrix(&self) -> &[i32] {
        &self.host
    }
}

impl DeviceRows for OocSolution {
    fn vertices(&self) -> usize {
        self.plan.vertices
    }

    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()> {
        let (v, pitch) = (self.plan.vertices, self.plan.pitch);
        for (k, out) in dst.chunks_exact_mut(v.max(1)).enumerate() {
            let row = (first + k) * pitch;
            out.copy_from_slice(&self.host[row..row + v]);
        }
        Ok(())
    }
}

/// The device buffers, streams and kernels of one solve.
struct Solver<'a> {
    plan: Plan,
    /// The pinned host matrix (`PortablePinned`, which outlives the solver).
    host: *mut i32,
    row: DeviceBuffer<i32>,
    col: DeviceBuffer<i32>,
    tiles: Vec<DeviceBuffer<i32>>,
    streams: Vec<Stream>,
    pivot: Function<'a>,
    update: Function<'a>,
    pivot_threads: BlockSize,
    tile_threads: BlockSize,
}

impl Solver<'_> {
    /// The address of `r`: device memory, or the pinned host matrix.
    fn addr(&self, r: Rect) -> u64 {
        let base = match r.buf {
            Buf::Host => self.host as u64,
            Buf::Row => self.row.as_device_ptr().as_raw(),
            Buf::Col => self.col.as_device_ptr().as_raw(),
            Buf::Tile(l) => self.tiles[l].as_device_ptr().as_raw(),
        };
        base + 4 * (r.row * self.plan.pitch_of(r.buf) + r.col) as u64
    }

    fn copy(&self, from: Rect, to: Rect, rows: usize, cols: usize, lane: usize) -> Result<()> {
        let kind = |b: Buf| match b {
            Buf::Host => driver_sys::CUmemorytype::CU_MEMORYTYPE_HOST,
            _ => driver_sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        };
        let (src, dst) = (self.addr(from), self.addr(to));
        let host_ptr = |b: Buf, a: u64| match b {
            Buf::Host => a as *mut std::ffi::c_void,
            _ => std::ptr::null_mut(),
        };
        let dev_ptr = |b: Buf, a: u64| if b == Buf::Host { 0 } else { a };
        let copy = driver_sys::CUDA_MEMCPY2D {
            srcXInBytes: 0,
            srcY: 0,
            srcMemoryType: kind(from.buf),
            srcHost: host_ptr(from.buf, src),
            srcDevice: dev_ptr(from.buf, src),
            srcArray: std::ptr::null_mut(),
            srcPitch: self.plan.pitch_of(from.buf) * 4,
            dstXInBytes: 0,
            dstY: 0,
            dstMemoryType: kind(to.buf),
            dstHost: host_ptr(to.buf, dst),
            dstDevice: dev_ptr(to.buf, dst),
            dstArray: std::ptr::null_mut(),
            dstPitch: self.plan.pitch_of(to.buf) * 4,
            WidthInBytes: cols * 4,
            Height: rows,
        };
        // SAFETY: both rectangles lie inside their buffers (the schedule's CPU model checks
        // every operation against the same plan's sizes), the host matrix is pinned and
        // outlives the stream's work (the solve synchronizes before it returns), and the
        // stream orders this copy after the operations it depends on (lanes and joins).
        let status = unsafe { driver_sys::cuMemcpy2DAsync(&copy, self.streams[lane].as_inner()) };
        Ok(check_driver(status, "cuMemcpy2DAsync")?)
    }

    fn run(&self, op: Op) -> Result<()> {
        let b = self.plan.block;
        match op {
            Op::Copy {
                from,
                to,
                rows,
                cols,
                lane,
            } => self.copy(from, to, rows, cols, lane),
            Op::Pivot { at } => {
                let (f, t, s) = (&self.pivot, self.pivot_threads, &self.streams[0]);
                let row = self.addr(Rect { col: 0, ..at });
                let (pitch, round) = (self.plan.pitch as u32, (at.col / b) as u32);
                // SAFETY: `row` is a block row of the `Row` buffer (pitch `pitch`) and `round`
                // one of its blocks: the pivot kernel closes that block only.
                unsafe { launch!(f<<<1, t, 0, s>>>(row, pitch, round)) }
                    .context("launching the out-of-core phase 1")
            }
            Op::Update(u) => self.launch_update(&u),
            Op::Join => {
                let events = self
                    .streams
                    .iter()
                    .map(|s| {
                        let e = Event::new(EventFlags::DISABLE_TIMING)?;
                        e.record(s)?;
                        Ok(e)
                    })
                    .collect::<Result<Vec<_>>>()?;
                for (i, s) in self.streams.iter().enumerate() {
                    for (j, e) in events.iter().enumerate() {
                        if i != j {
                            s.wait_event(e, StreamWaitEventFlags::DEFAULT)?;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn launch_update(&self, u: &Update) -> Result<()> {
        let (f, t, s) = (&self.update, self.tile_threads, &self.streams[u.lane]);
        let p = |r: Rect| self.plan.pitch_of(r.buf) as u32;
        let (own, a, b) = (self.addr(u.own), self.addr(u.a), self.addr(u.b));
        let (po, pa, pb) = (p(u.own), p(u.a), p(u.b));
        let skip = |x: Option<usize>| x.map_or(u32::MAX, |x| x as u32);
        let (kb, sr, sc) = (u.kblocks as u32, skip(u.skip_row), skip(u.skip_col));
        let grid = GridSize::xy(u.cols as u32, u.rows as u32);
        // SAFETY: the kernel takes (own, po, a, pa, b, pb, kblocks, skip_row, skip_col); the
        // grid's blocks and their operands lie inside the buffers (checked by the CPU model
        // of the same schedule), and no block reads what another block of the launch writes.
        unsafe { launch!(f<<<grid, t, 0, s>>>(own, po, a, pa, b, pb, kb, sr, sc)) }
            .context("launching the out-of-core update")
    }
}

/// Solves `graph` out of core on `gpu` with `plan`; the result stays in pinned host memory.
pub fn solve(gpu: &Gpu, graph: &Graph, plan: Plan) -> Result<OocSolution> {
    let block = plan.block as u32;
    let (Some(mc), Some(oc)) = (fw_multi_config(block), fw_ooc_config(block)) else {
        bail!("no out-of-core kernels for block factor {block}");
    };
    ensure_gpu_addressable(graph.vertices, block)?;
    let mut times = OocTimes {
        super_blocks: plan.s,
        side: plan.side(),
        rounds: plan.count(),
        device_bytes: plan.device_bytes(),
        host_bytes: plan.host_bytes(),
        ..Default::default()
    };
    let t = Instant::now();
    memory::ensure_available(
        "the out-of-core matrix in pinned host memory",
        plan.host_bytes() as u128,
    )?;
    let mut host = PortablePinned::new(plan.len_of(Buf::Host))?;
    let alloc = |buf: Buf, what: &str| {
        // SAFETY: the schedule writes every cell of a buffer it reads (copies before updates).
        unsafe { DeviceBuffer::<i32>::uninitialized(plan.len_of(buf)) }
            .with_context(|| format!("allocating the out-of-core {what} on the GPU"))
    };
    let (row, col) = (
        alloc(Buf::Row, "pivot row")?,
        alloc(Buf::Col, "pivot column")?,
    );
    let tiles = (0..LANES)
        .map(|l| alloc(Buf::Tile(l), "tile"))
        .collect::<Result<Vec<_>>>()?;
    let streams = (0..LANES)
        .map(|_| Stream::new(StreamFlags::NON_BLOCKING, None))
        .collect::<Result<Vec<_>, _>>()?;
    let (pivot, update) = (gpu.function(mc.pivot)?, gpu.function(oc.update)?);
    prefer_shared_memory(&update)?;
    times.setup_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let repeated_edges = count_repeated(graph);
    fill_distances(graph, plan.padded, plan.pitch, &mut host);
    times.fill_s = t.elapsed().as_secs_f64();

    let dev = Solver {
        plan,
        host: host.as_mut_ptr(),
        row,
        col,
        tiles,
        streams,
        pivot,
        update,
        pivot_threads: BlockSize::xy(mc.pivot_threads, mc.pivot_threads),
        tile_threads: BlockSize::xy(oc.tile_threads, oc.tile_threads),
    };
    let (start, stop) = (
        Event::new(EventFlags::DEFAULT)?,
        Event::new(EventFlags::DEFAULT)?,
    );
    start.record(&dev.streams[0])?;
    for k in 0..plan.count() {
        let cost = plan.round_cost(k);
        times.bytes_in += cost.cross_in + cost.tiles_in;
        times.bytes_out += cost.cross_out + cost.tiles_out;
        for op in plan.round_ops(k) {
            dev.run(op)?;
        }
    }
    // The schedule ends on a join: stream 0 has waited for every lane.
    stop.record(&dev.streams[0])?;
    stop.synchronize()
        .context("the out-of-core Floyd–Warshall failed")?;
    times.compute_s = stop.elapsed_time_f32(&start)? as f64 / 1e3;
    drop(dev);
    Ok(OocSolution {
        host,
        plan,
        repeated_edges,
        times,
    })
}
