//! Which flagship kernel, rasterization group and schedule a problem runs with: the tuning cache
//! that `host tune` writes (one winner per shape class, used only on the GPU, driver and commit it
//! was measured with; its format and matching are `rgk_core::matmul::tune`), else the defaults
//! ([`choose_kernel`], [`DEFAULT_GROUP`], [`DEFAULT_SCHEDULE`]), each overridable from the
//! environment for timing runs. docs/matmul.md and docs/stream-k.md have the measurements behind
//! the defaults.
//!
//! Reading the cache is all this module does with tuning: the tuner (`crate::tune`), which
//! times kernels against cuBLAS, imports this module, never the other way round.
use std::sync::OnceLock;

use anyhow::Result;
use gpu_kernels::matmul::{
    FlagshipConfig,
    skinny::{SKINNY_COLS, SKINNY_ROWS, SKINNY_ROWS_ASYNC, SkinnyConfig, narrowest},
    stream_k::Schedule,
};
use rgk_core::matmul::tune::{self as tuning, GpuIdentity, Loaded, ShapeClass, TuneCache, Winner};

use super::{flagship::flagship_config, problem::MAX_DIM};
use crate::gpu::Gpu;

pub use super::shape::{Choice, ShapeKind};

/// Rasterization group of the flagship launches without a tuned or requested one.
pub const DEFAULT_GROUP: u32 = 8;

/// Schedule of the flagship launches without a tuned or requested one: stream-K, which is
/// data-parallel wherever the tiles fill whole waves (`stream_k::plan`).
pub const DEFAULT_SCHEDULE: Schedule = Schedule::StreamK;

/// The rasterization group (`SgemmParams::group`, tile rows walked down per column sweep) that
/// `RGK_SGEMM_GROUP` asks for, if it names one (≥ 1): it overrides the tuned and the default
/// group, for tuning runs.
pub fn group_override() -> Option<u32> {
    std::env::var("RGK_SGEMM_GROUP")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&g| g >= 1)
}

/// The schedule `RGK_SGEMM_SCHEDULE` asks for (`data-parallel` or `stream-k`), if any: it
/// overrides the tuned and the default schedule, for timing runs.
pub fn schedule_override() -> Option<Schedule> {
    std::env::var("RGK_SGEMM_SCHEDULE")
        .ok()
        .and_then(|v| Schedule::from_name(&v))
}

/// The kernel for an `m x n x k` problem on the GPU at hand: a skinny kernel where
/// [`ShapeKind::of`] says N or M is tiny (no tuning applies to those), else the flagship kernel
/// of [`pick`]. `vec_b` says whether B allows 16-byte copies.
pub fn pick_any(gpu: &Gpu, m: usize, n: usize, k: usize, vec_b: bool) -> Result<Choice> {
    Ok(match skinny_choice(m, n, k) {
        Some(cfg) => Choice::Skinny(cfg),
        None => Choice::Flagship(pick(gpu, m, n, k, vec_b)?),
    })
}

/// Row kernels at least this wide run their pipelined twin (`SKINNY_ROWS_ASYNC`): the
/// register-staged row kernel of 16 columns needs 238 registers, one 8-warp block per
/// multiprocessor, whose loads and FMAs take turns (H200: 8192 x 16 x 8192 at 68 % of cuBLAS);
/// the one of 8 columns needs 121, two blocks per multiprocessor, which overlap them.
pub const PIPELINED_FROM_WIDTH: u32 = 16;

/// The skinny kernel for the shape, if its [`ShapeKind`] routes it to one: the narrowest row
/// kernel that holds N (small N; its pipelined twin from [`PIPELINED_FROM_WIDTH`] columns) or
/// column kernel that holds M (small M). Thin N (17 to 32) stays on the flagship: the pipelined
/// row kernel of 32 columns ran 8192 x 32 x 8192 at 42 % of cuBLAS, the 64x64 tile at 54 %
/// (H200, docs/matmul.md, session 7).
pub fn skinny_choice(m: usize, n: usize, k: usize) -> Option<&'static SkinnyConfig> {
    let width = |d: usize| d.min(MAX_DIM) as u32;
    match ShapeKind::of(m, n, k) {
        ShapeKind::MatVec | ShapeKind::TinyN => {
            let rows = narrowest(SKINNY_ROWS, width(n));
            let twin = SKINNY_ROWS_ASYNC
                .iter()
                .find(|c| c.width == rows.width && c.width >= PIPELINED_FROM_WIDTH);
            Some(twin.unwrap_or(rows))
        }
        // M = 1: the one-launch matrix–vector kernel (its splits summed in the kernel).
        ShapeKind::VecMat => Some(super::gemv::library_kernel()),
        ShapeKind::TinyM => Some(narrowest(SKINNY_COLS, width(m))),
        ShapeKind::Thin | ShapeKind::DeepK | ShapeKind::General => None,
    }
}

