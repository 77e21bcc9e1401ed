//! Shortest paths on the GPU (`host apsp --paths`, [`crate::apsp_with`]): the blocked
//! Floyd–Warshall of [`super::gpu`] with the path kernels (`gpu_kernels::apsp::FW_PATHS`), which
//! carry a successor or predecessor matrix beside the distances. Both matrices stay on the GPU
//! ([`DevicePaths`]) and are read by rows: the distances as [`DeviceSolution`], the path cells as
//! [`PathRows`]; [`write_path_file`] streams the latter into a path file.
use std::{ops::Range, os::unix::fs::FileExt, path::Path, time::Instant};

use anyhow::{Context as _, Result, bail};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, Function, GridSize},
    launch,
    memory::{DeviceBuffer, DevicePointer},
    stream::Stream,
};
use gpu_kernels::apsp::{
    FW_PATHS, FwPathsConfig, INIT_QUADS_PER_THREAD, INIT_THREADS, PATHS_INIT_KERNEL,
    PATHS_MAX_DISTANCE, PATHS_MODE_PREFETCH, fw_paths_config, paths_strip_words,
};
use rgk_core::apsp::{
    format::{Graph, count_repeated, temp_beside},
    paths::{
        PathKind,
        file::{PATH_HEADER_BYTES, path_header, row_offset},
        zero_weight_cycle,
    },
};

use super::gpu::{DeviceSolution, GpuTimes, copy_rows_to_host, geometry, init_on_device};
use super::phases::prefer_shared_memory;
use super::rows::DeviceRows;
use crate::gpu::{Gpu, check_free_memory};

/// The path kernels of `block`, or one sentence naming the block factors that have them.
pub fn paths_config(block: u32) -> Result<FwPathsConfig> {
    fw_paths_config(block).with_context(|| {
        let known: Vec<_> = FW_PATHS.iter().map(|c| c.block.to_string()).collect();
        rgk_core::BadInput(format!(
            "--paths has kernels for block factor {} only, not {block}",
            known.join(", ")
        ))
    })
}

/// Fails with one sentence when the path kernels cannot give `graph`'s paths: a path may be
/// longer than their packed distances hold ([`PATHS_MAX_DISTANCE`]; no path is longer than
/// `max weight · (V − 1)`), or the graph has a cycle of zero-weight edges, around which the
/// blocked order may leave the path cells in a loop ([`zero_weight_cycle`]).
pub fn ensure_paths_fit(graph: &Graph) -> Result<()> {
    if let Some((u, v)) = zero_weight_cycle(graph) {
        return rgk_core::bad_input(format!(
            "--paths on the GPU needs a graph without a cycle of zero-weight edges, but the edge {u} -> {v} lies on one: use --cpu"
        ));
    }
    let w = graph.edges.iter().map(|e| e.w).max().unwrap_or(0) as i64;
    let longest = w * (graph.vertices as i64 - 1).max(0);
    if longest > PATHS_MAX_DISTANCE {
        return rgk_core::bad_input(format!(
            "--paths on the GPU holds paths up to {PATHS_MAX_DISTANCE} long, but with weights up to {w} and V = {} a path may be {longest} long: use --cpu",
            graph.vertices
        ));
    }
    Ok(())
}

/// [`PATHS_MODE_PREFETCH`] (the own block prefetched to L2 before the k loop: measured faster,
/// docs/apsp.md), or 0 where `RGK_PATHS_PREFETCH=0` (a variant for measurements, as
/// `RGK_SGEMM_SCHEDULE`; `scripts/gpu-paths.sh` times both).
fn prefetch_flag() -> u32 {
    match std::env::var("RGK_PATHS_PREFETCH").as_deref() {
        Ok("0") => 0,
        _ => PATHS_MODE_PREFETCH,
    }
}

/// The path kernels' `mode` argument for `kind`: the kind's code and the L2 prefetch flag
/// (`prefetch_flag`).
pub fn mode(kind: PathKind) -> u32 {
    kind.code() | prefetch_flag()
}

/// Launches the path matrix's initialisation (`apsp_init_paths`) for `rows` of the matrix on
/// `gpu`'s stream: `d` and `p` hold those rows (`rows.len()` x `pitch` i32, from global row
/// `rows.start`), the distances initialised earlier on the same stream.
///
/// # Safety
/// `d` and `p` must be such buffers, live until the stream has run the kernel; nothing else may
/// write `p` meanwhile.
pub(crate) unsafe fn init_paths(
    gpu: &Gpu,
    d: DevicePointer<i32>,
    p: DevicePointer<i32>,
    rows: Range<usize>,
    pitch: usize,
    kind: PathKind,
) -> Result<()> {
    let init = gpu.function(PATHS_INIT_KERNEL)?;
    let grid = GridSize::xy(
        ((pitch / 4) as u32).div_ceil(INIT_THREADS * INIT_QUADS_PER_THREAD),
        (rows.len() as u32).min(u16::MAX as u32),
    );
    let (pitch, count, row0, mode) = (
        pitch as u32,
        rows.len() as u32,
        rows.start as u32,
        kind.code(),
    );
    let stream = &gpu.stream;
    // SAFETY: (d, p, pitch, rows, row0, mode) on two `rows` x `pitch` buffers (the caller's
    // contract); the kernel checks its indices against them.
    unsafe { launch!(init<<<grid, INIT_THREADS, 0, stream>>>(d, p, pitch, count, row0, mode)) }
        .context("launching the path matrix initialisation")
}

