//! SGEMM kernels, C = A·B for row-major f32 matrices whose sizes the host has padded to the
//! kernel's tile multiples (so kernels have no bounds branches).
//!
//! Every kernel takes `(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32)`: `n` is the
//! padded column count of B and C, `k` the padded column count of A; the grid is
//! `(n / tile_n, m / tile_m)` blocks.
//!
//! The kernel lists below are the single source of truth: the same macro invocation produces
//! the host-visible tables here and the kernels in `tiled.rs` / `vectorized.rs`.

/// Shared-memory tiled kernel, one output per thread, `tile x tile` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TiledConfig {
    pub name: &'static str,
    pub tile: u32,
}

impl TiledConfig {
    pub const fn block_dim(&self) -> (u32, u32) {
        (self.tile, self.tile)
    }
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        (self.tile, self.tile, self.tile)
    }
}

/// Vectorized tiled kernel: a block of `block[0] x block[1]` threads (x along columns), each
/// computing a register tile of `item[1]` rows x `item[0]` columns, with 128-bit global and shared
/// accesses. The block's output tile is `(block[1]*item[1]) x (block[0]*item[0])`; `tile_k` is the
/// depth of the A and B tiles staged in shared memory per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VecConfig {
    pub name: &'static str,
    pub block: [u32; 2],
    pub item: [u32; 2],
    pub tile_k: u32,
}

impl VecConfig {
    pub const fn block_dim(&self) -> (u32, u32) {
        (self.block[0], self.block[1])
    }
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1]
    }
    pub const fn tile_m(&self) -> u32 {
        self.block[1] * self.item[1]
    }
    pub const fn tile_n(&self) -> u32 {
        self.block[0] * self.item[0]
    }
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        (self.tile_m(), self.tile_n(), self.tile_k)
    }
    /// Static shared memory: the A tile stored transposed with 4 words of row padding, and the B tile.
    pub const fn shared_bytes(&self) -> u32 {
        4 * (self.tile_k * (self.tile_m() + 4) + self.tile_k * self.tile_n())
    }
}

/// Invokes `$m!` with `(name, tile, tile / 4)` for every tiled kernel (the quotient as a literal
/// for `seq!`).
macro_rules! for_each_tiled {
    ($m:ident) => {
        $m! {
            (matmul_tiled_t8, 8, 2),
            (matmul_tiled_t16, 16, 4),
            (matmul_tiled_t32, 32, 8),
        }
    };
}

/// Invokes `$m!` with, for every vectorized kernel, `(name, bx, by, vec, rpi, tk, w, g, aw, ra)`:
/// block `bx x by` threads, item `vec` columns x `rpi` rows, k-depth `tk`; and literals the
/// kernel needs for unrolling: B fragments as `g` vectors of `w` floats (vec = g*w), A fragments
/// as `ra` vectors of `aw` floats (rpi = ra*aw). These are the seed lab's configurations
/// (block work size x item work size), each with k-depth 32 and 64.
macro_rules! for_each_vectorized {
    ($m:ident) => {
        $m! {
            (matmul_vec_b16x16_i4x4_k32, 16, 16, 4, 4, 32, 4, 1, 4, 1),
            (matmul_vec_b16x16_i4x4_k64, 16, 16, 4, 4, 64, 4, 1, 4, 1),
            (matmul_vec_b32x4_i2x16_k32, 32, 4, 2, 16, 32, 2, 1, 4, 4),
            (matmul_vec_b32x4_i2x16_k64, 32, 4, 2, 16, 64, 2, 1, 4, 4),
            (matmul_vec_b32x16_i2x4_k32, 32, 16, 2, 4, 32, 2, 1, 4, 1),
            (matmul_vec_b32x16_i2x4_k64, 32, 16, 2, 4, 64, 2, 1, 4, 1),
            (matmul_vec_b16x4_i4x16_k32, 16, 4, 4, 16, 32, 4, 1, 4, 4),
            (matmul_vec_b16x4_i4x16_k64, 16, 4, 4, 16, 64, 4, 1, 4, 4),
            (matmul_vec_b16x64_i4x1_k32, 16, 64, 4, 1, 32, 4, 1, 1, 1),
            (matmul_vec_b16x64_i4x1_k64, 16, 64, 4, 1, 64, 4, 1, 1, 1),
            (matmul_vec_b8x2_i4x16_k32, 8, 2, 4, 16, 32, 4, 1, 4, 4),
            (matmul_vec_b8x2_i4x16_k64, 8, 2, 4, 16, 64, 4, 1, 4, 4),
        }
    };
}

