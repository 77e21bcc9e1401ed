//! The route model's picks and parsing (CPU only).
use super::*;
use crate::matmul::balance::balanced_plan;
use gpu_kernels::matmul::stream_k::{Schedule, plan_balanced};

const ALIGNED: Aligned = Aligned { a: true, b: true };

fn route(m: usize, n: usize, k: usize, ops: (Op, Op), batch: usize, al: Aligned) -> Route {
    let op = Gemm::new(m, n, k).ops(ops.0, ops.1).batch(batch);
    choose_route(&op, al, &H200)
}

#[test]
fn large_well_shaped_problems_go_direct() {
    for (m, n, k) in [(4096, 4096, 4096), (8192, 8192, 8192), (2048, 2048, 2048)] {
        assert_eq!(route(m, n, k, (Op::N, Op::N), 1, ALIGNED), Route::DIRECT);
    }
    // Small problems: a pre-pass or a sum costs more than it saves.
    for n in [64, 128, 256] {
        for ops in [
            (Op::N, Op::N),
            (Op::T, Op::N),
            (Op::N, Op::T),
            (Op::T, Op::T),
        ] {
            assert_eq!(
                route(n, n, n, ops, 1, ALIGNED),
                Route::DIRECT,
                "{n} {ops:?}"
            );
        }
    }
    assert_eq!(
        route(64, 64, 64, (Op::N, Op::N), 4096, ALIGNED),
        Route::DIRECT
    );
}

#[test]
fn deep_k_splits_and_fills_the_gpu() {
    for (mn, k) in [
        (128, 16384),
        (256, 16384),
        (512, 16384),
        (512, 8192),
        (384, 12000),
    ] {
        let r = route(mn, mn, k, (Op::N, Op::N), 1, ALIGNED);
        let s = r.split.unwrap_or_else(|| panic!("{mn}²x{k}: {r:?}"));
        let c = variant([Op::N, Op::N], s.tile, true);
        let blocks = c.tiles(mn as u32, mn as u32) * s.splits;
        assert!(blocks >= 66, "{mn}²x{k}: {r:?} makes {blocks} blocks");
        let least = if s.fused() { MIN_FUSED_K } else { MIN_SPLIT_K };
        assert!(k / s.splits as usize >= least);
    }
}

#[test]
fn large_transposes_are_copied_to_the_tuned_layout() {
    // B transposed where it is stored transposed; A is read where it is by the tuned T,N body
    // (`single_t`).
    for ops in [(Op::N, Op::T), (Op::T, Op::T)] {
        let r = route(4096, 4096, 4096, ops, 1, ALIGNED);
        assert_eq!((r.a, r.b), (Prep::Keep, Prep::Transpose), "{ops:?}: {r:?}");
        assert_eq!(r.split, None);
    }
    assert_eq!(
        route(4096, 4096, 4096, (Op::T, Op::N), 1, ALIGNED),
        Route::DIRECT
    );
    // The estimate of a route never beats the same route without its useless pre-pass.
    let op = Gemm::new(3000, 3000, 3000);
    let direct = route_time(&op, ALIGNED, &Route::DIRECT, &H200);
    let copied = Route {
        b: Prep::Repitch,
        ..Route::DIRECT
    };
    assert!(route_time(&op, ALIGNED, &copied, &H200) > direct);
}

/// The picks against what the H200 measured (call1/route_timings.txt: every candidate
/// timed): where a route beat the direct one by more than the margin, the model leaves the
/// direct route; where the direct one was best or within a few percent, it stays.
#[test]
fn picks_follow_the_h200_measurements() {
    use Op::{N, T};
    let keep = Prep::Keep;
    let unaligned = Aligned { a: false, b: false };
    // Measured best well ahead of the direct route: not direct.
    // (The variants' direct route, which these were measured against; since session 10 the
    // direct route of 4096³ T,N / T,T and 1000x777x1025 T,T is the tuned body, `single_t`, and
    // of 1000x777x1025 T,N, against A transposed first 83.1 % to the variant's 57.2 %, the
    // tuned body with 4-byte copies, `single_t::unaligned`.)
    for (m, n, k, ops, al) in [
        (4096, 4096, 4096, (N, T), ALIGNED), // Transpose B: 100.4 against 74.4
        (128, 128, 16384, (N, N), ALIGNED),
        (768, 640, 8192, (N, N), ALIGNED),
        // B re-pitched: 3 % ahead in three runs (sessions 5 and 9), inside `SINGLE_MARGIN`.
        (4097, 4095, 1023, (N, N), unaligned),
    ] {
        let r = route(m, n, k, ops, 1, al);
        assert_ne!(r, Route::DIRECT, "{m}x{n}x{k} {ops:?}");
    }
    // Direct best (1025x1023x1023 unaligned: 91.6% direct, every split 68% or less).
    for (m, n, k, al) in [
        (1025, 1023, 1023, unaligned),
        (1000, 1000, 1000, ALIGNED),
        (1024, 1024, 1024, ALIGNED),
        (3000, 3000, 3000, ALIGNED),
        (777, 1000, 129, Aligned { a: false, b: true }),
        // Thin: stream-K already balances them (100.5% of cuBLAS, docs/matmul.md).
        (12288, 128, 12288, ALIGNED),
        (128, 12288, 12288, ALIGNED),
    ] {
        assert_eq!(route(m, n, k, (N, N), 1, al), Route::DIRECT, "{m}x{n}x{k}");
    }
    // N,T with B transposed to N,N: the flagship.
    let r = route(2000, 3000, 1500, (N, T), 1, ALIGNED);
    assert_eq!((r.a, r.b, r.split), (keep, Prep::Transpose, None));
}