/// The flagship kernel for an `m x n x k` problem on the GPU at hand: the tuned winner of its
/// shape class when a matching cache has one, else [`choose_kernel`]'s pick. `vec_b` says
/// whether B allows 16-byte copies.
pub fn pick(
    gpu: &Gpu,
    m: usize,
    n: usize,
    k: usize,
    vec_b: bool,
) -> Result<&'static FlagshipConfig> {
    if let Some(w) = tuned_winner(gpu, m, n, k, vec_b) {
        return flagship_config(&w.kernel);
    }
    Ok(launch_kernel(m, n, k, vec_b, gpu.multiprocessors()?))
}

/// The kernel the library runs for dense `m x k` and `k x n` operands in their own
/// allocations: the driver aligns those to 256 bytes, so B allows 16-byte copies exactly when N
/// is a multiple of 4.
pub fn dense_kernel(gpu: &Gpu, m: usize, n: usize, k: usize) -> Result<Choice> {
    pick_any(gpu, m, n, k, n.is_multiple_of(4))
}

/// The rasterization group and schedule to launch `cfg` with: each from `RGK_SGEMM_GROUP` /
/// `RGK_SGEMM_SCHEDULE` if set, else the tuned one when `cfg` is the tuned winner for the
/// problem, else [`DEFAULT_GROUP`] / [`DEFAULT_SCHEDULE`].
pub fn launch_settings(
    gpu: &Gpu,
    cfg: &FlagshipConfig,
    m: usize,
    n: usize,
    k: usize,
    vec_b: bool,
) -> (u32, Schedule) {
    let tuned = tuned_winner(gpu, m, n, k, vec_b).filter(|w| w.kernel == cfg.name);
    (
        group_override()
            .or(tuned.map(|w| w.group))
            .unwrap_or(DEFAULT_GROUP),
        schedule_override()
            .or(tuned.map(|w| w.schedule))
            .unwrap_or(DEFAULT_SCHEDULE),
    )
}

fn tuned_winner(gpu: &Gpu, m: usize, n: usize, k: usize, vec_b: bool) -> Option<&'static Winner> {
    tuned_cache(gpu)?.choice(ShapeClass::of(m, n, k), vec_b)
}

/// What a tuning cache must match to be used on `gpu` (and what the tuner writes into one).
pub fn identity(gpu: &Gpu) -> Result<GpuIdentity> {
    let info = gpu.info()?;
    Ok(GpuIdentity {
        name: info.name,
        compute_capability: [info.compute_capability.0, info.compute_capability.1],
        driver: info.driver_version,
        // A build from outside git matches no cache: "unknown" names no one build.
        commit: crate::BUILD_COMMIT
            .unwrap_or("unknown (no cache matches)")
            .to_string(),
    })
}

/// The tuning cache (`rgk_core::matmul::tune::default_cache_path`), read once per process;
/// `None` when there is none or it does not match this GPU and build, which is said once on
/// stderr. (The library always runs on device 0, so one answer per process suffices.)
pub fn tuned_cache(gpu: &Gpu) -> Option<&'static TuneCache> {
    static CACHE: OnceLock<Option<TuneCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| {
            let path = tuning::default_cache_path()?;
            let here = match identity(gpu) {
                Ok(id) => id,
                Err(e) => {
                    eprintln!("warning: not using the SGEMM tuning cache: {e:#}");
                    return None;
                }
            };
            let known = |name: &str| flagship_config(name).ok().map(|c| c.vec_b);
            match tuning::load(&path, &here, known) {
                Loaded::Absent => None,
                Loaded::Usable(c) => Some(c),
                Loaded::Ignored(why) => {
                    eprintln!("warning: {why}");
                    None
                }
            }
        })
        .as_ref()
}

/// The default kernel (no tuning cache) for an `m x n x k` problem on a GPU with `sms`
/// multiprocessors: the skinny kernel of [`skinny_choice`], else [`choose_kernel`]'s flagship.
pub fn choose(m: usize, n: usize, k: usize, vec_b: bool, sms: u32) -> Choice {
    match skinny_choice(m, n, k) {
        Some(cfg) => Choice::Skinny(cfg),
        None => Choice::Flagship(launch_kernel(m, n, k, vec_b, sms)),
    }
}