macro_rules! tiled_table {
    ($(($name:ident, $tile:tt, $quads:tt)),* $(,)?) => {
        /// Every tiled kernel, smallest tile first.
        pub const TILED: &[TiledConfig] = &[$(TiledConfig { name: stringify!($name), tile: $tile }),*];
    };
}
for_each_tiled!(tiled_table);

macro_rules! vectorized_table {
    ($(($name:ident, $bx:tt, $by:tt, $vec:tt, $rpi:tt, $tk:tt, $w:tt, $g:tt, $aw:tt, $ra:tt)),* $(,)?) => {
        /// Every vectorized kernel.
        pub const VECTORIZED: &[VecConfig] = &[$(VecConfig {
            name: stringify!($name), block: [$bx, $by], item: [$vec, $rpi], tile_k: $tk,
        }),*];
    };
}
for_each_vectorized!(vectorized_table);

// ---------------------------------------------------------------------------------------------
// The ladder of the SGEMM study the project follows (siboehm's SGEMM_CUDA): one kernel file per
// rung, each a port of the study's kernel with the study's block and tile parameters. Rungs 3
// (shared-memory caching) and 6 (vectorized) are the `tiled` and `vectorized` families above.
// ---------------------------------------------------------------------------------------------

/// A rung of the study's ladder, numbered as the study numbers its kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rung {
    Naive = 1,
    Coalesced,
    SharedCaching,
    Blocktile1d,
    Blocktile2d,
    Vectorized,
    BankLinearized,
    BankOffset,
    Autotuned,
    Warptiling,
    DoubleBuffering,
}

impl Rung {
    /// Every rung, in the study's order.
    pub const ALL: [Rung; 11] = [
        Rung::Naive,
        Rung::Coalesced,
        Rung::SharedCaching,
        Rung::Blocktile1d,
        Rung::Blocktile2d,
        Rung::Vectorized,
        Rung::BankLinearized,
        Rung::BankOffset,
        Rung::Autotuned,
        Rung::Warptiling,
        Rung::DoubleBuffering,
    ];

    /// The study's kernel number (1 to 11).
    pub const fn number(self) -> u32 {
        self as u32
    }

    /// The study's name for the step.
    pub const fn title(self) -> &'static str {
        match self {
            Rung::Naive => "naive",
            Rung::Coalesced => "GMEM coalescing",
            Rung::SharedCaching => "SMEM caching",
            Rung::Blocktile1d => "1D blocktiling",
            Rung::Blocktile2d => "2D blocktiling",
            Rung::Vectorized => "vectorized mem access",
            Rung::BankLinearized => "bank conflicts (linearize)",
            Rung::BankOffset => "bank conflicts (offset)",
            Rung::Autotuned => "autotuning",
            Rung::Warptiling => "warptiling",
            Rung::DoubleBuffering => "double buffering",
        }
    }

    /// The host's family name for the rung's kernels (`host matmul --kernel FAMILY`).
    pub const fn family(self) -> &'static str {
        match self {
            Rung::Naive => "naive",
            Rung::Coalesced => "coalesced",
            Rung::SharedCaching => "tiled",
            Rung::Blocktile1d => "blocktile1d",
            Rung::Blocktile2d => "blocktile2d",
            Rung::Vectorized => "vectorized",
            Rung::BankLinearized | Rung::BankOffset => "bank",
            Rung::Autotuned => "autotuned",
            Rung::Warptiling => "warptile",
            Rung::DoubleBuffering => "dbuf",
        }
    }

    /// The kernel that stands for the rung in the ladder table. For the two families with
    /// several kernels: the study's 32x32 tile, and the fastest vectorized kernel at 4096
    /// (docs/matmul.md).
    pub const fn kernel(self) -> &'static str {
        match self {
            Rung::Naive => "matmul_naive_b32",
            Rung::Coalesced => "matmul_coalesced_b32",
            Rung::SharedCaching => "matmul_tiled_t32",
            Rung::Blocktile1d => "matmul_blocktile1d_64x64x8_t8",
            Rung::Blocktile2d => "matmul_blocktile2d_128x128x8_t8x8",
            Rung::Vectorized => "matmul_vec_b16x4_i4x16_k32",
            Rung::BankLinearized => "matmul_bank_linear_128x128x8_t8x8",
            Rung::BankOffset => "matmul_bank_offset_128x128x8_t8x8",
            Rung::Autotuned => "matmul_autotuned_128x128x16_t8x8",
            Rung::Warptiling => "matmul_warptile_128x128x16_w64x64_t8x4",
            Rung::DoubleBuffering => "matmul_dbuf_128x256x16_w128x32_t8x8",
        }
    }
}

