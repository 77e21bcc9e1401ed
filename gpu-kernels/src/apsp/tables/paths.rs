//! The path kernels' table (`host apsp --paths`; kernels in `../paths.rs`).
use super::super::runs_tile_geometry;

/// Paths (`host apsp --paths`, `paths.rs`): the same blocked Floyd–Warshall carrying a second
/// int32 matrix of successors or predecessors. Phases 2–3 keep the distance kernels' inner loop,
/// one add-min per update, on *packed* operands: a finite distance `d` becomes
/// `d << PATHS_CODE_BITS | code`, where `code` is the column `k` (0..B) in the A block and 0 in
/// the B block, so the minimum of `A + B` over k carries the first k that attains it in its low
/// bits. "No path" packs to [`PATHS_INF_PACKED`]; with unsigned arithmetic two of them add up
/// without wrapping. After the loop a thread compares with its cells' old distances and, where
/// one improved strictly, copies the path cell of (i, k) (successors) or (k, j) (predecessors).
pub const PATHS_CODE_BITS: u32 = 6;
/// A packed "no path"; every sum at or above it means no path.
pub const PATHS_INF_PACKED: u32 = 0x7FFF_FFFF;
/// The longest distance the path kernels represent (2^25 − 2): a graph whose every path is
/// shorter, `max weight · (V − 1)` at most this, is solved exactly. At weights up to 1000 that
/// holds for every V ≤ 33555.
pub const PATHS_MAX_DISTANCE: i64 = (PATHS_INF_PACKED >> PATHS_CODE_BITS) as i64 - 1;
/// The kernels' `mode` argument: which path matrix they carry.
pub const PATHS_MODE_SUCCESSORS: u32 = 0;
pub const PATHS_MODE_PREDECESSORS: u32 = 1;
/// A flag the phases 2–3 take in `mode` beside the kind: prefetch the own block to L2 before the
/// k loop (the host sets it unless `RGK_PATHS_PREFETCH=0`, a variant for measurements).
pub const PATHS_MODE_PREFETCH: u32 = 2;
/// Words of the strips that phase 2 fills with phase 3's packed operands (`s`, the last argument
/// of phases 2 and 3): the pivot column's `padded / B` blocks of `B x B` (pitch B, codes k), then
/// the pivot row's `B` rows of the matrix's `pitch` (code 0).
pub const fn paths_strip_words(block: u32, padded: usize, pitch: usize) -> usize {
    block as usize * (padded + pitch)
}
/// The path matrix before any round, from the initial distances (`paths.rs`).
pub const PATHS_INIT_KERNEL: &str = "apsp_init_paths";

/// The path kernels of one block factor: the geometry of the `Tile` entry of `FW_CONFIGS` with
/// that block factor (asserted below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwPathsConfig {
    pub block: u32,
    pub pivot_threads: u32,
    pub tile_threads: u32,
    /// `(d, p, pitch, round, mode)` for each phase, as the distance kernels plus the path matrix
    /// `p` (same pitch) and `mode`; phases 2 and 3 also take the strips `s`
    /// ([`paths_strip_words`]).
    pub phase1: &'static str,
    pub phase2: &'static str,
    pub phase3: &'static str,
    /// The same updates on one GPU's block rows of a matrix split between GPUs (`host apsp
    /// --gpus N --paths`, `multi_paths.rs`): the four roles of [`super::super::FwMultiConfig`],
    /// each taking the path matrix beside the distances and `mode` last: `pivot` and `row`
    /// `(d_row, p_row, pitch, round, mode)`, `col` `(d_rows, p_rows, d_pivot, p_pivot, pitch,
    /// round, skip, mode)`, `rest` `(d_rows, p_rows, d_pivot, p_pivot, pitch, round, first,
    /// skip, mode)`. They pack their operands themselves (no strips).
    pub split: FwMultiPathNames,
}

/// The kernel names of [`FwPathsConfig::split`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwMultiPathNames {
    pub pivot: &'static str,
    pub row: &'static str,
    pub col: &'static str,
    pub rest: &'static str,
}

/// `(phase1, phase2, phase3, pivot, row, col, rest, block, threads, cells, tile_threads,
/// tile_cells, quads)` with the meanings of `for_each_fw!` (and of `for_each_fw_multi!` for the
/// split kernels); the single source of `FW_PATHS` and the kernels in `paths.rs` and
/// `multi_paths.rs`.
macro_rules! for_each_fw_paths {
    ($m:ident) => {
        $m! {
            (fwp_phase1_b64, fwp_phase2_b64, fwp_phase3_b64, fwmp_pivot_b64, fwmp_row_b64, fwmp_col_b64,
             fwmp_rest_b64, 64, 16, 4, 8, 8, 16),
        }
    };
}

macro_rules! fw_paths_table {
    ($(($p1:ident, $p2:ident, $p3:ident, $pivot:ident, $row:ident, $col:ident, $rest:ident,
        $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {
        /// Block factors with path kernels (the register-tiled layout only).
        pub const FW_PATHS: [FwPathsConfig; 1] = [$(FwPathsConfig {
            block: $b,
            pivot_threads: $t,
            tile_threads: $t3,
            phase1: stringify!($p1),
            phase2: stringify!($p2),
            phase3: stringify!($p3),
            split: FwMultiPathNames {
                pivot: stringify!($pivot),
                row: stringify!($row),
                col: stringify!($col),
                rest: stringify!($rest),
            },
        }),*];
    };
}
for_each_fw_paths!(fw_paths_table);

// Each path entry runs the tile kernels' geometry of its block factor, and k fits the code.
const _: () = {
    let mut i = 0;
    while i < FW_PATHS.len() {
        let m = FW_PATHS[i];
        assert!(m.block <= 1 << PATHS_CODE_BITS);
        assert!(runs_tile_geometry(m.block, m.pivot_threads, m.tile_threads));
        i += 1;
    }
};

pub fn fw_paths_config(block: u32) -> Option<FwPathsConfig> {
    FW_PATHS.iter().copied().find(|c| c.block == block)
}