/// The three path kernels of one block factor with the launch geometry of a padded matrix.
struct PathPhases<'a> {
    phase1: Function<'a>,
    phase2: Function<'a>,
    phase3: Function<'a>,
    rounds: u32,
    pivot_threads: BlockSize,
    tile_threads: BlockSize,
    pitch: u32,
    mode: u32,
}

impl<'a> PathPhases<'a> {
    fn new(
        gpu: &'a Gpu,
        cfg: FwPathsConfig,
        padded: usize,
        pitch: usize,
        kind: PathKind,
    ) -> Result<Self> {
        let (phase2, phase3) = (gpu.function(cfg.phase2)?, gpu.function(cfg.phase3)?);
        prefer_shared_memory(&phase2)?;
        prefer_shared_memory(&phase3)?;
        Ok(PathPhases {
            phase1: gpu.function(cfg.phase1)?,
            phase2,
            phase3,
            rounds: (padded / cfg.block as usize) as u32,
            pivot_threads: BlockSize::xy(cfg.pivot_threads, cfg.pivot_threads),
            tile_threads: BlockSize::xy(cfg.tile_threads, cfg.tile_threads),
            pitch: pitch as u32,
            mode: mode(kind),
        })
    }

    /// Phases 1–3 of `round` on the distances `d` and path cells `p`.
    fn round(
        &self,
        stream: &Stream,
        d: DevicePointer<i32>,
        p: DevicePointer<i32>,
        s: DevicePointer<u32>,
        round: u32,
    ) -> Result<()> {
        let (p1, p2, p3) = (&self.phase1, &self.phase2, &self.phase3);
        let (t1, t3, pitch, mode, n) = (
            self.pivot_threads,
            self.tile_threads,
            self.pitch,
            self.mode,
            self.rounds,
        );
        // SAFETY: the kernels take (d, p, pitch, round, mode) and phases 2–3 the strips `s`;
        // `d` and `p` are padded x pitch matrices these phases were made for, `s` has
        // `paths_strip_words` words (`start_paths_on_device`), and the grids stay inside them
        // (one pivot block; its row and column; every block).
        unsafe {
            launch!(p1<<<GridSize::x(1), t1, 0, stream>>>(d, p, pitch, round, mode))?;
            launch!(p2<<<GridSize::xy(n, 2), t3, 0, stream>>>(d, p, pitch, round, mode, s))?;
            launch!(p3<<<GridSize::xy(n, n), t3, 0, stream>>>(d, p, pitch, round, mode, s))?;
        }
        Ok(())
    }
}

/// A solve with paths whose kernels are queued: the CPU is free until [`RunningPaths::finish`].
pub struct RunningPaths {
    d_dist: DeviceBuffer<i32>,
    d_paths: DeviceBuffer<i32>,
    strips: DeviceBuffer<u32>,
    edges: Option<DeviceBuffer<i32>>,
    events: [Event; 3],
    kind: PathKind,
    vertices: usize,
    padded: usize,
    pitch: usize,
    times: GpuTimes,
}

/// Both matrices of a solve with paths, still on the GPU.
pub struct DevicePaths {
    pub distances: DeviceSolution,
    pub paths: PathRows,
}

/// A path matrix on the GPU, read by rows.
pub struct PathRows {
    pub(crate) cells: DeviceBuffer<i32>,
    pub kind: PathKind,
    pub vertices: usize,
    pub pitch: usize,
}

