//! File to file: read, build the matrix, compute, then stream the rows into the output — each
//! stage timed, and how much of them ran at the same time. Shared by `host apsp` and
//! `host bench apsp`. On one GPU and on several, the output is prepared while the GPUs compute
//! in one way (`compute_while_preparing`).
use std::{
    path::Path,
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use anyhow::{Context as _, Result, bail};
use cust::{context::Context, device::Device};
use rgk_core::{
    apsp::{
        cpu,
        format::{Graph, count_repeated, fill_distances, output_len},
        verify::verify_rows,
    },
    bench::ApspSplit,
    memory,
};
use serde::Serialize;

use super::{
    gpu as agpu,
    input::GraphFile,
    multi::{self, MultiGpu, MultiTimes},
    rows::DeviceRows,
    stats::{StatsPlan, StatsRun, stats_cpu},
    stream::{HostRows, IoOptions, OutputFile, StreamReport},
};
use crate::{gpu::Gpu, pinned::PortablePinned};

#[derive(Clone, Debug, Default, Serialize)]
pub struct FileReport {
    pub vertices: usize,
    pub edges: usize,
    pub repeated_edges: usize,
    pub device: String,
    pub block: Option<u32>,
    /// Stage times. On the GPU path: `fill_s` builds the matrix on the GPU, `host_to_device_s`
    /// uploads the edge list, `device_to_host_s` and `write_s` are the streaming stage's copy
    /// and write times (`stream`), which overlap.
    pub split: ApspSplit,
    /// GPU path: loading the kernels and allocating the matrix on the GPU.
    pub setup_s: f64,
    /// Creating and reserving the output file and allocating its staging buffers: on the GPU
    /// paths, done while the GPUs compute (`compute_while_preparing`).
    pub prepare_s: f64,
    /// The streaming stage: copies, writes and what they overlapped.
    pub stream: StreamReport,
    /// File to file, verification excluded.
    pub total_s: f64,
    /// Sum of all stage times minus the total: how much of them ran at the same time.
    pub overlapped_s: f64,
    /// Peak resident memory of the process (VmHWM) after the run, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// V^3 / compute time.
    pub updates_per_s: f64,
    pub verified: Option<String>,
}

/// Peak resident set size of this process so far (Linux `VmHWM`), bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Solves `input` into `output` on `gpu` (or on the CPU when `gpu` is None) with the default
/// output options. With `verify`, the result is compared with an independent CPU answer
/// before anything is written.
pub fn solve_file(
    gpu: Option<&Gpu>,
    input: &Path,
    output: &Path,
    block: u32,
    verify: bool,
) -> Result<FileReport> {
    solve_file_with(gpu, input, output, block, verify, IoOptions::default())
}

/// [`solve_file`] with explicit output options.
pub fn solve_file_with(
    gpu: Option<&Gpu>,
    input: &Path,
    output: &Path,
    block: u32,
    verify: bool,
    io: IoOptions,
) -> Result<FileReport> {
    if output == input {
        bail!("the output path {} is the input file", output.display());
    }
    solve_graph_with(gpu, GraphFile::read(input)?, output, block, verify, io)
}

/// [`solve_file_with`] for a graph file already read: `host apsp` reads it before it opens the
/// GPU. Its read time counts in the file-to-file time.
pub fn solve_graph_with(
    gpu: Option<&Gpu>,
    input: GraphFile,
    output: &Path,
    block: u32,
    verify: bool,
    io: IoOptions,
) -> Result<FileReport> {
    let outputs = Outputs {
        distances: Some(output),
        stats: false,
    };
    Ok(solve_graph_outputs(gpu, input, outputs, block, verify, io)?.0)
}

/// What a solve leaves besides its report.
#[derive(Clone, Copy, Debug)]
pub struct Outputs<'a> {
    /// The distance file, if any: without it the matrix never leaves the GPU.
    pub distances: Option<&'a Path>,
    /// Graph statistics from the matrix ([`super::stats`]).
    pub stats: bool,
}

