//! Split-K for thin problems (issue #20): M or N at most [`THIN_SIDE`] and a K deep enough that
//! the few output tiles leave the GPU underfed. A leaf of pure arithmetic, CUDA-free: `sgemm`
//! asks it for the route of every problem the cost model (`route`) leaves alone, and
//! `split_run` runs the route it returns.
//!
//! Why a rule of its own, and why so narrow (H200, docs/matmul.md "Batches and thin shapes
//! (session 6)"): run directly, a thin problem with a handful of tiles leaves most
//! multiprocessors idle (2048 x 40 x 2048: 32 tiles of 64x64 for 132 SMs, 97 % of cuBLAS;
//! split 8 ways, 107 %). Once the tiles give every multiprocessor a block, splitting K buys
//! nothing: 8192 x {32, 48} x 8192 (128 tiles) ran 0.278 ms direct and 0.284–0.295 ms split 4,
//! 8 or 16 ways, 16384 x 64 x 4096 (256 tiles) 0.227 ms direct and 0.287–0.300 split, 8192 x 16
//! x 8192 0.212 ms with its row kernel and 0.287 split; the 64x64 variant's own streaming rate
//! (about 1.4 TB/s of A and B), not the grid, bounds those.
use rgk_core::matmul::tune::SHORT_K;

use super::{
    problem::{Gemm, MAX_DIM},
    route::{MIN_SPLIT_K, Machine, Route, SPLIT_COUNTS, SplitK, SplitSum, TILES},
    select::choose_kernel,
};

/// The thin side (M or N) at most this is this module's domain (`route` takes the rest).
pub const THIN_SIDE: usize = 64;

/// The thin side at least this is split by [`thin_route`]; narrower problems keep the skinny
/// kernels (`select::skinny_choice`, N or M ≤ 16), which stream at bandwidth without padding.
pub const SPLIT_FROM: usize = 17;

/// The tile thin problems split with: `TILES[THIN_TILE]`, 64x64, the narrowest (a 32-wide
/// side pads to half of it, a 128-wide one to a quarter).
pub const THIN_TILE: usize = 3;

/// Blocks per multiprocessor a split aims for: one streams while the other waits (2048 x 40 x
/// 2048, 32 tiles: 4 splits 90 % of cuBLAS, 8 splits 107 %, 16 splits 105 %).
pub const BLOCKS_PER_SM: usize = 2;

/// The route of a plain thin problem (batch of one, M or N at most [`THIN_SIDE`], the thin side
/// at least [`SPLIT_FROM`]) on `mc`: when its 64x64 tiles would leave half the multiprocessors
/// or more without a block, split-K with that tile into the fewest splits of
/// `route::SPLIT_COUNTS` that give every multiprocessor [`BLOCKS_PER_SM`] blocks, each split at
/// least `route::MIN_SPLIT_K` deep (the deepest split K allows if none does); else the direct
/// route.
pub fn thin_route(op: &Gemm, mc: &Machine) -> Route {
    let thin = op.m.min(op.n);
    if op.batch != 1 || !(SPLIT_FROM..=THIN_SIDE).contains(&thin) {
        return Route::DIRECT;
    }
    let (bm, bn) = tile_dims(THIN_TILE);
    let tiles = op.m.div_ceil(bm) * op.n.div_ceil(bn);
    let sms = mc.sms as usize;
    let target = BLOCKS_PER_SM * sms;
    if 2 * tiles > sms {
        return one_wave_split(op, mc);
    }
    let deep_enough = |s: u32| op.k / s as usize >= MIN_SPLIT_K;
    let fits = SPLIT_COUNTS.iter().copied().take_while(|&s| deep_enough(s));
    match fits.clone().find(|&s| tiles * s as usize >= target) {
        Some(s) => split(s),
        // K too short to reach the target: the deepest split it allows, if any.
        None => fits.last().map_or(Route::DIRECT, split),
    }
}

/// K at least this deep splits a thin problem whose direct grid is one wave of single blocks
/// (`one_wave_split`): each part keeps a long main loop.
pub const ONE_WAVE_SPLIT_K: usize = SHORT_K;

