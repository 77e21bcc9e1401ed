//! The Hopper GEMM for f32 operands (issue #21): TF32 and 3xTF32 on `wgmma` (sm_90a). This half
//! is host-visible (argument structs, geometry, the kernel list); the kernels are in
//! `tf32_kernel.rs` (compute_90a module only).
//!
//! Why it differs from the 16-bit kernels of `sm90`:
//! - `wgmma` with `.tf32` operands has no transpose bit: A and B must both be K-major in shared
//!   memory. An operand that is not (B row-major, A column-major) is first rewritten K-major by
//!   [`SPLIT_KERNEL`], a transpose pass that costs memory bandwidth only and is part of every
//!   timed launch. For A row-major and B row-major (the library's layouts) the kernels of
//!   [`BMajor::N`] need no pass (`tf32_rows.rs`): they compute Cᵀ = Bᵀ·Aᵀ, where Bᵀ is wgmma's
//!   A operand, which may come from registers (loaded from B's tile as TMA wrote it, N-major,
//!   and rounded like the split pass), and A, K-major, is wgmma's B operand from shared memory;
//!   the epilogue stores the transposed fragment.
//! - A 128-byte swizzle row holds 32 f32, so a pipeline slice is `BK` = 32 deep and one `wgmma`
//!   step is `k8`.
//! - 3xTF32 (x = hi + lo, hi = tf32(x), lo = tf32(x - hi); a·b ≈ hi·hi + hi·lo + lo·hi) gets its
//!   hi and lo parts from the same pass (so the main loop does no splitting), and accumulates as
//!   Ootomo and Yokota (2022) propose: the tensor cores add with truncation, so each group of
//!   `flush` slices accumulates the big products and the small ones into two zeroed temporaries,
//!   which the CUDA cores then add to the f32 accumulators with round-to-nearest FADDs. Three
//!   accumulator sets need 192 registers a thread at n128, so its tile is 128 x 128.

/// What a kernel multiplies: f32 inputs as TF32 (one product), or split in hi and lo (3xTF32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tf32Kind {
    Tf32,
    Tf32x3,
}

impl Tf32Kind {
    /// Parts each operand is stored in (hi; hi and lo).
    pub const fn parts(self) -> u32 {
        match self {
            Tf32Kind::Tf32 => 1,
            Tf32Kind::Tf32x3 => 2,
        }
    }
}

/// k per pipeline slice: 32 f32, one 128-byte swizzle row.
pub const TF32_BK: u32 = 32;
/// Output tile rows (two consumer warp groups of m64).
pub const TF32_BM: u32 = 128;
/// Registers a producer thread keeps after `setmaxnreg.dec`.
pub const TF32_PRODUCER_REGISTERS: u32 = 40;
/// Consumer warp groups.
pub const TF32_CONSUMERS: u32 = 2;
/// Registers a consumer thread gets (what the producer gave away, a multiple of 8).
pub const TF32_CONSUMER_REGISTERS: u32 = tf32_consumer_registers(TF32_PRODUCER_REGISTERS);
/// Registers a producer thread of the in-place kernel (`tf32_rows.rs`, B row-major) keeps. Not
/// [`TF32_PRODUCER_REGISTERS`]: with 40 ptxas spills 12 bytes of that kernel's consumers (three
/// of the tile walk's values; 20 bytes with 24, none with 56), though those consumers use
/// at most R165 either way; the other TF32 kernels keep 40, which their SASS was measured with
/// (docs/sm90.md, Session 19).
pub const TF32_ROWS_PRODUCER_REGISTERS: u32 = 56;
/// Registers a consumer thread of the in-place kernel gets.
pub const TF32_ROWS_CONSUMER_REGISTERS: u32 = tf32_consumer_registers(TF32_ROWS_PRODUCER_REGISTERS);

/// What each consumer thread gets when a producer thread keeps `producer` registers: the
/// producer warp group's registers given away, shared among the consumers, a multiple of 8
/// (`setmaxnreg` counts in eights).
pub const fn tf32_consumer_registers(producer: u32) -> u32 {
    ((65536 - 128 * producer) / (128 * TF32_CONSUMERS)) & !7
}
/// Alignment of the slices' tiles (the 128-byte swizzle repeats every 1024 bytes).
pub const TF32_SWIZZLE_ALIGN: u32 = super::SWIZZLE_ALIGN;

pub use super::BMajor;

