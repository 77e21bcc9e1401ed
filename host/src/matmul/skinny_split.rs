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
use super::{
    problem::Gemm,
    route::{MIN_SPLIT_K, Machine, Route, SPLIT_COUNTS, SplitK, SplitSum, TILES},
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
        return Route::DIRECT;
    }
    let deep_enough = |s: u32| op.k / s as usize >= MIN_SPLIT_K;
    let fits = SPLIT_COUNTS.iter().copied().take_while(|&s| deep_enough(s));
    match fits.clone().find(|&s| tiles * s as usize >= target) {
        Some(s) => split(s),
        // K too short to reach the target: the deepest split it allows, if any.
        None => fits.last().map_or(Route::DIRECT, split),
    }
}

fn split(splits: u32) -> Route {
    Route {
        split: Some(SplitK {
            tile: THIN_TILE,
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
        // Tiles for more than half the SMs: 8192 x 32 has 128 (measured: no split faster),
        // 16384 x 64 256, 4225 x 64 67 (66 is the last that splits), 65536 x 32 1024.
        assert_eq!(splits(8192, 32, 8192), None);
        assert_eq!(splits(32, 8192, 8192), None);
        assert_eq!(splits(16384, 64, 4096), None);
        assert_eq!(splits(4225, 64, 8192), None);
        assert_eq!(splits(4224, 64, 8192), Some(4));
        assert_eq!(splits(65536, 32, 8192), None);
        // Not thin, or thin enough for the skinny kernels.
        assert_eq!(splits(8192, 65, 8192), None);
        assert_eq!(splits(8192, 16, 8192), None);
        assert_eq!(splits(16, 8192, 8192), None);
        // A batch.
        let batch = Gemm::new(8192, 32, 8192).batch(2);
        assert_eq!(thin_route(&batch, &H200), Route::DIRECT);
    }
}
