//! The flagship SGEMM's host-visible half (issue #9): C = alpha·A·B + beta·C on unpadded
//! row-major matrices with leading dimensions, edge tiles handled in the kernel. Its argument
//! struct, config type and kernel list; the kernels are in `flagship.rs`.

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
    /// Stream-K workspace ([`super::stream_k`]): `2 * sk_blocks` slots of `bm * bn` partial sums, and
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
    /// Stream-K split ([`super::stream_k::Split`]): blocks `0..sk_blocks` share the k-slices of
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
    /// Order of a k-step's FMAs in the PTX, which decides ptxas's register-bank conflicts.
    pub ffma_order: FfmaOrder,
}

/// The order of the FMAs of one k-step of a flagship thread tile (`ffma_order` in
/// ffma_order.rs, where the orders are defined and measured). Kernel names mark the orders
/// other than the default with `_o1` … `_o4`, the [`FfmaOrder::code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FfmaOrder {
    /// Column by column, the rows walking down and up in turn (the default).
    Columns,
    /// Zig-zag over pairs of columns.
    ColumnPairs,
    /// As `Columns`, with the columns of the two 4-column groups interleaved (0, 4, 1, 5, …).
    InterleavedGroups,
    /// The searched table for 16x8 thread tiles.
    Searched16x8,
    /// The searched table for 8x16 thread tiles.
    Searched8x16,
}