/// One f32 Hopper GEMM kernel: a `bm x bn` tile of C per block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tf32Config {
    pub name: &'static str,
    pub kind: Tf32Kind,
    /// B's layout the kernel reads: `K` (K-major: column-major B, or the split pass's scratch)
    /// or `N` (row-major B read in place, with A row-major: the transposed product).
    pub b_major: BMajor,
    /// B row-major read by the producer warp group's threads (16-byte global loads, rounded
    /// with `cvt.rna`, stored K-major and swizzled into the slice), A through TMA; the
    /// consumers and the shared layout are the `K` kernel's (`b_major` is `K`), no split pass.
    /// See `tf32_load.rs`.
    pub loads_b: bool,
    /// With `loads_b`: the producer's threads in this many groups taking turns by slice (1: one
    /// group, loads a slice ahead in registers; 2: each half loads its own slice); else 0.
    pub load_groups: u32,
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub stages: u32,
    pub consumers: u32,
    /// wgmma groups left in flight at each slice's wait (as the 16-bit kernels' `depth`).
    pub depth: u32,
}

impl Tf32Config {
    pub const fn threads(&self) -> u32 {
        128 * (1 + self.consumers)
    }

    /// Bytes of one slice: A's and B's tiles, each part (hi, lo).
    pub const fn stage_bytes(&self) -> u32 {
        (self.bm + self.bn) * self.bk * 4 * self.kind.parts()
    }

    /// Alignment room, the slices, a "full" and an "empty" mbarrier per slice, the store boxes.
    pub const fn shared_bytes(&self) -> u32 {
        // The ring's slices and barriers, the latter padded to the next 1024 bytes, then the
        // epilogue's store boxes (`Ring::epilogue`), as the 16-bit kernels'.
        TF32_SWIZZLE_ALIGN
            + self.stages * self.stage_bytes()
            + TF32_SWIZZLE_ALIGN
            + super::EPI_BYTES
    }

    /// The register cap at entry: the whole register file for one block (for `setmaxnreg`).
    pub const fn entry_registers(&self) -> u32 {
        (65536 / self.threads()) & !7
    }
}

/// The kernel list: name, kind, B's layout (`K`, `N`, or `L` / `H`: row-major B loaded by the
/// producer's threads, in one group or two, into the `K` kernel's shared layout), BM, BN,
/// stages, wait depth. One row is one kernel
/// of the compute_90a PTX and one row of [`WGMMA_TF32`] (and so of the registry). 3xTF32 has
/// depth 0 only: its flush reads the temporaries, which needs every wgmma retired. The `N`
/// kernel's consumers split the tile's columns (n64 each of Bᵀ's rows), so its tile is 256 x 128;
/// depth 1 only: its A fragments come from registers, and each k8 step is a group of its own,
/// retired while the next runs (at depth 0, two halves of a slice retired in turn, it ran
/// 7-10 % slower: docs/sm90.md, Session 18).
#[macro_export]
macro_rules! for_each_wgmma_tf32 {
    ($m:ident) => {
        $m! {
            (wgmma_tf32_kk_128x256x32_s4, Tf32, K, 128, 256, 4, 0),
            (wgmma_tf32_kk_128x256x32_s4w1, Tf32, K, 128, 256, 4, 1),
            (wgmma_3xtf32_kk_128x128x32_s3, Tf32x3, K, 128, 128, 3, 0),
            (wgmma_tf32_kn_256x128x32_s4w1, Tf32, N, 256, 128, 4, 1),
            (wgmma_tf32_kl_128x256x32_s4, Tf32, L, 128, 256, 4, 0),
            (wgmma_tf32_kl_128x256x32_s4h, Tf32, H, 128, 256, 4, 0),
        }
    };
}

/// A list row's B token as (`b_major`, `load_groups`).
macro_rules! tf32_major {
    (K) => {
        (BMajor::K, 0)
    };
    (N) => {
        (BMajor::N, 0)
    };
    (L) => {
        (BMajor::K, 1)
    };
    (H) => {
        (BMajor::K, 2)
    };
}

macro_rules! tf32_table {
    ($(($name:ident, $kind:ident, $major:ident, $bm:literal, $bn:literal, $stages:literal, $depth:literal)),* $(,)?) => {
        /// Every f32 Hopper GEMM kernel.
        pub const WGMMA_TF32: &[Tf32Config] = &[$(Tf32Config {
            name: stringify!($name),
            kind: Tf32Kind::$kind,
            b_major: tf32_major!($major).0,
            loads_b: tf32_major!($major).1 > 0,
            load_groups: tf32_major!($major).1,
            bm: $bm,
            bn: $bn,
            bk: TF32_BK,
            stages: $stages,
            consumers: TF32_CONSUMERS,
            depth: $depth,
        }),*];
    };
}
for_each_wgmma_tf32!(tf32_table);

