//! The skinny SGEMM kernels' host-visible half (issue #20): C = alpha·A·B + beta·C when N or M
//! is tiny (≤ 16), matrix–vector products included (N = 1: y = A·x; M = 1: y = xᵀ·B). Such
//! products are memory bound (every element of the large operand is used once or a few times),
//! so these kernels stream the large operand at memory bandwidth with 128-bit loads instead of
//! computing a 128x256 tile that is mostly padding. Their argument struct, config types, kernel
//! lists and the one formula for their K split; the kernels are in `skinny_rows.rs`,
//! `skinny_cols.rs` and `skinny_reduce.rs`.
//!
//! - Row kernels (`sgemm_rows_n*`, small N): a warp owns `RW` rows of A, its lanes 4
//!   consecutive k each (one `ld.global.nc.v4` per row per 128 k, coalesced); the block's slice of
//!   B (`KC` k by `nc` columns) is staged transposed in shared memory and shared by its 8 warps.
//!   A warp's partial sums are reduced by butterfly shuffles. N wider than `nc` takes several
//!   column groups (grid y).
//! - Column kernels (`sgemm_cols_m*`, small M): a thread owns 4 consecutive columns of C (one
//!   `ld.global.nc.v4` of B per k, coalesced), the block's slice of A (`mr` rows by `KC` k) is in
//!   shared memory. M taller than `mr` takes several row groups (grid y).
//! - Both split K over grid z when their blocks alone cannot fill the GPU ([`splits`]): each
//!   split writes its partial product to a workspace and `sgemm_splitk_reduce` adds the splits up
//!   in a fixed order (split 0 first, so results do not depend on timing) and applies alpha and
//!   beta. With one split the kernels write C themselves.

/// The skinny kernels' only argument, passed by value (one definition for kernel and host).
///
/// `a` is `m x k` (rows `lda` apart), `b` is `k x n` (rows `ldb` apart), `c` is `m x n` (rows
/// `ldc` apart); every dimension at least 1 and every leading dimension at least its matrix's
/// width; `c` overlaps neither `a` nor `b`. When `beta == 0`, C is only written.
///
/// K is split into `splits` ranges of `k_chunk` (the last one shorter), one per grid z. With
/// `splits > 1` the kernels store their partial products to `work` (`splits` dense `m x n`
/// slices, split `s` at `s * m * n`) and the reduce kernel writes C; alpha and beta apply only
/// when C is written. The matrix–vector kernels (`SkinnyKind::VecMat`) sum their splits
/// themselves: they also need `counters`, `m * ceil(n / GEMV_STRIP)` words that are zero before
/// the launch (they leave them at zero); the other kernels ignore it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SkinnyParams {
    pub a: *const f32,
    pub b: *const f32,
    pub c: *mut f32,
    pub work: *mut f32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub lda: u32,
    pub ldb: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
    pub splits: u32,
    pub k_chunk: u32,
    /// 1 when the streamed operand allows 128-bit loads (row kernels: `lda % 4 == 0` and A
    /// 16-byte aligned; column kernels: `ldb % 4 == 0` and B 16-byte aligned), else 0.
    pub vec: u32,
    /// The matrix–vector kernels' per-strip counters (null for the others).
    pub counters: *mut u32,
}

/// Threads per block of every skinny kernel (8 warps).
pub const SKINNY_THREADS: u32 = 256;
/// Warps per block.
pub const SKINNY_WARPS: u32 = SKINNY_THREADS / 32;
/// k per shared-memory slice of the row kernels: 2 steps of 32 lanes x 4 k.
pub const ROWS_KC: u32 = 256;
/// k per shared-memory slice of the column kernels.
pub const COLS_KC: u32 = 64;
/// Columns of C per block of the column kernels: 4 per thread.
pub const COLS_TILE_N: u32 = 4 * SKINNY_THREADS;
/// Columns of C per block of the matrix–vector kernels: 4 per lane of a warp.
pub const GEMV_STRIP: u32 = 128;
/// Warps per block of the matrix–vector kernels, each taking its own rows of the block's K range.
pub const GEMV_WARPS: u32 = SKINNY_WARPS;
/// The k granule of a matrix–vector split: 8 rows for each of the 8 warps.
pub const GEMV_KG: u32 = 64;
/// The reduction kernel.
pub const SPLITK_REDUCE_KERNEL: &str = "sgemm_splitk_reduce";
/// Threads per block of the reduction kernel.
pub const SPLITK_REDUCE_THREADS: u32 = 256;

