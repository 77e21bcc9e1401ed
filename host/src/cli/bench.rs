//! `host bench`: sweeps that write one JSON record per configuration (JSON Lines), for
//! `host report` to turn into tables and charts.
use std::{
    collections::HashMap,
    fs::OpenOptions,
    io::Write,
    path::{Path, PathBuf},
};

use anyhow::{Context as _, Result, bail};
use clap::{Args, Subcommand};
use gpu_kernels::registry::{self, Family};
use host::{
    apsp::{gpu as agpu, pipeline::solve_file},
    gpu::{Gpu, Timing},
    kernels::{OccupancyRow, occupancy_rows},
    matmul::{
        gpu::{self as mgpu, Problem},
        problem::check_shape,
    },
    reference::cublas::Cublas,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::{
    apsp::{format::write_graph, random},
    bench::{BenchRecord, now_utc},
    matmul::reference,
};

use super::{PtxArg, output::OutputFile, progress};

#[derive(Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub suite: Suite,
    /// Append the records (JSON Lines) to this file; they are also printed to stdout.
    #[arg(short, long, global = true, value_name = "FILE", alias = "out")]
    pub output: Option<PathBuf>,
    /// Seed of the random inputs (matrices, graphs); recorded in every record.
    #[arg(long, global = true, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub ptx: PtxArg,
}

#[derive(Subcommand)]
pub enum Suite {
    /// Every SGEMM kernel and cuBLAS over square sizes (GFLOP/s vs N).
    Matmul {
        /// Square sizes N, comma-separated.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "256,512,1000,1024,2048,3000,4096,5000,8192"
        )]
        sizes: Vec<usize>,
        /// Timed launches per kernel and size (after one warm-up); the median is recorded.
        #[arg(long, default_value_t = 10, value_parser = super::at_least_one::<usize>)]
        reps: usize,
        /// Kernel name, a family (`tiled`, `vectorized`, `flagship`, a rung's family) or `all`.
        #[arg(long, default_value = "all")]
        kernel: String,
    },
    /// The SGEMM shape suite (host/data/sgemm-shapes.txt): per problem the library's time with
    /// its default choice, cuBLAS's matching call's, the ratio; then the geometric mean.
    SgemmShapes {
        /// Another list of problems in the suite's format (`M N K OPS BATCH` per line).
        #[arg(long, value_name = "FILE")]
        suite: Option<PathBuf>,
        /// Timed calls per problem and side, the sides alternating (after one warm-up of
        /// each); the median is recorded.
        #[arg(long, default_value_t = 20, value_parser = super::at_least_one::<usize>)]
        reps: usize,
    },
    /// Whole APSP solves, file to file, per block factor (time split vs V).
    Apsp {
        /// Vertex counts V of the generated graphs, comma-separated.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "2000,5000,10000,20000,30000"
        )]
        sizes: Vec<usize>,
        /// Block factors of the Floyd–Warshall kernels, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "16,32,64")]
        blocks: Vec<u32>,
        /// Edges per vertex of the generated graphs.
        #[arg(long, default_value_t = 40)]
        edges_per_vertex: usize,
        /// Where the generated graphs and outputs go.
        #[arg(long, default_value = "/tmp")]
        dir: PathBuf,
    },
    /// Performance against threads per block and theoretical occupancy: the tiled SGEMM
    /// (TILE 8/16/32) and Floyd–Warshall phase 3 (B = 16/32/64).
    Threads {
        /// Square size N of the SGEMM runs.
        #[arg(long, default_value_t = 4096)]
        matmul_size: usize,
        /// Vertex count V of the graph for phase 3 (40 edges per vertex).
        #[arg(long, default_value_t = 8192)]
        apsp_size: usize,
        /// Timed launches per configuration (after one warm-up); the median is recorded.
        #[arg(long, default_value_t = 10, value_parser = super::at_least_one::<usize>)]
        reps: usize,
    },
}

