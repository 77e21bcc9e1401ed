//! Blocked Floyd–Warshall on the GPU: builds the padded matrix on the GPU from the edge list
//! (padding is INF with a zero diagonal, so it never shortens a path), runs phases 1–3 per
//! round, times each stage. The kernels are queued ([`start_on_device`]) and the CPU is free
//! until [`Running::finish`]; the result stays on the GPU ([`DeviceSolution`], read by rows) or
//! comes back whole ([`solve`]).
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use cust::{
    event::{Event, EventFlags},
    function::GridSize,
    launch,
    memory::{CopyDestination, DeviceBuffer, DevicePointer},
};
use cust_raw::driver_sys;
use gpu_kernels::apsp::{
    FwConfig, INIT_MATRIX_KERNEL, INIT_QUADS_PER_THREAD, INIT_THREADS, SCATTER_EDGES_KERNEL,
    fw_config,
};
use rayon::prelude::*;
use serde::Serialize;

use super::{
    phases::Phases,
    rows::DeviceRows,
    small::{Keep, Prepared, Schedule, default_schedule, hold},
};
use crate::gpu::{Gpu, Timing, check_driver, check_free_memory, time_on_stream};
use rgk_core::apsp::{
    format::{Edge, Graph, count_repeated, distance_pitch, fill_distances},
    limits::ensure_gpu_addressable,
};

/// Seconds spent in each stage of one GPU solve.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct GpuTimes {
    /// Loading the APSP kernels' module (machine code built into the binary; JIT-compiled only
    /// from a `--ptx` file or on a GPU it has none for) and allocating the matrix on the GPU.
    pub setup_s: f64,
    /// Building the padded matrix on the GPU (INF, zero diagonal, edges), CUDA events.
    pub fill_s: f64,
    /// Uploading the edge list.
    pub host_to_device_s: f64,
    pub compute_s: f64,
    pub device_to_host_s: f64,
}

pub struct GpuSolution {
    /// `padded x pitch` distances; the answer is the first V columns of the first V rows.
    pub dist: Vec<i32>,
    pub padded: usize,
    pub pitch: usize,
    pub repeated_edges: usize,
    pub times: GpuTimes,
}

/// The block factor `host apsp` and [`crate::apsp()`] use unless told otherwise.
pub const DEFAULT_BLOCK: u32 = 64;

pub fn config(block: u32) -> Result<FwConfig> {
    fw_config(block).with_context(|| {
        let known: Vec<_> = gpu_kernels::apsp::BLOCK_FACTORS
            .iter()
            .map(u32::to_string)
            .collect();
        format!(
            "no Floyd–Warshall kernels for block factor {block}; choose one of {}",
            known.join(", ")
        )
    })
}

/// Padded size and pitch for V vertices at block factor `block`.
pub fn geometry(vertices: usize, block: u32) -> (usize, usize) {
    let padded = vertices.div_ceil(block as usize) * block as usize;
    (padded, distance_pitch(padded))
}

/// Fails with one sentence when the kernels cannot address the padded matrix (a grid or a block
/// row too large, far beyond any GPU's memory) or when the matrix and the `edges` uploaded to
/// build it do not fit in the GPU's free memory, which is what limits V in practice.
fn check_fits(
    vertices: usize,
    edges: usize,
    block: u32,
    padded: usize,
    pitch: usize,
) -> Result<()> {
    ensure_gpu_addressable(vertices, block)?;
    check_free_memory(
        padded * pitch * size_of::<i32>() + edges * size_of::<Edge>(),
        format_args!("V = {vertices} (a {padded} x {pitch} distance matrix and {edges} edges)"),
    )
}

/// A solved matrix still on the GPU, read a block of rows at a time ([`DeviceRows`]).
pub struct DeviceSolution {
    pub(crate) dist: DeviceBuffer<i32>,
    pub vertices: usize,
    pub padded: usize,
    pub pitch: usize,
    pub times: GpuTimes,
}