/// Which operand a skinny kernel streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkinnyKind {
    /// Small N: A streamed row by row (`sgemm_rows_n*`).
    Rows,
    /// Small M: B streamed column block by column block (`sgemm_cols_m*`).
    Cols,
    /// M = 1 (any M runs, one row per grid y): B streamed in strips of [`GEMV_STRIP`] columns,
    /// K split with the splits' sum done in the same launch (`sgemv_strips_u*`, `gemv.rs`).
    VecMat,
}

/// One skinny kernel: `width` columns (row kernels) or rows (column kernels) of C per group,
/// `rows_per_warp` rows of A per warp (row kernels; rows of B per warp per step for the
/// matrix–vector kernels; 1 for column kernels), and `stages`: 0 for
/// the kernels that load into registers (`skinny_rows.rs`, `skinny_cols.rs`), else the depth of
/// the cp.async pipeline of a pipelined row kernel (`skinny_rows_async.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SkinnyConfig {
    pub name: &'static str,
    pub kind: SkinnyKind,
    pub width: u32,
    pub rows_per_warp: u32,
    pub stages: u32,
}

impl SkinnyConfig {
    /// Output rows and columns of one block, and its k per shared slice (the registry's tile).
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        match self.kind {
            SkinnyKind::Rows => (SKINNY_WARPS * self.rows_per_warp, self.width, ROWS_KC),
            SkinnyKind::Cols => (self.width, COLS_TILE_N, COLS_KC),
            SkinnyKind::VecMat => (1, GEMV_STRIP, GEMV_KG),
        }
    }

    /// The grid's x and y for an `m x n` C (z is the split count).
    pub const fn grid_xy(&self, m: u32, n: u32) -> (u32, u32) {
        let (tm, tn, _) = self.tile_mnk();
        match self.kind {
            SkinnyKind::Rows => (m.div_ceil(tm), n.div_ceil(tn)),
            SkinnyKind::Cols | SkinnyKind::VecMat => (n.div_ceil(tn), m.div_ceil(tm)),
        }
    }

    /// The k granule of a split: whole shared slices.
    pub const fn k_granule(&self) -> u32 {
        match self.kind {
            SkinnyKind::Rows => ROWS_KC,
            SkinnyKind::Cols => COLS_KC,
            SkinnyKind::VecMat => GEMV_KG,
        }
    }

    /// Dynamic shared memory per block: the pipelined row kernels' stages (each A's
    /// `8 * rows_per_warp x ASYNC_KC` slice and B's transposed `width x (ASYNC_KC + 4)` one), 0
    /// for the others (static shared memory).
    pub const fn dynamic_shared_bytes(&self) -> u32 {
        4 * self.stages * async_stage_words(self.width, self.rows_per_warp)
    }
}

/// k per stage of the pipelined row kernels: one step of 32 lanes x 4 k (a split's granule,
/// [`ROWS_KC`], is two stages).
pub const ASYNC_KC: u32 = 128;
/// Words of one stage of a pipelined row kernel of `nc` columns and `rw` rows per warp: A's
/// slice (rows of `ASYNC_KC` words, unpadded: a warp reads 512 contiguous bytes of one row) and
/// B's, transposed, rows `ASYNC_KC + 4` words apart (16-byte aligned rows).
pub const fn async_stage_words(nc: u32, rw: u32) -> u32 {
    SKINNY_WARPS * rw * ASYNC_KC + nc * (ASYNC_KC + 4)
}

/// The K split of a skinny launch: `splits` ranges of `k_chunk`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KSplit {
    pub splits: u32,
    pub k_chunk: u32,
}

