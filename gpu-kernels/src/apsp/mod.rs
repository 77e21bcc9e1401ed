//! Blocked Floyd–Warshall (all-pairs shortest paths) on int32 distances.
//!
//! Per round `r` (pivot block `r`): phase 1 closes the pivot block, phase 2 the blocks in the
//! pivot row and column, phase 3 every other block. Each kernel family is instantiated for
//! block factors 16, 32 and 64; the host pads V to a multiple of the block factor.

/// "No path" in the course file format (2^30 - 1): INF + INF still fits in an i32.
pub const INF: i32 = 1_073_741_823;
/// Largest edge weight the file format allows.
pub const MAX_WEIGHT: i32 = 1000;
/// Row pitch of the device matrix is a multiple of this many i32 (128 bytes) for coalescing.
pub const PITCH_ALIGN: usize = 32;
/// Register cap for the Floyd–Warshall kernels: the host adds `.maxnreg` with this value to
/// their PTX entries before JIT compilation (rust-cuda has no launch-bounds attribute). At 32,
/// two blocks of 1024 threads fit on an SM, so one block's tile loads overlap another's compute.
/// `cargo xtask build-ptx` checks (with `ptxas -maxrregcount`) that no kernel spills under it.
pub const FW_MAX_REGISTERS: u32 = 32;
/// Block factors with kernels.
pub const BLOCK_FACTORS: [u32; 3] = [16, 32, 64];

/// Launch geometry of one block factor: `threads x threads` threads, each owning
/// `(block / threads)^2` cells of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwConfig {
    pub block: u32,
    pub threads: u32,
    pub phase1: &'static str,
    pub phase2: &'static str,
    pub phase3: &'static str,
}

impl FwConfig {
    pub const fn cells_per_thread(&self) -> u32 {
        (self.block / self.threads) * (self.block / self.threads)
    }
}

pub const FW_CONFIGS: [FwConfig; 3] = [
    FwConfig {
        block: 16,
        threads: 16,
        phase1: "fw_phase1_b16",
        phase2: "fw_phase2_b16",
        phase3: "fw_phase3_b16",
    },
    FwConfig {
        block: 32,
        threads: 32,
        phase1: "fw_phase1_b32",
        phase2: "fw_phase2_b32",
        phase3: "fw_phase3_b32",
    },
    FwConfig {
        block: 64,
        threads: 32,
        phase1: "fw_phase1_b64",
        phase2: "fw_phase2_b64",
        phase3: "fw_phase3_b64",
    },
];

pub fn fw_config(block: u32) -> Option<FwConfig> {
    FW_CONFIGS.iter().copied().find(|c| c.block == block)
}

#[cfg(target_arch = "nvptx64")]
mod fw;