#[test]
fn stream_k_over_every_tile_below_two_waves_runs_one_block_per_sm() {
    // 333x555x777 on 64x64 (54 tiles of 49 slices): 165 balanced blocks become 132; on 64x128
    // (30 tiles), 91 become 132.
    assert_eq!(
        balanced_plan(Schedule::StreamK, 54, 49, 132, 5).sk_blocks,
        132
    );
    assert_eq!(
        balanced_plan(Schedule::StreamK, 30, 49, 132, 3).sk_blocks,
        132
    );
    // 300x600x700 on 64x64 (50 tiles of 44 slices): 137 become 132.
    assert_eq!(
        balanced_plan(Schedule::StreamK, 50, 44, 132, 5).sk_blocks,
        132
    );
    // 90 % of a wave or more (512³ on 64x64: 128 blocks), two waves or more, data-parallel
    // grids and the hybrid split are left as planned.
    assert_eq!(
        plan_balanced(Schedule::StreamK, 64, 32, 132, 5).sk_blocks,
        128
    );
    for (tiles, ktiles, per_sm) in [
        (64, 32, 5),
        (64, 512, 5),
        (128, 64, 3),
        (512, 512, 1),
        (16, 16, 5),
    ] {
        let want = plan_balanced(Schedule::StreamK, tiles, ktiles, 132, per_sm);
        assert_eq!(
            balanced_plan(Schedule::StreamK, tiles, ktiles, 132, per_sm),
            want
        );
    }
    // Never a block without a k-slice.
    let s = balanced_plan(Schedule::StreamK, 100, 2, 132, 5);
    assert!(s.sk_blocks <= s.total());
}

#[test]
fn short_k_never_splits_on_128_row_tiles() {
    use Op::{N, T};
    let unaligned = Aligned { a: false, b: false };
    // 999x1111x1023 T,N / T,T: split 3 ways on 128x256 before (67 / 73 % of cuBLAS, session 9).
    for ops in [(T, N), (T, T), (N, N), (N, T)] {
        for (m, n, k) in [(999, 1111, 1023), (1000, 777, 1025), (3000, 3000, 2047)] {
            let op = Gemm::new(m, n, k).ops(ops.0, ops.1);
            for r in candidates(&op, unaligned, &H200) {
                if let Some(s) = r.split {
                    assert!(!TILES[s.tile].starts_with("128x"), "{m}x{n}x{k}: {r:?}");
                }
            }
        }
    }
    // From SHORT_K on, as before (512²x16384 splits 16 ways on 128x256).
    let r = route(512, 512, 16384, (N, N), 1, ALIGNED);
    assert_eq!(r.split.map(|s| s.tile), Some(0));
}

#[test]
fn uneven_grids_of_one_to_two_blocks_per_sm_spread_over_every_slot() {
    // 1000x780x1025 on 64x64: 208 tiles of 65 slices, 79 % balanced data-parallel: stream-K
    // over every slot (660 blocks, as 900x800x1100's 195 tiles at 74 % already were).
    let s = balanced_plan(Schedule::StreamK, 208, 65, 132, 5);
    assert_eq!((s.sk_blocks, s.sk_tiles), (660, 208));
    assert_eq!(
        balanced_plan(Schedule::StreamK, 195, 69, 132, 5).sk_blocks,
        660
    );
    // Balanced within 85 %, a single wave, more tiles than slots, or data-parallel asked:
    // as planned.
    for (tiles, ktiles, per_sm) in [(240, 65, 5), (128, 64, 3), (112, 65, 3), (700, 65, 5)] {
        assert_eq!(
            balanced_plan(Schedule::StreamK, tiles, ktiles, 132, per_sm),
            plan_balanced(Schedule::StreamK, tiles, ktiles, 132, per_sm),
            "{tiles} tiles"
        );
    }
    assert_eq!(
        balanced_plan(Schedule::DataParallel, 208, 65, 132, 5).sk_blocks,
        0
    );
    // Too few slices for one block per slot: fewer blocks, each at least 16 slices.
    let s = balanced_plan(Schedule::StreamK, 208, 20, 132, 5);
    assert_eq!(s.sk_blocks, 208 * 20 / 16);
    // The tuned body with a transposed operand counts 3 slots (session 11): 1000x777x1025 T,N
    // on 64x64 spreads over 396 blocks, each about 34 slices, not 660 of about 20.
    let s = balanced_plan(
        Schedule::StreamK,
        208,
        65,
        132,
        5.min(crate::matmul::balance::TUNED_OPS_SK_SLOTS),
    );
    assert_eq!((s.sk_blocks, s.sk_tiles), (396, 208));
}