struct Sink {
    file: Option<std::fs::File>,
    device: String,
    date: String,
    commit: String,
    seed: u64,
    records: usize,
}

impl Sink {
    fn emit(&mut self, mut r: BenchRecord) -> Result<()> {
        r.device.clone_from(&self.device);
        r.date.clone_from(&self.date);
        r.commit.clone_from(&self.commit);
        r.seed = Some(self.seed);
        self.emit_line(serde_json::to_string(&r)?)
    }

    /// Prints one finished JSON record and appends it to the file.
    fn emit_line(&mut self, line: String) -> Result<()> {
        println!("{line}");
        if let Some(f) = &mut self.file {
            writeln!(f, "{line}")?;
        }
        self.records += 1;
        Ok(())
    }
}

/// A record of one measurement, its kernel's family taken from the registry (none for cuBLAS and
/// whole APSP solves).
fn blank(
    suite: &str,
    kernel: &str,
    config: String,
    size: usize,
    threads: u32,
    t: &Timing,
) -> BenchRecord {
    BenchRecord {
        suite: suite.into(),
        kernel: kernel.into(),
        family: registry::family_of(kernel),
        config,
        size,
        threads_per_block: threads,
        registers: None,
        median_ms: t.median_ms,
        min_ms: t.min_ms,
        max_ms: t.max_ms,
        reps: t.reps,
        gflops: None,
        updates_per_s: None,
        occupancy: None,
        split: None,
        seed: None,
        device: String::new(),
        date: String::new(),
        commit: String::new(),
    }
}

/// Random n x n inputs from `seed` and the f64 reference of a few rows of their product: enough
/// to make sure no timing of a wrong result is recorded.
fn square_inputs(n: usize, seed: u64) -> (Vec<f32>, Vec<f32>, reference::Reference) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let a = reference::random_matrix(n, n, &mut rng);
    let b = reference::random_matrix(n, n, &mut rng);
    let re = reference::reference(&a, &b, n, n, n, Some(&reference::sample_rows(n, 8, seed)));
    (a, b, re)
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let out = args
        .output
        .as_deref()
        .map(|p| OutputFile::new(p, &[]))
        .transpose()?;
    if let Suite::SgemmShapes { suite, .. } = &args.suite {
        // A bad suite is bad input (exit 1) even where there is no GPU.
        super::bench_shapes::load(suite.as_deref())?;
    }
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let file = match &out {
        Some(o) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(o.path())
                .with_context(|| format!("cannot open {}", o.path().display()))?,
        ),
        None => None,
    };
    let mut sink = Sink {
        file,
        device: gpu.info()?.name,
        date: now_utc(),
        commit: super::json::commit(),
        seed: args.seed,
        records: 0,
    };
    let result = run_suite(args, &gpu, &mut sink);
    if let Some(o) = &out {
        o.appended(&format!("{} record(s)", sink.records));
    }
    result
}

fn run_suite(args: &BenchArgs, gpu: &Gpu, sink: &mut Sink) -> Result<()> {
    let occ = || -> Result<HashMap<&str, OccupancyRow>> {
        Ok(occupancy_rows(gpu)?
            .into_iter()
            .map(|r| (r.kernel, r))
            .collect())
    };
    match &args.suite {
        Suite::Matmul {
            sizes,
            reps,
            kernel,
        } => bench_matmul(gpu, sink, &occ()?, sizes, *reps, kernel),
        Suite::Apsp {
            sizes,
            blocks,
            edges_per_vertex,
            dir,
        } => bench_apsp(gpu, sink, &occ()?, sizes, blocks, *edges_per_vertex, dir),
        Suite::Threads {
            matmul_size,
            apsp_size,
            reps,
        } => bench_threads(gpu, sink, &occ()?, *matmul_size, *apsp_size, *reps),
        Suite::SgemmShapes { suite, reps } => {
            let shapes = super::bench_shapes::load(suite.as_deref())?;
            let (device, date, commit) =
                (sink.device.clone(), sink.date.clone(), sink.commit.clone());
            super::bench_shapes::run(
                gpu,
                &shapes,
                *reps,
                args.seed,
                (&device, &date, &commit),
                &mut |line| sink.emit_line(line),
            )
        }
    }
}