/// The flagship kernel the library launches without a tuned one: [`choose_kernel`]'s, with a
/// small grid's 64x64 tile on eight warps below `SHORT_K` (`small::small_twin`; the route model
/// keeps pricing `choose_kernel`'s).
fn launch_kernel(m: usize, n: usize, k: usize, vec_b: bool, sms: u32) -> &'static FlagshipConfig {
    let cfg = choose_kernel(m, n, k, vec_b, sms);
    let (m, n) = (m.min(MAX_DIM) as u32, n.min(MAX_DIM) as u32);
    super::small::small_twin(cfg, (m, n, k), sms)
}

/// Tile shapes [`choose_kernel`] picks from, largest first, for B copied in 16-byte pieces and
/// in 4-byte pieces.
const VEC_CHOICES: &[&str] = &[
    // 8x16 outputs per thread: 1-2% faster than 16x8 at 2048²-8192² since stream-K changed the
    // kernels' register allocation (docs/matmul.md).
    "sgemm_128x256x8_s4_8x16",
    "sgemm_128x128x8_s4_16x8",
    "sgemm_64x128x16_s3_8x8",
    "sgemm_64x64x16_s4_8x4",
];
const SCALAR_CHOICES: &[&str] = &[
    "sgemm_128x256x8_s4_16x8_u",
    "sgemm_128x128x8_s4_16x8_u",
    "sgemm_64x128x16_s3_8x8_u",
    // Small odd problems (fewer 64x128 tiles than SMs): as with 16-byte B, the smallest tile
    // (H200, session 8: 333x555x777 0.030 ms against 0.036 on 64x128, both one wave).
    "sgemm_64x64x16_s4_8x4_u",
];

/// Below this K the 128-row tiles lose to the 64x128 one: one block per SM runs too few
/// k-slices to hide its pipeline fill and its 128-output epilogue, while three 64x128 blocks
/// per SM overlap them (H200, % of cuBLAS: 4097x4095x1023 90.4 vs 95.4, unaligned 86.2 vs 90.7;
/// 2048³ 99.9 vs 92.5; docs/matmul.md). The same bound as the tuner's short-K shape class.
const SHORT_K: usize = tuning::SHORT_K;

/// The default flagship kernel for an `m x n x k` problem on a GPU with `sms` multiprocessors
/// (used on every architecture when no tuning cache matches); `vec_b` says whether B allows
/// 16-byte copies ([`FlagshipConfig::vec_b`]).
///
/// The largest tile whose grid has a block for at least 90% of the multiprocessors (large
/// tiles load the fewest bytes per FMA, but a grid smaller than the GPU leaves multiprocessors
/// idle: at 1024² the 128x256 tile makes 32 blocks for 132 SMs, 37% of cuBLAS, against 103% for
/// the 64x128 tile's 128 blocks; at 2048² the 128x256 tile's 128 blocks still win) and of which
/// less than half is padding (`mostly_padding`), and no 128-row tile when K is below
/// `SHORT_K` (2048); the smallest tile when none qualifies.
pub fn choose_kernel(
    m: usize,
    n: usize,
    k: usize,
    vec_b: bool,
    sms: u32,
) -> &'static FlagshipConfig {
    let names = if vec_b { VEC_CHOICES } else { SCALAR_CHOICES };
    let configs = names
        .iter()
        .map(|name| flagship_config(name).expect("the choice lists name flagship kernels"))
        .filter(|cfg| k >= SHORT_K || cfg.bm < 128);
    let (m, n) = (m.min(MAX_DIM) as u32, n.min(MAX_DIM) as u32);
    let enough = sms.saturating_mul(9).div_ceil(10);
    let mut last = None;
    for cfg in configs {
        if cfg.tiles(m, n) >= enough && !mostly_padding(cfg, m, n) {
            return cfg;
        }
        last = Some(cfg);
    }
    last.expect("the choice lists are not empty")
}

