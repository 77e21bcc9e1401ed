//! Blocked Floyd–Warshall (all-pairs shortest paths) on int32 distances.
//!
//! Per round `r` (pivot block `r`): phase 1 closes the pivot block, phase 2 the blocks in the
//! pivot row and column, phase 3 every other block. Each kernel family is instantiated for
//! block factors 16, 32 and 64; the host pads V to a multiple of the block factor.

// Before the list that reads its row words.
#[macro_use]
mod float_words;
// Before the kernels that expand its `for_each_fw_float!`.
#[macro_use]
pub mod float;
mod float_geometry;
pub mod float_pred;
pub mod float_reweight;
pub mod format;
pub mod offsets;
// Before the kernels that expand its `for_each_*!` lists.
#[macro_use]
mod tables;
pub use tables::*;

/// Row pitch of the device matrix is a multiple of this many i32 (128 bytes) for coalescing.
pub const PITCH_ALIGN: usize = 32;
/// Register cap of the Floyd–Warshall kernels marked `capped` in `for_each_fw!` (B = 16 and 32;
/// [`FwConfig::max_registers`], and so [`crate::registry::max_registers`]): `cargo xtask
/// build-ptx` writes it into their PTX entries as `.maxnreg` (rust-cuda has no launch-bounds
/// attribute) and checks with ptxas that no capped kernel spills under it. At 32, two blocks of
/// 1024 threads fit on an SM.
///
/// The B = 64 kernels run without the cap: phase 3 keeps 64 cells and the operands of 4 k per
/// thread in registers (167 registers, see `docs/ptxas.md`; with 64 threads per block, shared
/// memory and registers both allow 6 blocks per SM), and phases 1–2 keep 16 cells per thread
/// (56 registers, 256 threads). One larger cap for all would not do: under `-maxrregcount=128`
/// ptxas gives phase 3 of B = 16 and 32 39 and 35 registers, one block of 1024 threads per SM
/// instead of two.
pub const FW_MAX_REGISTERS: u32 = 32;
/// Block factors with kernels.
pub const BLOCK_FACTORS: [u32; 3] = [16, 32, 64];

/// How phase 3 maps cells to threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase3Layout {
    /// Thread `(tx, ty)` of a `threads x threads` block owns `rows` consecutive rows of one
    /// column; scalar loads of the pivot-row block, 128-bit loads of the pivot-column block.
    Column { rows: u32 },
    /// Register tile: each of `threads x threads` threads owns `cells x cells` cells (groups of
    /// 4 rows and 4 columns spread over the block); every operand comes in a 128-bit shared
    /// load, and each loaded value feeds `cells` add-mins.
    Tile { cells: u32 },
}

/// Launch geometry of one block factor. Phase 1 runs `threads x threads` threads, each owning
/// `(block / threads)^2` cells; phase 3 runs `phase3_threads x phase3_threads` threads laid out
/// as `phase3_layout`; phase 2 runs as phase 1 (`Column`) or as phase 3 (`Tile`), see
/// `phase2_threads`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwConfig {
    pub block: u32,
    pub threads: u32,
    pub phase3_threads: u32,
    pub phase3_layout: Phase3Layout,
    pub phase1: &'static str,
    pub phase2: &'static str,
    pub phase3: &'static str,
    /// The register cap the three kernels are compiled under, if any ([`FW_MAX_REGISTERS`]).
    pub max_registers: Option<u32>,
}

impl FwConfig {
    pub const fn cells_per_thread(&self) -> u32 {
        (self.block / self.threads) * (self.block / self.threads)
    }

    /// Phase 3 block size (threads).
    pub const fn phase3_block_threads(&self) -> u32 {
        self.phase3_threads * self.phase3_threads
    }

    /// Threads per side of a phase-2 block: with the `Tile` layout phase 2 is the same
    /// register-tiled update as phase 3 (other operands), else it is laid out as phase 1.
    pub const fn phase2_threads(&self) -> u32 {
        match self.phase3_layout {
            Phase3Layout::Tile { .. } => self.phase3_threads,
            Phase3Layout::Column { .. } => self.threads,
        }
    }
}