/// [`solve_graph_with`] with the distance file optional and the statistics on request
/// (`host apsp --stats`): on the GPU they are computed from the matrix where it lies, before
/// it is written (if it is).
pub fn solve_graph_outputs(
    gpu: Option<&Gpu>,
    input: GraphFile,
    outputs: Outputs,
    block: u32,
    verify: bool,
    io: IoOptions,
) -> Result<(FileReport, Option<StatsRun>)> {
    if outputs.distances == Some(input.path.as_path()) {
        bail!("the output path {} is the input file", input.path.display());
    }
    let start = Instant::now();
    let GraphFile { graph, read_s, .. } = input;
    let mut rep = FileReport {
        vertices: graph.vertices,
        edges: graph.edges.len(),
        ..Default::default()
    };
    rep.split.read_s = read_s;
    let v = graph.vertices;
    let mut verify_s = 0.0;
    let mut stats = None;

    let written = match gpu {
        None => {
            rep.device = format!("CPU ({} threads)", rayon::current_num_threads());
            let t = Instant::now();
            let mut dist = cpu::matrix(v)?;
            rep.repeated_edges = fill_distances(&graph, v, v, &mut dist);
            rep.split.fill_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            cpu::floyd_warshall(&mut dist, v, v);
            rep.split.compute_s = t.elapsed().as_secs_f64();
            let rows = HostRows {
                dist: &dist,
                vertices: v,
                pitch: v,
            };
            if verify {
                let t = Instant::now();
                rep.verified = Some(verify_rows(&graph, |i| {
                    Ok(dist[i * v..(i + 1) * v].to_vec())
                })?);
                verify_s = t.elapsed().as_secs_f64();
            }
            if outputs.stats {
                stats = Some(stats_cpu(&dist, v, v));
            }
            match outputs.distances {
                Some(output) => {
                    let t = Instant::now();
                    let out = OutputFile::create(output, output_len(v), io.mode)?;
                    let staging =
                        memory::zeroed_vecs(STAGING, io.staging_count(), io.staging_len(v))?;
                    rep.prepare_s = t.elapsed().as_secs_f64();
                    let streamed = out.write_rows(&rows, staging, &io)?;
                    Some((out, streamed))
                }
                None => None,
            }
        }
        Some(gpu) => {
            rep.device = gpu.info()?.name;
            rep.block = Some(block);
            let plan = outputs.stats.then(|| StatsPlan::new(gpu, v)).transpose()?;
            let compute = || {
                let running = agpu::start_on_device(gpu, &graph, block)?;
                // On the CPU while the kernels run.
                let repeated = count_repeated(&graph);
                Ok((running.finish()?, repeated))
            };
            let ((sol, repeated), prepared) = match outputs.distances {
                Some(output) => {
                    let (solved, prepared) =
                        compute_while_preparing(gpu.device, output, v, &io, compute)?;
                    (solved, Some(prepared))
                }
                None => (compute()?, None),
            };
            rep.repeated_edges = repeated;
            rep.setup_s = sol.times.setup_s;
            rep.split.fill_s = sol.times.fill_s;
            rep.split.host_to_device_s = sol.times.host_to_device_s;
            rep.split.compute_s = sol.times.compute_s;
            if let Some(plan) = &plan {
                // SAFETY: `sol` is the solved padded x pitch matrix of this graph on `gpu`
                // (pitch ≥ V, a multiple of 4), alive until after the call.
                stats = Some(unsafe { plan.run(gpu, sol.dist.as_device_ptr(), sol.pitch) }?);
            }
            if verify {
                (rep.verified, verify_s) = verify_device(&graph, &sol)?;
            }
            match prepared {
                Some(Prepared {
                    out,
                    staging,
                    prefaulted,
                    prepare_s,
                }) => {
                    rep.prepare_s = prepare_s;
                    let mut streamed = out.write_rows(&sol, staging, &io)?;
                    streamed.prefaulted_bytes = prefaulted;
                    Some((out, streamed))
                }
                None => None,
            }
        }
    };
    let streamed = match written {
        Some((out, streamed)) => {
            out.persist()?;
            streamed
        }
        None => StreamReport::default(),
    };
    finish(&mut rep, streamed, start, verify_s);
    Ok((rep, stats))
}

/// Checks a solution still on the GPU(s) against an independent CPU answer, a row at a time:
/// the verdict and the seconds it took (kept out of the file-to-file time).
pub(super) fn verify_device(graph: &Graph, sol: &dyn DeviceRows) -> Result<(Option<String>, f64)> {
    let t = Instant::now();
    let v = graph.vertices;
    let verdict = verify_rows(graph, |i| {
        let mut row = vec![0i32; v];
        sol.copy_rows(i, &mut row)?;
        Ok(row)
    })?;
    Ok((Some(verdict), t.elapsed().as_secs_f64()))
}

/// The streaming stage's times, the total, the overlap and the rate, once the file is in place.
pub(super) fn finish(rep: &mut FileReport, streamed: StreamReport, start: Instant, verify_s: f64) {
    rep.split.device_to_host_s = streamed.copy_s;
    rep.split.write_s = streamed.write_s;
    rep.stream = streamed;
    rep.total_s = rep.split.read_s + start.elapsed().as_secs_f64() - verify_s;
    let s = &rep.split;
    let stages = s.read_s
        + rep.setup_s
        + s.fill_s
        + s.host_to_device_s
        + s.compute_s
        + rep.prepare_s
        + s.device_to_host_s
        + s.write_s;
    rep.overlapped_s = (stages - rep.total_s).max(0.0);
    rep.peak_rss_bytes = peak_rss_bytes();
    let v = rep.vertices as f64;
    rep.updates_per_s = v.powi(3) / rep.split.compute_s.max(1e-12);
}

/// [`solve_file`] on several GPUs (`host apsp --gpus N`, N > 1): the matrix split by block rows
/// (`multi`), streamed through [`DeviceRows`] by the same writer. Also returns
/// where each GPU's time went.
pub fn solve_file_multi(
    gpus: &MultiGpu,
    input: &Path,
    output: &Path,
    block: u32,
    verify: bool,
    io: IoOptions,
) -> Result<(FileReport, MultiTimes)> {
    if output == input {
        bail!("the output path {} is the input file", output.display());
    }
    solve_graph_multi(gpus, GraphFile::read(input)?, output, block, verify, io)
}

