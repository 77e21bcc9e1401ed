//! The Hopper (sm_90a) tensor-core GEMM: C = alpha·A·B + beta·C with A and B in BF16 or FP16,
//! accumulated and stored in f32. This half is host-visible (the argument struct, the geometry,
//! the kernel list); the kernels (`wgmma.rs`, with the PTX they need in `asm90.rs`) exist only in
//! the compute_90a module, which ptx-builder builds with the feature `hopper`.
//!
//! Structure (why):
//! - One block computes a `BM x BN` = 128 x 256 tile with three warp groups: warp group 0 is the
//!   producer (one thread issues the TMA copies; `setmaxnreg` gives its registers away), warp
//!   groups 1 and 2 are consumers, each a 64 x 256 half with `wgmma.m64n256k16` (128 f32
//!   accumulators a thread).
//! - `STAGES` k-slices of depth `BK` = 64 (128 bytes of 16-bit elements: one 128-byte swizzle
//!   row) are in flight. TMA (`cp.async.bulk.tensor`) writes them in the 128-byte swizzled
//!   layout that wgmma's shared-memory descriptors read, and completes on the slice's "full"
//!   mbarrier; consumers release a slice on its "empty" mbarrier once their wgmma reading it
//!   have retired.
//! - Edges cost nothing in the main loop: TMA fills rows, columns and k past the matrix with
//!   zeros; the epilogue stores only the elements inside C.
//! - The kernels walk tiles (`pipeline.rs`, shared with the f32 kernels): block `b` takes tiles
//!   `b, b + grid, …`, so a grid of one block per tile is the classic launch and a grid of one
//!   block per SM is persistent (the producer loads the next tile's slices while the consumers
//!   store the last one's). `depth` is how many wgmma groups a consumer leaves in flight when it
//!   waits (`wgmma.wait_group depth`): with 1 it releases the previous slice while the current
//!   one multiplies.
//! - Stream-K (`sk_tiles` > 0, `stream_k.rs`): the last tiles are cut along k into one equal run
//!   of slices per block, so that a tile count that is not a multiple of the grid still ends
//!   with every block busy; split tiles are combined in a fixed order.
//! - Pairs (`cluster` 2, `wgmma.rs`): two blocks of a thread-block cluster walk 256 x 256
//!   tiles, each its 128 rows with its own A and half of B's panel, which TMA multicasts to
//!   both blocks (half the L2 reads of B); a slot is free again when both blocks' consumers
//!   released it. No stream-K.

/// The input element type (both operands); the accumulator and C are f32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sm90Input {
    Bf16,
    Fp16,
}

impl Sm90Input {
    /// Bytes per element.
    pub const fn bytes(self) -> u32 {
        2
    }
}

/// How B lies in memory. `N`: `k x n` row-major (rows `ldb` elements apart), the library's
/// layout; wgmma reads it transposed (MN-major). `K`: B's transpose, `n x k` row-major (B
/// column-major, as cuBLAS's "T" operand), which wgmma reads K-major like A.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BMajor {
    N,
    K,
}

/// Rows of C per block.
pub const BM: u32 = 128;
/// Columns of C per block.
pub const BN: u32 = 256;
/// k per pipeline slice: 64 16-bit elements, one 128-byte swizzle row.
pub const BK: u32 = 64;
/// Slices in flight.
pub const STAGES: u32 = 4;
/// Consumer warp groups (each `BM / CONSUMERS` rows of the tile).
pub const CONSUMERS: u32 = 2;
/// Registers a producer thread keeps after `setmaxnreg.dec`.
pub const PRODUCER_REGISTERS: u32 = 40;
/// Registers a consumer thread gets with `setmaxnreg.inc`: what the producer gave away, shared
/// among the consumers (a multiple of 8).
pub const CONSUMER_REGISTERS: u32 = ((65536 - 128 * PRODUCER_REGISTERS) / (128 * CONSUMERS)) & !7;
/// Alignment of each slice's tiles: the 128-byte swizzle repeats every 1024 bytes and TMA and
/// the descriptors assume tiles start on that boundary.
pub const SWIZZLE_ALIGN: u32 = 1024;

