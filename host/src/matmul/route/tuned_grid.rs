//! The tuned body's tile and grid for one problem with a transposed operand (`single_t`, issue
//! #20, session 12): what the launch runs (`select_ops::choose_ops_kernel`,
//! `flagship_ops::FlagshipOpsLaunch`) and what the route model prices.
//!
//! Why (H200, session 11, docs/data/session11-2026-11-24/lead/call9/t.txt: the library's pick
//! and both tuned T,N kernels by name, three interleaved processes, ms):
//!
//! - **The 64x64 tile beat 64x128 at every one of the eight aligned T,N problems, in every
//!   process**: 1100x900x1000 0.0728 / 0.0745 / 0.0712 against 0.0802 / 0.0795 / 0.0780,
//!   1500x1000x800 0.0690 / 0.0686 / 0.0692 against 0.0778 / 0.0788 / 0.0796, 900x800x1100,
//!   1000x780x1025, 1200x700x900, 1024³, 768x1280x1536, 512³ by 2 to 34 %. Where 64x128 is the
//!   N,N rule's tile and its grid is stream-K over every tile (1100x900x1000: 144 tiles, about
//!   one per multiprocessor, each cut in two or three segments whose 64x128 partial sums the
//!   fix-up reads back), the tuned T,N body now takes 64x64 ([`tile`]). Where the 64x128 grid
//!   is one data-parallel wave (1024³, 768x1280x1536) the split routes the model picks there
//!   measured as fast as the 64x64 body or faster (768x1280x1536: 0.0846 / 0.0834 / 0.0839
//!   against 0.0863 / 0.0869 / 0.0850), so the tile stays.
//! - **Its stream-K over every tile was priced on a grid it no longer runs.** Since session 11
//!   the tuned body plans stream-K on `balance::TUNED_OPS_SK_SLOTS` (3) slots per SM, not the
//!   kernel's occupancy (5 on 64x64), and stream-K shares the slices evenly over its blocks;
//!   the estimate still cut each tile into `sk_blocks / tiles` whole segments over 5 slots,
//!   which rounds the busiest SM up to 5 blocks where 3 run (1100x900x1000 on 64x64: 0.0839 ms
//!   estimated, 0.0712–0.0745 measured). `time` prices the launched grid: the busiest SM's
//!   blocks, each an even share of the slices, plus the fix-up and `TUNED_SK_LATENCY`.
use gpu_kernels::matmul::{
    Op,
    stream_k::{Schedule, Split},
};
use rgk_core::matmul::tune::SHORT_K;

use super::{
    FIXUP_BANDWIDTH, FULL_WARPS, LAUNCH, Machine, SM_FLOPS, default_ops_tile, tile_efficiency,
    variant,
};
use crate::matmul::{
    balance::{TUNED_OPS_SK_SLOTS, balanced_plan},
    problem::{Gemm, MAX_DIM},
};

/// The 64x128 and 64x64 tiles' indices in `TILES`.
pub(super) const WIDE: usize = 2;
pub(super) const SMALL: usize = 3;

/// Time the tuned body's stream-K over every tile takes beyond its even share of the slices,
/// its launch and its fix-up: the counters' fences and the completing blocks' wait on the
/// slowest segment. H200, session 11 (call9/t.txt, the kernel by name, medians of three
/// processes, against this estimate without it): on 64x64 900x800x1100 0.0623 ms against
/// 0.0494, 1100x900x1000 0.0728 against 0.0591, 1000x780x1025 0.0625 against 0.0490,
/// 1200x700x900 0.0570 against 0.0439; on 64x128 1500x1000x800 0.0788 against 0.0659: 13 to
/// 14 µs. (512³, 128 blocks on 132 SMs: 0.0228 against 0.0158, 7 µs; the estimate errs high
/// there, towards the split routes it competes with.) Session 10's `single_t::SK_LATENCY`
/// (10 µs) was the gap above the old estimate on 5 slots.
const TUNED_SK_LATENCY: f64 = 13e-6;

/// The tile (index into `TILES`) of the tuned body for one problem `op` of operations `ops`
/// on `sms` multiprocessors: the N,N rule's (`route::default_ops_tile`, as
/// `select::choose_kernel`), but 64x64 for one T,N problem below `SHORT_K` whose 64x128 grid on
/// the tuned slots would spread one wave over every slot (`one_wave_spread`) and whose 64x64
/// tiles fit in one wave of those slots (as at every problem measured; see the module's note).
pub fn tile(op: &Gemm, ops: [Op; 2], sms: u32) -> usize {
    let t = default_ops_tile(op.m, op.n, op.k, 1, sms);
    let one_wave = |tile| one_wave_spread(op, tile, sms, TUNED_OPS_SK_SLOTS);
    let fits = |tile| {
        let c = variant([Op::N, Op::N], tile, true);
        let tiles = c.tiles(op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32);
        u64::from(tiles) <= u64::from(sms) * u64::from(TUNED_OPS_SK_SLOTS)
    };
    if t == WIDE && ops == [Op::T, Op::N] && op.k < SHORT_K && one_wave(WIDE) && fits(SMALL) {
        SMALL
    } else {
        t
    }
}

/// The balanced plan of the tuned body on tile `TILES[tile]` for `op` on `sms`
/// multiprocessors of `slots` blocks each, as `flagship_ops::FlagshipOpsLaunch` plans it (on
/// the kernel's occupancy, at most `TUNED_OPS_SK_SLOTS`): its tiles, k-slices and split.
fn plan(op: &Gemm, tile: usize, sms: u32, slots: u32) -> (u32, u32, Split) {
    let cfg = variant([Op::N, Op::N], tile, true);
    let (m, n) = (op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32);
    let (tiles, ktiles) = (cfg.tiles(m, n), cfg.ktiles(op.k as u32));
    let split = balanced_plan(Schedule::StreamK, tiles, ktiles, sms, slots);
    (tiles, ktiles, split)
}