impl FfmaOrder {
    /// The order's number in kernel names (`_o1` …) and in docs/matmul.md (0 for the default).
    pub const fn code(self) -> u32 {
        self as u32
    }
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

/// Invokes `$m!` with, for every flagship kernel, `(name { … })` with the fields of
/// [`FlagshipConfig`]: a `bm x bn x bk` block `tile`, `wm x wn` `warps`, each warp's `lanes`
/// `ly x lx` (rows x columns), `stages`-deep pipeline, `vec_b`, the [`FfmaOrder`]; and literals
/// the kernel unrolls with (checked against the above at compile time): `thread_tile` `rm x rn`
/// = `groups` `ga x gb` of 4x4, `a_copies` 4-byte A copies and `b_copies` B copies (16- or
/// 4-byte) per thread per k-slice.
macro_rules! for_each_flagship {
    ($m:ident) => {
        $m! {
            (sgemm_128x256x8_s4_16x8 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_128x256x8_s4_16x8_u { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 4 x 8, stages: 4,
                vec_b: false, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 4, b_copies: 8,
                ffma_order: Columns }),
            (sgemm_128x128x8_s4_16x8 { tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_128x128x8_s4_16x8_u { tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: false, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 8,
                ffma_order: Columns }),
            (sgemm_64x128x16_s3_8x8 { tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 4,
                ffma_order: Columns }),
            (sgemm_64x128x16_s3_8x8_u { tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16,
                ffma_order: Columns }),
            (sgemm_64x64x16_s4_8x4 { tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            // Tried by `host tune` (docs/matmul.md, "Tuning"): cuBLAS's 3 stages, a deeper
            // slice (half the barriers), the transposed 256x128 block, lanes 8x4 with 8x16
            // outputs each (another register-bank pattern in the FMAs).
            (sgemm_128x256x8_s3_16x8 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_128x256x16_s3_16x8 { tile: 128 x 256 x 16, warps: 2 x 4, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 4,
                ffma_order: Columns }),
            (sgemm_256x128x8_s4_16x8 { tile: 256 x 128 x 8, warps: 4 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 1,
                ffma_order: Columns }),
            (sgemm_256x128x8_s3_16x8 { tile: 256 x 128 x 8, warps: 4 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 1,
                ffma_order: Columns }),
            (sgemm_128x256x8_s4_8x16 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_128x128x16_s3_16x8 { tile: 128 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 16, b_copies: 4,
                ffma_order: Columns }),
            // The default tile with other FMA orders (`ffma_order` in ffma_order.rs), and the
            // 8x16 tile with its searched order.
            (sgemm_128x256x8_s4_16x8_o1 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 4, b_copies: 2,
                ffma_order: ColumnPairs }),
            (sgemm_128x256x8_s4_16x8_o2 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 4, b_copies: 2,
                ffma_order: InterleavedGroups }),
            (sgemm_128x256x8_s4_16x8_o3 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 4, b_copies: 2,
                ffma_order: Searched16x8 }),
            (sgemm_128x256x8_s4_8x16_o4 { tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2,
                ffma_order: Searched8x16 }),
            // 4-byte B copies in the smallest tile: odd shapes just past a multiple of the
            // 64x128 grid (1025x1023: 136 blocks on 132 SMs) need more, smaller blocks.
            (sgemm_64x64x16_s4_8x4_u { tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8,
                ffma_order: Columns }),
            // Small odd problems (333 x 555 x 777: 54 tiles of 64x64, one-wave stream-K): the
            // 64x64 tile with 8 warps of 4x4 outputs each, twice the warps per SM of the 8x4
            // tile for the same grid (session 10; last, so the kernels above keep their PTX).
            (sgemm_64x64x16_s4_4x4 { tile: 64 x 64 x 16, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 4 x 4, groups: 1 x 1, a_copies: 4, b_copies: 1,
                ffma_order: Columns }),
            (sgemm_64x64x16_s4_4x4_u { tile: 64 x 64 x 16, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: false, thread_tile: 4 x 4, groups: 1 x 1, a_copies: 4, b_copies: 4,
                ffma_order: Columns }),
        }
    };
}

/// Invokes `$m!` with the flagship kernels that also exist batched (`FLAGSHIP_BATCHED`: the
/// same body, problem `blockIdx.y` of a strided batch, `SgemmOpsParams`), in each operation
/// pair: the tiles of the N,N default choice (`choose_kernel`) and of the variants
/// (`route::TILES`). Batches and split-K then run the tuned main loop, whose register
/// allocation the variants' does not have (docs/matmul.md, sessions 8 and 9). Rows as
/// [`for_each_flagship!`]'s with the operations `ops: op(A) x op(B)` first; the copy counts are
/// the N,N kernel's (the body derives the transposed operations' own). `vec_b`: the operands
/// copied straight (B with `op(B) = N`, A with `op(A) = T`) go in 16-byte pieces; N,T copies
/// both operands transposing, in 4-byte pieces, and needs nothing of them.
macro_rules! for_each_flagship_batched {
    ($m:ident) => {
        $m! {
            (sgemm_nn_128x256x8_s4_8x16_fl { ops: N x N, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_nn_128x128x8_s4_16x8_fl { ops: N x N, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_nn_64x128x16_s3_8x8_fl { ops: N x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 4,
                ffma_order: Columns }),
            (sgemm_nn_64x64x16_s4_8x4_fl { ops: N x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            // The transposed pairs (flagship_t.rs), after the N,N rows so that those
            // kernels come out as before.
            (sgemm_tn_128x256x8_s4_8x16_fl { ops: T x N, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_nt_128x256x8_s4_8x16_fl { ops: N x T, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_tt_128x256x8_s4_8x16_fl { ops: T x T, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4, stages: 4,
                vec_b: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_tn_128x128x8_s4_16x8_fl { ops: T x N, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_nt_128x128x8_s4_16x8_fl { ops: N x T, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_tt_128x128x8_s4_16x8_fl { ops: T x T, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_tn_64x128x16_s3_8x8_fl { ops: T x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 4,
                ffma_order: Columns }),
            (sgemm_nt_64x128x16_s3_8x8_fl { ops: N x T, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 4,
                ffma_order: Columns }),
            (sgemm_tt_64x128x16_s3_8x8_fl { ops: T x T, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 4,
                ffma_order: Columns }),
            (sgemm_tn_64x64x16_s4_8x4_fl { ops: T x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_nt_64x64x16_s4_8x4_fl { ops: N x T, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
            (sgemm_tt_64x64x16_s4_8x4_fl { ops: T x T, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 2,
                ffma_order: Columns }),
        }
    };
}

/// Invokes `$m!` with the T,N kernels of [`for_each_flagship_batched!`]'s body whose straight
/// copies (A stored `k x m`, B `k x n`) go in 4-byte pieces (`vec_b: false`), as the N,N
/// flagship's `_u` rows: one problem with B's rows unaligned (ldb not a multiple of 4, e.g.
/// 1000x777x1025 T,N) then runs the tuned body with no transpose of A first. Same row
/// pattern; a list of its own (`FLAGSHIP_T_U`) so that the batched table keeps one aligned
/// kernel per pair and tile. The copy counts are the N,N `_u` kernel's.
macro_rules! for_each_flagship_t_u {
    ($m:ident) => {
        $m! {
            (sgemm_tn_64x64x16_s4_8x4_u_fl { ops: T x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8,
                ffma_order: Columns }),
            (sgemm_tn_64x128x16_s3_8x8_u_fl { ops: T x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16,
                ffma_order: Columns }),
            // Session 11: A's rows aligned, B's not (`vec_a: true`): A in 16-byte pieces, B
            // in 4-byte ones. At 1000x780x1025 T,N the aligned kernel (both 16-byte) ran
            // 0.066 ms and the 4-byte one 0.0716, and at 1000x777x1025 N,N (A always copied
            // transposing in 4-byte pieces) B's 4-byte copies cost 6 % (ncu, H200).
            (sgemm_tn_64x64x16_s4_8x4_ub_fl { ops: T x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 4,
                vec_b: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8,
                ffma_order: Columns, vec_a: true }),
            (sgemm_tn_64x128x16_s3_8x8_ub_fl { ops: T x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8, stages: 3,
                vec_b: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16,
                ffma_order: Columns, vec_a: true }),
        }
    };
}

/// [`for_each_flagship!`] into [`FLAGSHIP`] (`flagship.rs` matches the same row pattern; a row
/// that either does not match fails to compile).
macro_rules! flagship_table {
    ($(($name:ident { tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
        stages: $st:tt, vec_b: $vec:tt, thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt,
        a_copies: $al:tt, b_copies: $bl:tt, ffma_order: $ord:ident })),* $(,)?) => {
        /// Every flagship kernel.
        pub const FLAGSHIP: &[FlagshipConfig] = &[$(FlagshipConfig {
            name: stringify!($name), bm: $bm, bn: $bn, bk: $bk, warps: [$wm, $wn],
            thread_tile: [$rm, $rn], stages: $st, vec_b: $vec, ffma_order: FfmaOrder::$ord,
        }),*];
    };
}
for_each_flagship!(flagship_table);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_codes_match_the_name_suffixes() {
        for c in FLAGSHIP {
            let code = c.ffma_order.code();
            assert_eq!(
                c.name.ends_with(&format!("_o{code}")),
                code != 0,
                "{}",
                c.name
            );
        }
    }
}
