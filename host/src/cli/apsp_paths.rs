//! `host apsp G --paths P` (distances and a path matrix, docs/apsp.md "Paths") and `host path P
//! U V` (the vertices of one shortest path, read from the path file).
use std::{os::unix::fs::FileExt, path::PathBuf, time::Instant};

use anyhow::{Context as _, Result};
use clap::Args;
use host::apsp::{
    input::GraphFile,
    multi::{self, MultiGpu},
    paths::{self as gpaths, ensure_paths_fit, paths_config, solve_paths_on_device},
    rows::DeviceRows,
    stream::{IoMode, IoOptions, OutputFile as StreamFile},
};
use rgk_core::apsp::{
    Distances,
    format::{DISTANCE_BYTES, Graph, output_len, row_bytes, write_distances},
    paths::{
        PathKind, PathMatrix, check_paths,
        cpu::solve_paths,
        file::{PathFile, write_path_matrix},
    },
};
use serde::Serialize;

use super::{apsp_args::ApspArgs, json, output::OutputFile, progress};

/// Rows of the path matrix per write: 16 MiB at V = 30000.
const PATH_CHUNK_BYTES: usize = 16 << 20;
/// Largest V whose paths `--verify` checks in full (the whole matrices on the host).
const VERIFY_PATHS_MAX_V: usize = 4000;

#[derive(Serialize)]
struct PathsReport {
    vertices: usize,
    edges: usize,
    kind: &'static str,
    device: String,
    block: Option<u32>,
    compute_s: f64,
    fill_s: f64,
    write_distances_s: f64,
    write_paths_s: f64,
    total_s: f64,
    verified: Option<String>,
}

/// `host apsp` with `--paths FILE` (one GPU, `--gpus N` or `--cpu`); `out` is the distance file.
pub fn run(args: &ApspArgs, out: &OutputFile, paths: &OutputFile) -> Result<()> {
    let start = Instant::now();
    let kind: PathKind = args.path_kind.into();
    if !args.cpu {
        paths_config(args.block)?;
    }
    let input = GraphFile::read(&args.input)?;
    let g = &input.graph;
    let v = g.vertices;
    let mut rep = PathsReport {
        vertices: v,
        edges: g.edges.len(),
        kind: kind.name(),
        device: String::new(),
        block: None,
        compute_s: 0.0,
        fill_s: 0.0,
        write_distances_s: 0.0,
        write_paths_s: 0.0,
        total_s: 0.0,
        verified: None,
    };
    let device;
    if args.cpu {
        device = json::cpu_device();
        rep.device = format!("CPU ({} threads)", rayon::current_num_threads());
        let pb = progress::spinner("solving");
        let t = Instant::now();
        let (dist, m) = solve_paths(g, kind)?;
        rep.compute_s = t.elapsed().as_secs_f64();
        pb.finish_and_clear();
        if args.verify {
            rep.verified = Some(verify(g, &dist, &m)?);
        }
        let t = Instant::now();
        write_distances(out.path(), dist.as_slice(), v, v)?;
        rep.write_distances_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        write_path_matrix(paths.path(), &m)?;
        rep.write_paths_s = t.elapsed().as_secs_f64();
    } else {
        ensure_paths_fit(g)?;
        let gpus = MultiGpu::open(args.gpus, args.ptx.ptx.as_deref())?;
        let gpu = &gpus.gpus[0];
        device = gpu.info()?.device(gpus.len() as u32);
        rep.device = match gpus.len() {
            1 => gpu.info()?.name,
            n => format!("{n} x {}", gpu.info()?.name),
        };
        rep.block = Some(args.block);
        let pb = progress::spinner("solving");
        if gpus.len() == 1 {
            let solved = solve_paths_on_device(gpu, g, args.block, kind);
            pb.finish_and_clear();
            let (sol, _) = solved?;
            let times = sol.distances.times;
            (rep.compute_s, rep.fill_s) = (times.compute_s, times.fill_s);
            write_gpu(
                args,
                g,
                kind,
                (&sol.distances, &sol.paths),
                (out, paths),
                &mut rep,
            )?;
        } else {
            let sol = multi::solve_paths(&gpus, g, args.block, kind);
            pb.finish_and_clear();
            let sol = sol?;
            (rep.compute_s, rep.fill_s) = (sol.times.compute_s, sol.times.fill_s);
            let rows = sol.paths().expect("solved with paths");
            write_gpu(args, g, kind, (&sol, &rows), (out, paths), &mut rep)?;
        }
    }
    rep.total_s = start.elapsed().as_secs_f64();
    out.wrote(&format!("{v} x {v} distances"));
    paths.wrote(&format!("{v} x {v} {}", kind.name()));
    if args.json {
        return json::print("apsp", device, &rep);
    }
    let block = rep.block.map_or(String::new(), |b| format!(", block {b}"));
    println!(
        "APSP with paths ({}) V={} E={} on {}{block}",
        rep.kind, v, rep.edges, rep.device
    );
    for (what, s) in [
        ("fill matrix", rep.fill_s),
        ("compute", rep.compute_s),
        ("write distances", rep.write_distances_s),
        ("write paths", rep.write_paths_s),
        ("total (file to file)", rep.total_s),
    ] {
        println!("  {what:<22} {s:>10.4} s");
    }
    if let Some(v) = &rep.verified {
        println!("  verified: {v}");
    }
    Ok(())
}

