//! The N,N flagship's grid estimate (`select::choose_kernel`'s tile, or any tile of
//! [`TILES`]): data-parallel, the hybrid, or stream-K over every tile with its fix-up. The
//! direct N,N route, the pre-pass routes that end on the flagship and the tuned body with a
//! transposed operand (`single_t`, `tuned_grid`) are priced with it. Moved out of `route.rs`
//! (session 12) when it took a tile.
use gpu_kernels::matmul::{Op, stream_k::Schedule};

use super::{LAUNCH, Machine, TILES, grid_time, kernel_efficiency, variant};
use crate::matmul::{
    balance::balanced_plan,
    problem::{Gemm, MAX_DIM},
    select::choose_kernel,
};

/// Bytes per second one block reads back partial sums at in the stream-K fix-up (H200: the
/// direct route's deep-K times, 256²x16384 with 8 segments of 64x64 per tile).
pub(super) const FIXUP_BANDWIDTH: f64 = 20e9;

/// Time the N,N flagship's stream-K over every tile takes beyond the estimate of its
/// segments and fix-up: the counters' fences and the completing blocks' wait on the slowest
/// segment, as `tuned_grid::TUNED_SK_LATENCY` for the tuned body. H200, session 13
/// (docs/data/session13-2026-11-28/cands2, medians of three processes, against the estimate
/// without it): 448²x1500 0.0448 ms against 0.0272, 448²x2000 0.0507 against 0.0373,
/// 900x800x1100 0.0642 against 0.0565; 7.5 to 17.6 µs. Added with B aligned only: with B
/// unaligned the routes it would hand the problem to (B re-pitched, then split) are priced
/// further still below their times (333x555x777: 0.0366 ms against 0.0286 split three ways),
/// and the `_u` flagship stays the fastest route measured there (0.0312).
const FLAGSHIP_SK_LATENCY: f64 = 10e-6;

/// Estimated seconds of the N,N flagship on a plain problem: `select::choose_kernel`'s tile,
/// data-parallel or, where `stream_k::plan_balanced` spreads an uneven wave, stream-K with its
/// segments summed one after another by the block completing a tile.
pub(super) fn direct_flagship_time(op: &Gemm, vec_b: bool, mc: &Machine) -> f64 {
    let tile = flagship_tile(op, vec_b, mc.sms);
    let eff = kernel_efficiency([Op::N, Op::N], true, vec_b);
    let t = flagship_grid_time_on(op, tile, eff, mc);
    if vec_b && streams_every_tile(op, tile, mc) {
        t + FLAGSHIP_SK_LATENCY
    } else {
        t
    }
}

/// Whether the N,N flagship on tile `TILES[tile]` runs stream-K over every tile of `op`: the
/// launch's plan, whichever grid `flagship_grid_time_on` prices lower. (Adding the latency
/// only where its stream-K estimate is the lower one, inside that function, prices the direct
/// route of 900x800x1100 N,N and N,T (and a pre-pass of 1001x779x1027 T,T) at the
/// data-parallel grid's time and moves them back to the routes measured slower in session 13,
/// `moved1`/`moved2`: the launch runs stream-K.)
fn streams_every_tile(op: &Gemm, tile: usize, mc: &Machine) -> bool {
    let cfg = variant([Op::N, Op::N], tile, true);
    let tiles = cfg.tiles(op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32);
    let split = balanced_plan(
        Schedule::StreamK,
        tiles,
        cfg.ktiles(op.k as u32),
        mc.sms,
        mc.per_sm[tile],
    );
    split.sk_blocks > 0 && split.sk_tiles == tiles
}

/// The index into [`TILES`] of `select::choose_kernel`'s tile for `op` (`vec_b`: B in 16-byte
/// pieces).
pub(super) fn flagship_tile(op: &Gemm, vec_b: bool, sms: u32) -> usize {
    let cfg = choose_kernel(op.m, op.n, op.k, vec_b, sms);
    TILES
        .iter()
        .position(|t| t.starts_with(&format!("{}x{}x", cfg.bm, cfg.bn)))
        .unwrap_or(TILES.len() - 1)
}

/// The N,N flagship on tile `TILES[tile]` at kernel efficiency `eff`: data-parallel or, where
/// `balance::balanced_plan` spreads an uneven wave over every resident slot, stream-K.
pub(super) fn flagship_grid_time_on(op: &Gemm, tile: usize, eff: f64, mc: &Machine) -> f64 {
    let cfg = variant([Op::N, Op::N], tile, true);
    let (m, n) = (op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32);
    let tiles = cfg.tiles(m, n);
    let per_sm = mc.per_sm[tile];
    let split = balanced_plan(
        Schedule::StreamK,
        tiles,
        cfg.ktiles(op.k as u32),
        mc.sms,
        per_sm,
    );
    let dims = (cfg.bm, cfg.bn, cfg.bk);
    let warps = cfg.threads() / 32;
    let data_parallel = grid_time((op.m, op.n, op.k), 1, 1, dims, warps, per_sm, mc.sms, eff);
    if split.sk_blocks == 0 {
        return data_parallel;
    }
    if split.sk_tiles < tiles {
        // The hybrid (`stream_k::plan`): the tail wave's tiles shared by every resident block,
        // so the work spreads evenly: the busiest multiprocessor's share is the average.
        let waves = grid_time((op.m, op.n, op.k), 1, 1, dims, warps, per_sm, mc.sms, eff) - LAUNCH;
        let busiest = tiles.div_ceil(mc.sms) as f64;
        let even = tiles as f64 / mc.sms as f64;
        return waves * even / busiest + LAUNCH;
    }
    let segments = (split.sk_blocks / tiles).max(1);
    let fixup = f64::from(segments) * 8.0 * f64::from(cfg.bm * cfg.bn) / FIXUP_BANDWIDTH;
    let sk = grid_time(
        (op.m, op.n, op.k),
        1,
        segments,
        dims,
        warps,
        per_sm,
        mc.sms,
        eff,
    );
    data_parallel.min(sk + fixup)
}