/// The padded initial matrix, built on the GPU: INF everywhere, 0 on the whole diagonal, then
/// the smallest weight of each edge. Only the edge list crosses PCIe. `d` holds rows
/// `row0..row0 + rows` of the matrix (all of it on one GPU, a share of it on several) and
/// `edges` are the edges leaving those rows, `src` counted from `row0`. The returned buffer
/// must live until `gpu.stream` has run the kernels.
///
/// Fails with [`rgk_core::BadInput`] on an edge outside the rows (a [`Graph`] built field by
/// field skips the checks of its constructors; the scatter kernel has none).
///
/// # Safety
/// `d` must point to `rows` x `pitch` i32 of device memory on `gpu` that stays allocated until
/// `gpu.stream` has run the kernels, with `pitch` a multiple of 4 and at least `row0 + rows`
/// (the diagonal).
pub(crate) unsafe fn init_on_device(
    gpu: &Gpu,
    edges: &[Edge],
    d: DevicePointer<i32>,
    rows: usize,
    row0: usize,
    pitch: usize,
) -> Result<Option<DeviceBuffer<i32>>> {
    let get = |name: &str| gpu.function(name);
    let (init, scatter) = (get(INIT_MATRIX_KERNEL)?, get(SCATTER_EDGES_KERNEL)?);
    let stream = &gpu.stream;
    let quads_per_block = INIT_THREADS * INIT_QUADS_PER_THREAD;
    // `pitch`, `rows` and `row0` fit in u32: the callers checked `ensure_gpu_addressable`
    // (pitch ≤ 2^32 / B); the cells' offsets are 64-bit in the kernels.
    let grid = GridSize::xy(
        ((pitch / 4) as u32).div_ceil(quads_per_block),
        (rows as u32).min(u16::MAX as u32),
    );
    // SAFETY: the kernel takes (d, pitch, rows, row0) and writes only the caller's `rows` x
    // `pitch` cells (see `# Safety`).
    unsafe {
        launch!(init<<<grid, INIT_THREADS, 0, stream>>>(
            d,
            pitch as u32,
            rows as u32,
            row0 as u32
        ))
        .context("launching the matrix initialisation")?;
    }
    if edges.is_empty() {
        return Ok(None);
    }
    let outside = |e: &Edge| {
        !(0..rows as i64).contains(&(e.src as i64)) || !(0..pitch as i64).contains(&(e.dst as i64))
    };
    if let Some(i) = edges.par_iter().position_first(outside) {
        let Edge { src, dst, .. } = edges[i];
        return rgk_core::bad_input(format!(
            "edge {i} ({src} -> {dst}) lies outside the {rows} x {pitch} matrix"
        ));
    }
    // The file format's E is an int32; a graph built in memory may have more than the kernel's
    // u32 counts.
    let Ok(n) = u32::try_from(edges.len()) else {
        return rgk_core::bad_input(format!(
            "{} edges are more than the GPU's edge scatter takes (2^32 - 1)",
            edges.len()
        ));
    };
    let edges = DeviceBuffer::from_slice(bytemuck::cast_slice::<_, i32>(edges))
        .context("copying the edge list to the GPU")?;
    // SAFETY: the kernel takes (d, pitch, edges, n) and writes one cell per edge, inside the
    // caller's matrix (see `# Safety`; the edges were checked above); the edge buffer is
    // returned, to live until the stream has run it.
    unsafe {
        launch!(scatter<<<n.div_ceil(INIT_THREADS), INIT_THREADS, 0, stream>>>(
            d,
            pitch as u32,
            edges.as_device_ptr(),
            n
        ))
        .context("launching the edge scatter")?;
    }
    // Kept until the stream has run the scatter.
    Ok(Some(edges))
}

/// A solve whose kernels are queued on the GPU: the CPU is free until [`Running::finish`].
pub struct Running {
    d_dist: DeviceBuffer<i32>,
    /// The edge list on the GPU, kept until the scatter kernel has run.
    edges: Option<DeviceBuffer<i32>>,
    /// The schedule's graph or barrier counter, kept until the rounds have run.
    keep: Keep,
    begin: Event,
    start: Event,
    stop: Event,
    vertices: usize,
    padded: usize,
    pitch: usize,
    times: GpuTimes,
}