fn bench_matmul(
    gpu: &Gpu,
    sink: &mut Sink,
    occ: &HashMap<&str, OccupancyRow>,
    sizes: &[usize],
    reps: usize,
    which: &str,
) -> Result<()> {
    let seed = sink.seed;
    let kernels: Vec<_> = mgpu::kernels()
        .into_iter()
        // "all" leaves out the skinny kernels, which square problems only exercise slowly.
        .filter(|k| {
            (which == "all" && !k.family.is_skinny()) || k.family.name() == which || k.name == which
        })
        .collect();
    if kernels.is_empty() {
        bail!("no kernel matches {which:?}");
    }
    let cublas = Cublas::load(gpu)
        .map_err(|e| eprintln!("note: no cuBLAS: {e:#}"))
        .ok();
    let pb = progress::bar((sizes.len() * (kernels.len() + 1)) as u64);
    for &n in sizes {
        check_shape(n, n, n)?;
        let (a, b, re) = square_inputs(n, seed ^ n as u64);
        let p = Problem {
            a: &a,
            b: &b,
            m: n,
            n,
            k: n,
        };
        let flops = 2.0 * (n as f64).powi(3);
        if let Some(c) = &cublas {
            pb.set_message(format!("N={n} cuBLAS"));
            let r = c.run(gpu, &p, reps)?;
            let check = reference::check(&r.c, &re);
            if !check.passed() {
                bail!("cuBLAS failed the check at N={n}: {check:?}");
            }
            let mut rec = blank(
                "matmul",
                "cublas_sgemm",
                "cuBLAS FP32 (no TF32)".into(),
                n,
                0,
                &r.timing,
            );
            rec.gflops = Some(flops / (r.timing.median_ms * 1e-3) / 1e9);
            sink.emit(rec)?;
        }
        pb.inc(1);
        for k in &kernels {
            pb.set_message(format!("N={n} {}", k.name));
            let r = mgpu::run(gpu, k, &p, reps)?;
            let check = reference::check(&r.c, &re);
            if !check.passed() {
                bail!("{} failed the check at N={n}: {check:?}", k.name);
            }
            let config = format!(
                "tile {}x{}x{}, block {}x{}",
                k.tile.0, k.tile.1, k.tile.2, k.block.0, k.block.1
            );
            let mut rec = blank(
                "matmul",
                k.name,
                config,
                n,
                k.block.0 * k.block.1,
                &r.timing,
            );
            rec.gflops = Some(flops / (r.timing.median_ms * 1e-3) / 1e9);
            rec.occupancy = occ.get(k.name).map(|o| o.occupancy);
            rec.registers = occ.get(k.name).map(|o| o.registers);
            sink.emit(rec)?;
            pb.inc(1);
        }
    }
    pb.finish_and_clear();
    Ok(())
}

