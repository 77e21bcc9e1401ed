//! `host apsp G -o D --distributed` (or with `WORLD_SIZE` set): this process is one rank of a
//! job started by a launcher (`scripts/apsp-launch.sh`, torchrun, mpirun, srun), one GPU per
//! rank (`host::apsp::dist`). Rank 0 prints the report; the others print nothing.
use std::time::Instant;

use anyhow::Result;
use host::{
    apsp::{dist::run_rank, input::GraphFile},
    gpu::Gpu,
};
use rgk_core::ranks::Ranks;

use super::{apsp_args::ApspArgs, json, output::OutputFile};

/// This process's ranks when it runs distributed: asked for with `--distributed`, or implied
/// by `WORLD_SIZE` (torchrun's variable). One sentence when asked for without a launcher.
pub fn ranks(args: &ApspArgs) -> Result<Option<Ranks>> {
    let implied = std::env::var_os("WORLD_SIZE").is_some();
    if !(args.distributed || implied) {
        return Ok(None);
    }
    match Ranks::from_env()? {
        Some(r) => Ok(Some(r)),
        None => rgk_core::bad_input(
            "--distributed needs a launcher's variables (RANK and WORLD_SIZE, \
             OMPI_COMM_WORLD_*, or SLURM_*): start the ranks with scripts/apsp-launch.sh, \
             torchrun, mpirun or srun",
        ),
    }
}

/// Runs this rank.
pub fn run(args: &ApspArgs, ranks: &Ranks, input: GraphFile, out: &OutputFile) -> Result<()> {
    if args.cpu || args.stats.is_some() || args.device_memory_limit.is_some() {
        return rgk_core::bad_input(
            "a distributed run solves on the GPUs of its ranks in core: leave out --cpu, \
             --stats and --device-memory-limit",
        );
    }
    let start = Instant::now();
    let gpu = Gpu::on_device(ranks.local_rank as u32, args.ptx.ptx.as_deref())?;
    let device = gpu.info()?.device(ranks.world_size as u32);
    let v = input.graph.vertices;
    let rep = run_rank(ranks, &gpu, &input.graph, out.path(), args.block)?;
    if ranks.rank != 0 {
        return Ok(());
    }
    let total_s = input.read_s + start.elapsed().as_secs_f64();
    let updates_per_s = (v as f64).powi(3) / rep.compute_s.max(1e-12);
    out.wrote(&format!("{v} x {v} distances"));
    if args.json {
        let value = serde_json::json!({
            "vertices": v,
            "edges": input.graph.edges.len(),
            "ranks": ranks.world_size,
            "launcher": format!("{:?}", ranks.launcher),
            "rank0": rep,
            "read_s": input.read_s,
            "total_s": total_s,
            "updates_per_s": updates_per_s,
            "output": out.path().display().to_string(),
        });
        return json::print("apsp", device, value);
    }
    println!(
        "APSP V={v} E={} on {} ranks ({:?} variables), block {}",
        input.graph.edges.len(),
        ranks.world_size,
        ranks.launcher,
        args.block
    );
    for (what, secs) in [
        ("read", input.read_s),
        ("rendezvous, NCCL", rep.setup_s),
        ("fill matrix", rep.fill_s),
        ("compute", rep.compute_s),
        ("write (rank 0)", rep.write_s),
        ("total (file to file)", total_s),
    ] {
        println!("  {what:<22} {secs:>10.4} s");
    }
    println!(
        "  {:<22} {:>10.3e} updates/s (V^3 / compute)",
        "rate", updates_per_s
    );
    Ok(())
}
