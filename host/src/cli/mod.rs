//! One module per subcommand.
pub mod apsp;
pub mod apsp_peak;
pub mod bench;
pub mod info;
pub mod matmul;
pub mod occupancy;
pub mod report;
pub mod tune;

use std::path::PathBuf;

use clap::Args;

#[derive(Args, Clone)]
pub struct PtxArg {
    /// PTX file to load instead of the PTX built into the binary (also: GPU_KERNELS_PTX).
    #[arg(long, value_name = "FILE")]
    pub ptx: Option<PathBuf>,
}

/// A spinner for CPU work that takes a while (references, verification).
pub fn spinner(msg: &str) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}
