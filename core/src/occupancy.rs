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

/// Per-SM and per-block resource limits of one compute capability.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SmLimits {
    pub compute_capability: (u32, u32),
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_warps_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub max_registers_per_block: u32,
    pub max_registers_per_thread: u32,
    /// Registers, allocated per warp.
    pub register_allocation_unit: u32,
    /// Bytes usable by blocks (the carveout maximum).
    pub shared_memory_per_sm: u32,
    /// Bytes (opt-in maximum), not counting the reservation.
    pub max_shared_memory_per_block: u32,
    /// Bytes.
    pub shared_memory_allocation_unit: u32,
    /// Bytes the system reserves per block (1024 on CC >= 8.0).
    pub reserved_shared_memory_per_block: u32,
}

const KB: u32 = 1024;

/// Warps are rounded up to this multiple for the launch-time register check
/// (`cuda_occupancy.h`: "the verification logic assumes register allocations
/// are made to all partitions simultaneously"; CC 6.0 is checked as if it had
/// 4 sub-partitions too).
const REGISTER_CHECK_WARP_MULTIPLE: u32 = 4;

impl SmLimits {
    /// Published limits for a compute capability (CUDA C Programming Guide,
    /// "Technical Specifications per Compute Capability", and the granularities
    /// and per-CC switches of `cuda_occupancy.h`). Covers 5.0, 5.2, 5.3, 6.0,
    /// 6.1, 6.2, 7.0, 7.2, 7.5, 8.0, 8.6, 8.7, 8.9 and 9.0; `None` otherwise.
    ///
    /// `max_registers_per_thread` is 255, the most ptxas will allocate;
    /// `cuda_occupancy.h` checks against 256 on CC >= 7.0, which no real kernel
    /// reaches. The 32 K registers per block of the Tegra parts (5.3, 6.2) are
    /// from the programming guide's table, not checked on hardware.
    pub fn for_compute_capability(major: u32, minor: u32) -> Option<SmLimits> {
        // (max warps/SM, max blocks/SM, shared/SM, max shared/block, max regs/block)
        let (warps, blocks, smem_sm, smem_block, regs_block) = match (major, minor) {
            (5, 0) => (64, 32, 64 * KB, 48 * KB, 64 * KB),
            (5, 2) => (64, 32, 96 * KB, 48 * KB, 64 * KB),
            (5, 3) => (64, 32, 64 * KB, 48 * KB, 32 * KB),
            (6, 0) => (64, 32, 64 * KB, 48 * KB, 64 * KB),
            (6, 1) => (64, 32, 96 * KB, 48 * KB, 64 * KB),
            (6, 2) => (64, 32, 64 * KB, 48 * KB, 32 * KB),
            (7, 0) | (7, 2) => (64, 32, 96 * KB, 96 * KB, 64 * KB),
            (7, 5) => (32, 16, 64 * KB, 64 * KB, 64 * KB),
            (8, 0) | (8, 7) => (
                if minor == 0 { 64 } else { 48 },
                if minor == 0 { 32 } else { 16 },
                164 * KB,
                163 * KB,
                64 * KB,
            ),
            (8, 6) => (48, 16, 100 * KB, 99 * KB, 64 * KB),
            (8, 9) => (48, 24, 100 * KB, 99 * KB, 64 * KB),
            (9, 0) => (64, 32, 228 * KB, 227 * KB, 64 * KB),
            _ => return None,
        };
        // Shared memory is allocated in 128 B units from Ampere on, 256 B before
        // (cudaOccSMemAllocationGranularity); the 1 KB per-block reservation
        // also starts with Ampere.
        let ampere_or_later = major >= 8;
        Some(SmLimits {
            compute_capability: (major, minor),
            warp_size: 32,
            max_threads_per_block: 1024,
            max_warps_per_sm: warps,
            max_blocks_per_sm: blocks,
            registers_per_sm: 64 * KB,
            max_registers_per_block: regs_block,
            max_registers_per_thread: 255,
            register_allocation_unit: 256,
            shared_memory_per_sm: smem_sm,
            max_shared_memory_per_block: smem_block,
            shared_memory_allocation_unit: if ampere_or_later { 128 } else { 256 },
            reserved_shared_memory_per_block: if ampere_or_later { KB } else { 0 },
        })
    }

    /// Scheduler sub-partitions the register file is split over
    /// (`cudaOccSubPartitionsPerMultiprocessor`): GP100 (6.0) has two, every
    /// other supported SM four.
    pub fn register_sub_partitions(&self) -> u32 {
        if self.compute_capability == (6, 0) {
            2
        } else {
            4
        }
    }
}

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
mod tests {
    use super::*;

    fn cc(major: u32, minor: u32) -> SmLimits {
        SmLimits::for_compute_capability(major, minor).unwrap()
    }

    fn kernel(threads: u32, regs: u32, static_smem: u32, dynamic_smem: u32) -> KernelResources {
        KernelResources {
            threads_per_block: threads,
            registers_per_thread: regs,
            static_shared_bytes: static_smem,
            dynamic_shared_bytes: dynamic_smem,
        }
    }

