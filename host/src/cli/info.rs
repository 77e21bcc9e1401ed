use anyhow::Result;
use host::gpu::{DeviceInfo, Gpu, init_driver};

use super::PtxArg;

pub fn run(args: &PtxArg) -> Result<()> {
    init_driver()?;
    let count = cust::device::Device::num_devices()?;
    for ordinal in 0..count {
        let info = DeviceInfo::of(cust::device::Device::get_device(ordinal)?)?;
        print_device(ordinal, &info);
    }
    let gpu = Gpu::new(args.ptx.as_deref())?;
    println!("\nPTX {} ({} kernels):", gpu.ptx_source, gpu.kernels.len());
    for name in &gpu.kernels {
        let f = gpu.module.get_function(name)?;
        let regs = f.get_attribute(cust::function::FunctionAttribute::NumRegisters)?;
        let smem = f.get_attribute(cust::function::FunctionAttribute::SharedMemorySizeBytes)?;
        println!("  {name:<32} {regs:>3} registers  {smem:>6} B static shared");
    }
    Ok(())
}

fn print_device(ordinal: u32, d: &DeviceInfo) {
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