/// Whether that plan is stream-K over every tile.
fn every_tile_on(op: &Gemm, tile: usize, sms: u32, slots: u32) -> bool {
    let (tiles, _, split) = plan(op, tile, sms, slots);
    split.sk_blocks > 0 && split.sk_tiles == tiles
}

/// Whether that plan spreads one wave's tiles (at most one per slot: `balance::balanced_plan`'s
/// uneven rounds, `stream_k::plan_balanced`'s) over every slot, the grids the estimate of
/// `time` and the 64x64 rule of [`tile`] were measured on; several waves' tiles shared by
/// `stream_k::plan`'s blocks (1536³ on 64x64: 576 tiles, 396 blocks) were not.
fn one_wave_spread(op: &Gemm, tile: usize, sms: u32, slots: u32) -> bool {
    let (tiles, _, _) = plan(op, tile, sms, slots);
    every_tile_on(op, tile, sms, slots) && u64::from(tiles) <= u64::from(sms) * u64::from(slots)
}

/// Whether the tuned body's plan on tile `TILES[tile]` of `mc` is stream-K over every tile.
pub(super) fn every_tile(op: &Gemm, tile: usize, mc: &Machine) -> bool {
    every_tile_on(op, tile, mc.sms, slots(tile, mc))
}

/// The tuned body's slots per SM on tile `TILES[tile]` of `mc`.
fn slots(tile: usize, mc: &Machine) -> u32 {
    mc.per_sm[tile].min(TUNED_OPS_SK_SLOTS)
}

/// Estimated seconds of the tuned body on tile `TILES[tile]` for one problem `op` at kernel
/// efficiency `eff`, where its plan spreads one wave's tiles over every slot
/// (`one_wave_spread`): the busiest multiprocessor runs `ceil(sk_blocks / sms)` blocks
/// together, each an even share of every tile's slices, then the fix-up of `sk_blocks / tiles`
/// segments per tile and `TUNED_SK_LATENCY`. `None` for other grids (data-parallel, the
/// hybrid), which keep the N,N flagship's estimate on that tile.
pub(super) fn time(op: &Gemm, tile: usize, eff: f64, mc: &Machine) -> Option<f64> {
    if !one_wave_spread(op, tile, mc.sms, slots(tile, mc)) {
        return None;
    }
    let (tiles, ktiles, split) = plan(op, tile, mc.sms, slots(tile, mc));
    let cfg = variant([Op::N, Op::N], tile, true);
    let together = split.sk_blocks.div_ceil(mc.sms.max(1));
    let slices = (u64::from(tiles) * u64::from(ktiles)).div_ceil(u64::from(split.sk_blocks));
    let work = 2.0 * f64::from(cfg.bm * cfg.bn * cfg.bk) * slices as f64 * f64::from(together);
    let warps = f64::from(together * cfg.threads() / 32);
    let occupancy = (warps / FULL_WARPS).min(1.0).sqrt();
    let rate = SM_FLOPS * eff * occupancy * tile_efficiency(cfg.bm, cfg.bn);
    let segments = (split.sk_blocks / tiles).max(1);
    let fixup = f64::from(segments) * 8.0 * f64::from(cfg.bm * cfg.bn) / FIXUP_BANDWIDTH;
    Some(work / rate + LAUNCH + fixup + TUNED_SK_LATENCY)
}

#[cfg(test)]
mod tests {
    use super::super::H200;
    use super::*;

    #[test]
    fn t_n_takes_64x64_where_64x128_would_spread_over_every_tile() {
        use Op::{N, T};
        let pick = |m, n, k, ops: [Op; 2]| tile(&Gemm::new(m, n, k).ops(ops[0], ops[1]), ops, 132);
        // 144 and 192 tiles of 64x128 spread by stream-K (call 9: 64x64 8 and 13 % faster).
        assert_eq!(pick(1100, 900, 1000, [T, N]), SMALL);
        assert_eq!(pick(1500, 1000, 800, [T, N]), SMALL);
        // One data-parallel wave of 64x128 (1024³: 128 tiles; 768x1280x1536: 120): as before.
        assert_eq!(pick(1024, 1024, 1024, [T, N]), WIDE);
        assert_eq!(pick(768, 1280, 1536, [T, N]), WIDE);
        // Other pairs, deep K, and problems the N,N rule already puts on 64x64: unchanged.
        assert_eq!(pick(1100, 900, 1000, [T, T]), WIDE);
        assert_eq!(pick(1100, 900, 1000, [N, T]), WIDE);
        assert_eq!(pick(900, 800, 1100, [T, N]), SMALL);
        assert_eq!(pick(4096, 4096, 4096, [T, N]), 0);
    }

    #[test]
    fn the_estimate_follows_the_launched_grid() {
        use Op::{N, T};
        // Call 9's medians (ms) of the tuned T,N body, 64x64, and the estimate within 10 %.
        for (m, n, k, tile, ms) in [
            (900, 800, 1100, SMALL, 0.0623),
            (1100, 900, 1000, SMALL, 0.0728),
            (1000, 780, 1025, SMALL, 0.0625),
            (1200, 700, 900, SMALL, 0.0570),
            (1500, 1000, 800, WIDE, 0.0788),
        ] {
            let op = Gemm::new(m, n, k).ops(T, N);
            assert!(every_tile(&op, tile, &H200), "{m}x{n}x{k}");
            let t = time(&op, tile, 1.0, &H200).unwrap() * 1e3;
            assert!(
                (t / ms - 1.0).abs() < 0.1,
                "{m}x{n}x{k}: {t:.4} ms, measured {ms}"
            );
        }
    }
}