/// The kernels' only argument, passed by value (one definition for the kernel and the host).
///
/// `tmap_a` and `tmap_b` point to 128-byte `CUtensorMap`s in global memory (64-byte aligned)
/// made by `cuTensorMapEncodeTiled` for A (`m x k`, k innermost, box `BK x BM`) and B (by
/// [`BMajor`]: `k x n`, n innermost, box `64 x BK`; or `n x k`, k innermost, box `BK x BN`),
/// both with 128-byte swizzle. `c` is `m x n` f32, rows `ldc` apart. With `beta == 0`, C is only
/// written.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct WgmmaParams {
    pub tmap_a: *const u8,
    pub tmap_b: *const u8,
    pub c: *mut f32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
    /// Tile order: runs of `group` tile rows walked down before moving one tile column right
    /// (at least 1); block `b` takes tiles `b, b + grid, …` (`pipeline.rs`).
    pub group: u32,
    /// Stream-K: the workspace of [`stream_k_words`]`(grid)` words (16-byte aligned, flags zero
    /// before the first launch; every launch leaves them zero), unused when `sk_tiles` is 0.
    pub work: *mut u32,
    /// Stream-K: how many of the last tiles (in tile order) are cut along k into one run of
    /// slices per block (0: none); `sk_tiles · ceil(k / BK)` below 2^32 and the grid resident.
    pub sk_tiles: u32,
    /// Stream-K: 0 takes a block's stream-K slices first (its split tile's start after its
    /// data-parallel tiles), 1 takes them after its data-parallel tiles (`pipeline::Walk`).
    pub sk_last: u32,
    /// A tensor map of C (f32, `m x n`, rows `ldc` apart, boxes of [`EPI_BOX_COLS`] x
    /// [`EPI_BOX_ROWS`], 128-byte swizzle) through which the one-block kernels store whole
    /// tiles with TMA (`epilogue.rs`), or null: stores from registers (always in the pair
    /// kernels). Only with `beta == 0` (a TMA store cannot read C).
    pub tmap_c: *const u8,
}

/// Columns of C in one TMA store box of the epilogue: 128 bytes of f32, one swizzle row.
pub const EPI_BOX_COLS: u32 = 32;
/// Rows of C in one TMA store box: a consumer warp group's rows of the tile.
pub const EPI_BOX_ROWS: u32 = BM / CONSUMERS;
/// Store boxes in flight per consumer warp group (one being written while one is read).
pub const EPI_BUFFERS: u32 = 2;
/// Shared bytes of the epilogue's boxes, after the ring (1024-byte aligned).
pub const EPI_BYTES: u32 = CONSUMERS * EPI_BUFFERS * EPI_BOX_COLS * EPI_BOX_ROWS * 4;

/// Words of one block's stream-K partial tile in the workspace (a `BM x BN` f32 fragment; the
/// TF32 kernel's tile is the same size).
pub const SK_PARTIAL_WORDS: u32 = BM * BN;

/// Words of the stream-K workspace of a grid of `grid` blocks: a partial tile per block, then
/// a flag per block and consumer warp group.
pub const fn stream_k_words(grid: u32) -> usize {
    grid as usize * (SK_PARTIAL_WORDS + CONSUMERS) as usize
}

/// One Hopper GEMM kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WgmmaConfig {
    pub name: &'static str,
    pub input: Sm90Input,
    pub b_major: BMajor,
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub stages: u32,
    pub consumers: u32,
    /// wgmma groups left in flight at each slice's wait (0 or 1).
    pub depth: u32,
    /// Blocks per thread-block cluster: 1, or 2 (a pair computes a `2·bm x bn` tile, each
    /// block loading half of B's panel for both with TMA multicast).
    pub cluster: u32,
}

impl WgmmaConfig {
    /// One producer warp group and the consumers.
    pub const fn threads(&self) -> u32 {
        128 * (1 + self.consumers)
    }

    /// Bytes of one pipeline slice (A's and B's tiles).
    pub const fn stage_bytes(&self) -> u32 {
        (self.bm + self.bn) * self.bk * self.input.bytes()
    }

    /// Dynamic shared memory: room to align the slices to [`SWIZZLE_ALIGN`], the slices, then a
    /// "full" and an "empty" mbarrier (8 bytes each) per slice.
    pub const fn shared_bytes(&self) -> u32 {
        // The ring's slices and barriers, the latter padded to the next 1024 bytes, then the
        // epilogue's store boxes (`Ring::epilogue`).
        SWIZZLE_ALIGN + self.stages * self.stage_bytes() + SWIZZLE_ALIGN + EPI_BYTES
    }

    /// The register cap at entry (`.maxnreg`): a whole register file for one block, which
    /// `setmaxnreg` needs to be able to move registers between the warp groups.
    pub const fn entry_registers(&self) -> u32 {
        (65536 / self.threads()) & !7
    }

    /// Registers a consumer thread gets with `setmaxnreg.inc`: what the producer gave away,
    /// shared among the consumers (a multiple of 8).
    pub const fn consumer_registers(&self) -> u32 {
        ((65536 - 128 * PRODUCER_REGISTERS) / (128 * self.consumers)) & !7
    }
}