    fn run(limits: &SmLimits, k: KernelResources) -> Occupancy {
        occupancy(limits, &k).unwrap_or_else(|e| panic!("{k:?}: {e}"))
    }

    #[test]
    fn lab_example_register_limited() {
        // 48 regs -> 1536 per warp -> 10 warps per sub-partition -> 40 warps -> 10 blocks.
        // 5000 B -> 5120 B -> 12 blocks.
        let o = run(&cc(5, 0), kernel(128, 48, 5000, 0));
        assert_eq!(o.blocks_per_sm, 10);
        assert_eq!(o.warps_per_block, 4);
        assert_eq!(o.active_warps, 40);
        assert_eq!(o.occupancy, 0.625);
        assert_eq!(o.limiter, Limiter::Registers);
        assert_eq!(
            (
                o.blocks_by_registers,
                o.blocks_by_shared,
                o.blocks_by_warps,
                o.blocks_by_blocks
            ),
            (10, 12, 16, 32)
        );
        assert_eq!(
            describe(&o),
            "10 blocks/SM x 4 warps = 40/64 warps (62.5%), limited by registers"
        );
    }

    #[test]
    fn lab_example_shared_limited() {
        // 10000 B -> 10240 B -> 65536 / 10240 = 6 blocks.
        let o = run(&cc(5, 0), kernel(128, 48, 10000, 0));
        assert_eq!(o.blocks_per_sm, 6);
        assert_eq!(o.active_warps, 24);
        assert_eq!(o.occupancy, 0.375);
        assert_eq!(o.limiter, Limiter::SharedMemory);
        assert_eq!(o.blocks_by_shared, 6);
        assert_eq!(o.blocks_by_registers, 10);
    }

    #[test]
    fn hopper_full_blocks() {
        // Warps and registers both allow exactly 2; the tie goes to registers.
        let o = run(&cc(9, 0), kernel(1024, 32, 0, 0));
        assert_eq!(o.blocks_per_sm, 2);
        assert_eq!(o.occupancy, 1.0);
        assert_eq!(o.blocks_by_warps, 2);
        assert_eq!(o.blocks_by_registers, 2);
        assert_eq!(o.limiter, Limiter::Registers);
        // Fewer registers leave warps as the only limit.
        let o = run(&cc(9, 0), kernel(1024, 16, 0, 0));
        assert_eq!((o.blocks_per_sm, o.limiter), (2, Limiter::Warps));
        assert_eq!(
            describe(&o),
            "2 blocks/SM x 32 warps = 64/64 warps (100%), limited by warps per SM"
        );
    }

    #[test]
    fn hopper_register_limited() {
        let o = run(&cc(9, 0), kernel(256, 128, 0, 0));
        assert_eq!(o.blocks_per_sm, 2);
        assert_eq!(o.occupancy, 0.25);
        assert_eq!(o.limiter, Limiter::Registers);
    }

    #[test]
    fn hopper_shared_limited() {
        // 33792 + 1024 reserved = 34816 B (already a multiple of 128); 233472 / 34816 = 6.
        let o = run(&cc(9, 0), kernel(64, 32, 33 * 1024, 0));
        assert_eq!(o.blocks_by_shared, 6);
        assert_eq!(o.blocks_per_sm, 6);
        assert_eq!(o.active_warps, 12);
        assert_eq!(o.occupancy, 0.1875);
        assert_eq!(o.limiter, Limiter::SharedMemory);
        assert_eq!(
            describe(&o),
            "6 blocks/SM x 2 warps = 12/64 warps (18.75%), limited by shared memory"
        );
    }

    #[test]
    fn hopper_shared_rounding_and_reservation() {
        let h = cc(9, 0);
        // 56 KB + 1 KB reserved divides 228 KB exactly; one byte more rounds up to 3 blocks.
        assert_eq!(run(&h, kernel(128, 32, 0, 56 * 1024)).blocks_by_shared, 4);
        assert_eq!(
            run(&h, kernel(128, 32, 0, 56 * 1024 + 1)).blocks_by_shared,
            3
        );
        // The opt-in maximum exactly fills the SM with its reservation.
        let o = run(&h, kernel(128, 32, 0, 227 * 1024));
        assert_eq!((o.blocks_per_sm, o.limiter), (1, Limiter::SharedMemory));
        // No shared memory still costs the 1 KB reservation on CC >= 8.0 ...
        assert_eq!(run(&h, kernel(128, 32, 0, 0)).blocks_by_shared, 228);
        // ... but nothing before it.
        assert_eq!(
            run(&cc(7, 5), kernel(128, 32, 0, 0)).blocks_by_shared,
            u32::MAX
        );
    }

