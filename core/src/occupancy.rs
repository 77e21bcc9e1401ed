//! Theoretical occupancy: how many blocks of a kernel fit on one SM, and which
//! resource stops the next one.
//!
//! The arithmetic follows NVIDIA's own calculator, `cuda_occupancy.h`
//! (`cudaOccMaxActiveBlocksPerMultiprocessor`), which is what the driver's
//! `cuOccupancyMaxActiveBlocksPerMultiprocessor` agrees with. Where that header
//! and the spreadsheet-style description differ, the header wins:
//!
//! * Registers are split evenly over the SM's scheduler sub-partitions (4, or 2
//!   on CC 6.0) and a warp lives in one of them, so the warps that fit are
//!   `floor(regs_per_sm / sub_partitions / regs_per_warp) * sub_partitions`,
//!   not `floor(regs_per_sm / regs_per_warp)`. The two differ when a
//!   sub-partition's share is not a multiple of the per-warp allocation, e.g.
//!   40 registers/thread: 48 warps, not 51.
//! * The launch-time register check rounds the block's warps up to a multiple
//!   of 4 ("the hardware check"): 25 warps x 80 registers fits 65536 on paper
//!   but is refused because 28 x 2560 does not.
//! * On CC >= 8.0 the 1 KB the driver reserves per block is always added, even
//!   when the kernel uses no shared memory (the header adds it unconditionally).
//!   It then never limits in practice (228 KB / 1 KB = 228 blocks > 32).
//! * The SM's shared memory is taken at the largest carveout, which is what
//!   the driver assumes for the default carveout preference.
//!
//! Not modelled: the Hopper per-SM barrier pool (a kernel using many named
//! barriers gets `2 * max_blocks_per_sm / barriers` blocks), partitioned global
//! caching on CC 5.2/6.1 (off unless the kernel is built with `-dlcm=ca` and
//! opts in), carveout preferences below the maximum, and thread-block clusters.
//! Dynamic shared memory above 48 KB needs the kernel's
//! `MAX_DYNAMIC_SHARED_SIZE_BYTES` attribute raised before the driver agrees.

use std::fmt;

mod limits;

pub use limits::SmLimits;

/// Warps are rounded up to this multiple for the launch-time register check
/// (`cuda_occupancy.h`: "the verification logic assumes register allocations
/// are made to all partitions simultaneously"; CC 6.0 is checked as if it had
/// 4 sub-partitions too).
const REGISTER_CHECK_WARP_MULTIPLE: u32 = 4;

/// What one launch of a kernel asks of an SM.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct KernelResources {
    pub threads_per_block: u32,
    pub registers_per_thread: u32,
    pub static_shared_bytes: u32,
    pub dynamic_shared_bytes: u32,
}

/// The resource that gives the smallest block count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Limiter {
    Warps,
    Blocks,
    Registers,
    SharedMemory,
}

impl Limiter {
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::Warps => "warps per SM",
            Limiter::Blocks => "blocks per SM",
            Limiter::Registers => "registers",
            Limiter::SharedMemory => "shared memory",
        }
    }
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Theoretical occupancy of one SM. A `blocks_by_*` of `u32::MAX` means that
/// resource sets no limit (no registers, or no shared memory before CC 8.0).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Occupancy {
    pub blocks_per_sm: u32,
    pub warps_per_block: u32,
    pub active_warps: u32,
    pub max_warps: u32,
    /// `active_warps / max_warps`.
    pub occupancy: f64,
    /// Ties are reported in the order Registers, SharedMemory, Warps, Blocks.
    pub limiter: Limiter,
    pub blocks_by_warps: u32,
    pub blocks_by_blocks: u32,
    pub blocks_by_registers: u32,
    pub blocks_by_shared: u32,
}

fn round_up(x: u64, unit: u64) -> u64 {
    x.div_ceil(unit) * unit
}