/// The kernel list: name, input type, B's layout, wait depth, blocks per cluster (2: a pair
/// of blocks walks 256 x 256 tiles, B's panel multicast to both). One row is one kernel in the
/// compute_90a PTX and one row of [`WGMMA`] (and so of the registry).
#[macro_export]
macro_rules! for_each_wgmma {
    ($m:ident) => {
        $m! {
            (wgmma_bf16_bn_128x256x64_s4, Bf16, "bf16", N, 0, 1),
            (wgmma_bf16_bk_128x256x64_s4, Bf16, "bf16", K, 0, 1),
            (wgmma_f16_bn_128x256x64_s4, Fp16, "f16", N, 0, 1),
            (wgmma_f16_bk_128x256x64_s4, Fp16, "f16", K, 0, 1),
            (wgmma_bf16_bn_128x256x64_s4w1, Bf16, "bf16", N, 1, 1),
            (wgmma_bf16_bk_128x256x64_s4w1, Bf16, "bf16", K, 1, 1),
            (wgmma_f16_bn_128x256x64_s4w1, Fp16, "f16", N, 1, 1),
            (wgmma_f16_bk_128x256x64_s4w1, Fp16, "f16", K, 1, 1),
            (wgmma_bf16_bn_128x256x64_s4c2, Bf16, "bf16", N, 0, 2),
            (wgmma_bf16_bk_128x256x64_s4c2, Bf16, "bf16", K, 0, 2),
            (wgmma_f16_bn_128x256x64_s4c2, Fp16, "f16", N, 0, 2),
            (wgmma_f16_bk_128x256x64_s4c2, Fp16, "f16", K, 0, 2),
        }
    };
}

macro_rules! wgmma_table {
    ($(($name:ident, $input:ident, $ptx:literal, $major:ident, $depth:literal, $cluster:literal)),* $(,)?) => {
        /// Every Hopper GEMM kernel.
        pub const WGMMA: &[WgmmaConfig] = &[$(WgmmaConfig {
            name: stringify!($name),
            input: Sm90Input::$input,
            b_major: BMajor::$major,
            bm: BM,
            bn: BN,
            bk: BK,
            stages: STAGES,
            consumers: CONSUMERS,
            depth: $depth,
            cluster: $cluster,
        }),*];
    };
}
for_each_wgmma!(wgmma_table);

/// The one-block kernel for `input`, `b_major` and wait depth `depth` (0 or 1; above 1 means 1).
pub fn wgmma_config(input: Sm90Input, b_major: BMajor, depth: u32) -> &'static WgmmaConfig {
    WGMMA
        .iter()
        .find(|c| {
            c.input == input && c.b_major == b_major && c.depth == depth.min(1) && c.cluster == 1
        })
        .expect("every input, layout and depth has a kernel")
}

/// The pair kernel (clusters of 2 blocks, wait depth 0) for `input` and `b_major`.
pub fn wgmma_pair_config(input: Sm90Input, b_major: BMajor) -> &'static WgmmaConfig {
    WGMMA
        .iter()
        .find(|c| c.input == input && c.b_major == b_major && c.cluster == 2)
        .expect("every input and layout has a pair kernel")
}

pub mod tf32;

#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod asm90;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod epilogue;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod pipeline;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod stream_k;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod tf32_kernel;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod tf32_load;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod tf32_rows;
#[cfg(all(target_arch = "nvptx64", feature = "hopper"))]
mod wgmma;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_fits_the_chip() {
        for c in WGMMA {
            // 227 KB of shared memory per block on sm_90; the register file split exactly.
            assert!(c.shared_bytes() <= 227 * 1024, "{}", c.name);
            assert!(c.entry_registers() * c.threads() <= 65536);
            assert!(128 * PRODUCER_REGISTERS + 128 * c.consumers * c.consumer_registers() <= 65536);
            assert!(c.consumer_registers() <= 256 && c.consumer_registers() % 8 == 0);
            assert_eq!(c.consumer_registers(), CONSUMER_REGISTERS);
            assert_eq!(c.bk * c.input.bytes(), 128, "one 128-byte swizzle row");
            assert_eq!(c.bm, 64 * c.consumers, "m64 per consumer warp group");
            assert_eq!(c.stage_bytes() % SWIZZLE_ALIGN, 0);
        }
        for input in [Sm90Input::Bf16, Sm90Input::Fp16] {
            for major in [BMajor::N, BMajor::K] {
                for depth in [0, 1] {
                    let c = wgmma_config(input, major, depth);
                    assert_eq!((c.input, c.b_major, c.depth), (input, major, depth));
                }
                let c = wgmma_pair_config(input, major);
                assert_eq!((c.input, c.b_major, c.cluster), (input, major, 2));
            }
        }
    }
}
