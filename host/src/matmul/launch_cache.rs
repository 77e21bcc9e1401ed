//! What a launch asks the driver about its kernel, asked once per GPU: a kernel's dynamic
//! shared memory allowance (`cuFuncSetAttribute`, which stays set on the function handle the
//! module returns every time), its blocks per multiprocessor (`cuOccupancy…`, for stream-K and
//! the route model) and the multiprocessor count. The timed library calls of small problems
//! (333x555x777 takes about 30 µs) run their host side before the GPU starts, so every driver
//! query a launch repeats is time the caller waits (issue #20).
use std::{cell::RefCell, collections::HashMap};

use anyhow::{Context as _, Result};
use cust::function::{BlockSize, Function};

use crate::gpu::Gpu;

/// Per GPU: each kernel prepared so far with its blocks per multiprocessor, and the
/// multiprocessor count.
#[derive(Default)]
struct Known {
    kernels: HashMap<&'static str, u32>,
    sms: Option<u32>,
}

type KnownCell = RefCell<Known>;

/// The kernel `name` (launched with `threads` threads and `shared` bytes of dynamic shared
/// memory, always the same for one name) allowed its shared memory, and how many of its blocks
/// one multiprocessor holds (at least 1).
pub fn kernel<'g>(
    gpu: &'g Gpu,
    name: &'static str,
    threads: u32,
    shared: u32,
) -> Result<(Function<'g>, u32)> {
    let cell = gpu.runner_state::<KnownCell>();
    if let Some(&per_sm) = cell.borrow().kernels.get(name) {
        return Ok((gpu.function(name)?, per_sm));
    }
    let func = gpu.function_with_shared(name, shared)?;
    let per_sm = func
        .max_active_blocks_per_multiprocessor(BlockSize::x(threads), shared as usize)
        .with_context(|| format!("reading {name}'s occupancy"))?
        .max(1);
    cell.borrow_mut().kernels.insert(name, per_sm);
    Ok((func, per_sm))
}

/// The GPU's multiprocessors (read once).
pub fn multiprocessors(gpu: &Gpu) -> Result<u32> {
    let cell = gpu.runner_state::<KnownCell>();
    if let Some(s) = cell.borrow().sms {
        return Ok(s);
    }
    let s = gpu.multiprocessors()?;
    cell.borrow_mut().sms = Some(s);
    Ok(s)
}
