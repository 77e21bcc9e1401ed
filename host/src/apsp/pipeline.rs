//! File to file: read, build the matrix, compute, then stream the rows into the output — each
//! stage timed, and how much of them ran at the same time. Shared by `host apsp` and
//! `host bench apsp`.
use std::{
    path::Path,
    sync::atomic::{AtomicBool, Ordering},
    time::Instant,
};

use anyhow::{Result, bail};
use cust::memory::LockedBuffer;
use rgk_core::{
    apsp::{
        cpu,
        format::{Graph, count_repeated, fill_distances},
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
    /// Creating and reserving the output file and its staging buffers, and counting repeated
    /// edges: done on the CPU while the GPU computes.
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
    if output == input.path {
        bail!("the output path {} is the input file", output.display());
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
    let len = 4 * (v as u64) * (v as u64);
    let mut verify_s = 0.0;

    let (out, streamed) = match gpu {
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
            let t = Instant::now();
            let out = OutputFile::create(output, len, io.mode)?;
            let staging = memory::zeroed_vecs(STAGING, io.staging_count(), io.staging_len(v))?;
            rep.prepare_s = t.elapsed().as_secs_f64();
            let streamed = out.write_rows(&rows, staging, &io)?;
            (out, streamed)
        }
        Some(gpu) => {
            rep.device = gpu.info()?.name;
            rep.block = Some(block);
            // While the GPU computes: the output file, the pinned staging buffers, the
            // repeated-edge count.
            let (sol, (out, staging, repeated, prepare_s, prefaulted)) =
                agpu::solve_on_device(gpu, &graph, block, |busy| {
                    let t = Instant::now();
                    ensure_staging_fits(&io, v)?;
                    let out = OutputFile::create(output, len, io.mode)?;
                    let staging = (0..io.staging_count())
                        .map(|_| LockedBuffer::new(&0i32, io.staging_len(v)))
                        .collect::<Result<Vec<_>, _>>()?;
                    let repeated = count_repeated(&graph);
                    let prepare_s = t.elapsed().as_secs_f64();
                    let prefaulted = match io.prefault {
                        true => out.prefault(io.writers, busy)?,
                        false => 0,
                    };
                    Ok((out, staging, repeated, prepare_s, prefaulted))
                })?;
            rep.repeated_edges = repeated;
            rep.prepare_s = prepare_s;
            rep.setup_s = sol.times.setup_s;
            rep.split.fill_s = sol.times.fill_s;
            rep.split.host_to_device_s = sol.times.host_to_device_s;
            rep.split.compute_s = sol.times.compute_s;
            if verify {
                (rep.verified, verify_s) = verify_device(&graph, &sol)?;
            }
            let mut streamed = out.write_rows(&sol, staging, &io)?;
            streamed.prefaulted_bytes = prefaulted;
            (out, streamed)
        }
    };
    out.persist()?;
    finish(&mut rep, streamed, start, verify_s);
    Ok(rep)
}

/// Checks a solution still on the GPU(s) against an independent CPU answer, a row at a time:
/// the verdict and the seconds it took (kept out of the file-to-file time).
fn verify_device(graph: &Graph, sol: &dyn DeviceRows) -> Result<(Option<String>, f64)> {
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
fn finish(rep: &mut FileReport, streamed: StreamReport, start: Instant, verify_s: f64) {
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
    let t = Instant::now();
    let out = OutputFile::create(output, 4 * (v as u64) * (v as u64), io.mode)?;
    rep.prepare_s = t.elapsed().as_secs_f64();
    // The placeholder goes into the file while the GPUs compute, as on one GPU.
    let computing = AtomicBool::new(true);
    let (sol, prefaulted) = std::thread::scope(|s| {
        let placeholder = io
            .prefault
            .then(|| s.spawn(|| out.prefault(io.writers, &|| computing.load(Ordering::Relaxed))));
        let sol = multi::solve(gpus, &graph, block);
        computing.store(false, Ordering::Relaxed);
        let prefaulted = placeholder.map_or(Ok(0), |h| h.join().expect("placeholder thread"));
        (sol, prefaulted)
    });
    let (sol, prefaulted) = (sol?, prefaulted?);
    rep.repeated_edges = sol.repeated_edges;
    rep.split.fill_s = sol.times.fill_s;
    rep.split.host_to_device_s = sol.times.host_to_device_s;
    rep.split.compute_s = sol.times.compute_s;

    let t = Instant::now();
    // Pinned for every GPU's context (each copies its own rows into it); allocating needs one.
    gpus.gpus[0].make_current()?;
    ensure_staging_fits(&io, v)?;
    let staging = (0..io.staging_count())
        .map(|_| PortablePinned::new(io.staging_len(v)))
        .collect::<Result<Vec<_>, _>>()?;
    rep.prepare_s += t.elapsed().as_secs_f64();
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
