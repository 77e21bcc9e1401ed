//! `host info`: each GPU's properties and the kernels of the PTX with their resources.
use anyhow::Result;
use clap::Args;
use gpu_kernels::registry::{Family, family_of};
use host::gpu::{DeviceInfo, Gpu, init_driver};
use serde::Serialize;

use super::{PtxArg, json};

#[derive(Args)]
pub struct InfoArgs {
    /// Print one JSON object (docs/json.md) instead of the text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub ptx: PtxArg,
}

/// One kernel of the PTX as the driver loaded it, with its family from the registry (none for a
/// `--ptx` file's kernel that the registry does not know).
#[derive(Serialize)]
struct KernelResources {
    name: String,
    family: Option<&'static str>,
    registers: i32,
    static_shared_bytes: i32,
}

pub fn run(args: &InfoArgs) -> Result<()> {
    init_driver()?;
    let count = cust::device::Device::num_devices()?;
    let mut devices = Vec::new();
    for ordinal in 0..count {
        devices.push(DeviceInfo::of(cust::device::Device::get_device(ordinal)?)?);
    }
    let gpu = Gpu::new(args.ptx.ptx.as_deref())?;
    let mut kernels = Vec::new();
    for name in &gpu.kernels {
        let f = gpu.function(name)?;
        kernels.push(KernelResources {
            name: name.clone(),
            family: family_of(name).map(Family::name),
            registers: f.get_attribute(cust::function::FunctionAttribute::NumRegisters)?,
            static_shared_bytes: f
                .get_attribute(cust::function::FunctionAttribute::SharedMemorySizeBytes)?,
        });
    }
    if args.json {
        let results = serde_json::json!({
            "gpus": devices,
            "ptx": gpu.ptx_source.to_string(),
            "kernels": kernels,
        });
        return json::print("info", gpu.info()?.device(count), results);
    }
    for (ordinal, info) in devices.iter().enumerate() {
        print_device(ordinal, info);
    }
    println!("\nPTX {} ({} kernels):", gpu.ptx_source, kernels.len());
    for k in &kernels {
        println!(
            "  {:<32} {:<12} {:>3} registers  {:>6} B static shared",
            k.name,
            k.family.unwrap_or("-"),
            k.registers,
            k.static_shared_bytes
        );
    }
    Ok(())
}

fn print_device(ordinal: usize, d: &DeviceInfo) {
    let kib = |b: u32| format!("{} KiB", b / 1024);
    println!("GPU {ordinal}: {}", d.name);
    println!(
        "  compute capability      {}.{}",
        d.compute_capability.0, d.compute_capability.1
    );
    println!("  multiprocessors         {}", d.multiprocessors);
    println!(
        "  memory                  {:.1} GiB",
        d.total_memory_bytes as f64 / (1u64 << 30) as f64
    );
    println!(
        "  shared memory / block   {} (opt-in {})",
        kib(d.shared_memory_per_block),
        kib(d.shared_memory_per_block_optin)
    );
    println!(
        "  shared memory / SM      {} (reserved {} B per block)",
        kib(d.shared_memory_per_sm),
        d.reserved_shared_memory_per_block
    );
    println!(
        "  registers / SM          {} ({} per block)",
        d.registers_per_sm, d.registers_per_block
    );
    println!(
        "  threads / block, / SM   {}, {}",
        d.max_threads_per_block, d.max_threads_per_sm
    );
    println!("  blocks / SM             {}", d.max_blocks_per_sm);
    println!(
        "  L2 cache                {:.0} MiB",
        d.l2_cache_bytes as f64 / (1u64 << 20) as f64
    );
    println!("  SM clock (max)          {} MHz", d.clock_mhz);
    println!("  driver (CUDA version)   {}", d.driver_version);
}