/// Blocks per multiprocessor the split aims for: a memory-bound kernel needs many loads in
/// flight on every multiprocessor (Little's law: 4.8 TB/s x ~1 µs is ~36 KB per SM of the
/// H200's 132; a block of these kernels has 8-16 KB in flight).
pub const SPLIT_BLOCKS_PER_SM: u32 = 4;
/// Fewest granules (shared slices) a split gets. One: at 1 x 4096 x 4096 the column kernel's 4
/// blocks need 64 splits of 64 k to put 2 blocks on each multiprocessor (with 2 granules, 32
/// splits left one block per multiprocessor, below what bandwidth needs); the partial sums are
/// 64 x 4096 floats against the 64 MB of B.
pub const SPLIT_MIN_GRANULES: u32 = 1;
/// Most splits: bounds the workspace and the reduction's reads.
pub const MAX_SPLITS: u32 = 64;

/// The K split for `blocks` blocks (grid x times y) of `cfg` at depth `k` on `sms`
/// multiprocessors: the one formula that decides it. Enough splits that the grid has
/// [`SPLIT_BLOCKS_PER_SM`] blocks per multiprocessor, each split at least
/// [`SPLIT_MIN_GRANULES`] slices deep, at most [`MAX_SPLITS`]; then the chunk rounded up to
/// whole slices and the count recomputed, so that no split is empty.
pub const fn splits(cfg: &SkinnyConfig, blocks: u32, k: u32, sms: u32) -> KSplit {
    let g = cfg.k_granule();
    let want = (SPLIT_BLOCKS_PER_SM * sms).div_ceil(if blocks == 0 { 1 } else { blocks });
    let by_depth = k / (g * SPLIT_MIN_GRANULES);
    let mut s = if want < by_depth { want } else { by_depth };
    if s > MAX_SPLITS {
        s = MAX_SPLITS;
    }
    if s <= 1 {
        return KSplit {
            splits: 1,
            k_chunk: k,
        };
    }
    let chunk = k.div_ceil(s).div_ceil(g) * g;
    KSplit {
        splits: k.div_ceil(chunk),
        k_chunk: chunk,
    }
}

/// Invokes `$m!` with, for every row kernel (small N), `(name, nc, rw)`: `nc` columns of C per
/// column group, `rw` rows of A per warp. A block stages B's `nc x 256` slice for its `8 * rw`
/// rows of A, so B's share of the traffic is `nc / (8 * rw)` of A's, and a lane does `4 * rw`
/// FMAs per 16-byte shared load: `rw = 4` at N = 16 halves the one and doubles the other
/// against `rw = 2` (H200: 8192 x 16 x 8192 at 36 % of cuBLAS with `rw = 2` and B's loads
/// serialised, docs/matmul.md). No wider row kernel: one of 32 columns (`rw = 2`, 254
/// registers) ran 8192 x 32 x 8192 at 33 % of cuBLAS, the 64x64 flagship tile at 53 %.
macro_rules! for_each_skinny_rows {
    ($m:ident) => {
        $m! {
            (sgemm_rows_n1, 1, 4),
            (sgemm_rows_n2, 2, 4),
            (sgemm_rows_n4, 4, 4),
            (sgemm_rows_n8, 8, 4),
            (sgemm_rows_n16, 16, 4),
        }
    };
}

/// Invokes `$m!` with, for every pipelined row kernel, `(name, nc, rw, stages)` as for the row
/// kernels plus the pipeline's depth. Why they exist: `sgemm_rows_n16` needs 238 registers
/// (its A loads and B staging go through registers), so one 8-warp block runs per
/// multiprocessor and its loads and FMAs take turns (H200: 8192 x 16 x 8192 at 68 % of cuBLAS).
/// Here cp.async copies A's and B's slices `stages - 1` slices ahead into shared memory, so the
/// stream never waits on the FMAs and the registers hold only the accumulators and one slice's
/// operands.
macro_rules! for_each_skinny_rows_async {
    ($m:ident) => {
        $m! {
            (sgemm_rows_async_n8, 8, 4, 4),
            (sgemm_rows_async_n16, 16, 4, 4),
            (sgemm_rows_async_n32, 32, 4, 4),
        }
    };
}