/// Launch geometry of one ladder kernel (rungs other than 3 and 6): `block` threads
/// (x, y), each block computing a `tile[0] x tile[1]` tile of C, `tile[2]` deep in k per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RungConfig {
    pub name: &'static str,
    pub rung: Rung,
    pub block: [u32; 2],
    pub tile: [u32; 3],
}

impl RungConfig {
    pub const fn block_dim(&self) -> (u32, u32) {
        (self.block[0], self.block[1])
    }
    pub const fn threads(&self) -> u32 {
        self.block[0] * self.block[1]
    }
    pub const fn tile_mnk(&self) -> (u32, u32, u32) {
        (self.tile[0], self.tile[1], self.tile[2])
    }
}

/// Rung 1, `naive.rs`: `(name, B)`, `B x B` threads, one output each, walking k in global memory.
macro_rules! for_each_naive {
    ($m:ident) => {
        $m! { (matmul_naive_b32, 32) }
    };
}

/// Rung 2, `coalesced.rs`: `(name, B)`, `B * B` threads in one dimension, one output each.
macro_rules! for_each_coalesced {
    ($m:ident) => {
        $m! { (matmul_coalesced_b32, 32) }
    };
}

/// Rung 4, `blocktile_1d.rs`: `(name, BM, BN, BK, TM)`, `BM * BN / TM` threads, each a column
/// of `TM` outputs.
macro_rules! for_each_blocktile_1d {
    ($m:ident) => {
        $m! { (matmul_blocktile1d_64x64x8_t8, 64, 64, 8, 8) }
    };
}

/// Rung 5, `blocktile_2d.rs`: `(name, BM, BN, BK, TM, TN)`, `BM * BN / (TM * TN)` threads,
/// each a `TM x TN` register tile.
macro_rules! for_each_blocktile_2d {
    ($m:ident) => {
        $m! { (matmul_blocktile2d_128x128x8_t8x8, 128, 128, 8, 8, 8) }
    };
}

/// Rungs 7 and 8, `bank.rs`: `(name, layout, BM, BN, BK, TM, TN, TM/4, TN/4)`, the vectorized kernel
/// of the study (128-bit loads, A transposed in shared memory) with the B tile `linear`ized or
/// `offset` by 5 words per row.
macro_rules! for_each_bank {
    ($m:ident) => {
        $m! {
            (matmul_bank_linear_128x128x8_t8x8, linear, 128, 128, 8, 8, 8, 2, 2),
            (matmul_bank_offset_128x128x8_t8x8, offset, 128, 128, 8, 8, 8, 2, 2),
        }
    };
}

/// Rung 9, `autotuned.rs`: `(name, threads, BM, BN, BK, TM, TN, WMITER, WNITER, TM/4, TN/4)`
/// with the study's autotuned parameters (A6000); a thread's outputs are `WMITER x WNITER`
/// tiles of `TM x TN`, `16 TM` rows and `16 TN` columns apart.
macro_rules! for_each_autotuned {
    ($m:ident) => {
        $m! { (matmul_autotuned_128x128x16_t8x8, 256, 128, 128, 16, 8, 8, 1, 1, 2, 2) }
    };
}

