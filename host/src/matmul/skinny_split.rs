//! Split-K for thin problems (issue #20): M or N at most [`THIN_SIDE`] and a K deep enough that
//! the few output tiles leave the GPU underfed. A leaf of pure arithmetic, CUDA-free: `sgemm`
//! asks it for the route of every problem the cost model (`route`) leaves alone, and
//! `split_run` runs the route it returns.
//!
//! Why a rule of its own: these products are bound by reading the large operand once (8192 x 32
//! x 8192 reads 268 MB of A: 56 µs at the H200's 4.8 TB/s), not by arithmetic, and `route`'s
//! model counts only arithmetic. Run directly, the 64x64 tile gives 8192 x 32 x 8192 128 blocks,
//! fewer than the 132 multiprocessors, each streaming 8192 k-values of 64 rows serially: 0.278
//! ms at N = 24, 32 and 48 alike (52–75 % of cuBLAS, docs/matmul.md). Cut K into `s` ranges,
//! the same bytes stream from `s` times the blocks, enough loads in flight to near bandwidth;
//! the padding the 64-wide tile computes costs arithmetic the GPU has to spare.
use super::{
    problem::Gemm,
    route::{MIN_SPLIT_K, Machine, Route, SPLIT_COUNTS, SplitK, TILES},
};

/// The thin side (M or N) at most this is this module's domain (`route` takes the rest).
pub const THIN_SIDE: usize = 64;

/// The thin side at least this is split by [`thin_route`]; narrower problems keep the skinny
/// kernels (`select::skinny_choice`, N or M ≤ 16), which stream at bandwidth without padding.
pub const SPLIT_FROM: usize = 17;

/// The tile thin problems split with: `TILES[THIN_TILE]`, 64x64, the narrowest (a 32-wide
/// side pads to half of it, a 128-wide one to a quarter).
pub const THIN_TILE: usize = 3;

/// Blocks the split aims for, in resident blocks of the whole GPU (multiprocessors times the
/// tile's blocks per multiprocessor): one full set resident keeps every multiprocessor's loads
/// in flight; more would only add partial sums to add up.
pub const TARGET_WAVES: u32 = 1;

/// The route of a plain thin problem (batch of one, M or N at most [`THIN_SIDE`], the thin side
/// at least [`SPLIT_FROM`]) on `mc`: split-K with the 64x64 tile into the fewest splits of
/// `route::SPLIT_COUNTS` whose blocks reach [`TARGET_WAVES`] resident sets of the GPU, each
/// split at least `route::MIN_SPLIT_K` deep; the direct route when the tiles alone fill the GPU
/// or K is too short to split.
pub fn thin_route(op: &Gemm, mc: &Machine) -> Route {
    let thin = op.m.min(op.n);
    if op.batch != 1 || thin > THIN_SIDE || thin < SPLIT_FROM {
        return Route::DIRECT;
    }
    let (bm, bn) = tile_dims(THIN_TILE);
    let tiles = op.m.div_ceil(bm) * op.n.div_ceil(bn);
    let target = (mc.sms * mc.per_sm[THIN_TILE] * TARGET_WAVES) as usize;
    if tiles >= target {
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
    fn thin_deep_problems_split_until_the_gpu_is_full() {
        // 8192 x 32 x 8192: 128 tiles, 528 resident blocks wanted: 6 splits (768 blocks).
        assert_eq!(splits(8192, 32, 8192), Some(6));
        assert_eq!(splits(8192, 24, 8192), Some(6));
        assert_eq!(splits(32, 8192, 8192), Some(6));
        // 8192 x 48: the same tiles; 16384 x 64 x 4096: 256 tiles, 3 splits.
        assert_eq!(splits(8192, 48, 8192), Some(6));
        assert_eq!(splits(16384, 64, 4096), Some(3));
        // K too short for more: 2 splits of 256 at K = 512, none at K = 511.
        assert_eq!(splits(4096, 32, 512), Some(2));
        assert_eq!(splits(4096, 32, 511), None);
    }

    #[test]
    fn other_problems_go_direct() {
        // Tiles enough: 65536 x 32 has 1024 tiles.
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
