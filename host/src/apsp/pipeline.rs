//! File to file: read, fill the padded matrix, copy, compute, copy back, (verify), write —
//! each stage timed. Shared by `host apsp` and `host bench apsp`.
use std::{path::Path, time::Instant};

use anyhow::{Result, bail};
use rayon::prelude::*;
use rgk_core::{
    apsp::{
        cpu,
        format::{fill_distances, read_graph, write_distances},
        verify::verify_against_cpu,
    },
    bench::ApspSplit,
};
use serde::Serialize;

use super::{
    gpu as agpu,
    multi::{self, MultiGpu, MultiTimes},
    rows::DeviceRows,
};
use crate::gpu::Gpu;

#[derive(Clone, Debug, Default, Serialize)]
pub struct FileReport {
    pub vertices: usize,
    pub edges: usize,
    pub repeated_edges: usize,
    pub device: String,
    pub block: Option<u32>,
    pub split: ApspSplit,
    /// File to file, verification excluded.
    pub total_s: f64,
    /// V^3 / compute time.
    pub updates_per_s: f64,
    pub verified: Option<String>,
}

/// Solves `input` into `output` on `gpu` (or on the CPU when `gpu` is None). With `verify`, the
/// result is compared with an independent CPU answer before anything is written.
pub fn solve_file(
    gpu: Option<&Gpu>,
    input: &Path,
    output: &Path,
    block: u32,
    verify: bool,
) -> Result<FileReport> {
    if output == input {
        bail!("the output path {} is the input file", output.display());
    }
    let start = Instant::now();
    let graph = read_graph(input)?;
    let mut rep = FileReport {
        vertices: graph.vertices,
        edges: graph.edges.len(),
        ..Default::default()
    };
    rep.split.read_s = start.elapsed().as_secs_f64();
    let v = graph.vertices;

    let (dist, pitch) = match gpu {
        None => {
            rep.device = format!("CPU ({} threads)", rayon::current_num_threads());
            let t = Instant::now();
            let mut dist = vec![0i32; v * v];
            rep.repeated_edges = fill_distances(&graph, v, v, &mut dist);
            rep.split.fill_s = t.elapsed().as_secs_f64();
            let t = Instant::now();
            cpu::floyd_warshall(&mut dist, v, v);
            rep.split.compute_s = t.elapsed().as_secs_f64();
            (dist, v)
        }
        Some(gpu) => {
            rep.device = gpu.info()?.name;
            rep.block = Some(block);
            let sol = agpu::solve(gpu, &graph, block)?;
            rep.repeated_edges = sol.repeated_edges;
            rep.split.fill_s = sol.times.fill_s;
            rep.split.host_to_device_s = sol.times.host_to_device_s;
            rep.split.compute_s = sol.times.compute_s;
            rep.split.device_to_host_s = sol.times.device_to_host_s;
            (sol.dist, sol.pitch)
        }
    };
    let before_verify = start.elapsed();
    if verify {
        rep.verified = Some(verify_against_cpu(&graph, &dist, pitch)?);
    }
    let verify_time = start.elapsed() - before_verify;

    let t = Instant::now();
    write_distances(output, &dist, v, pitch)?;
    rep.split.write_s = t.elapsed().as_secs_f64();
    rep.total_s = (start.elapsed() - verify_time).as_secs_f64();
    rep.updates_per_s = (v as f64).powi(3) / rep.split.compute_s.max(1e-12);
    Ok(rep)
}

/// [`solve_file`] on several GPUs (`host apsp --gpus N`, N > 1): the matrix split by block rows
/// (`multi`), gathered through [`DeviceRows`] and written by the same writer. Also returns
/// where each GPU's time went.
pub fn solve_file_multi(
    gpus: &MultiGpu,
    input: &Path,
    output: &Path,
    block: u32,
    verify: bool,
) -> Result<(FileReport, MultiTimes)> {
    if output == input {
        bail!("the output path {} is the input file", output.display());
    }
    let start = Instant::now();
    let graph = read_graph(input)?;
    let v = graph.vertices;
    let mut rep = FileReport {
        vertices: v,
        edges: graph.edges.len(),
        block: Some(block),
        ..Default::default()
    };
    rep.split.read_s = start.elapsed().as_secs_f64();
    rep.device = format!("{} x {}", gpus.len(), gpus.gpus[0].info()?.name);
    let sol = multi::solve(gpus, &graph, block)?;
    rep.repeated_edges = sol.repeated_edges;
    rep.split.fill_s = sol.times.fill_s;
    rep.split.host_to_device_s = sol.times.host_to_device_s;
    rep.split.compute_s = sol.times.compute_s;
    let t = Instant::now();
    let mut dist = vec![0i32; v * v];
    // Touch the pages on every core first: faulting 4V^2 bytes in during the copies is slower.
    dist.par_chunks_mut(1 << 18).for_each(|c| c.fill(0));
    sol.copy_rows(0, &mut dist)?;
    rep.split.device_to_host_s = t.elapsed().as_secs_f64();
    let times = sol.times.clone();
    drop(sol);

    let before_verify = start.elapsed();
    if verify {
        rep.verified = Some(verify_against_cpu(&graph, &dist, v)?);
    }
    let verify_time = start.elapsed() - before_verify;
    let t = Instant::now();
    write_distances(output, &dist, v, v)?;
    rep.split.write_s = t.elapsed().as_secs_f64();
    rep.total_s = (start.elapsed() - verify_time).as_secs_f64();
    rep.updates_per_s = (v as f64).powi(3) / rep.split.compute_s.max(1e-12);
    Ok((rep, times))
}