    #[test]
    fn registers_split_over_sub_partitions() {
        // 40 regs -> 1280 per warp: 16384 / 1280 = 12 per sub-partition -> 48 warps,
        // where floor(65536 / 1280) = 51 would give 25 blocks of 2 warps.
        let o = run(&cc(9, 0), kernel(64, 40, 0, 0));
        assert_eq!(o.blocks_by_registers, 24);
        assert_eq!((o.blocks_per_sm, o.limiter), (24, Limiter::Registers));
        // GP100 has two sub-partitions: 32768 / 1280 = 25 -> 50 warps.
        assert_eq!(run(&cc(6, 0), kernel(32, 40, 0, 0)).blocks_by_registers, 50);
        assert_eq!(run(&cc(6, 1), kernel(32, 40, 0, 0)).blocks_by_registers, 48);
        // No registers: unlimited by registers.
        assert_eq!(
            run(&cc(9, 0), kernel(32, 0, 0, 0)).blocks_by_registers,
            u32::MAX
        );
    }

    #[test]
    fn errors() {
        let h = cc(9, 0);
        let err = |k| occupancy(&h, &k).unwrap_err();
        // 65 regs -> 2304 per warp x 32 warps = 73728 > 65536.
        assert!(err(kernel(1024, 65, 0, 0)).contains("73728 registers per block"));
        // 25 warps x 2560 = 64000 fits, but the launch check counts 28 warps.
        assert!(err(kernel(800, 80, 0, 0)).contains("71680"));
        assert!(occupancy(&h, &kernel(800, 72, 0, 0)).is_ok());
        assert!(err(kernel(0, 32, 0, 0)).contains("0 threads"));
        assert!(err(kernel(1025, 32, 0, 0)).contains("1024"));
        assert!(err(kernel(32, 256, 0, 0)).contains("255"));
        assert!(err(kernel(128, 32, 0, 227 * 1024 + 1)).contains("233472"));
        assert!(err(kernel(128, 32, 200 * 1024, 28 * 1024)).contains("more than the maximum"));
        let m = cc(5, 0);
        assert!(occupancy(&m, &kernel(128, 32, 48 * 1024, 0)).is_ok());
        assert!(occupancy(&m, &kernel(128, 32, 48 * 1024, 1)).is_err());
        // Sums past u32 must not wrap into a small request.
        assert!(err(kernel(128, 32, u32::MAX, u32::MAX)).contains("shared memory"));
    }

    #[test]
    fn table() {
        let known = [
            (5, 0),
            (5, 2),
            (5, 3),
            (6, 0),
            (6, 1),
            (6, 2),
            (7, 0),
            (7, 2),
            (7, 5),
            (8, 0),
            (8, 6),
            (8, 7),
            (8, 9),
            (9, 0),
        ];
        for (major, minor) in known {
            let l = cc(major, minor);
            assert_eq!(l.compute_capability, (major, minor));
            // One maximal block must always be launchable.
            assert!(
                l.max_shared_memory_per_block + l.reserved_shared_memory_per_block
                    <= l.shared_memory_per_sm
            );
            assert!(l.max_threads_per_block <= l.max_warps_per_sm * l.warp_size);
            assert!(l.max_registers_per_block <= l.registers_per_sm);
            let o = run(
                &l,
                kernel(
                    l.max_threads_per_block,
                    32,
                    0,
                    l.max_shared_memory_per_block,
                ),
            );
            assert!(o.blocks_per_sm >= 1);
        }
        for (major, minor) in [(3, 5), (4, 0), (7, 1), (8, 8), (9, 1), (10, 0), (12, 0)] {
            assert_eq!(SmLimits::for_compute_capability(major, minor), None);
        }
        let h = cc(9, 0);
        assert_eq!(
            (
                h.max_warps_per_sm,
                h.max_blocks_per_sm,
                h.registers_per_sm,
                h.max_registers_per_block
            ),
            (64, 32, 65536, 65536)
        );
        assert_eq!(
            (h.shared_memory_per_sm, h.max_shared_memory_per_block),
            (233472, 232448)
        );
        assert_eq!(
            (
                h.shared_memory_allocation_unit,
                h.reserved_shared_memory_per_block
            ),
            (128, 1024)
        );
        let a = cc(8, 0);
        assert_eq!(
            (a.shared_memory_per_sm, a.max_shared_memory_per_block),
            (167936, 166912)
        );
        assert_eq!(
            (cc(8, 6).max_warps_per_sm, cc(8, 6).max_blocks_per_sm),
            (48, 16)
        );
        assert_eq!(
            (cc(8, 9).max_warps_per_sm, cc(8, 9).max_blocks_per_sm),
            (48, 24)
        );
        assert_eq!(
            (cc(7, 5).max_warps_per_sm, cc(7, 5).max_blocks_per_sm),
            (32, 16)
        );
        assert_eq!(cc(7, 0).shared_memory_per_sm, 98304);
        let m = cc(5, 0);
        assert_eq!(
            (
                m.shared_memory_allocation_unit,
                m.reserved_shared_memory_per_block
            ),
            (256, 0)
        );
    }

    #[test]
    fn serializes() {
        fn assert_serialize<T: serde::Serialize>() {}
        assert_serialize::<Occupancy>();
        assert_serialize::<SmLimits>();
        assert_serialize::<KernelResources>();
    }
}