/// The kernel of `kind` reading B as `b_major` with wait depth `depth`, or the deepest one
/// below it that exists (3xTF32 has depth 0 only), or else the shallowest one (the `N` kernel
/// has depth 1 only); `None` where no kernel reads that layout (3xTF32 with `N`: its operands
/// always go through the split pass).
pub fn tf32_config(kind: Tf32Kind, b_major: BMajor, depth: u32) -> Option<&'static Tf32Config> {
    let fits = || {
        WGMMA_TF32
            .iter()
            .filter(move |c| c.kind == kind && c.b_major == b_major && !c.loads_b)
    };
    fits()
        .filter(|c| c.depth <= depth)
        .max_by_key(|c| c.depth)
        .or_else(|| fits().min_by_key(|c| c.depth))
}

/// The TF32 kernel that loads a row-major B with its producer's threads (A row-major through
/// TMA) in `groups` groups (the list's `L` row for 1, `H` for 2), if there is one.
pub fn tf32_load_config(groups: u32) -> Option<&'static Tf32Config> {
    WGMMA_TF32
        .iter()
        .find(|c| c.loads_b && c.load_groups == groups)
}

/// The f32 kernels' only argument, passed by value.
///
/// `tmaps` points to four 128-byte `CUtensorMap`s in global memory, 128-byte aligned: A's hi
/// part (`m x k`, k innermost, box `BK x BM`), B's hi part (`n x k`, box `BK x BN`), then for
/// 3xTF32 A's and B's lo parts (same boxes); 128-byte swizzle, zero fill outside. For the
/// [`BMajor::N`] kernels the first is B (`k x n`, n innermost, box [`TF32_ROWS_BOX_N`] x `BK`,
/// FLOAT32: the kernel rounds) and the second A (`m x k`, box `BK x BM`); the others unused. The
/// `loads_b` kernel reads only the first, A's (as the `K` kernel's), and B through `b`. `c` is
/// `m x n` f32 with rows `ldc` apart, only read when `beta != 0`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Tf32Params {
    pub tmaps: *const u8,
    pub c: *mut f32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
    /// Tile order: runs of `group` tile rows walked down before moving right (at least 1);
    /// block `b` takes tiles `b, b + grid, …`.
    pub group: u32,
    /// 3xTF32: slices accumulated in the tensor cores' temporaries before each round-to-nearest
    /// add into the f32 accumulators (at least 1). Unused by TF32.
    pub flush: u32,
    /// Stream-K as [`super::WgmmaParams`]'s `work` (TF32 only: 3xTF32 takes no stream-K).
    pub work: *mut u32,
    /// Stream-K as [`super::WgmmaParams`]'s `sk_tiles` (slices of `TF32_BK`); 0 for 3xTF32.
    pub sk_tiles: u32,
    /// Stream-K as [`super::WgmmaParams`]'s `sk_last`.
    pub sk_last: u32,
    /// The `loads_b` kernel only: B row-major, `k x n` with rows `ldb` apart (`ldb` a multiple
    /// of 4, `b` 16-byte aligned); null and 0 for the others.
    pub b: *const f32,
    pub ldb: u32,
    /// The `loads_b` kernel only: slices ahead of the producer's loads whose B rows it has the
    /// copy engine prefetch into L2 (0: none).
    pub prefetch: u32,
    /// A tensor map of C as [`super::WgmmaParams`]'s `tmap_c`, through which the TF32 kernels
    /// with 256-column tiles (one m64n256 fragment a consumer) store whole tiles with TMA, or
    /// null (stores from registers; always for 3xTF32 and the transposed product).
    pub tmap_c: *const u8,
}

/// Columns of B in one TMA box of the [`BMajor::N`] kernels (128 bytes: one swizzle row).
pub const TF32_ROWS_BOX_N: u32 = 32;

/// The pass that writes an f32 matrix K-major for the kernels: TF32 hi part (round to nearest,
/// `cvt.rna.tf32.f32`) and, for 3xTF32, the lo part `tf32(x - hi)`.
pub const SPLIT_KERNEL: &str = "wgmma_tf32_split";
/// Threads of a split block, each moving 16 elements of a tile (four 16-byte vectors).
pub const SPLIT_THREADS: u32 = 256;
/// Side of a split block's tile.
pub const SPLIT_TILE: u32 = 64;

