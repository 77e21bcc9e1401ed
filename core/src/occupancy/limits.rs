//! The per-SM and per-block limits of each compute capability the calculator knows.

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