/// Queues the solve of `graph` on the GPU (building the matrix there, then every round) and
/// returns at once; [`Running::finish`] waits for it and leaves the result on the GPU. The
/// rounds run as [`default_schedule`] picks for the graph's size.
pub fn start_on_device(gpu: &Gpu, graph: &Graph, block: u32) -> Result<Running> {
    let schedule = default_schedule(graph.vertices, block);
    start_on_device_with(gpu, graph, block, schedule)
}

/// [`start_on_device`] with the rounds run as `schedule` (`host apsp-small` compares them).
pub fn start_on_device_with(
    gpu: &Gpu,
    graph: &Graph,
    block: u32,
    schedule: Schedule,
) -> Result<Running> {
    start_on_device_held(gpu, graph, block, schedule, 0)
}

/// [`start_on_device_with`], the stream held for `hold_ns` before the timed rounds when that
/// is not 0 ([`small::hold`](super::small::hold): `host apsp-small --hold-us`).
pub fn start_on_device_held(
    gpu: &Gpu,
    graph: &Graph,
    block: u32,
    schedule: Schedule,
    hold_ns: u64,
) -> Result<Running> {
    let cfg = config(block)?;
    let (padded, pitch) = geometry(graph.vertices, block);
    check_fits(graph.vertices, graph.edges.len(), block, padded, pitch)?;
    let mut times = GpuTimes::default();
    let stream = &gpu.stream;
    let t = Instant::now();
    let phases = Phases::new(gpu, cfg, padded, pitch)?;
    // SAFETY: every cell is written by the init kernel before anything reads it.
    let d_dist = unsafe { DeviceBuffer::<i32>::uninitialized(padded * pitch) }
        .context("allocating the distance matrix on the GPU")?;
    let ptr = d_dist.as_device_ptr();
    // Captured, instantiated or sized here, outside the timed compute.
    let prepared = Prepared::new(gpu, schedule, &phases, ptr)?;
    times.setup_s = t.elapsed().as_secs_f64();
    let events = [(); 3].map(|()| Event::new(EventFlags::DEFAULT));
    let [begin, start, stop] = events;
    let (begin, start, stop) = (begin?, start?, stop?);
    let t = Instant::now();
    begin.record(stream)?;
    // SAFETY: `d_dist` is the padded x pitch matrix (pitch ≥ padded ≥ V, a multiple of 4),
    // kept until after the synchronize below.
    let edges = unsafe { init_on_device(gpu, &graph.edges, ptr, padded, 0, pitch) }?;
    times.host_to_device_s = t.elapsed().as_secs_f64();
    if hold_ns > 0 {
        hold(gpu, hold_ns)?;
    }
    start.record(stream)?;
    prepared.queue(&phases, stream, ptr)?;
    stop.record(stream)?;
    Ok(Running {
        d_dist,
        edges,
        keep: prepared.into_keep(),
        begin,
        start,
        stop,
        vertices: graph.vertices,
        padded,
        pitch,
        times,
    })
}

impl Running {
    /// Waits for the kernels (an error of any of them surfaces here) and times them.
    pub fn finish(self) -> Result<DeviceSolution> {
        self.stop
            .synchronize()
            .context("Floyd–Warshall kernels failed")?;
        drop(self.edges);
        drop(self.keep);
        let mut times = self.times;
        times.fill_s = self.start.elapsed_time_f32(&self.begin)? as f64 / 1e3;
        times.compute_s = self.stop.elapsed_time_f32(&self.start)? as f64 / 1e3;
        Ok(DeviceSolution {
            dist: self.d_dist,
            vertices: self.vertices,
            padded: self.padded,
            pitch: self.pitch,
            times,
        })
    }
}

impl DeviceRows for DeviceSolution {
    fn vertices(&self) -> usize {
        self.vertices
    }

    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()> {
        let v = self.vertices;
        let rows = dst.len() / v;
        if dst.len() != rows * v || first + rows > v {
            bail!(
                "internal error: rows {first}..{} of {v} into {} cells",
                first + rows,
                dst.len()
            );
        }
        if rows == 0 {
            return Ok(());
        }
        let src = self.dist.as_device_ptr().as_raw() + (first * self.pitch * 4) as u64;
        // SAFETY: rows first..first + rows (checked above to be in 0..V) of the padded x pitch
        // matrix this solution owns; `dst` holds exactly `rows * v` i32.
        unsafe { copy_rows_to_host(src, self.pitch, v, dst) }
            .with_context(|| format!("copying rows {first}..{} from the GPU", first + rows))
    }
}

