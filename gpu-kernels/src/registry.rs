//! Every kernel of the PTX in one typed table: name, [`Family`], launch block, tile, dynamic
//! shared memory and register cap. Built at compile time from the per-family tables, which are
//! themselves expanded from the `for_each_*!` lists, so a row added to a list is a kernel in the
//! PTX, a row of its family's table and a row here with nothing else to edit. The host (`host
//! info`, `host occupancy`, `host bench`, the `.maxnreg` caps) and the report read kernels from
//! here; none of them parses kernel names.
use crate::apsp::{
    BATCH_BLOCKED, BATCH_KERNELS, FW_CONFIGS, FW_MULTI, FW_OOC, FW_PATHS, FW_SMALL,
    INIT_MATRIX_KERNEL, INIT_THREADS, PATHS_INIT_KERNEL, PEAK_KERNEL, PEAK_THREADS,
    SCATTER_EDGES_KERNEL, SMALL_HOLD_KERNEL, SMALL_PROBES, STATS_FINISH_KERNEL,
    STATS_FINISH_THREADS, STATS_THREADS, STATS_TILES_KERNEL,
    float::{FLOAT_NONNEG_PEAK, FLOAT_PEAK_THREADS, FLOAT_TYPES, FW_FLOAT},
    float_pred::{FLOAT_PRED_KERNELS, FLOAT_PRED_THREADS},
    float_reweight::{POTENTIAL_KERNEL, POTENTIAL_THREADS, REWEIGHT_KERNEL, REWEIGHT_THREADS},
};
pub use crate::family::Family;
use crate::matmul::{
    AUTOTUNED, BANK, BLOCKTILE_1D, BLOCKTILE_2D, COALESCED, DOUBLE_BUFFER, FLAGSHIP,
    FLAGSHIP_BATCHED, FLAGSHIP_OPS, FLAGSHIP_T_U, NAIVE, RungConfig, TILED, VECTORIZED, WARPTILE,
    batched_small::{BATCHED_SMALL, BATCHED_SMALL_THREADS},
    skinny::{
        SKINNY_COLS, SKINNY_GEMV, SKINNY_ROWS, SKINNY_ROWS_ASYNC, SKINNY_THREADS,
        SPLITK_REDUCE_KERNEL, SPLITK_REDUCE_THREADS, SkinnyConfig,
    },
    split_k::{
        SPLIT_SUM_KERNEL, SPLIT_SUM_THREADS, TRANSPOSE_KERNEL, TRANSPOSE_ROWS, TRANSPOSE_TILE,
    },
};
use crate::sm90::{
    WGMMA,
    tf32::{SPLIT_KERNEL, SPLIT_THREADS, WGMMA_TF32},
};
use crate::tc::{MMA_PEAK, MMA_PEAK_THREADS, TC};

/// One kernel of the PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    pub name: &'static str,
    pub family: Family,
    /// Threads per block, (x, y).
    pub block: (u32, u32),
    /// One block's tile: output rows, output columns and k-depth per step for SGEMM; `(B, B, B)`
    /// for a Floyd–Warshall block factor B; `None` for kernels without one (init, peak, stats).
    pub tile: Option<(u32, u32, u32)>,
    /// Dynamic shared memory per block (the flagship's; 0 for the others).
    pub dynamic_shared_bytes: u32,
    /// The `.maxnreg` the kernel is compiled under, if any.
    pub max_registers: Option<u32>,
}

impl KernelSpec {
    pub const fn threads(&self) -> u32 {
        self.block.0 * self.block.1
    }
}

/// Every kernel: the SGEMM ladder in the study's order, the flagship, then the APSP kernels.
pub const KERNELS: &[KernelSpec] = &ALL;

/// The kernel named `name`.
pub fn kernel(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The family of the kernel named `name`.
pub fn family_of(name: &str) -> Option<Family> {
    kernel(name).map(|k| k.family)
}

/// The register cap (`.maxnreg`) to compile the kernel named `name` under; `None` for a kernel
/// without one or a name that is not a kernel.
pub fn max_registers(name: &str) -> Option<u32> {
    kernel(name).and_then(|k| k.max_registers)
}

/// The kernels of one family, in [`KERNELS`] order.
pub fn kernels_of(family: Family) -> impl Iterator<Item = &'static KernelSpec> {
    KERNELS.iter().filter(move |k| k.family == family)
}

// --- Building the table in const context --------------------------------------------------