/// Queues the solve of `graph` with a `kind` path matrix on the GPU and returns at once.
pub fn start_paths_on_device(
    gpu: &Gpu,
    graph: &Graph,
    block: u32,
    kind: PathKind,
) -> Result<RunningPaths> {
    let cfg = paths_config(block)?;
    ensure_paths_fit(graph)?;
    let (padded, pitch) = geometry(graph.vertices, block);
    rgk_core::apsp::limits::ensure_gpu_addressable(graph.vertices, block)?;
    check_free_memory(
        2 * padded * pitch * size_of::<i32>()
            + paths_strip_words(block, padded, pitch) * size_of::<u32>()
            + graph.edges.len() * 12,
        format_args!(
            "V = {} with paths (two {padded} x {pitch} matrices)",
            graph.vertices
        ),
    )?;
    let mut times = GpuTimes::default();
    let stream = &gpu.stream;
    let t = Instant::now();
    let phases = PathPhases::new(gpu, cfg, padded, pitch, kind)?;
    // SAFETY: every cell of both matrices is written by the init kernels before anything reads
    // it; the strips are written by phase 2 of each round before its phase 3 reads them.
    let (d_dist, d_paths, strips) = unsafe {
        (
            DeviceBuffer::<i32>::uninitialized(padded * pitch)
                .context("allocating the distance matrix on the GPU")?,
            DeviceBuffer::<i32>::uninitialized(padded * pitch)
                .context("allocating the path matrix on the GPU")?,
            DeviceBuffer::<u32>::uninitialized(paths_strip_words(block, padded, pitch))
                .context("allocating the path kernels' operand strips on the GPU")?,
        )
    };
    times.setup_s = t.elapsed().as_secs_f64();
    let (d, p) = (d_dist.as_device_ptr(), d_paths.as_device_ptr());
    let events = [(); 3].map(|()| Event::new(EventFlags::DEFAULT));
    let [begin, start, stop] = events;
    let events = [begin?, start?, stop?];
    let t = Instant::now();
    events[0].record(stream)?;
    // SAFETY: `d_dist` is the padded x pitch matrix, kept until `finish` synchronizes.
    let edges = unsafe { init_on_device(gpu, &graph.edges, d, padded, 0, pitch) }?;
    // SAFETY: both matrices are padded x pitch and kept until `finish` synchronizes; `d` was
    // initialised above on the same stream.
    unsafe { init_paths(gpu, d, p, 0..padded, pitch, kind) }?;
    times.host_to_device_s = t.elapsed().as_secs_f64();
    events[1].record(stream)?;
    for r in 0..phases.rounds {
        phases.round(stream, d, p, strips.as_device_ptr(), r)?;
    }
    events[2].record(stream)?;
    Ok(RunningPaths {
        d_dist,
        d_paths,
        strips,
        edges,
        events,
        kind,
        vertices: graph.vertices,
        padded,
        pitch,
        times,
    })
}

impl RunningPaths {
    /// Waits for the kernels and times them.
    pub fn finish(self) -> Result<DevicePaths> {
        let [begin, start, stop] = &self.events;
        stop.synchronize()
            .context("Floyd–Warshall path kernels failed")?;
        drop(self.edges);
        drop(self.strips);
        let mut times = self.times;
        times.fill_s = start.elapsed_time_f32(begin)? as f64 / 1e3;
        times.compute_s = stop.elapsed_time_f32(start)? as f64 / 1e3;
        let (vertices, pitch) = (self.vertices, self.pitch);
        Ok(DevicePaths {
            distances: DeviceSolution {
                dist: self.d_dist,
                vertices,
                padded: self.padded,
                pitch,
                times,
            },
            paths: PathRows {
                cells: self.d_paths,
                kind: self.kind,
                vertices,
                pitch,
            },
        })
    }
}

impl DeviceRows for PathRows {
    fn vertices(&self) -> usize {
        self.vertices
    }

    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()> {
        let v = self.vertices;
        let rows = dst.len() / v.max(1);
        if dst.len() != rows * v || first + rows > v {
            bail!(
                "internal error: path rows {first}..{} of {v} into {} cells",
                first + rows,
                dst.len()
            );
        }
        let src = self.cells.as_device_ptr().as_raw() + (first * self.pitch * 4) as u64;
        // SAFETY: rows first..first + rows (checked to be in 0..V) of the padded x pitch path
        // matrix this owns; `dst` holds exactly `rows * v` i32.
        unsafe { copy_rows_to_host(src, self.pitch, v, dst) }
            .with_context(|| format!("copying path rows {first}..{} from the GPU", first + rows))
    }
}

/// Solves `graph` with paths on the GPU: the report's times, the count of repeated edges, and
/// both matrices left on the GPU.
pub fn solve_paths_on_device(
    gpu: &Gpu,
    graph: &Graph,
    block: u32,
    kind: PathKind,
) -> Result<(DevicePaths, usize)> {
    let running = start_paths_on_device(gpu, graph, block, kind)?;
    let repeated = count_repeated(graph);
    Ok((running.finish()?, repeated))
}

/// Streams a `kind` path matrix (one GPU's [`PathRows`] or several GPUs'
/// [`super::multi::SplitPaths`]) into a path file (`rgk_core::apsp::paths::file`) through a
/// temporary file beside `path`, `rows_per_chunk` rows at a time: host memory holds one chunk,
/// never the matrix. Returns the seconds spent.
pub fn write_path_file(
    path: &Path,
    kind: PathKind,
    rows: &dyn DeviceRows,
    rows_per_chunk: usize,
) -> Result<f64> {
    let t = Instant::now();
    let v = rows.vertices();
    let temp = temp_beside(path)?;
    let file = temp.as_file();
    file.write_all_at(&path_header(kind, v)?, 0)?;
    let chunk = rows_per_chunk.clamp(1, v.max(1));
    let mut buf = vec![0i32; chunk * v];
    let mut first = 0;
    while first < v {
        let n = chunk.min(v - first);
        rows.copy_rows(first, &mut buf[..n * v])?;
        file.write_all_at(bytemuck::cast_slice(&buf[..n * v]), row_offset(v, first))
            .with_context(|| format!("cannot write {}", temp.path().display()))?;
        first += n;
    }
    debug_assert_eq!(row_offset(v, 0), PATH_HEADER_BYTES);
    rgk_core::apsp::format::persist(temp, path)?;
    Ok(t.elapsed().as_secs_f64())
}
