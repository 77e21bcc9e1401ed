//! Floyd–Warshall on float weights (`f32`, `f64`; the Python package's `floyd_warshall`, with
//! scipy's conventions: `+inf` for no edge, negative weights allowed). Same three phases per
//! round as the int32 solver (`fw.rs`), on a padded matrix of `W` with row pitch `pitch` cells,
//! kernel arguments `(d, pitch, round)`; the bodies are in `fw_float.rs`.
//!
//! `+inf` needs no special case: `inf + w = inf` and `min(x, inf) = x`, so padding is `+inf`.
//! Phase 1 updates the pivot block in place, which is race-free while the diagonal stays 0:
//! then row k and column k do not change in step k. That holds with negative weights as long
//! as there is no negative cycle; with one, some diagonal entry ends negative (every stored
//! value is the length of a walk and values only decrease), which is how the host detects it.

/// One float Floyd–Warshall instantiation (one weight type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FwFloatConfig {
    /// `"f32"` or `"f64"`.
    pub weight: &'static str,
    /// Bytes per cell.
    pub cell_bytes: u32,
    /// Block factor B: the padded matrix is a multiple of B.
    pub block: u32,
    /// Phase 1: `pivot_threads x pivot_threads` threads, `(B / pivot_threads)^2` cells each.
    pub pivot_threads: u32,
    /// Phases 2–3: `tile_threads x tile_threads` threads, `tile_cells x tile_cells` cells each.
    pub tile_threads: u32,
    pub tile_cells: u32,
    /// Depth (values of k) of the operand slices staged in shared memory at a time.
    pub k_chunk: u32,
    pub phase1: &'static str,
    pub phase2: &'static str,
    pub phase3: &'static str,
    /// The add-min throughput kernel of this weight type (the ceiling phase 3 is measured against).
    pub peak: &'static str,
}

impl FwFloatConfig {
    /// Shared memory of one phase-2/3 block: the A slice (B rows of `k_chunk + 4` cells) and the
    /// B slice (`k_chunk` rows of B cells).
    pub const fn tile_shared_bytes(&self) -> u32 {
        (self.block * (self.k_chunk + 4) + self.k_chunk * self.block) * self.cell_bytes
    }
}

/// Invokes `$m!` with, for each weight type, `(phase1, phase2, phase3, peak, type, bytes, B,
/// pivot_threads, pivot_cells, tile_threads, tile_cells, k_chunk)`: the single source of
/// [`FW_FLOAT`], the kernels in `fw_float.rs` and their registry rows. f64 stages k in two
/// slices of 32 so that a block's operands stay under the 48 KB of static shared memory.
macro_rules! for_each_fw_float {
    ($m:ident) => {
        $m! {
            (fwf32_phase1_b64, fwf32_phase2_b64, fwf32_phase3_b64, apsp_addmin_peak_f32, f32, 4,
             64, 16, 4, 8, 8, 64),
            (fwf64_phase1_b64, fwf64_phase2_b64, fwf64_phase3_b64, apsp_addmin_peak_f64, f64, 8,
             64, 16, 4, 16, 4, 32),
        }
    };
}

macro_rules! fw_float_table {
    ($(($p1:ident, $p2:ident, $p3:ident, $peak:ident, $ty:ident, $bytes:tt, $b:tt, $t1:tt,
        $r:tt, $t3:tt, $n:tt, $kc:tt)),* $(,)?) => {
        /// Every float weight type's kernels and launch geometry: f32, then f64.
        pub const FW_FLOAT: [FwFloatConfig; 2] = [$(FwFloatConfig {
            weight: stringify!($ty),
            cell_bytes: $bytes,
            block: $b,
            pivot_threads: $t1,
            tile_threads: $t3,
            tile_cells: $n,
            k_chunk: $kc,
            phase1: stringify!($p1),
            phase2: stringify!($p2),
            phase3: stringify!($p3),
            peak: stringify!($peak),
        }),*];
    };
}
for_each_fw_float!(fw_float_table);

/// Threads per block of the float peak kernels (as the int32 one).
pub const FLOAT_PEAK_THREADS: u32 = super::PEAK_THREADS;
/// Add-mins per thread per loop iteration of the float peak kernels (as the int32 one).
pub const FLOAT_PEAK_UPDATES_PER_ITERATION: u32 = super::PEAK_UPDATES_PER_ITERATION;

// The geometry the kernels rely on.
const _: () = {
    let mut i = 0;
    while i < FW_FLOAT.len() {
        let c = FW_FLOAT[i];
        assert!(c.block.is_multiple_of(c.pivot_threads));
        assert!(c.pivot_threads * c.pivot_threads <= 1024);
        // Cells in groups of 4 (16 or 32 bytes), groups spread GS = 4 * tile_threads apart.
        assert!(c.tile_threads * c.tile_cells == c.block && c.tile_cells.is_multiple_of(4));
        assert!(c.block.is_multiple_of(c.k_chunk) && c.k_chunk.is_multiple_of(4));
        assert!(c.tile_shared_bytes() <= 48 * 1024);
        // Whole 16-byte quads per operand row, and each thread copies a whole number of them.
        let threads = c.tile_threads * c.tile_threads;
        assert!((c.k_chunk * c.cell_bytes).is_multiple_of(16));
        assert!((c.block * c.k_chunk * c.cell_bytes / 16).is_multiple_of(threads));
        // The host's pitch: a multiple of B is a multiple of 16 bytes for both types.
        assert!((c.block * c.cell_bytes).is_multiple_of(16));
        i += 1;
    }
};

/// The configuration for weights of `weight` (`"f32"` or `"f64"`).
pub fn fw_float_config(weight: &str) -> Option<FwFloatConfig> {
    FW_FLOAT.iter().copied().find(|c| c.weight == weight)
}
