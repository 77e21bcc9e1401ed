//! One module per subcommand.
pub mod apsp;
pub mod apsp_peak;
pub mod bench;
pub mod info;
pub mod matmul;
pub mod occupancy;
pub mod report;

/// A spinner for CPU work that takes a while (references, verification).
pub fn spinner(msg: &str) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new_spinner();
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}