/// Rung 10, `warptile.rs`: `(name, threads, BM, BN, BK, WM, WN, WNITER, TM, TN, WMITER, TM/4,
/// TN/4)`: each warp computes a `WM x WN` tile as `WMITER x WNITER` sub-tiles, each thread
/// `TM x TN` outputs of every sub-tile.
macro_rules! for_each_warptile {
    ($m:ident) => {
        $m! { (matmul_warptile_128x128x16_w64x64_t8x4, 128, 128, 128, 16, 64, 64, 4, 8, 4, 1, 2, 1) }
    };
}

/// Rung 11, `double_buffer.rs`: the warptiling parameters (same order), two shared-memory
/// buffers, half the threads loading one while the other half computes on the other.
macro_rules! for_each_double_buffer {
    ($m:ident) => {
        $m! { (matmul_dbuf_128x256x16_w128x32_t8x8, 256, 128, 256, 16, 128, 32, 1, 8, 8, 2, 2, 2) }
    };
}

macro_rules! naive_table {
    ($(($name:ident, $b:tt)),* $(,)?) => {
        /// Rung 1.
        pub const NAIVE: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Naive, block: [$b, $b], tile: [$b, $b, 1],
        }),*];
    };
}
for_each_naive!(naive_table);

macro_rules! coalesced_table {
    ($(($name:ident, $b:tt)),* $(,)?) => {
        /// Rung 2.
        pub const COALESCED: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Coalesced, block: [$b * $b, 1], tile: [$b, $b, 1],
        }),*];
    };
}
for_each_coalesced!(coalesced_table);

