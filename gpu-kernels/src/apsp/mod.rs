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

/// Invokes `$m!` with, for every block factor, `(phase1, phase2, phase3, block, threads, cells,
/// phase3_rows)`: kernel names, block factor B, a `threads x threads` block, phases 1-2 with
/// `cells x cells` cells per thread, phase 3 with `phase3_rows` rows of one column per thread.
/// The single source of both `FW_CONFIGS` and the kernels in `fw.rs`.
macro_rules! for_each_fw {
    ($m:ident) => {
        $m! {
            (fw_phase1_b16, fw_phase2_b16, fw_phase3_b16, 16, 16, 1, 1),
            (fw_phase1_b32, fw_phase2_b32, fw_phase3_b32, 32, 32, 1, 1),
            (fw_phase1_b64, fw_phase2_b64, fw_phase3_b64, 64, 32, 2, 4),
        }
    };
}

macro_rules! fw_table {
    ($(($p1:ident, $p2:ident, $p3:ident, $b:tt, $t:tt, $r:tt, $rows:tt)),* $(,)?) => {
        /// Every block factor's kernels and launch geometry.
        pub const FW_CONFIGS: [FwConfig; 3] = [$(FwConfig {
            block: $b,
            threads: $t,
            phase1: stringify!($p1),
            phase2: stringify!($p2),
            phase3: stringify!($p3),
        }),*];
    };
}
for_each_fw!(fw_table);

pub fn fw_config(block: u32) -> Option<FwConfig> {
    FW_CONFIGS.iter().copied().find(|c| c.block == block)
}

#[cfg(target_arch = "nvptx64")]
mod fw;