/// Invokes `$m!` with, for every block factor,
/// `(phase1, phase2, phase3, block, threads, cells, layout(phase3_threads, n), cap)`: kernel names,
/// block factor B, a `threads x threads` block for phase 1 (and phase 2 with `column`) with
/// `cells x cells` cells per thread, and phase 3 as `column(T3, rows)` (T3 x T3 threads, `rows`
/// rows of one column each; phase 2 is the in-place k loop of phase 1)
/// or `tile(T3, cells, quads)` (T3 x T3 threads, `cells x cells` cells each, `quads` 16-byte
/// quads of each operand block copied per thread: `B * B / 4 / T3^2`, asserted in the kernel;
/// phase 2 is the same register-tiled update); `cap` is `capped` (compiled under
/// [`FW_MAX_REGISTERS`]) or `uncapped`.
/// The single source of `FW_CONFIGS`, the kernels in `fw.rs` and their registry rows.
macro_rules! for_each_fw {
    ($m:ident) => {
        $m! {
            (fw_phase1_b16, fw_phase2_b16, fw_phase3_b16, 16, 16, 1, column(16, 1), capped),
            (fw_phase1_b32, fw_phase2_b32, fw_phase3_b32, 32, 32, 1, column(32, 1), capped),
            (fw_phase1_b64, fw_phase2_b64, fw_phase3_b64, 64, 16, 4, tile(8, 8, 16), uncapped),
        }
    };
}

macro_rules! fw_cap {
    (capped) => {
        Some(FW_MAX_REGISTERS)
    };
    (uncapped) => {
        None
    };
}

macro_rules! fw_layout {
    (column, $n:tt) => {
        Phase3Layout::Column { rows: $n }
    };
    (tile, $n:tt) => {
        Phase3Layout::Tile { cells: $n }
    };
}

macro_rules! fw_table {
    ($(($p1:ident, $p2:ident, $p3:ident, $b:tt, $t:tt, $r:tt, $l:ident($t3:tt, $n:tt $(, $q:tt)?),
        $cap:ident)),* $(,)?) => {
        /// Every block factor's kernels and launch geometry.
        pub const FW_CONFIGS: [FwConfig; 3] = [$(FwConfig {
            block: $b,
            threads: $t,
            phase3_threads: $t3,
            phase3_layout: fw_layout!($l, $n),
            phase1: stringify!($p1),
            phase2: stringify!($p2),
            phase3: stringify!($p3),
            max_registers: fw_cap!($cap),
        }),*];
    };
}
for_each_fw!(fw_table);

// The geometry every kernel relies on, checked once for the whole list.
const _: () = {
    let mut i = 0;
    while i < FW_CONFIGS.len() {
        let c = FW_CONFIGS[i];
        assert!(c.block == BLOCK_FACTORS[i]);
        assert!(c.block.is_multiple_of(c.threads) && c.threads * c.threads <= 1024);
        assert!(c.phase3_block_threads() <= 1024);
        match c.phase3_layout {
            // Each thread covers `rows` rows of one column; the block covers B x B cells.
            Phase3Layout::Column { rows } => {
                assert!(c.block.is_multiple_of(rows));
                assert!(c.block * c.block == c.phase3_block_threads() * rows);
                assert!(rows == 1 || rows.is_multiple_of(4));
            }
            // T3 x cells = B; cells in groups of 4 (128-bit loads); the T3^2 threads copy whole
            // rows of an operand block per step (16-byte quads, B / 4 per row).
            Phase3Layout::Tile { cells } => {
                assert!(c.phase3_threads * cells == c.block && cells.is_multiple_of(4));
                assert!((c.phase3_threads * c.phase3_threads).is_multiple_of(c.block / 4));
            }
        }
        i += 1;
    }
    assert!(FW_CONFIGS.len() == BLOCK_FACTORS.len());
};

pub fn fw_config(block: u32) -> Option<FwConfig> {
    FW_CONFIGS.iter().copied().find(|c| c.block == block)
}

/// Whether `FW_CONFIGS` has a register-tiled (`Tile`) entry of block factor `block` with this
/// phase-1 (`pivot_threads`) and phase-2/3 (`tile_threads`) geometry: the tables whose kernels
/// run that entry's updates (`FW_MULTI`, `FW_PATHS`, `BATCH_BLOCKED`) assert it at compile time.
pub(crate) const fn runs_tile_geometry(block: u32, pivot_threads: u32, tile_threads: u32) -> bool {
    let mut j = 0;
    while j < FW_CONFIGS.len() {
        let c = FW_CONFIGS[j];
        if c.block == block {
            return c.threads == pivot_threads
                && c.phase3_threads == tile_threads
                && matches!(c.phase3_layout, Phase3Layout::Tile { .. });
        }
        j += 1;
    }
    false
}