/// Whether half or more of `cfg`'s tiles over an `m x n` C would be padding: thin shapes whose
/// M or N is at most half a tile side (16384 x 64 x 4096 ran the 128x256 tile, three quarters
/// of it padding, at 30 % of cuBLAS; docs/matmul.md). The transposing and batched variants
/// follow the same rule (`select_ops::choose_ops_kernel`).
fn mostly_padding(cfg: &FlagshipConfig, m: u32, n: u32) -> bool {
    let padded = u64::from(m.next_multiple_of(cfg.bm)) * u64::from(n.next_multiple_of(cfg.bn));
    2 * u64::from(m) * u64::from(n) <= padded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_choice_is_a_flagship_kernel_with_matching_copies() {
        for (names, vec_b) in [(VEC_CHOICES, true), (SCALAR_CHOICES, false)] {
            for name in names {
                assert_eq!(flagship_config(name).unwrap().vec_b, vec_b, "{name}");
            }
        }
        // Large problems get the largest tile; smaller ones a tile that fills 132 SMs.
        let pick = |m, n, k, vec_b| choose_kernel(m, n, k, vec_b, 132).name;
        assert_eq!(pick(8192, 8192, 8192, true), "sgemm_128x256x8_s4_8x16");
        assert_eq!(pick(4096, 4096, 4096, true), "sgemm_128x256x8_s4_8x16");
        assert_eq!(pick(2048, 2048, 2048, true), "sgemm_128x256x8_s4_8x16");
        assert_eq!(pick(1536, 1536, 2048, true), "sgemm_128x128x8_s4_16x8");
        assert_eq!(pick(1024, 1024, 1024, true), "sgemm_64x128x16_s3_8x8");
        assert_eq!(pick(1, 1, 1, true), "sgemm_64x64x16_s4_8x4");
        assert_eq!(pick(4097, 4095, 1023, false), "sgemm_64x128x16_s3_8x8_u");
        assert_eq!(pick(4097, 4095, 4095, false), "sgemm_128x256x8_s4_16x8_u");
        assert_eq!(pick(17, 33, 5, false), "sgemm_64x64x16_s4_8x4_u");
        assert_eq!(pick(333, 555, 777, false), "sgemm_64x64x16_s4_8x4_u");
        assert_eq!(pick(1025, 1023, 1023, false), "sgemm_64x128x16_s3_8x8_u");
        // Thin shapes: no tile that is half padding (N or M of 64 fills a 64-wide tile side).
        assert_eq!(pick(16384, 64, 4096, true), "sgemm_64x64x16_s4_8x4");
        assert_eq!(pick(64, 16384, 4096, true), "sgemm_64x128x16_s3_8x8");
        assert_eq!(pick(8192, 48, 8192, true), "sgemm_64x64x16_s4_8x4");
        assert_eq!(pick(12288, 128, 12288, true), "sgemm_64x128x16_s3_8x8");
        assert_eq!(pick(128, 12288, 12288, true), "sgemm_64x128x16_s3_8x8");
        assert_eq!(pick(16384, 100, 4096, false), "sgemm_128x128x8_s4_16x8_u");
    }

    #[test]
    fn every_class_is_routed() {
        let pick = |m, n, k| choose(m, n, k, n % 4 == 0, 132).name();
        // Matrix–vector products and tiny N or M: the narrowest skinny kernel that holds them
        // (M = 1: the one-launch matrix–vector kernel).
        assert_eq!(pick(8192, 1, 8192), "sgemm_rows_n1");
        assert_eq!(pick(1, 1, 1), "sgemm_rows_n1");
        assert_eq!(pick(1, 8192, 8192), "sgemv_strips_u4");
        assert_eq!(pick(1, 3000, 5000), "sgemv_strips_u4");
        assert_eq!(pick(5000, 7, 5000), "sgemm_rows_n8");
        assert_eq!(pick(4096, 16, 4096), "sgemm_rows_async_n16");
        assert_eq!(pick(8192, 9, 8192), "sgemm_rows_async_n16");
        assert_eq!(pick(8192, 8, 8192), "sgemm_rows_n8");
        // Thin N (17 and up) or M: the flagship.
        for (m, n) in [(8192, 17), (8192, 24), (8192, 32), (24, 8192)] {
            assert!(matches!(choose(m, n, 8192, true, 132), Choice::Flagship(_)));
        }
        assert_eq!(pick(3, 5000, 5000), "sgemm_cols_m4");
        assert_eq!(pick(16, 4096, 4096), "sgemm_cols_m16");
        // Thin, deep-K and general shapes: the flagship (stream-K balances their tiles).
        for (m, n, k) in [
            (12288, 128, 12288),
            (128, 12288, 12288),
            (256, 256, 16384),
            (4096, 4096, 4096),
        ] {
            let c = choose(m, n, k, true, 132);
            assert!(matches!(c, Choice::Flagship(_)), "{m}x{n}x{k}: {c:?}");
            assert_eq!(c, Choice::Flagship(choose_kernel(m, n, k, true, 132)));
        }
        // Every skinny class gets a skinny kernel, every other class a flagship one.
        for (m, n, k) in [(1, 9, 9), (9, 1, 9), (99, 9, 9), (9, 99, 9), (99, 99, 9)] {
            let skinny = matches!(
                ShapeKind::of(m, n, k),
                ShapeKind::MatVec | ShapeKind::VecMat | ShapeKind::TinyN | ShapeKind::TinyM
            );
            assert_eq!(skinny_choice(m, n, k).is_some(), skinny, "{m}x{n}x{k}");
        }
    }
}