#[test]
fn every_candidate_is_a_valid_route() {
    let op = Gemm::new(100, 200, 4096);
    let all = candidates(&op, Aligned { a: false, b: false }, &H200);
    assert!(all.contains(&Route::DIRECT));
    for r in &all {
        if let Some(s) = r.split {
            let least = if s.fused() { MIN_FUSED_K } else { MIN_SPLIT_K };
            assert!(s.splits >= 2 && 4096 / s.splits as usize >= least);
            assert!(s.tile < TILES.len());
        }
    }
    // A batch is never split (its problems fill the GPU together).
    let b = Gemm::new(100, 200, 4096).batch(3);
    assert!(
        candidates(&b, ALIGNED, &H200)
            .iter()
            .all(|r| r.split.is_none())
    );
}

#[test]
fn the_default_tile_follows_choose_ops_kernel() {
    use super::super::select_ops::choose_ops_kernel;
    for (m, n, k, batch) in [
        (4096, 4096, 4096, 1),
        (1024, 1024, 1024, 1),
        (1, 1, 1, 1),
        (256, 256, 4096, 64),
        (64, 64, 64, 4096),
        (256, 256, 256, 512),
        (1000, 777, 1025, 1),
    ] {
        let op = Gemm::new(m, n, k).ops(Op::T, Op::N).batch(batch);
        let want = choose_ops_kernel(&op, true, &H200);
        let got = variant([Op::T, Op::N], default_ops_tile(m, n, k, batch, 132), true);
        assert_eq!((got.bm, got.bn), (want.bm, want.bn), "{m}x{n}x{k} x{batch}");
    }
}

#[test]
fn routes_parse_from_their_names() {
    assert_eq!(parse_route("direct"), Some(Route::DIRECT));
    assert_eq!(
        parse_route("a=T,b=R,tile=2,splits=8"),
        Some(Route {
            a: Prep::Transpose,
            b: Prep::Repitch,
            split: Some(SplitK {
                tile: 2,
                splits: 8,
                sum: SplitSum::Launch
            })
        })
    );
    assert_eq!(
        parse_route("tile=3,fused=6"),
        Some(Route {
            split: Some(SplitK {
                tile: 3,
                splits: 6,
                sum: SplitSum::InVariant
            }),
            ..Route::DIRECT
        })
    );
    assert_eq!(
        parse_route("flagship=4,tile=0").and_then(|r| r.split),
        Some(SplitK {
            tile: 0,
            splits: 4,
            sum: SplitSum::InFlagship
        })
    );
    for bad in [
        "",
        "a=X",
        "tile=2",
        "splits=1,tile=0",
        "tile=9,splits=2",
        "tile=0,fused=1",
        "tile=0,splits=2,fused=2",
        "c=K",
    ] {
        assert_eq!(parse_route(bad), None, "{bad}");
    }
}

/// The in-kernel split where the H200 measured it best (session 6,
/// data/session6-2026-11-24/shapes/call1/route_timings.txt), and not where it lost.
#[test]
fn in_kernel_splits_where_the_h200_measured_them_best() {
    use Op::{N, T};
    let fused = |m, n, k, ops, al| route(m, n, k, ops, 1, al).split.is_some_and(|s| s.fused());
    let unaligned_b = Aligned { a: true, b: false };
    // 0.7253 ms against the split-K launch's 0.7877; 0.2193 against 0.2412; 0.4048 against
    // 0.4202. (1000x777x1025 T,N, 0.0715 against 0.0760 with 208 tiles of 64x64, is left
    // out: grids over half the GPU were not measured enough.)
    for (m, n, k, ops, al) in [
        (1024, 1024, 16384, (N, N), ALIGNED),
        (768, 640, 8192, (N, N), ALIGNED),
        (2048, 512, 8192, (N, N), ALIGNED),
    ] {
        assert!(fused(m, n, k, ops, al), "{m}x{n}x{k} {ops:?}");
    }
    // Lost: T,T (0.0914 against 0.0757), a grid that fills the GPU (4097x4095x1023), and
    // 384x384x12000 on the flagship's fix-up.
    for (m, n, k, ops, al) in [
        (1000, 777, 1025, (T, T), unaligned_b),
        (4097, 4095, 1023, (N, N), Aligned { a: false, b: false }),
        (384, 384, 12000, (N, N), ALIGNED),
    ] {
        assert!(!fused(m, n, k, ops, al), "{m}x{n}x{k} {ops:?}");
    }
    // Every in-kernel candidate respects its limits.
    let op = Gemm::new(700, 700, 2000);
    for r in candidates(&op, ALIGNED, &H200) {
        if let Some(s) = r.split.filter(|s| s.fused()) {
            let most = match s.sum {
                SplitSum::InFlagship => MAX_FUSED_FLAGSHIP,
                _ => MAX_FUSED_VARIANT,
            };
            assert!(
                s.splits <= most && 2000 / s.splits as usize >= MIN_FUSED_K,
                "{r:?}"
            );
        }
    }
}