/// The kernels of `host apsp --gpus N`: Floyd–Warshall on one GPU's contiguous block rows plus
/// a separate buffer holding the round's pivot block row (`multi.rs`). Same updates and launch
/// geometry as the `Tile` entry of `FW_CONFIGS` for `block` (asserted below): `pivot` runs
/// `pivot_threads x pivot_threads` threads like phase 1, the others `tile_threads x
/// tile_threads` like phases 2–3.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwMultiConfig {
    pub block: u32,
    pub pivot_threads: u32,
    pub tile_threads: u32,
    /// Phase 1 on the owner's copy of the pivot block row: `(row, pitch, round)`.
    pub pivot: &'static str,
    /// Phase 2 along the pivot block row: `(row, pitch, round)`, one block per block column.
    pub row: &'static str,
    /// Phase 2 down the pivot column of one GPU's rows: `(rows, pivot, pitch, round, skip)`.
    pub col: &'static str,
    /// Phase 3 on one GPU's rows: `(rows, pivot, pitch, round, first, skip)`.
    pub rest: &'static str,
}

/// `(pivot, row, col, rest, block, threads, cells, tile_threads, tile_cells, quads)`, with the
/// meanings of `for_each_fw!`; the single source of `FW_MULTI` and the kernels in `multi.rs`.
macro_rules! for_each_fw_multi {
    ($m:ident) => {
        $m! {
            (fwm_pivot_b64, fwm_row_b64, fwm_col_b64, fwm_rest_b64, 64, 16, 4, 8, 8, 16),
        }
    };
}

macro_rules! fw_multi_table {
    ($(($p:ident, $row:ident, $col:ident, $rest:ident, $b:tt, $t:tt, $r:tt, $t3:tt, $n:tt, $q:tt)),* $(,)?) => {
        /// Block factors with multi-GPU kernels (B = 64 only: the register-tiled layout).
        pub const FW_MULTI: [FwMultiConfig; 1] = [$(FwMultiConfig {
            block: $b,
            pivot_threads: $t,
            tile_threads: $t3,
            pivot: stringify!($p),
            row: stringify!($row),
            col: stringify!($col),
            rest: stringify!($rest),
        }),*];
    };
}
for_each_fw_multi!(fw_multi_table);

// Each multi-GPU entry runs the tile kernels of its block factor: same geometry.
const _: () = {
    let mut i = 0;
    while i < FW_MULTI.len() {
        let m = FW_MULTI[i];
        assert!(runs_tile_geometry(m.block, m.pivot_threads, m.tile_threads));
        i += 1;
    }
};

pub fn fw_multi_config(block: u32) -> Option<FwMultiConfig> {
    FW_MULTI.iter().copied().find(|c| c.block == block)
}

/// The add-min throughput kernel (`host apsp-peak`): the ceiling phase 3 is measured against.
pub const PEAK_KERNEL: &str = "apsp_addmin_peak";
/// Independent add-min chains per thread in the peak kernel.
pub const PEAK_CHAINS: u32 = 16;
/// Add-mins per thread per loop iteration of the peak kernel (two half-steps over every chain).
pub const PEAK_UPDATES_PER_ITERATION: u32 = 2 * PEAK_CHAINS;
/// Threads per block of the peak kernel.
pub const PEAK_THREADS: u32 = 256;

/// The kernels that build the initial matrix on the GPU (`init.rs`).
pub const INIT_MATRIX_KERNEL: &str = "apsp_init_matrix";
pub const SCATTER_EDGES_KERNEL: &str = "apsp_scatter_edges";
/// Threads per block of both init kernels.
pub const INIT_THREADS: u32 = 256;
/// 16-byte quads each thread of `apsp_init_matrix` stores per row.
pub const INIT_QUADS_PER_THREAD: u32 = 4;