macro_rules! blocktile_1d_table {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt)),* $(,)?) => {
        /// Rung 4.
        pub const BLOCKTILE_1D: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Blocktile1d,
            block: [$bm * $bn / $tm, 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_blocktile_1d!(blocktile_1d_table);

macro_rules! blocktile_2d_table {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt)),* $(,)?) => {
        /// Rung 5.
        pub const BLOCKTILE_2D: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Blocktile2d,
            block: [$bm * $bn / ($tm * $tn), 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_blocktile_2d!(blocktile_2d_table);

macro_rules! bank_rung {
    (linear) => {
        Rung::BankLinearized
    };
    (offset) => {
        Rung::BankOffset
    };
}

macro_rules! bank_table {
    ($(($name:ident, $layout:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt, $tm4:tt, $tn4:tt)),* $(,)?) => {
        /// Rungs 7 and 8.
        pub const BANK: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: bank_rung!($layout),
            block: [$bm * $bn / ($tm * $tn), 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_bank!(bank_table);

macro_rules! autotuned_table {
    ($(($name:ident, $nt:tt, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt, $wmi:tt, $wni:tt,
        $tm4:tt, $tn4:tt)),* $(,)?) => {
        /// Rung 9.
        pub const AUTOTUNED: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: Rung::Autotuned, block: [$nt, 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
for_each_autotuned!(autotuned_table);

macro_rules! warptile_table {
    ($doc:literal, $table:ident, $rung:expr, $(($name:ident, $nt:tt, $bm:tt, $bn:tt, $bk:tt, $wm:tt, $wn:tt,
        $wni:tt, $tm:tt, $tn:tt, $wmi:tt, $tm4:tt, $tn4:tt)),* $(,)?) => {
        #[doc = $doc]
        pub const $table: &[RungConfig] = &[$(RungConfig {
            name: stringify!($name), rung: $rung, block: [$nt, 1], tile: [$bm, $bn, $bk],
        }),*];
    };
}
macro_rules! warptile_table_10 {
    ($($t:tt)*) => {
        warptile_table!("Rung 10.", WARPTILE, Rung::Warptiling, $($t)*);
    };
}
macro_rules! warptile_table_11 {
    ($($t:tt)*) => {
        warptile_table!("Rung 11.", DOUBLE_BUFFER, Rung::DoubleBuffering, $($t)*);
    };
}
for_each_warptile!(warptile_table_10);
for_each_double_buffer!(warptile_table_11);

/// Every ladder kernel of the rungs with their own files (all but 3 and 6), in rung order.
pub const RUNG_TABLES: [&[RungConfig]; 8] = [
    NAIVE,
    COALESCED,
    BLOCKTILE_1D,
    BLOCKTILE_2D,
    BANK,
    AUTOTUNED,
    WARPTILE,
    DOUBLE_BUFFER,
];

// Before the rungs that expand it (macros are scoped by text).
#[cfg(target_arch = "nvptx64")]
#[macro_use]
mod tile_load;
#[cfg(target_arch = "nvptx64")]
mod autotuned;
#[cfg(target_arch = "nvptx64")]
mod bank;
#[cfg(target_arch = "nvptx64")]
mod blocktile_1d;
#[cfg(target_arch = "nvptx64")]
mod blocktile_2d;
#[cfg(target_arch = "nvptx64")]
mod coalesced;
#[cfg(target_arch = "nvptx64")]
mod double_buffer;
#[cfg(target_arch = "nvptx64")]
mod naive;
#[cfg(target_arch = "nvptx64")]
mod tiled;
#[cfg(target_arch = "nvptx64")]
mod vectorized;
#[cfg(target_arch = "nvptx64")]
mod warptile;

// ---------------------------------------------------------------------------------------------
// The flagship SGEMM (issue #9): C = alpha·A·B + beta·C on unpadded row-major matrices with
// leading dimensions, edge tiles handled in the kernel. Its own argument struct, config type and
// kernel list; the kernels are in `flagship.rs`.

/// The flagship kernels' only argument, passed by value: one definition for the kernel and the
/// host, so the argument list cannot drift between them.
///
/// `a` is `m x k` with rows `lda` floats apart, `b` is `k x n` (rows `ldb` apart), `c` is `m x n`
/// (rows `ldc` apart); every dimension is at least 1 and every leading dimension at least its
/// matrix's width. When `beta == 0`, C is only written (BLAS semantics: NaN in C does not leak).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SgemmParams {
    pub a: *const f32,
    pub b: *const f32,
    pub c: *mut f32,
    /// Stream-K workspace ([`stream_k`]): `2 * sk_blocks` slots of `bm * bn` partial sums, and
    /// one counter per stream-K tile, zero before the launch (the kernel leaves them zero).
    /// Unused (may be null) when `sk_blocks == 0`.
    pub partials: *mut f32,
    pub counters: *mut u32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub lda: u32,
    pub ldb: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
    /// Block rasterization for L2 reuse: consecutive blocks walk down `group` tile rows before
    /// moving one tile column right (at least 1).
    pub group: u32,
    /// Stream-K split ([`stream_k::Split`]): blocks `0..sk_blocks` share the k-slices of
    /// tiles `0..sk_tiles`; 0 and 0 for one tile per block.
    pub sk_blocks: u32,
    pub sk_tiles: u32,
}

/// One flagship kernel: a block of `warps[0] x warps[1]` warps computes a `bm x bn` tile of C,
/// each warp a `bm / warps[0] x bn / warps[1]` warp tile, each thread `thread_tile[0]` rows x
/// `thread_tile[1]` columns of it. `stages` k-slices of depth `bk` are in flight through
/// `cp.async` in dynamic shared memory. `vec_b`: B is copied in 16-byte pieces, which needs `ldb`
/// a multiple of 4 and B 16-byte aligned; otherwise in 4-byte pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagshipConfig {
    pub name: &'static str,
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub warps: [u32; 2],
    pub thread_tile: [u32; 2],
    pub stages: u32,
    pub vec_b: bool,
    /// Order of a k-step's FMAs in the PTX (which decides ptxas's register-bank conflicts):
    /// 0 columns in serpentine, 1 zig-zag over column pairs, 2 columns serpentine with the two
    /// 4-column groups interleaved, 3 and 4 searched tables for 16x8 and 8x16 tiles
    /// (`ffma_order` in ffma_order.rs).
    pub ffma_order: u32,
}

impl FlagshipConfig {
    pub const fn threads(&self) -> u32 {
        32 * self.warps[0] * self.warps[1]
    }
    /// Dynamic shared memory per block: per stage the A slice stored transposed (`bk` rows of
    /// `bm + 4` floats) and the B slice (`bk` rows of `bn`); then one word per thread (where a
    /// thread parks its stream-K position during the main loop).
    pub const fn shared_bytes(&self) -> u32 {
        self.stages * 4 * self.bk * (self.bm + 4 + self.bn) + 4 * self.threads()
    }
    /// Tiles of C for an `m x n` C (one block each without stream-K).
    pub const fn tiles(&self, m: u32, n: u32) -> u32 {
        m.div_ceil(self.bm) * n.div_ceil(self.bn)
    }
    /// k-slices of one tile for depth `k`.
    pub const fn ktiles(&self, k: u32) -> u32 {
        k.div_ceil(self.bk)
    }
}

/// Invokes `$m!` with, for every flagship kernel,
/// `(name, bm, bn, bk, wm, wn, ly, lx, stages, vec_b, rm, rn, ga, gb, al, bl)`: a `bm x bn x bk`
/// block tile, `wm x wn` warps, each warp's lanes `ly x lx` (rows x columns), `stages`-deep
/// pipeline, `vec_b` as in [`FlagshipConfig`]; then literals the kernel unrolls with (checked
/// against the above at compile time): thread tile `rm x rn` = `ga x gb` groups of 4x4, `al`
/// 4-byte A copies and `bl` B copies (16- or 4-byte) per thread per k-slice; last the FMA order
/// ([`FlagshipConfig::ffma_order`]).
macro_rules! for_each_flagship {
    ($m:ident) => {
        $m! {
            (sgemm_128x256x8_s4_16x8, 128, 256, 8, 2, 4, 4, 8, 4, true, 16, 8, 4, 2, 4, 2, 0),
            (sgemm_128x256x8_s4_16x8_u, 128, 256, 8, 2, 4, 4, 8, 4, false, 16, 8, 4, 2, 4, 8, 0),
            (sgemm_128x128x8_s4_16x8, 128, 128, 8, 2, 2, 4, 8, 4, true, 16, 8, 4, 2, 8, 2, 0),
            (sgemm_128x128x8_s4_16x8_u, 128, 128, 8, 2, 2, 4, 8, 4, false, 16, 8, 4, 2, 8, 8, 0),
            (sgemm_64x128x16_s3_8x8, 64, 128, 16, 2, 2, 4, 8, 3, true, 8, 8, 2, 2, 8, 4, 0),
            (sgemm_64x128x16_s3_8x8_u, 64, 128, 16, 2, 2, 4, 8, 3, false, 8, 8, 2, 2, 8, 16, 0),
            (sgemm_64x64x16_s4_8x4, 64, 64, 16, 2, 2, 4, 8, 4, true, 8, 4, 2, 1, 8, 2, 0),
            // Tried by `host tune` (docs/matmul.md, "Tuning"): cuBLAS's 3 stages, a deeper
            // slice (half the barriers), the transposed 256x128 block, lanes 8x4 with 8x16
            // outputs each (another register-bank pattern in the FMAs).
            (sgemm_128x256x8_s3_16x8, 128, 256, 8, 2, 4, 4, 8, 3, true, 16, 8, 4, 2, 4, 2, 0),
            (sgemm_128x256x16_s3_16x8, 128, 256, 16, 2, 4, 4, 8, 3, true, 16, 8, 4, 2, 8, 4, 0),
            (sgemm_256x128x8_s4_16x8, 256, 128, 8, 4, 2, 4, 8, 4, true, 16, 8, 4, 2, 8, 1, 0),
            (sgemm_256x128x8_s3_16x8, 256, 128, 8, 4, 2, 4, 8, 3, true, 16, 8, 4, 2, 8, 1, 0),
            (sgemm_128x256x8_s4_8x16, 128, 256, 8, 2, 4, 8, 4, 4, true, 8, 16, 2, 4, 4, 2, 0),
            (sgemm_128x128x16_s3_16x8, 128, 128, 16, 2, 2, 4, 8, 3, true, 16, 8, 4, 2, 16, 4, 0),
            // The default tile with other FMA orders (`ffma_order` in ffma_order.rs), and the
            // 8x16 tile with its searched order.
            (sgemm_128x256x8_s4_16x8_o1, 128, 256, 8, 2, 4, 4, 8, 4, true, 16, 8, 4, 2, 4, 2, 1),
            (sgemm_128x256x8_s4_16x8_o2, 128, 256, 8, 2, 4, 4, 8, 4, true, 16, 8, 4, 2, 4, 2, 2),
            (sgemm_128x256x8_s4_16x8_o3, 128, 256, 8, 2, 4, 4, 8, 4, true, 16, 8, 4, 2, 4, 2, 3),
            (sgemm_128x256x8_s4_8x16_o4, 128, 256, 8, 2, 4, 8, 4, 4, true, 8, 16, 2, 4, 4, 2, 4),
            // 4-byte B copies in the smallest tile: odd shapes just past a multiple of the
            // 64x128 grid (1025x1023: 136 blocks on 132 SMs) need more, smaller blocks.
            (sgemm_64x64x16_s4_8x4_u, 64, 64, 16, 2, 2, 4, 8, 4, false, 8, 4, 2, 1, 8, 8, 0),
        }
    };
}

macro_rules! flagship_table {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $wm:tt, $wn:tt, $ly:tt, $lx:tt, $st:tt, $vec:tt,
        $rm:tt, $rn:tt, $ga:tt, $gb:tt, $al:tt, $bl:tt, $ord:tt)),* $(,)?) => {
        /// Every flagship kernel.
        pub const FLAGSHIP: &[FlagshipConfig] = &[$(FlagshipConfig {
            name: stringify!($name), bm: $bm, bn: $bn, bk: $bk, warps: [$wm, $wn],
            thread_tile: [$rm, $rn], stages: $st, vec_b: $vec, ffma_order: $ord,
        }),*];
    };
}
for_each_flagship!(flagship_table);

#[cfg(target_arch = "nvptx64")]
mod ffma_order;
#[cfg(target_arch = "nvptx64")]
mod flagship;
pub mod stream_k;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectorized_configs_are_consistent() {
        for c in VECTORIZED {
            assert!(c.threads() <= 1024, "{}", c.name);
            assert!(
                c.shared_bytes() <= 48 * 1024,
                "{} needs {} B of static shared memory",
                c.name,
                c.shared_bytes()
            );
            // 128-bit tile loads: rows of the A and B tiles are whole float4s.
            assert_eq!(c.tile_k % 4, 0, "{}", c.name);
            assert_eq!(c.tile_n() % 4, 0, "{}", c.name);
            assert!(c.name.contains(&format!("_k{}", c.tile_k)), "{}", c.name);
        }
    }
}

#[cfg(test)]
mod ladder_tests {
    use super::*;

    #[test]
    fn rungs_are_numbered_as_the_study() {
        for (i, r) in Rung::ALL.iter().enumerate() {
            assert_eq!(r.number(), i as u32 + 1, "{r:?}");
        }
    }

    #[test]
    fn every_rung_names_a_kernel_of_its_own_kind() {
        for r in Rung::ALL {
            let name = r.kernel();
            let found = match r {
                Rung::SharedCaching => TILED.iter().any(|c| c.name == name),
                Rung::Vectorized => VECTORIZED.iter().any(|c| c.name == name),
                _ => RUNG_TABLES
                    .iter()
                    .flat_map(|t| t.iter())
                    .any(|c| c.name == name && c.rung == r),
            };
            assert!(found, "{r:?}: no kernel {name}");
        }
    }

    #[test]
    fn rung_configs_are_consistent() {
        for c in RUNG_TABLES.iter().flat_map(|t| t.iter()) {
            assert!(c.threads() <= 1024, "{}", c.name);
            // The name carries the block tile (BMxBNxBK) where it has one.
            let [bm, bn, bk] = c.tile;
            if bk > 1 {
                assert!(c.name.contains(&format!("_{bm}x{bn}x{bk}")), "{}", c.name);
                // 128-bit and scalar tile loads alike assume whole float4 rows.
                assert_eq!(bk % 4, 0, "{}", c.name);
            }
        }
    }
}