/// The split pass's argument: output `rows x cols` (K-major: `cols` = k) with rows `ld_out`
/// apart in `hi` (and `lo` unless null); element (r, c) read from `src[r·ld_src + c]`, or with
/// `transpose != 0` from `src[c·ld_src + r]`. One block per [`SPLIT_TILE`]² tile, row-major
/// order over `ceil(cols / SPLIT_TILE)` tile columns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SplitParams {
    pub src: *const f32,
    pub hi: *mut f32,
    pub lo: *mut f32,
    pub rows: u32,
    pub cols: u32,
    pub ld_src: u32,
    pub ld_out: u32,
    pub transpose: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_fits_the_chip() {
        for c in WGMMA_TF32 {
            assert!(c.shared_bytes() <= 227 * 1024, "{}", c.name);
            assert!(c.entry_registers() * c.threads() <= 65536);
            for (producer, consumer) in [
                (TF32_PRODUCER_REGISTERS, TF32_CONSUMER_REGISTERS),
                (TF32_ROWS_PRODUCER_REGISTERS, TF32_ROWS_CONSUMER_REGISTERS),
            ] {
                assert!(128 * producer + 128 * c.consumers * consumer <= 65536);
                // Each consumer at least keeps the entry's count (`setmaxnreg.inc` only adds).
                assert!(consumer >= c.entry_registers());
            }
            assert_eq!(c.bk * 4, 128, "one 128-byte swizzle row");
            // m64 per consumer warp group: of C's rows, or for `N` of Cᵀ's (C's columns).
            match c.b_major {
                BMajor::K => assert_eq!(c.bm, 64 * c.consumers),
                BMajor::N => {
                    assert_eq!(
                        (c.bn, c.kind, c.depth),
                        (64 * c.consumers, Tf32Kind::Tf32, 1)
                    );
                    assert!(c.bm <= 256, "A's TMA box and wgmma n limit");
                    assert_eq!(c.bn % TF32_ROWS_BOX_N, 0);
                }
            }
            assert_eq!(c.stage_bytes() % TF32_SWIZZLE_ALIGN, 0);
            assert!(c.bn <= 256, "TMA box and wgmma n limit");
            // Accumulators a consumer thread holds: wgmma's n/2 per set (n = bn, or bm for the
            // transposed product), three sets for 3xTF32; `N` also holds two k8 steps' A
            // fragments (8 words).
            let (sets, wn, frag) = match (c.kind, c.b_major) {
                (Tf32Kind::Tf32, BMajor::K) => (1, c.bn, 0),
                (Tf32Kind::Tf32, BMajor::N) => (1, c.bm, 8),
                (Tf32Kind::Tf32x3, _) => (3, c.bn, 0),
            };
            let consumer = match c.b_major {
                BMajor::K => TF32_CONSUMER_REGISTERS,
                BMajor::N => TF32_ROWS_CONSUMER_REGISTERS,
            };
            assert!(sets * wn / 2 + frag + 24 <= consumer, "{}", c.name);
        }
        let k = |kind, depth| tf32_config(kind, BMajor::K, depth).unwrap();
        for kind in [Tf32Kind::Tf32, Tf32Kind::Tf32x3] {
            assert_eq!((k(kind, 0).kind, k(kind, 0).depth), (kind, 0));
        }
        assert_eq!(k(Tf32Kind::Tf32, 1).depth, 1);
        assert_eq!(k(Tf32Kind::Tf32x3, 1).depth, 0);
        for groups in [1, 2] {
            let l = tf32_load_config(groups).unwrap();
            assert_eq!((l.kind, l.b_major, l.depth), (Tf32Kind::Tf32, BMajor::K, 0));
            // The producer's 4 warps cover the tile's 256 columns (`tf32_load.rs`).
            assert_eq!((l.bn, l.bk, l.consumers), (256, 32, 2));
        }
        assert!(tf32_load_config(3).is_none());
        assert!(!k(Tf32Kind::Tf32, 0).loads_b && !k(Tf32Kind::Tf32, 1).loads_b);
        // The N kernel has depth 1 only: a schedule of depth 0 gets it too.
        for depth in [0, 1] {
            let n = tf32_config(Tf32Kind::Tf32, BMajor::N, depth).unwrap();
            assert_eq!((n.b_major, n.depth), (BMajor::N, 1));
        }
        assert!(tf32_config(Tf32Kind::Tf32x3, BMajor::N, 0).is_none());
    }
}
