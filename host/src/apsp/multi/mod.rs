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
mod rounds;
mod rows;

use rounds::PathKernels;
pub(crate) use rounds::{Collective, Kernels, Lane, Rounds, warm_up};
pub use rows::SplitPaths;

use std::{ffi::c_int, ops::Range, path::Path, str::FromStr, time::Instant};

use anyhow::{Context as _, Result};
use cust::{event::Event, memory::DeviceBuffer};
use gpu_kernels::apsp::{FwMultiConfig, fw_multi_config};
use rgk_core::apsp::{
    format::{Edge, Graph, count_repeated},
    limits::ensure_gpu_addressable,
    paths::PathKind,
    split::{PIVOT_BUFFERS, block_rows, bytes_per_gpu},
};
use serde::Serialize;

use super::{
    gpu::{self as agpu, geometry},
    nccl::Nccl,
    paths as apaths,
};
use crate::gpu::{Gpu, Share, check_shares_fit, device_count, free_memory, init_driver};

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
    /// Waiting for every GPU's init and scatter kernels to finish.
    pub fill_s: f64,
    /// Splitting the edge list by GPU, uploading each share, launching the init kernels.
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
    /// Each GPU's rows of the path matrix, and its kind (a solve with paths only).
    path_rows: Vec<Option<DeviceBuffer<i32>>>,
    path_kind: Option<PathKind>,
    vertices: usize,
    block: usize,
    pitch: usize,
    pub repeated_edges: usize,
    pub times: MultiTimes,
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

/// All-pairs shortest paths of `graph` on the GPUs of `multi` (block factor `block`, 64 only):
/// the result stays on the GPUs, read by rows through [`DeviceRows`](super::rows::DeviceRows).
/// Fails with one sentence when V does not fit in some GPU's free memory.
pub fn solve<'a>(multi: &'a MultiGpu, graph: &Graph, block: u32) -> Result<MultiSolution<'a>> {
    solve_with(multi, graph, block, None)
}

/// [`solve`] with a `kind` path matrix beside the distances (`host apsp --gpus N --paths`): the
/// path kernels of the split (`FwPathsConfig::split`), each GPU holding its rows of both
/// matrices and receiving both pivot rows each round. The path cells equal those of one GPU's
/// [`apaths::solve_paths_on_device`]; [`MultiSolution::paths`] reads them by rows.
pub fn solve_paths<'a>(
    multi: &'a MultiGpu,
    graph: &Graph,
    block: u32,
    kind: PathKind,
) -> Result<MultiSolution<'a>> {
    solve_with(multi, graph, block, Some(kind))
}