fn bench_apsp(
    gpu: &Gpu,
    sink: &mut Sink,
    occ: &HashMap<&str, OccupancyRow>,
    sizes: &[usize],
    blocks: &[u32],
    epv: usize,
    dir: &Path,
) -> Result<()> {
    let seed = sink.seed;
    for &b in blocks {
        agpu::config(b)?;
    }
    let pb = progress::bar((sizes.len() * blocks.len()) as u64);
    for &v in sizes {
        let input = dir.join(format!("bench_apsp_{v}.in"));
        let output = dir.join(format!("bench_apsp_{v}.out"));
        pb.set_message(format!("V={v}: generating"));
        write_graph(&input, &random::generate(v, epv * v, seed)?)?;
        for &b in blocks {
            pb.set_message(format!("V={v} block {b}"));
            let rep = solve_file(Some(gpu), &input, &output, b, true)?;
            let cfg = agpu::config(b)?;
            let t = Timing {
                median_ms: rep.split.compute_s * 1e3,
                min_ms: rep.split.compute_s * 1e3,
                max_ms: rep.split.compute_s * 1e3,
                reps: 1,
            };
            let mut rec = blank(
                "apsp",
                &format!("fw_b{b}"),
                format!("block {b}, {0}x{0} threads", cfg.phase3_threads),
                v,
                cfg.phase3_block_threads(),
                &t,
            );
            rec.updates_per_s = Some(rep.updates_per_s);
            rec.split = Some(rep.split);
            rec.occupancy = occ.get(cfg.phase3).map(|o| o.occupancy);
            rec.registers = occ.get(cfg.phase3).map(|o| o.registers);
            sink.emit(rec)?;
            pb.inc(1);
        }
        let _ = std::fs::remove_file(&output);
        let _ = std::fs::remove_file(&input);
    }
    pb.finish_and_clear();
    Ok(())
}

fn bench_threads(
    gpu: &Gpu,
    sink: &mut Sink,
    occ: &HashMap<&str, OccupancyRow>,
    n: usize,
    v: usize,
    reps: usize,
) -> Result<()> {
    let seed = sink.seed;
    let tiled: Vec<_> = mgpu::kernels()
        .into_iter()
        .filter(|k| k.family == Family::Tiled)
        .collect();
    let pb = progress::bar((tiled.len() + gpu_kernels::apsp::FW_CONFIGS.len()) as u64);
    pb.set_message(format!("N={n}: inputs and f64 reference"));
    let (a, b, re) = square_inputs(n, seed);
    let p = Problem {
        a: &a,
        b: &b,
        m: n,
        n,
        k: n,
    };
    for k in &tiled {
        pb.set_message(format!("N={n} {}", k.name));
        let r = mgpu::run(gpu, k, &p, reps)?;
        if !reference::check(&r.c, &re).passed() {
            bail!("{} failed the check", k.name);
        }
        let threads = k.block.0 * k.block.1;
        let mut rec = blank(
            "threads",
            k.name,
            format!("tile {0}, {1} threads", k.tile.0, threads),
            n,
            threads,
            &r.timing,
        );
        rec.gflops = Some(2.0 * (n as f64).powi(3) / (r.timing.median_ms * 1e-3) / 1e9);
        rec.occupancy = occ.get(k.name).map(|o| o.occupancy);
        rec.registers = occ.get(k.name).map(|o| o.registers);
        sink.emit(rec)?;
        pb.inc(1);
    }
    let graph = random::generate(v, 40 * v, seed)?;
    for cfg in gpu_kernels::apsp::FW_CONFIGS {
        pb.set_message(format!("V={v} {}", cfg.phase3));
        let (t, updates) = agpu::time_phase3(gpu, &graph, cfg.block, reps)?;
        let threads = cfg.phase3_block_threads();
        let mut rec = blank(
            "threads",
            cfg.phase3,
            format!("block {}, {threads} threads", cfg.block),
            v,
            threads,
            &t,
        );
        rec.updates_per_s = Some(updates / (t.median_ms * 1e-3));
        rec.occupancy = occ.get(cfg.phase3).map(|o| o.occupancy);
        rec.registers = occ.get(cfg.phase3).map(|o| o.registers);
        sink.emit(rec)?;
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_take_the_family_from_the_registry() {
        let t = Timing {
            median_ms: 1.0,
            min_ms: 1.0,
            max_ms: 1.0,
            reps: 1,
        };
        for k in registry::KERNELS {
            let r = blank("matmul", k.name, String::new(), 1, k.threads(), &t);
            assert_eq!(r.family, Some(k.family), "{}", k.name);
        }
        assert_eq!(
            blank("matmul", "cublas_sgemm", String::new(), 1, 0, &t).family,
            None
        );
        assert_eq!(
            blank("apsp", "fw_b64", String::new(), 1, 0, &t).family,
            None
        );
    }
}
