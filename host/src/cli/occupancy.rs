use anyhow::{Result, bail};
use clap::Args;
use host::{gpu::Gpu, kernels::occupancy_rows};

use super::PtxArg;

#[derive(Args)]
pub struct OccupancyArgs {
    /// Print one JSON object (docs/json.md) instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

pub fn run(args: &OccupancyArgs) -> Result<()> {
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let info = gpu.info()?;
    let rows = occupancy_rows(&gpu)?;
    if args.json {
        // The full device properties the calculator used travel with the rows.
        super::json::print(
            "occupancy",
            info.device(1),
            serde_json::json!({ "device_properties": info, "kernels": rows }),
        )?;
    } else {
        println!(
            "{} (CC {}.{}), theoretical occupancy per kernel; `driver` is cuOccupancyMaxActiveBlocksPerMultiprocessor",
            info.name, info.compute_capability.0, info.compute_capability.1
        );
        println!(
            "{:<30} {:>7} {:>5} {:>9} {:>8} {:>7} {:>6}  limited by",
            "kernel", "threads", "regs", "smem (B)", "blocks", "driver", "occ"
        );
        for r in &rows {
            println!(
                "{:<30} {:>7} {:>5} {:>9} {:>8} {:>7} {:>5.0}%  {}{}",
                r.kernel,
                r.threads,
                r.registers,
                r.static_shared_bytes,
                r.blocks_per_sm,
                r.driver_blocks_per_sm,
                100.0 * r.occupancy,
                r.limiter,
                if r.matches_driver() { "" } else { "  MISMATCH" }
            );
        }
    }
    let bad: Vec<_> = rows
        .iter()
        .filter(|r| !r.matches_driver())
        .map(|r| r.kernel)
        .collect();
    if !bad.is_empty() {
        bail!(
            "the calculator disagrees with the driver for: {}",
            bad.join(", ")
        );
    }
    Ok(())
}