#[test]
fn aligned_t_n_runs_the_tuned_body_where_a_transpose_would_pay_the_same_stream_k() {
    // Session 11 (call 9): the tuned T,N body direct beat A's transpose then the N,N flagship
    // by 10–19 % at these; the split routes keep their problems (900x800x1100).
    for (m, n, k) in [(1000, 780, 1025), (1200, 700, 900), (1500, 1000, 800)] {
        assert_eq!(
            route(m, n, k, (Op::T, Op::N), 1, ALIGNED),
            Route::DIRECT,
            "{m}x{n}x{k}"
        );
    }
    assert!(
        route(900, 800, 1100, (Op::T, Op::N), 1, ALIGNED)
            .split
            .is_some()
    );
    // N,N problems and the other pairs' pre-pass routes are priced as before.
    let nn = Gemm::new(1000, 780, 1025);
    assert_eq!(
        route_time(&nn, ALIGNED, &Route::DIRECT, &H200),
        direct_flagship_time(&nn, true, &H200)
    );
}

/// Session 12: the tuned T,N body's tile and launched grid (`tuned_grid`). H200, session 11
/// (docs/data/session11-2026-11-24/lead/call9/t.txt, three interleaved processes, ms): where
/// the kernels by name beat the pick, the pick follows; where the pick won, it stays.
#[test]
fn aligned_t_n_follows_the_tuned_body_by_name() {
    use super::super::select_ops::choose_ops_kernel;
    let tn = |m, n, k| Gemm::new(m, n, k).ops(Op::T, Op::N);
    let kernel = |m, n, k| choose_ops_kernel(&tn(m, n, k), true, &H200).name;
    let t64 = "sgemm_tn_64x64x16_s4_8x4_fl";
    // 1100x900x1000: split in three (0.0795 / 0.0804 / 0.0785; also sessions 10 and 11's calls
    // 2, 3 and 5) against the 64x64 body 0.0728 / 0.0745 / 0.0712: direct on 64x64.
    // 1500x1000x800: direct on 64x128 (0.0778 / 0.0788 / 0.0796 by name; the pick in call 10
    // 0.0804–0.0852) against 64x64 0.0690 / 0.0686 / 0.0692: on 64x64.
    for (m, n, k) in [(1100, 900, 1000), (1500, 1000, 800)] {
        assert_eq!(route(m, n, k, (Op::T, Op::N), 1, ALIGNED), Route::DIRECT);
        assert_eq!(kernel(m, n, k), t64, "{m}x{n}x{k}");
    }
    // Already on 64x64 direct (1000x780x1025, 1200x700x900: the pick was the body by name).
    for (m, n, k) in [(1000, 780, 1025), (1200, 700, 900)] {
        assert_eq!(route(m, n, k, (Op::T, Op::N), 1, ALIGNED), Route::DIRECT);
        assert_eq!(kernel(m, n, k), t64, "{m}x{n}x{k}");
    }
    // The split routes that beat both kernels by name keep their problems: 900x800x1100 in two
    // on 64x64 (0.0584 / 0.0585 / 0.0570 against 0.0623 / 0.0623 / 0.0604), 768x1280x1536 in
    // two on 64x128 (0.0846 / 0.0834 / 0.0839 against 0.0863 / 0.0869 / 0.0850); 1024³, in two
    // on 64x128, within the processes' spread of the 64x64 body (0.0639 / 0.0628 / 0.0619
    // against 0.0624 / 0.0624 / 0.0598), as it was.
    for (m, n, k, tile) in [
        (900, 800, 1100, 3),
        (768, 1280, 1536, 2),
        (1024, 1024, 1024, 2),
    ] {
        let r = route(m, n, k, (Op::T, Op::N), 1, ALIGNED);
        assert_eq!(
            r.split.map(|s| (s.tile, s.splits)),
            Some((tile, 2)),
            "{m}x{n}x{k}"
        );
    }
}