/// Invokes `$m!` with, for every column kernel (small M), `(name, mr)`: `mr` rows of C per row
/// group.
macro_rules! for_each_skinny_cols {
    ($m:ident) => {
        $m! {
            (sgemm_cols_m1, 1),
            (sgemm_cols_m2, 2),
            (sgemm_cols_m4, 4),
            (sgemm_cols_m8, 8),
            (sgemm_cols_m16, 16),
        }
    };
}

/// Invokes `$m!` with, for every matrix–vector kernel (M = 1), `(name, u)`: `u` rows of B per
/// warp whose loads are issued together (`u` 16-byte loads in flight per lane).
macro_rules! for_each_skinny_gemv {
    ($m:ident) => {
        $m! {
            (sgemv_strips_u8, 8),
            (sgemv_strips_u4, 4),
        }
    };
}

macro_rules! skinny_rows_table {
    ($(($name:ident, $nc:tt, $rw:tt)),* $(,)?) => {
        /// Every row kernel (small N), narrowest first.
        pub const SKINNY_ROWS: &[SkinnyConfig] = &[$(SkinnyConfig {
            name: stringify!($name), kind: SkinnyKind::Rows, width: $nc, rows_per_warp: $rw,
            stages: 0,
        }),*];
    };
}
for_each_skinny_rows!(skinny_rows_table);

macro_rules! skinny_rows_async_table {
    ($(($name:ident, $nc:tt, $rw:tt, $st:tt)),* $(,)?) => {
        /// Every pipelined row kernel (small N), narrowest first.
        pub const SKINNY_ROWS_ASYNC: &[SkinnyConfig] = &[$(SkinnyConfig {
            name: stringify!($name), kind: SkinnyKind::Rows, width: $nc, rows_per_warp: $rw,
            stages: $st,
        }),*];
    };
}
for_each_skinny_rows_async!(skinny_rows_async_table);

macro_rules! skinny_cols_table {
    ($(($name:ident, $mr:tt)),* $(,)?) => {
        /// Every column kernel (small M), narrowest first.
        pub const SKINNY_COLS: &[SkinnyConfig] = &[$(SkinnyConfig {
            name: stringify!($name), kind: SkinnyKind::Cols, width: $mr, rows_per_warp: 1,
            stages: 0,
        }),*];
    };
}
for_each_skinny_cols!(skinny_cols_table);

macro_rules! skinny_gemv_table {
    ($(($name:ident, $u:tt)),* $(,)?) => {
        /// Every matrix–vector kernel (M = 1); the library runs the one the host names
        /// (`host::matmul::gemv::LIBRARY_KERNEL`).
        pub const SKINNY_GEMV: &[SkinnyConfig] = &[$(SkinnyConfig {
            name: stringify!($name), kind: SkinnyKind::VecMat, width: 1, rows_per_warp: $u,
            stages: 0,
        }),*];
    };
}
for_each_skinny_gemv!(skinny_gemv_table);