/// The route of a thin problem whose 64x64 tiles fill half the GPU or more: where the direct
/// kernel's own tile (`select::choose_kernel`) makes at most one block per multiprocessor, pads
/// C by at most a ninth, and K is at least [`ONE_WAVE_SPLIT_K`], split-K on that tile into the most splits of
/// `route::SPLIT_COUNTS` that keep two blocks or fewer per multiprocessor (one block of four
/// warps per SM hides too little latency: H200, session 9, 64 x 16384 x 4096 on 64x128, 128
/// tiles, direct 0.224 ms, split in two 0.203 ms, in three 0.217); else the direct route.
fn one_wave_split(op: &Gemm, mc: &Machine) -> Route {
    let cfg = choose_kernel(op.m, op.n, op.k, true, mc.sms);
    let Some(tile) = TILES
        .iter()
        .position(|t| t.starts_with(&format!("{}x{}x", cfg.bm, cfg.bn)))
    else {
        return Route::DIRECT;
    };
    let (m, n) = (op.m.min(MAX_DIM), op.n.min(MAX_DIM));
    let tiles = cfg.tiles(m as u32, n as u32) as usize;
    let padded = m.next_multiple_of(cfg.bm as usize) * n.next_multiple_of(cfg.bn as usize);
    let sms = mc.sms as usize;
    // A tile padded by more than a ninth (8192 x 32 on 64x64) streams A at the kernel's rate
    // whatever the grid: split 4 to 16 ways it ran no faster (session 6).
    if tiles > sms || op.k < ONE_WAVE_SPLIT_K || 8 * padded > 9 * m * n {
        return Route::DIRECT;
    }
    SPLIT_COUNTS
        .iter()
        .copied()
        .rfind(|&s| tiles * s as usize <= BLOCKS_PER_SM * sms && op.k / s as usize >= MIN_SPLIT_K)
        .map_or(Route::DIRECT, |s| split_on(tile, s))
}

fn split(splits: u32) -> Route {
    split_on(THIN_TILE, splits)
}

fn split_on(tile: usize, splits: u32) -> Route {
    Route {
        split: Some(SplitK {
            tile,
            splits,
            // The separate sum kernel: what the thin splits were measured with.
            sum: SplitSum::Launch,
        }),
        ..Route::DIRECT
    }
}

/// Rows and columns of `TILES[t]` ("BMxBNxBK_...").
fn tile_dims(t: usize) -> (usize, usize) {
    let mut dims = TILES[t].split(['x', '_']).map(|d| d.parse().unwrap_or(1));
    (dims.next().unwrap_or(1), dims.next().unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: Machine = Machine {
        sms: 132,
        per_sm: [1, 2, 3, 4],
    };

    fn splits(m: usize, n: usize, k: usize) -> Option<u32> {
        thin_route(&Gemm::new(m, n, k), &H200)
            .split
            .map(|s| s.splits)
    }

    #[test]
    fn the_tile_is_64x64() {
        assert_eq!(tile_dims(THIN_TILE), (64, 64));
    }

    #[test]
    fn thin_problems_with_few_tiles_split_until_every_sm_has_a_block() {
        // 2048 x 40 x 2048: 32 tiles, 132 SMs, 264 blocks wanted: K allows 8 splits of 256.
        assert_eq!(splits(2048, 40, 2048), Some(8));
        assert_eq!(splits(40, 2048, 2048), Some(8));
        // 1000 x 24 x 16384: 16 tiles, 24 splits reach 384 blocks; 17 x 640 x 5000: 10 tiles,
        // K allows 16.
        assert_eq!(splits(1000, 24, 16384), Some(24));
        assert_eq!(splits(17, 640, 5000), Some(16));
        // K too short for more: 2 splits of 256 at K = 512, none at K = 511.
        assert_eq!(splits(2048, 32, 512), Some(2));
        assert_eq!(splits(2048, 32, 511), None);
    }

    #[test]
    fn other_problems_go_direct() {
        // Tiles for more than half the SMs: 8192 x 32 has 128 of 64x64, half padding
        // (measured: no split faster), 16384 x 64 256, 65536 x 32 1024.
        assert_eq!(splits(8192, 32, 8192), None);
        assert_eq!(splits(32, 8192, 8192), None);
        assert_eq!(splits(16384, 64, 4096), None);
        assert_eq!(splits(4224, 64, 8192), Some(4));
        assert_eq!(splits(65536, 32, 8192), None);
        // Not thin, or thin enough for the skinny kernels.
        assert_eq!(splits(8192, 65, 8192), None);
        assert_eq!(splits(8192, 16, 8192), None);
        assert_eq!(splits(16, 8192, 8192), None);
        // The direct tile's grid at most one block per SM, padding little, K deep: split
        // into the most splits that keep two blocks or fewer per SM, on that tile.
        let on = |m, n, k| {
            thin_route(&Gemm::new(m, n, k), &H200)
                .split
                .map(|s| (s.tile, s.splits))
        };
        assert_eq!(on(64, 16384, 4096), Some((2, 2)));
        // 64 x 12288 runs 64x64 (96 tiles of 64x128 are too few), 192 tiles: direct.
        assert_eq!(on(64, 12288, 4096), None);
        assert_eq!(on(4225, 64, 8192), Some((3, 3)));
        assert_eq!(on(64, 16384, 2047), None);
        assert_eq!(on(12288, 64, 4096), None);
        // A batch.
        let batch = Gemm::new(8192, 32, 8192).batch(2);
        assert_eq!(thin_route(&batch, &H200), Route::DIRECT);
    }
}