/// [`solve_file_multi`] for a graph file already read (as [`solve_graph_with`]).
pub fn solve_graph_multi(
    gpus: &MultiGpu,
    input: GraphFile,
    output: &Path,
    block: u32,
    verify: bool,
    io: IoOptions,
) -> Result<(FileReport, MultiTimes)> {
    if output == input.path {
        bail!("the output path {} is the input file", output.display());
    }
    let start = Instant::now();
    let GraphFile { graph, read_s, .. } = input;
    let v = graph.vertices;
    let mut rep = FileReport {
        vertices: v,
        edges: graph.edges.len(),
        block: Some(block),
        ..Default::default()
    };
    rep.split.read_s = read_s;
    rep.device = format!("{} x {}", gpus.len(), gpus.gpus[0].info()?.name);
    let (sol, prepared) = compute_while_preparing(gpus.gpus[0].device, output, v, &io, || {
        multi::solve(gpus, &graph, block)
    })?;
    rep.prepare_s = prepared.prepare_s;
    rep.repeated_edges = sol.repeated_edges;
    rep.split.fill_s = sol.times.fill_s;
    rep.split.host_to_device_s = sol.times.host_to_device_s;
    rep.split.compute_s = sol.times.compute_s;
    let Prepared {
        out,
        staging,
        prefaulted,
        ..
    } = prepared;
    let mut verify_s = 0.0;
    if verify {
        (rep.verified, verify_s) = verify_device(&graph, &sol)?;
    }
    let mut streamed = out.write_rows(&sol, staging, &io)?;
    streamed.prefaulted_bytes = prefaulted;
    let times = sol.times.clone();
    drop(sol);
    out.persist()?;
    finish(&mut rep, streamed, start, verify_s);
    Ok((rep, times))
}

/// What the output's staging buffers are called in a sentence about host memory.
const STAGING: &str = "the output's staging buffers";

/// Host memory for the output's staging buffers (pinned on the GPU paths, where the driver
/// would otherwise say only "out of memory"), checked before they are allocated.
fn ensure_staging_fits(io: &IoOptions, vertices: usize) -> Result<()> {
    let bytes = io.staging_count() as u128 * io.staging_len(vertices) as u128 * 4;
    memory::ensure_available(STAGING, bytes)
}

/// The output, made ready while the GPUs compute.
pub(super) struct Prepared {
    pub(super) out: OutputFile,
    /// Pinned host buffers the rows pass through, pinned for every GPU's context.
    pub(super) staging: Vec<PortablePinned>,
    /// Seconds to create and reserve the file and allocate the staging buffers.
    pub(super) prepare_s: f64,
    /// Bytes of placeholder written while the GPUs computed ([`OutputFile::prefault`]).
    pub(super) prefaulted: u64,
}

/// Runs `compute` on this thread while a second thread prepares the output of a graph on `v`
/// vertices: creates and reserves the file, allocates the pinned staging buffers, then writes
/// the placeholder for as long as `compute` runs. The one way that the one-GPU and the multi-GPU
/// paths overlap the two. The GPU work stays on the calling thread, which holds the contexts (a
/// `Gpu` is not `Sync`); the second thread makes the primary context of `device` (the GPU's
/// own; any context would do, the buffers are portable) current only to allocate.
pub(super) fn compute_while_preparing<T>(
    device: Device,
    output: &Path,
    v: usize,
    io: &IoOptions,
    compute: impl FnOnce() -> Result<T>,
) -> Result<(T, Prepared)> {
    /// Clears the flag when `compute` is over, returned or unwound, so that the placeholder
    /// stops at its next chunk.
    struct Over<'a>(&'a AtomicBool);
    impl Drop for Over<'_> {
        fn drop(&mut self) {
            self.0.store(false, Ordering::Relaxed);
        }
    }
    let computing = AtomicBool::new(true);
    let (computed, prepared) = std::thread::scope(|s| {
        let preparing = s.spawn(|| -> Result<Prepared> {
            let t = Instant::now();
            ensure_staging_fits(io, v)?;
            let out = OutputFile::create(output, output_len(v), io.mode)?;
            let context = Context::new(device)
                .context("making the GPU's context current to allocate the staging buffers")?;
            let staging = (0..io.staging_count())
                .map(|_| PortablePinned::new(io.staging_len(v)))
                .collect::<Result<Vec<_>>>()?;
            // Releases this thread's reference only: the `Gpu` holds its own.
            drop(context);
            let prepare_s = t.elapsed().as_secs_f64();
            let prefaulted = match io.prefault {
                true => out.prefault(io.writers, &|| computing.load(Ordering::Relaxed))?,
                false => 0,
            };
            Ok(Prepared {
                out,
                staging,
                prepare_s,
                prefaulted,
            })
        });
        let computed = {
            let _over = Over(&computing);
            compute()
        };
        let prepared = preparing
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (computed, prepared)
    });
    let computed = computed?;
    Ok((
        computed,
        prepared.context("preparing the output while the GPU computes")?,
    ))
}