fn solve_with<'a>(
    multi: &'a MultiGpu,
    graph: &Graph,
    block: u32,
    kind: Option<PathKind>,
) -> Result<MultiSolution<'a>> {
    let cfg = config(block)?;
    let path_kernels = match kind {
        Some(kind) => {
            apaths::ensure_paths_fit(graph)?;
            Some(PathKernels {
                names: apaths::paths_config(block)?.split,
                mode: apaths::mode(kind),
            })
        }
        None => None,
    };
    // With paths every GPU holds two matrices' rows and pivot buffers.
    let copies = if kind.is_some() { 2 } else { 1 };
    let b = block as usize;
    let n = multi.len();
    let (padded, pitch) = geometry(graph.vertices, block);
    let nb = padded / b;
    let parts = block_rows(nb, n);
    ensure_gpu_addressable(graph.vertices, block)?;
    // Each GPU's share must fit in its own free memory: its block rows, the pivot-row buffers
    // and the edges it uploads to build its rows.
    let mut edges_per_gpu = vec![0usize; n];
    for e in &graph.edges {
        let row = e.src as usize / b;
        // (An edge outside the matrix goes to no GPU: the uploads below filter the same way.)
        if let Some(g) = parts.iter().position(|p| p.contains(&row)) {
            edges_per_gpu[g] += 1;
        }
    }
    let mut shares = Vec::with_capacity(n);
    for (g, gpu) in multi.gpus.iter().enumerate() {
        gpu.make_current()?;
        shares.push(Share {
            ordinal: gpu.ordinal(),
            needs: copies * bytes_per_gpu(parts[g].len(), b, pitch)
                + edges_per_gpu[g] * size_of::<Edge>(),
            free: free_memory()?,
        });
    }
    check_shares_fit(
        &shares,
        format_args!(
            "V = {} on {n} GPU(s) ({nb} block rows of {b} x {pitch} cells, {PIVOT_BUFFERS} \
             pivot rows per GPU, {} edges{})",
            graph.vertices,
            graph.edges.len(),
            if kind.is_some() {
                ", twice with paths"
            } else {
                ""
            }
        ),
    )?;
    let mut times = MultiTimes::default();
    for (g, gpu) in multi.gpus.iter().enumerate() {
        let bytes = copies * bytes_per_gpu(parts[g].len(), b, pitch);
        times.per_gpu.push(GpuSplit {
            ordinal: gpu.ordinal(),
            block_rows: parts[g].len(),
            first_block_row: parts[g].start,
            bytes,
            ..Default::default()
        });
    }

    // Each GPU builds its own rows from the edges that leave them (as one GPU builds the whole
    // matrix): only edges cross PCIe, and the host never holds a share of the matrix.
    let mut rows = Vec::with_capacity(n);
    let mut path_rows = Vec::with_capacity(n);
    let mut uploads = Vec::with_capacity(n);
    let t = Instant::now();
    for (g, gpu) in multi.gpus.iter().enumerate() {
        gpu.make_current()?;
        let r = parts[g].start * b..parts[g].end * b;
        if r.is_empty() {
            rows.push(None);
            path_rows.push(None);
            continue;
        }
        // SAFETY: every cell is written by the init kernel before anything reads it.
        let d = unsafe { DeviceBuffer::<i32>::uninitialized(r.len() * pitch) }
            .with_context(|| format!("allocating rows on GPU {}", gpu.ordinal()))?;
        let edges: Vec<Edge> = graph
            .edges
            .iter()
            .filter(|e| r.contains(&(e.src as usize)))
            .map(|e| Edge {
                src: e.src - r.start as i32,
                ..*e
            })
            .collect();
        // SAFETY: `d` holds this GPU's r.len() rows of `pitch` (≥ padded, a multiple of 4)
        // i32 and is kept (in `rows`) until the synchronize below.
        uploads.push(unsafe {
            agpu::init_on_device(gpu, &edges, d.as_device_ptr(), r.len(), r.start, pitch)
        }?);
        let p = match kind {
            Some(kind) => {
                // SAFETY: every cell is written by the init kernel below before anything reads it.
                let p = unsafe { DeviceBuffer::<i32>::uninitialized(r.len() * pitch) }
                    .with_context(|| format!("allocating path rows on GPU {}", gpu.ordinal()))?;
                // SAFETY: `d` (initialised above, on the same stream) and `p` hold this GPU's
                // r.len() rows of `pitch` i32 from global row r.start; both are kept until the
                // synchronize below.
                unsafe {
                    apaths::init_paths(
                        gpu,
                        d.as_device_ptr(),
                        p.as_device_ptr(),
                        r.clone(),
                        pitch,
                        kind,
                    )
                }?;
                Some(p)
            }
            None => None,
        };
        rows.push(Some(d));
        path_rows.push(p);
    }
    times.host_to_device_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for gpu in &multi.gpus {
        gpu.make_current()?;
        gpu.stream
            .synchronize()
            .with_context(|| format!("building the matrix on GPU {}", gpu.ordinal()))?;
    }
    drop(uploads);
    times.fill_s = t.elapsed().as_secs_f64();
    let repeated_edges = count_repeated(graph);

    let mut lanes = Vec::with_capacity(n);
    for (g, gpu) in multi.gpus.iter().enumerate() {
        gpu.make_current()?;
        lanes.push(Lane::new(
            gpu,
            Kernels::new(gpu, cfg, path_kernels)?,
            rows[g].as_ref().map(|d| d.as_device_ptr()),
            path_rows[g].as_ref().map(|p| p.as_device_ptr()),
            parts[g].clone(),
            if n > 1 { PIVOT_BUFFERS } else { 0 },
            nb,
            b * pitch,
        )?);
    }
    for lane in &lanes {
        lane.gpu.make_current()?;
        lane.gpu.stream.synchronize()?;
    }

    let collective = match multi.nccl.as_ref() {
        Some(nccl) => Collective::Group(nccl),
        None => Collective::Alone,
    };
    warm_up(collective, &lanes, b * pitch)?;

    let t = Instant::now();
    let run = Rounds {
        lanes: &mut lanes,
        collective,
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
        path_rows,
        path_kind: kind,
        vertices: graph.vertices,
        block: b,
        pitch,
        repeated_edges,
        times,
    })
}

impl Drop for MultiSolution<'_> {
    fn drop(&mut self) {
        // Each GPU's memory is freed with its own context current.
        let all = self.rows.iter_mut().zip(&mut self.path_rows);
        for (gpu, (rows, paths)) in self.multi.gpus.iter().zip(all) {
            if gpu.make_current().is_ok() {
                drop(rows.take());
                drop(paths.take());
            }
        }
    }
}

/// For GPU tests: `n` GPUs, or `None` after printing why the test is skipped (no GPU, or fewer
/// than `n`). As [`crate::gpu::gpu_for_test`], `REQUIRE_GPU` turns a missing driver into a
/// failure; too few GPUs stays a skip, since a one-GPU machine runs the same tests
/// (`scripts/gpu-run.sh check` counts it among the skipped).
pub fn gpus_for_test(test: &str, n: u32) -> Option<MultiGpu> {
    crate::gpu::gpu_for_test(test)?;
    let present = device_count().unwrap_or_else(|e| panic!("{test}: {e:#}"));
    if present < n {
        rgk_core::testdata::skip(
            test,
            &format!("needs {n} GPUs and this machine has {present}"),
        );
        return None;
    }
    Some(
        MultiGpu::open(GpuCount::Count(n), None)
            .unwrap_or_else(|e| panic!("{test}: {n} GPUs are present but setup failed: {e:#}")),
    )
}
