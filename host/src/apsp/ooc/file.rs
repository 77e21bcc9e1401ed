//! File to file out of core: as `pipeline::solve_graph_multi`, with the matrix solved in pinned
//! host memory ([`super::solve`]) and written from there by the same streaming writer.
use std::{path::Path, time::Instant};

use anyhow::{Result, bail};
use rgk_core::apsp::ooc::Plan;
use serde::Serialize;

use super::{OocTimes, solve};
use crate::{
    apsp::{
        input::GraphFile,
        pipeline::{FileReport, Prepared, compute_while_preparing, finish, verify_device},
        stream::IoOptions,
    },
    gpu::Gpu,
};

/// The out-of-core part of a report (`out_of_core` in `host apsp --json`).
#[derive(Clone, Debug, Serialize)]
pub struct OocReport {
    /// The device memory the solver was allowed (the limit, or what was free).
    pub budget_bytes: u64,
    #[serde(flatten)]
    pub times: OocTimes,
}

/// Solves `input` out of core on `gpu` with `plan` and writes the distances to `output`.
pub fn solve_graph_ooc(
    gpu: &Gpu,
    input: GraphFile,
    output: &Path,
    plan: Plan,
    budget_bytes: u64,
    verify: bool,
    io: IoOptions,
) -> Result<(FileReport, OocReport)> {
    if output == input.path {
        bail!("the output path {} is the input file", output.display());
    }
    let start = Instant::now();
    let GraphFile { graph, read_s, .. } = input;
    let v = graph.vertices;
    let mut rep = FileReport {
        vertices: v,
        edges: graph.edges.len(),
        block: Some(plan.block as u32),
        ..Default::default()
    };
    rep.split.read_s = read_s;
    rep.device = format!("{} (out of core)", gpu.info()?.name);
    let (sol, prepared) =
        compute_while_preparing(gpu.device, output, v, &io, || solve(gpu, &graph, plan))?;
    rep.prepare_s = prepared.prepare_s;
    rep.repeated_edges = sol.repeated_edges;
    rep.setup_s = sol.times.setup_s;
    rep.split.fill_s = sol.times.fill_s;
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
    Ok((
        rep,
        OocReport {
            budget_bytes,
            times,
        },
    ))
}