/// The statistics of `host apsp --stats` (`stats.rs`): `apsp_stats_tiles` reads the solved
/// matrix once, tile by tile, and writes per-tile partial sums (per row over the tile's columns,
/// per column over its rows); `apsp_stats_finish` adds the tiles' partials per vertex.
pub const STATS_TILES_KERNEL: &str = "apsp_stats_tiles";
pub const STATS_FINISH_KERNEL: &str = "apsp_stats_finish";
/// Warps per block of `apsp_stats_tiles`; each warp covers 128 columns (4 per lane).
pub const STATS_WARPS: u32 = 8;
/// Threads per block of `apsp_stats_tiles`.
pub const STATS_THREADS: u32 = 32 * STATS_WARPS;
/// Columns of one tile (block): 4 per thread, one 16-byte load per row.
pub const STATS_COLUMNS: u32 = 4 * STATS_THREADS;
/// Rows the warps of a block reduce together before combining them in shared memory; the rows
/// of a tile are a multiple of it.
pub const STATS_ROW_CHUNK: u32 = 32;
/// Rows of one tile at most: counts of reachable cells in a tile row or column then stay below
/// 2^11, the bits above [`STATS_COUNT_SHIFT`] of a packed partial.
pub const STATS_MAX_TILE_ROWS: u32 = 1024;
/// A partial of the tiles kernel packs a count and a sum of distances into one u64: the count
/// in the bits from this one up, the sum below. The sum of up to 1024 distances of at most
/// 1000·(V − 1) stays below 2^53 for any V below 8.7·10^9.
pub const STATS_COUNT_SHIFT: u32 = 53;
/// Threads per block of `apsp_stats_finish` (one thread per vertex).
pub const STATS_FINISH_THREADS: u32 = 256;

/// The per-vertex arrays `apsp_stats_finish` writes, in this order, each `stride` u64 long
/// (`u32` values zero-extended, the harmonic sum as f64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum StatsField {
    /// The largest finite distance from the vertex (0 when it reaches nothing else).
    OutMax,
    /// Vertices with a path from the vertex, itself included.
    OutCount,
    /// Sum of the finite distances from the vertex.
    OutSum,
    /// Vertices with a path to the vertex, itself included.
    InCount,
    /// Sum of the finite distances to the vertex.
    InSum,
    /// Sum of 1/d over the finite, non-zero distances d to the vertex (f64).
    InHarmonic,
}

impl StatsField {
    pub const COUNT: u32 = 6;
}

const _: () = assert!(STATS_MAX_TILE_ROWS.is_multiple_of(STATS_ROW_CHUNK));
const _: () = assert!(STATS_ROW_CHUNK == 32 && STATS_WARPS <= 32);
const _: () = assert!(STATS_MAX_TILE_ROWS < (1 << (64 - STATS_COUNT_SHIFT)));
const _: () = assert!(STATS_COLUMNS < (1 << (64 - STATS_COUNT_SHIFT)));

#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod fw;
#[cfg(target_arch = "nvptx64")]
mod batch;
#[cfg(target_arch = "nvptx64")]
mod batch_blocked;
#[cfg(target_arch = "nvptx64")]
mod float_cell;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod fw_float_tile;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod fw_float_persist;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod fw_float_at;
#[cfg(target_arch = "nvptx64")]
mod fw_float;
#[cfg(target_arch = "nvptx64")]
mod init;
#[cfg(target_arch = "nvptx64")]
mod multi;
#[cfg(target_arch = "nvptx64")]
mod ooc;
// Before `multi_paths`, which expands its `fwp_*!` macros.
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod paths;
#[cfg(target_arch = "nvptx64")]
mod multi_paths;
#[cfg(target_arch = "nvptx64")]
mod peak;
// Before the kernels that expand its `small_tile_item!` (and that its `small_tile_close!` and
// `small_quad_close!`).
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod small_close;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod small_quad;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod small_tile;
#[cfg(target_arch = "nvptx64")]
mod small;
#[cfg(target_arch = "nvptx64")]
mod small_flow;
// Before `small_probe`, which expands its `fw_pull_body!`.
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod small_pull;
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod small_strip_item;
// Before `small_probe`, which expands its `fw_strip_body!`.
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod small_strip;
#[cfg(target_arch = "nvptx64")]
mod small_probe;
#[cfg(target_arch = "nvptx64")]
mod stats;