/// The narrowest kernel of `table` at least `width` wide, else the widest (which then takes
/// several groups).
pub fn narrowest(table: &'static [SkinnyConfig], width: u32) -> &'static SkinnyConfig {
    table
        .iter()
        .find(|c| c.width >= width)
        .unwrap_or(&table[table.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_cover_k_with_no_empty_split() {
        for cfg in SKINNY_ROWS.iter().chain(SKINNY_COLS) {
            for k in [1, 3, 63, 64, 255, 256, 511, 512, 4097, 8192, 16384] {
                for blocks in [1, 2, 8, 100, 528, 5000] {
                    let s = splits(cfg, blocks, k, 132);
                    assert!(s.splits >= 1 && s.splits <= MAX_SPLITS, "{s:?}");
                    assert!(s.k_chunk * s.splits >= k, "{s:?} k {k}");
                    assert!(s.k_chunk * (s.splits - 1) < k, "{s:?} k {k}: empty split");
                    if s.splits > 1 {
                        assert_eq!(s.k_chunk % cfg.k_granule(), 0);
                        assert!(blocks * s.splits <= 2 * SPLIT_BLOCKS_PER_SM * 132 + blocks);
                    }
                }
            }
        }
        // 1 x 8192 x 8192 with the M = 1 column kernel: 8 column blocks, split 64 ways.
        let s = splits(&SKINNY_COLS[0], 8, 8192, 132);
        assert_eq!((s.splits, s.k_chunk), (64, 128));
        // 8192 x 1 x 8192 with the N = 1 row kernel: 256 row blocks, split 3 ways.
        let s = splits(&SKINNY_ROWS[0], 256, 8192, 132);
        assert_eq!((s.splits, s.k_chunk), (3, 2816));
    }

    #[test]
    fn tables_are_ordered_and_named_by_width() {
        for (t, prefix) in [(SKINNY_ROWS, "sgemm_rows_n"), (SKINNY_COLS, "sgemm_cols_m")] {
            assert!(t.windows(2).all(|w| w[0].width < w[1].width));
            for c in t {
                assert_eq!(c.name, format!("{prefix}{}", c.width));
            }
            assert_eq!(narrowest(t, 1).width, 1);
            assert_eq!(narrowest(t, 7).width, 8);
            assert_eq!(narrowest(t, 100).width, t[t.len() - 1].width);
        }
        // The row kernels' B slice (width x (ROWS_KC + 4) floats) fits in static shared memory.
        for c in SKINNY_ROWS {
            assert!(4 * c.width * (ROWS_KC + 4) <= 48 * 1024, "{}", c.name);
            assert_eq!(c.dynamic_shared_bytes(), 0);
        }
    }

    #[test]
    fn matrix_vector_kernels_split_in_whole_warp_steps() {
        for c in SKINNY_GEMV {
            assert_eq!(c.name, format!("sgemv_strips_u{}", c.rows_per_warp));
            assert_eq!(c.kind, SkinnyKind::VecMat);
            // A split's granule is whole steps of every warp.
            assert_eq!(GEMV_KG % (GEMV_WARPS * c.rows_per_warp), 0);
            assert_eq!(c.grid_xy(1, 4096), (32, 1));
            assert_eq!(c.grid_xy(3, 129), (2, 3));
        }
        // 1 x 4096 x 4096: 32 strips, split 16 ways (512 blocks, 256 k each).
        let s = splits(&SKINNY_GEMV[0], 32, 4096, 132);
        assert_eq!((s.splits, s.k_chunk), (16, 256));
    }

    #[test]
    fn pipelined_row_kernels_fit_and_keep_the_row_geometry() {
        assert!(
            SKINNY_ROWS_ASYNC
                .windows(2)
                .all(|w| w[0].width < w[1].width)
        );
        for c in SKINNY_ROWS_ASYNC {
            assert_eq!(c.name, format!("sgemm_rows_async_n{}", c.width));
            assert_eq!(c.kind, SkinnyKind::Rows);
            // A block fits the H200's 227 KB (two of them up to 16 columns); stages 16-byte
            // aligned.
            let blocks = if c.width <= 16 { 2 } else { 1 };
            assert!(
                blocks * c.dynamic_shared_bytes() <= 227 * 1024,
                "{}",
                c.name
            );
            assert_eq!(async_stage_words(c.width, c.rows_per_warp) % 4, 0);
            assert!(c.stages >= 2);
            // A split's granule is whole stages, and the A copies are whole 16-byte pieces per
            // thread (the kernel's unrolled loops).
            assert_eq!(c.k_granule() % ASYNC_KC, 0);
            assert_eq!(
                SKINNY_WARPS * c.rows_per_warp * ASYNC_KC % (4 * SKINNY_THREADS),
                0
            );
            assert_eq!(c.width * ASYNC_KC % SKINNY_THREADS, 0);
        }
        // 8192 x 16: 97 KB per block.
        assert_eq!(SKINNY_ROWS_ASYNC[1].dynamic_shared_bytes(), 99_328);
    }
}