/// `--verify` and the two files of a GPU solve: the distances and the path matrix, each read
/// by rows from the GPU(s).
fn write_gpu(
    args: &ApspArgs,
    g: &Graph,
    kind: PathKind,
    (dist, path_rows): (&dyn DeviceRows, &dyn DeviceRows),
    (out, paths): (&OutputFile, &OutputFile),
    rep: &mut PathsReport,
) -> Result<()> {
    let v = g.vertices;
    if args.verify && v <= VERIFY_PATHS_MAX_V {
        let (mut d, mut p) = (vec![0i32; v * v], vec![0i32; v * v]);
        if v > 0 {
            dist.copy_rows(0, &mut d)?;
            path_rows.copy_rows(0, &mut p)?;
        }
        let m = PathMatrix {
            kind,
            vertices: v,
            cells: p,
        };
        rep.verified = Some(verify(g, &Distances::from_pitched(v, v, &d), &m)?);
    } else if args.verify {
        rep.verified = Some(format!(
            "not checked: paths are verified up to V = {VERIFY_PATHS_MAX_V}"
        ));
    }
    let t = Instant::now();
    let io = IoOptions {
        mode: IoMode::Buffered,
        writers: args.write_threads,
        chunk_mib: args.chunk_mib as usize,
        prefault: false,
    };
    let file = StreamFile::create(out.path(), output_len(v), io.mode)?;
    let staging = rgk_core::memory::zeroed_vecs(
        "the output's staging buffers",
        io.staging_count(),
        io.staging_len(v),
    )?;
    file.write_rows(dist, staging, &io)?;
    file.persist()?;
    rep.write_distances_s = t.elapsed().as_secs_f64();
    let rows = (PATH_CHUNK_BYTES / (DISTANCE_BYTES * v.max(1))).max(1);
    rep.write_paths_s = gpaths::write_path_file(paths.path(), kind, path_rows, rows)?;
    Ok(())
}

/// Distances against the CPU reference, every path against the graph.
fn verify(g: &Graph, d: &Distances, m: &PathMatrix) -> Result<String> {
    let v = g.vertices;
    if v > VERIFY_PATHS_MAX_V {
        return Ok(format!(
            "not checked: paths are verified up to V = {VERIFY_PATHS_MAX_V}"
        ));
    }
    let (want, _) = rgk_core::apsp::cpu::solve(g)?;
    anyhow::ensure!(
        d.as_slice() == &want[..],
        "the distances differ from the CPU Floyd–Warshall"
    );
    check_paths(g, m, 0..v, |i, j| want[i * v + j])?;
    Ok(format!(
        "distances equal to the CPU Floyd–Warshall, all {} paths valid",
        v * v
    ))
}

#[derive(Args)]
pub struct PathArgs {
    /// Path file written by `host apsp --paths`.
    pub paths: PathBuf,
    /// Source vertex (0..V).
    pub source: String,
    /// Target vertex (0..V).
    pub target: String,
    /// Distance file of the same solve (`host apsp -o`): prints the path's length from it.
    #[arg(long, value_name = "FILE")]
    pub distances: Option<PathBuf>,
    /// Print one JSON object (docs/json.md) instead of the line.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct PathAnswer {
    source: usize,
    target: usize,
    /// The vertices from source to target; `null` when there is no path.
    vertices: Option<Vec<u32>>,
    hops: Option<usize>,
    /// From `--distances`.
    length: Option<i32>,
}

/// `host path P U V`.
pub fn run_path(args: &PathArgs) -> Result<()> {
    let file = PathFile::open(&args.paths)?;
    let vertex = |what: &str, s: &str| -> Result<usize> {
        match s.trim().parse::<usize>() {
            Ok(x) => Ok(x),
            Err(_) => rgk_core::bad_input(format!(
                "the {what} {s:?} is not a vertex: give a number in 0..{}",
                file.vertices
            )),
        }
    };
    let (u, v) = (
        vertex("source", &args.source)?,
        vertex("target", &args.target)?,
    );
    let vertices = file.path(u, v)?;
    let length = match &args.distances {
        Some(d) => Some(distance(d, file.vertices, u, v)?),
        None => None,
    };
    let hops = vertices.as_ref().map(|p| p.len() - 1);
    if args.json {
        let answer = PathAnswer {
            source: u,
            target: v,
            vertices,
            hops,
            length,
        };
        return json::print("path", json::cpu_device(), &answer);
    }
    match &vertices {
        None => println!("no path from {u} to {v}"),
        Some(p) => {
            let list: Vec<String> = p.iter().map(u32::to_string).collect();
            let len = length.map_or(String::new(), |l| format!(", length {l}"));
            println!("{} ({} hops{len})", list.join(" "), p.len() - 1);
        }
    }
    Ok(())
}

/// Cell (u, v) of a distance file of V vertices, one positioned read.
fn distance(path: &std::path::Path, v: usize, i: usize, j: usize) -> Result<i32> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = f.metadata()?.len();
    if len != output_len(v) {
        return rgk_core::bad_input(format!(
            "{} has {len} bytes, not the {} of a distance file of V = {v}",
            path.display(),
            output_len(v)
        ));
    }
    let mut b = [0u8; 4];
    f.read_exact_at(
        &mut b,
        i as u64 * row_bytes(v) + (DISTANCE_BYTES * j) as u64,
    )?;
    Ok(i32::from_le_bytes(b))
}