const EMPTY: KernelSpec = KernelSpec {
    name: "",
    family: Family::Naive,
    block: (0, 0),
    tile: None,
    dynamic_shared_bytes: 0,
    max_registers: None,
};

/// The rows of one typed table, `$c` bound to each of its entries in turn.
macro_rules! rows {
    ($table:expr, $c:ident => $row:expr) => {{
        const N: usize = $table.len();
        let mut out = [EMPTY; N];
        let mut i = 0;
        while i < N {
            let $c = &$table[i];
            out[i] = $row;
            i += 1;
        }
        out
    }};
}

const fn sgemm(
    name: &'static str,
    family: Family,
    block: (u32, u32),
    tile: (u32, u32, u32),
) -> KernelSpec {
    KernelSpec {
        name,
        family,
        block,
        tile: Some(tile),
        ..EMPTY
    }
}

const fn rung(c: &RungConfig) -> KernelSpec {
    sgemm(c.name, c.rung.family(), c.block_dim(), c.tile_mnk())
}

/// A skinny kernel (`matmul/skinny.rs`): 256 threads, its block's output rows, columns and k
/// per shared slice as the tile, the pipelined row kernels' stages as dynamic shared memory.
const fn skinny(c: &SkinnyConfig, family: Family) -> KernelSpec {
    KernelSpec {
        dynamic_shared_bytes: c.dynamic_shared_bytes(),
        ..sgemm(c.name, family, (SKINNY_THREADS, 1), c.tile_mnk())
    }
}

/// A kernel of the APSP solver with `t x t` threads on a B x B block.
const fn fw(name: &'static str, family: Family, t: u32, b: u32, cap: Option<u32>) -> KernelSpec {
    KernelSpec {
        name,
        family,
        block: (t, t),
        tile: Some((b, b, b)),
        dynamic_shared_bytes: 0,
        max_registers: cap,
    }
}

/// A one-dimensional kernel without a tile.
const fn flat(name: &'static str, family: Family, threads: u32) -> KernelSpec {
    KernelSpec {
        name,
        family,
        block: (threads, 1),
        ..EMPTY
    }
}

/// Phase 1 of every block factor, then phase 2, then phase 3.
const FW_ROWS: [KernelSpec; 3 * FW_CONFIGS.len()] = {
    const N: usize = FW_CONFIGS.len();
    let mut out = [EMPTY; 3 * N];
    let mut i = 0;
    while i < N {
        let c = &FW_CONFIGS[i];
        let (b, cap) = (c.block, c.max_registers);
        out[i] = fw(c.phase1, Family::FwPhase1, c.threads, b, cap);
        out[N + i] = fw(c.phase2, Family::FwPhase2, c.phase2_threads(), b, cap);
        out[2 * N + i] = fw(c.phase3, Family::FwPhase3, c.phase3_threads, b, cap);
        i += 1;
    }
    out
};

const FW_MULTI_ROWS: [KernelSpec; 4 * FW_MULTI.len()] = {
    let mut out = [EMPTY; 4 * FW_MULTI.len()];
    let mut i = 0;
    while i < FW_MULTI.len() {
        let c = &FW_MULTI[i];
        let (b, t) = (c.block, c.tile_threads);
        out[4 * i] = fw(c.pivot, Family::FwMulti, c.pivot_threads, b, None);
        out[4 * i + 1] = fw(c.row, Family::FwMulti, t, b, None);
        out[4 * i + 2] = fw(c.col, Family::FwMulti, t, b, None);
        out[4 * i + 3] = fw(c.rest, Family::FwMulti, t, b, None);
        i += 1;
    }
    out
};

/// The path kernels of every block factor (one GPU's three phases, then the split's four
/// roles), then the path matrix's initialisation.
const FW_PATHS_ROWS: [KernelSpec; 7 * FW_PATHS.len() + 1] = {
    let mut out = [EMPTY; 7 * FW_PATHS.len() + 1];
    let mut i = 0;
    while i < FW_PATHS.len() {
        let c = &FW_PATHS[i];
        let (b, t, s) = (c.block, c.tile_threads, &c.split);
        out[7 * i] = fw(c.phase1, Family::FwPaths, c.pivot_threads, b, None);
        out[7 * i + 1] = fw(c.phase2, Family::FwPaths, t, b, None);
        out[7 * i + 2] = fw(c.phase3, Family::FwPaths, t, b, None);
        out[7 * i + 3] = fw(s.pivot, Family::FwPaths, c.pivot_threads, b, None);
        out[7 * i + 4] = fw(s.row, Family::FwPaths, t, b, None);
        out[7 * i + 5] = fw(s.col, Family::FwPaths, t, b, None);
        out[7 * i + 6] = fw(s.rest, Family::FwPaths, t, b, None);
        i += 1;
    }
    out[7 * FW_PATHS.len()] = flat(PATHS_INIT_KERNEL, Family::FwPaths, INIT_THREADS);
    out
};

