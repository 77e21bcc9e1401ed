//! `--json`: every subcommand prints one [`Envelope`] (docs/json.md) through [`print`].
use anyhow::Result;
use rgk_core::envelope::{Device, Envelope};
use serde::Serialize;

/// The source revision of this binary (see host/build/commit.rs; `GPU_KERNELS_COMMIT` at run
/// time overrides it).
pub fn commit() -> String {
    rgk_core::envelope::commit(host::BUILD_COMMIT)
}

/// This machine's CPU as the `device` of CPU-only commands: the threads rayon uses.
pub fn cpu_device() -> Device {
    Device::cpu(rayon::current_num_threads())
}

/// Prints the envelope of `results` for `command` (its name on the command line) on stdout.
pub fn print(command: &str, device: Device, results: impl Serialize) -> Result<()> {
    let envelope = Envelope::new(command, device, &commit(), results);
    println!("{}", serde_json::to_string_pretty(&envelope)?);
    Ok(())
}
