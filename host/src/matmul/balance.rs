//! The flagship's stream-K grid, balanced to the GPU: [`balanced_plan`], used by the launcher
//! (`flagship::FlagshipLaunch`) and by the route's cost model (`route`) alike. A leaf of pure
//! arithmetic on `gpu_kernels::matmul::stream_k`'s plan, so that both import it from below.
use gpu_kernels::matmul::stream_k::{
    MAX_SEGMENTS, MIN_SLICES_PER_BLOCK, Schedule, Split, plan_balanced,
};

/// The flagship's launch plan (`flagship::FlagshipLaunch`) for `tiles` tiles of `ktiles`
/// slices on `sms` multiprocessors holding `per_sm` blocks each: `stream_k::plan_balanced`,
/// with a stream-K grid over every tile of fewer than 90 % or between one and two blocks per
/// multiprocessor set to one block per multiprocessor (each keeping at least one k-slice): the
/// balanced plan's block count follows its caps, not the GPU, and below two waves such a count
/// leaves a tenth of the multiprocessors idle or gives some twice the work of the rest (H200,
/// session 8: 333x555x777 on the 64x64 tile, 165 blocks 0.036 ms, 132 blocks 0.030; on 64x128,
/// 91 blocks 0.044, 132 0.036; 300x600x700, 137 blocks 0.033, 132 0.029). Counts of 90–100 %
/// of a wave stay: 512³'s 128 blocks, two per 64x64 tile, ran in 0.022 ms, made 132 (tiles then
/// split over three blocks) in 0.027. From two blocks per multiprocessor the difference is a
/// fraction of a block's work.
pub fn balanced_plan(schedule: Schedule, tiles: u32, ktiles: u32, sms: u32, per_sm: u32) -> Split {
    balanced_plan_per_sm(schedule, tiles, ktiles, sms, per_sm, 1)
}

/// [`balanced_plan`] with `wave` blocks per multiprocessor (at most `per_sm`) where it sets
/// one: for timing runs (`RGK_SGEMM_WAVE_BLOCKS`, `flagship::wave_blocks_override`).
pub fn balanced_plan_per_sm(
    schedule: Schedule,
    tiles: u32,
    ktiles: u32,
    sms: u32,
    per_sm: u32,
    wave: u32,
) -> Split {
    let split = plan_balanced(schedule, tiles, ktiles, sms, per_sm);
    let split = match schedule {
        Schedule::StreamK if split.sk_blocks == 0 => {
            uneven_second_round(tiles, ktiles, sms, per_sm).unwrap_or(split)
        }
        _ => split,
    };
    let near_a_wave = 10 * split.sk_blocks >= 9 * sms && split.sk_blocks <= sms;
    let few = split.sk_blocks > 0 && split.sk_blocks < 2 * sms && split.sk_tiles == tiles;
    let blocks = sms.saturating_mul(wave.clamp(1, per_sm.max(1)));
    if few && !near_a_wave && sms > tiles && blocks <= split.total() {
        Split {
            sk_blocks: blocks,
            ..split
        }
    } else {
        split
    }
}

/// The resident blocks per multiprocessor the balanced plan counts for the tuned body with a
/// transposed operand on one problem (`FlagshipOpsConfig::tuned`, `route::single_t`), where
/// the occupancy allows more. H200, session 11 (docs/data/session11-2026-11-24/lead/call4):
/// 1000x777x1025 T,N on `sgemm_tn_64x64x16_s4_8x4_ub_fl` (208 tiles, stream-K over every
/// tile), three processes each, 0.0698 / 0.0679 / 0.0699 ms with all 5 slots (660 blocks),
/// 0.0690 / 0.0688 / 0.0692 with 4, **0.0654 / 0.0642 / 0.0666 with 3** (396 blocks), 0.0665 /
/// 0.0659 / 0.0654 with 2; cuBLAS in the same processes 0.061–0.070. The other pairs, 3
/// against 5 slots through the library, three interleaved processes (call6, median ratio):
/// 1000x777x1025 T,T 0.956, N,T 1.020; 900x800x1100 N,T 0.936, T,T 1.000; 1200x700x900 T,N
/// 0.984, N,T 0.977; 1024³ T,T 0.987; 512³ N,T 1.017.
pub const TUNED_OPS_SK_SLOTS: u32 = 3;

/// Data-parallel balance (the average multiprocessor's tiles over the busiest one's, in percent)
/// below which a grid of more tiles than multiprocessors, all resident at once, is spread over
/// every slot by stream-K, as `stream_k::plan_balanced` spreads grids below its own 75 %. H200,
/// session 9 (docs/matmul.md): 1000x780x1025 on 64x64 (208 tiles, 79 % balanced: 76
/// multiprocessors run two blocks, 56 one) ran data-parallel in 0.073 ms, while 900x800x1100 on
/// the same tile (195 tiles, 74 %), which stream-K spreads over 660 blocks, ran in 0.066 ms for
/// as many FLOPs.
pub const UNEVEN_PERCENT: u32 = 85;

/// The stream-K split over every tile for a data-parallel `split` whose tiles outnumber the
/// `sms` multiprocessors, all resident at once (`per_sm` blocks each), balanced below
/// [`UNEVEN_PERCENT`]: blocks as `plan_balanced` counts them (one per slot, at most
/// `MAX_SEGMENTS` per tile, at least `MIN_SLICES_PER_BLOCK` slices each). `None` otherwise.
fn uneven_second_round(tiles: u32, ktiles: u32, sms: u32, per_sm: u32) -> Option<Split> {
    let resident = u64::from(sms) * u64::from(per_sm);
    let (t, sms64) = (u64::from(tiles), u64::from(sms));
    if sms == 0 || t <= sms64 || t > resident {
        return None;
    }
    let busiest = t.div_ceil(sms64);
    if 100 * t >= u64::from(UNEVEN_PERCENT) * busiest * sms64 {
        return None;
    }
    let blocks = resident
        .min(t * u64::from(MAX_SEGMENTS))
        .min(t * u64::from(ktiles) / u64::from(MIN_SLICES_PER_BLOCK));
    (blocks > t).then_some(Split {
        sk_blocks: blocks as u32,
        sk_tiles: tiles,
        ktiles,
    })
}