/// Copies `dst.len() / v` rows of `v` cells, `pitch` cells apart on the device from `src`, into
/// `dst` (rows `v` apart) in one synchronous 2-D copy, which drops the padding columns; at full
/// PCIe speed when `dst` is pinned. Needs the context of `src`'s GPU current.
///
/// # Safety
/// `src` must be device memory of the current context holding `dst.len() / v` rows of `pitch`
/// i32, with `v` ≤ `pitch`.
pub(crate) unsafe fn copy_rows_to_host(
    src: u64,
    pitch: usize,
    v: usize,
    dst: &mut [i32],
) -> Result<()> {
    let rows = dst.len() / v;
    if rows == 0 {
        return Ok(());
    }
    let copy = driver_sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: driver_sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: std::ptr::null(),
        srcDevice: src,
        srcArray: std::ptr::null_mut(),
        srcPitch: pitch * 4,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: driver_sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        dstHost: dst.as_mut_ptr().cast(),
        dstDevice: 0,
        dstArray: std::ptr::null_mut(),
        dstPitch: v * 4,
        WidthInBytes: v * 4,
        Height: rows,
    };
    // SAFETY: the caller's rows lie inside its device matrix (see `# Safety`) and `dst` holds
    // `rows * v` i32; the copy is synchronous.
    let status = unsafe { driver_sys::cuMemcpy2D(&copy) };
    Ok(check_driver(status, "cuMemcpy2D (the rows to the host)")?)
}

/// Solves `graph` on the GPU and copies the whole padded matrix back.
pub fn solve(gpu: &Gpu, graph: &Graph, block: u32) -> Result<GpuSolution> {
    let running = start_on_device(gpu, graph, block)?;
    // On the CPU while the GPU computes.
    let repeated_edges = count_repeated(graph);
    let sol = running.finish()?;
    let mut times = sol.times;
    let t = Instant::now();
    let mut dist = vec![0i32; sol.padded * sol.pitch];
    sol.dist
        .copy_to(&mut dist[..])
        .context("copying distances back")?;
    times.device_to_host_s = t.elapsed().as_secs_f64();
    Ok(GpuSolution {
        dist,
        padded: sol.padded,
        pitch: sol.pitch,
        repeated_edges,
        times,
    })
}

/// Times phase 3 alone (round 0, after phases 1 and 2 of that round) on `graph`'s distances:
/// one warm-up and `reps` timed launches. Returns the timing and the cell updates per launch.
pub fn time_phase3(gpu: &Gpu, graph: &Graph, block: u32, reps: usize) -> Result<(Timing, f64)> {
    let cfg = config(block)?;
    let (padded, pitch) = geometry(graph.vertices, block);
    check_fits(graph.vertices, 0, block, padded, pitch)?;
    let mut dist = vec![0i32; padded * pitch];
    fill_distances(graph, padded, pitch, &mut dist);
    let d_dist = DeviceBuffer::from_slice(&dist)?;
    let stream = &gpu.stream;
    let phases = Phases::new(gpu, cfg, padded, pitch)?;
    let ptr = d_dist.as_device_ptr();
    phases.pivot_row_and_column(stream, ptr, 0)?;
    let timing = time_on_stream(stream, 1, reps, || phases.rest(stream, ptr, 0))?;
    let rounds = phases.rounds;
    let blocks = (rounds as f64 - 1.0).powi(2);
    Ok((timing, blocks * (block as f64).powi(3)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_pads_to_block_and_aligns_rows() {
        assert_eq!(geometry(1, 64), (64, 64));
        assert_eq!(geometry(65, 64), (128, 128));
        assert_eq!(geometry(65, 16), (80, 96));
        assert_eq!(geometry(30000, 64).0, 30016);
        assert!(config(48).unwrap_err().to_string().contains("16, 32, 64"));
    }
}