fn clamp_u32(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

/// Blocks of `k` resident on one SM with `limits`, or why none can launch.
pub fn occupancy(limits: &SmLimits, k: &KernelResources) -> Result<Occupancy, String> {
    let l = limits;
    if l.warp_size == 0
        || l.register_allocation_unit == 0
        || l.shared_memory_allocation_unit == 0
        || l.max_warps_per_sm == 0
    {
        return Err(format!(
            "The limits for compute capability {}.{} are invalid: warp size, allocation units and warps per SM must be non-zero.",
            l.compute_capability.0, l.compute_capability.1
        ));
    }
    if k.threads_per_block == 0 {
        return Err("A block of 0 threads cannot be launched.".to_string());
    }
    if k.threads_per_block > l.max_threads_per_block {
        return Err(format!(
            "A block of {} threads exceeds the maximum of {} threads per block.",
            k.threads_per_block, l.max_threads_per_block
        ));
    }
    if k.registers_per_thread > l.max_registers_per_thread {
        return Err(format!(
            "{} registers per thread exceeds the maximum of {}.",
            k.registers_per_thread, l.max_registers_per_thread
        ));
    }

    let warps_per_block = k.threads_per_block.div_ceil(l.warp_size);
    let wpb = u64::from(warps_per_block);

    let regs_per_warp = round_up(
        u64::from(k.registers_per_thread) * u64::from(l.warp_size),
        u64::from(l.register_allocation_unit),
    );
    // Both the allocation itself and the hardware's rounded-up view of it must fit.
    let regs_allocated = regs_per_warp * wpb;
    let regs_checked = regs_per_warp * round_up(wpb, u64::from(REGISTER_CHECK_WARP_MULTIPLE));
    if regs_checked > u64::from(l.max_registers_per_block) {
        let rounding = if regs_allocated == regs_checked {
            String::new()
        } else {
            format!(
                ", counted for {} warps: the launch check rounds warps up to a multiple of {}",
                round_up(wpb, u64::from(REGISTER_CHECK_WARP_MULTIPLE)),
                REGISTER_CHECK_WARP_MULTIPLE
            )
        };
        return Err(format!(
            "{} threads x {} registers needs {} registers per block ({} per warp after rounding to {}{}), more than the maximum of {}.",
            k.threads_per_block,
            k.registers_per_thread,
            regs_checked,
            regs_per_warp,
            l.register_allocation_unit,
            rounding,
            l.max_registers_per_block
        ));
    }

    let requested_shared = u64::from(k.static_shared_bytes)
        + u64::from(k.dynamic_shared_bytes)
        + u64::from(l.reserved_shared_memory_per_block);
    let shared_per_block = round_up(requested_shared, u64::from(l.shared_memory_allocation_unit));
    let shared_limit =
        u64::from(l.max_shared_memory_per_block) + u64::from(l.reserved_shared_memory_per_block);
    if shared_per_block > shared_limit {
        return Err(format!(
            "{} B static + {} B dynamic + {} B reserved shared memory, rounded up to a multiple of {} B, is {} B per block, more than the maximum of {} B ({} B opt-in + {} B reserved).",
            k.static_shared_bytes,
            k.dynamic_shared_bytes,
            l.reserved_shared_memory_per_block,
            l.shared_memory_allocation_unit,
            shared_per_block,
            shared_limit,
            l.max_shared_memory_per_block,
            l.reserved_shared_memory_per_block
        ));
    }

    let blocks_by_warps = l.max_warps_per_sm / warps_per_block;
    let blocks_by_blocks = l.max_blocks_per_sm;
    // A zero divisor means the kernel uses none of that resource.
    let parts = u64::from(l.register_sub_partitions());
    let blocks_by_registers = (u64::from(l.registers_per_sm) / parts)
        .checked_div(regs_per_warp)
        .map_or(u32::MAX, |warps_per_part| {
            clamp_u32(warps_per_part * parts / wpb)
        });
    let blocks_by_shared = u64::from(l.shared_memory_per_sm)
        .checked_div(shared_per_block)
        .map_or(u32::MAX, clamp_u32);

    let candidates = [
        (Limiter::Registers, blocks_by_registers),
        (Limiter::SharedMemory, blocks_by_shared),
        (Limiter::Warps, blocks_by_warps),
        (Limiter::Blocks, blocks_by_blocks),
    ];
    let (limiter, blocks_per_sm) = candidates
        .into_iter()
        .fold(candidates[0], |best, c| if c.1 < best.1 { c } else { best });
    if blocks_per_sm == 0 {
        return Err(format!(
            "No block fits on an SM: it is limited to 0 blocks by {limiter}."
        ));
    }

    let active_warps = blocks_per_sm * warps_per_block;
    Ok(Occupancy {
        blocks_per_sm,
        warps_per_block,
        active_warps,
        max_warps: l.max_warps_per_sm,
        occupancy: f64::from(active_warps) / f64::from(l.max_warps_per_sm),
        limiter,
        blocks_by_warps,
        blocks_by_blocks,
        blocks_by_registers,
        blocks_by_shared,
    })
}

/// One line, e.g. "10 blocks/SM x 4 warps = 40/64 warps (62.5%), limited by registers".
pub fn describe(o: &Occupancy) -> String {
    let pct = format!("{:.2}", o.occupancy * 100.0);
    let pct = pct.trim_end_matches('0').trim_end_matches('.');
    format!(
        "{} block{}/SM x {} warp{} = {}/{} warps ({}%), limited by {}",
        o.blocks_per_sm,
        if o.blocks_per_sm == 1 { "" } else { "s" },
        o.warps_per_block,
        if o.warps_per_block == 1 { "" } else { "s" },
        o.active_warps,
        o.max_warps,
        pct,
        o.limiter
    )
}

#[cfg(test)]
mod tests;