/// The float Floyd–Warshall kernels: phase 1 of each weight type, then phases 2–3 of each
/// tile shape (f32's, then f64's).
const FW_FLOAT_ROWS: [KernelSpec; FLOAT_TYPES.len() + 2 * FW_FLOAT.len()] = {
    let mut out = [EMPTY; FLOAT_TYPES.len() + 2 * FW_FLOAT.len()];
    let mut i = 0;
    while i < FLOAT_TYPES.len() {
        let t = &FLOAT_TYPES[i];
        out[i] = fw(t.phase1, Family::FwFloat, t.pivot_threads, t.block, None);
        i += 1;
    }
    let mut i = 0;
    while i < FW_FLOAT.len() {
        let c = &FW_FLOAT[i];
        let block = (c.tile_threads_x, c.tile_threads_y);
        let o = FLOAT_TYPES.len() + 2 * i;
        out[o] = KernelSpec {
            block,
            ..fw(c.phase2, Family::FwFloat, 1, c.block, c.max_registers)
        };
        out[o + 1] = KernelSpec {
            block: c.phase3_threads(),
            ..fw(c.phase3, Family::FwFloat, 1, c.block, c.max_registers)
        };
        i += 1;
    }
    out
};

/// Every table, in [`KERNELS`] order.
const PARTS: &[&[KernelSpec]] = &[
    &rows!(NAIVE, c => rung(c)),
    &rows!(COALESCED, c => rung(c)),
    &rows!(TILED, c => sgemm(c.name, Family::Tiled, c.block_dim(), c.tile_mnk())),
    &rows!(BLOCKTILE_1D, c => rung(c)),
    &rows!(BLOCKTILE_2D, c => rung(c)),
    &rows!(VECTORIZED, c => sgemm(c.name, Family::Vectorized, c.block_dim(), c.tile_mnk())),
    &rows!(BANK, c => rung(c)),
    &rows!(AUTOTUNED, c => rung(c)),
    &rows!(WARPTILE, c => rung(c)),
    &rows!(DOUBLE_BUFFER, c => rung(c)),
    &rows!(FLAGSHIP, c => KernelSpec {
        dynamic_shared_bytes: c.shared_bytes(),
        ..sgemm(c.name, Family::Flagship, (c.threads(), 1), (c.bm, c.bn, c.bk))
    }),
    &rows!(FLAGSHIP_OPS, c => KernelSpec {
        dynamic_shared_bytes: c.shared_bytes(),
        ..sgemm(c.name, Family::FlagshipOps, (c.threads(), 1), (c.bm, c.bn, c.bk))
    }),
    &rows!(FLAGSHIP_BATCHED, c => KernelSpec {
        dynamic_shared_bytes: c.shared_bytes(),
        ..sgemm(c.name, Family::FlagshipOps, (c.threads(), 1), (c.bm, c.bn, c.bk))
    }),
    &rows!(FLAGSHIP_T_U, c => KernelSpec {
        dynamic_shared_bytes: c.shared_bytes(),
        ..sgemm(c.name, Family::FlagshipOps, (c.threads(), 1), (c.bm, c.bn, c.bk))
    }),
    &rows!(SKINNY_ROWS, c => skinny(c, Family::SkinnyRows)),
    &rows!(SKINNY_ROWS_ASYNC, c => skinny(c, Family::SkinnyRows)),
    &rows!(SKINNY_COLS, c => skinny(c, Family::SkinnyCols)),
    &rows!(SKINNY_GEMV, c => skinny(c, Family::SkinnyCols)),
    &[
        flat(
            SPLITK_REDUCE_KERNEL,
            Family::SplitKReduce,
            SPLITK_REDUCE_THREADS,
        ),
        flat(SPLIT_SUM_KERNEL, Family::SplitKReduce, SPLIT_SUM_THREADS),
    ],
    &[KernelSpec {
        block: (TRANSPOSE_TILE, TRANSPOSE_ROWS),
        ..flat(TRANSPOSE_KERNEL, Family::Transpose, 1)
    }],
    &rows!(BATCHED_SMALL, c => flat(c.name, Family::BatchedSmall, BATCHED_SMALL_THREADS)),
    &FW_ROWS,
    &FW_MULTI_ROWS,
    &FW_PATHS_ROWS,
    &FW_FLOAT_ROWS,
    &rows!(FW_OOC, c => fw(c.update, Family::FwOoc, c.tile_threads, c.block, None)),
    &[
        flat(INIT_MATRIX_KERNEL, Family::ApspInit, INIT_THREADS),
        flat(SCATTER_EDGES_KERNEL, Family::ApspInit, INIT_THREADS),
        flat(PEAK_KERNEL, Family::ApspPeak, PEAK_THREADS),
        flat(FLOAT_TYPES[0].peak, Family::ApspPeak, FLOAT_PEAK_THREADS),
        flat(FLOAT_TYPES[1].peak, Family::ApspPeak, FLOAT_PEAK_THREADS),
        flat(FLOAT_NONNEG_PEAK, Family::ApspPeak, FLOAT_PEAK_THREADS),
        flat(STATS_TILES_KERNEL, Family::ApspStats, STATS_THREADS),
        flat(STATS_FINISH_KERNEL, Family::ApspStats, STATS_FINISH_THREADS),
    ],
    &rows!(TC, c => KernelSpec {
        dynamic_shared_bytes: c.shared_bytes(),
        max_registers: c.max_registers(),
        ..sgemm(c.name, Family::TensorCore, (c.threads(), 1), (c.bm, c.bn, c.bk))
    }),
    &rows!(MMA_PEAK, c => flat(c.name, Family::TensorCore, MMA_PEAK_THREADS)),
    &rows!(FW_SMALL, c => fw(c.kernel, Family::FwSmall, c.threads, c.block, None)),
    &[flat(SMALL_HOLD_KERNEL, Family::FwSmall, 1)],
    &rows!(SMALL_PROBES, c => fw(c.kernel, Family::FwSmall, c.threads, c.block, None)),
    &rows!(BATCH_KERNELS, c => KernelSpec {
        block: c.threads(),
        ..fw(c.kernel, Family::ApspBatch, 0, c.n, c.max_registers)
    }),
    &{
        let c = BATCH_BLOCKED;
        let (b, t) = (c.block, c.tile_threads);
        [
            fw(c.phase1, Family::ApspBatch, c.pivot_threads, b, None),
            fw(c.phase2, Family::ApspBatch, t, b, None),
            fw(c.phase3, Family::ApspBatch, t, b, None),
        ]
    },
    &rows!(WGMMA, c => KernelSpec {
        name: c.name,
        family: Family::Wgmma,
        block: (c.threads(), 1),
        tile: Some((c.bm, c.bn, c.bk)),
        dynamic_shared_bytes: c.shared_bytes(),
        max_registers: Some(c.entry_registers()),
    }),
    &rows!(WGMMA_TF32, c => KernelSpec {
        name: c.name,
        family: Family::Wgmma,
        block: (c.threads(), 1),
        tile: Some((c.bm, c.bn, c.bk)),
        dynamic_shared_bytes: c.shared_bytes(),
        max_registers: Some(c.entry_registers()),
    }),
    &[flat(SPLIT_KERNEL, Family::Wgmma, SPLIT_THREADS)],
    &rows!(FLOAT_PRED_KERNELS, c => flat(c.1, Family::FloatPred, FLOAT_PRED_THREADS)),
    &[
        flat(POTENTIAL_KERNEL, Family::FloatReweight, POTENTIAL_THREADS),
        flat(REWEIGHT_KERNEL, Family::FloatReweight, REWEIGHT_THREADS),
    ],
];

const COUNT: usize = {
    let (mut n, mut i) = (0, 0);
    while i < PARTS.len() {
        n += PARTS[i].len();
        i += 1;
    }
    n
};

// A static, not a const: the table is large (clippy's large_const_arrays), and `KERNELS` only
// needs a reference to it.
static ALL: [KernelSpec; COUNT] = {
    let mut out = [EMPTY; COUNT];
    let (mut o, mut i) = (0, 0);
    while i < PARTS.len() {
        let mut j = 0;
        while j < PARTS[i].len() {
            out[o] = PARTS[i][j];
            o += 1;
            j += 1;
        }
        i += 1;
    }
    out
};

#[cfg(test)]
mod tests;
