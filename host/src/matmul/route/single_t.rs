//! One problem with a transposed operand on the tuned flagship body (session 10, helper
//! "tsingle", issue #20): the batched kernels of `flagship_t.rs` (`sgemm_{tn,nt,tt}_<tile>_fl`,
//! `FLAGSHIP_BATCHED`) read op(A) and op(B) where they are, so one problem runs them with no
//! pre-pass, on the N,N flagship's tile (`select::choose_kernel`'s rule) and its balanced
//! stream-K grid (`balance::balanced_plan`, `flagship_ops::FlagshipOpsLaunch`). Before, one such
//! problem ran the variants (`flagship_ops.rs`, an untuned main loop) or was transposed into the
//! N,N layout first: 5–6 µs of a 70-µs problem at 1000x777x1025 (docs/matmul.md, "Session 9").
//!
//! The cost model prices the direct route of such a problem as the N,N flagship's grid at the
//! pair's measured efficiency (`efficiency`, `time`); the pre-pass and split routes stay
//! candidates, so where a transpose costs less than the pair's slower copies (N,T; T,T on the
//! wider tiles) the model still transposes, and where split-K measured faster it still splits.
//! Split-K's batch of K-ranges with a transposed operand runs the same kernels
//! (`select_ops::batch_kernel`), priced as the variant it replaces, as for N,N.
use gpu_kernels::matmul::{FLAGSHIP_T_U, FlagshipOpsConfig, Op, stream_k::Schedule};

use super::{Machine, TILES, flagship_grid_time_on, kernel_efficiency, tuned_grid};
use crate::matmul::{
    balance::balanced_plan,
    problem::{Gemm, MAX_DIM},
    select::choose_kernel,
};

/// Whether one problem of operations `ops` runs the tuned body (and split-K's batch of its
/// K-ranges, `select_ops::batch_kernel`): a transposed operand, and the straight copies allowed
/// in 16-byte pieces (`vec`: A stored transposed and B stored as is; N,T copies nothing
/// straight), unless `RGK_SGEMM_TSINGLE=0` asks for the variants (timing runs against what ran
/// before).
pub fn takes(ops: [Op; 2], vec: bool) -> bool {
    ops != [Op::N, Op::N] && (vec || ops == [Op::N, Op::T]) && !switched_off()
}

/// The tuned T,N body with 4-byte straight copies (`FLAGSHIP_T_U`, session 10, helper
/// "tsingle2") for one T,N problem whose straight copies are not 16-byte aligned (`!vec`: B's
/// rows with ldb not a multiple of 4, as 1000x777x1025, or A's): the kernel of the tile the
/// N,N flagship's `_u` choice takes (`select::choose_kernel` with 4-byte B), where there is
/// one (64x128, 64x64), unless `RGK_SGEMM_TSINGLE=0`. Before, such a problem transposed A
/// first (5–6 µs of ~72) to run that N,N `_u` kernel, whose copy counts this one has.
pub fn unaligned(op: &Gemm, vec: bool, sms: u32) -> Option<&'static FlagshipOpsConfig> {
    if vec || op.batch != 1 || [op.op_a, op.op_b] != [Op::T, Op::N] || switched_off() {
        return None;
    }
    let name = match unaligned_tile(op, sms) {
        Some(tile) => format!("sgemm_tn_{}_u_fl", TILES[tile]),
        None => {
            let cfg = choose_kernel(op.m, op.n, op.k, false, sms);
            format!("sgemm_tn_{}_fl", cfg.name.strip_prefix("sgemm_")?)
        }
    };
    FLAGSHIP_T_U.iter().find(|c| c.name == name)
}

/// Where the [`unaligned`] body leaves the `_u` flagship's tile: 64x64 where that tile is
/// 64x128 and the aligned T,N body takes 64x64 (`tuned_grid::tile`: one wave of 64x128 spread
/// over every tuned slot, session 12), the same launch with 4-byte copies. H200, session 13
/// (docs/data/session13-2026-11-28, three processes each, kernels by name): 1000x1111x1023 T,N
/// on 64x64 0.0810 / 0.0802 / 0.0795 ms against 0.0864 / 0.0849 / 0.0836 on 64x128 (`cands1`);
/// 999x1111x1023 0.0838 / 0.0833 / 0.0868 against 0.0856 / 0.0852 / 0.0875
/// (`route-s12/neighbours.txt`). `None`: the `_u` flagship's own tile.
fn unaligned_tile(op: &Gemm, sms: u32) -> Option<usize> {
    let own = super::flagship_tile(op, false, sms);
    let small = tuned_grid::tile(op, [Op::T, Op::N], sms);
    (own == tuned_grid::WIDE && small == tuned_grid::SMALL).then_some(small)
}

/// The twin of an [`unaligned`] kernel that copies A in 16-byte pieces and B in 4-byte ones
/// (`_ub_fl`, `FlagshipOpsConfig::vec_a`, session 11), where A allows them (`a_vec`:
/// [`Gemm::a_straight_vector_ok`]); `cfg` itself otherwise. Applied at launch only: the route
/// model prices both as `time_unaligned`. Why: the 4-byte copies are what the `_u_fl` body
/// loses (H200, session 11: 1000x780x1025 T,N 0.0660 ms on the aligned kernel against 0.0716
/// on `_u_fl`), and at 1000x777x1025 only B's rows are unaligned.
pub fn a_aligned_twin(cfg: &'static FlagshipOpsConfig, a_vec: bool) -> &'static FlagshipOpsConfig {
    if !a_vec || cfg.vec || cfg.vec_a || !FLAGSHIP_T_U.contains(cfg) {
        return cfg;
    }
    let Some(stem) = cfg.name.strip_suffix("_u_fl") else {
        return cfg;
    };
    let name = format!("{stem}_ub_fl");
    FLAGSHIP_T_U.iter().find(|c| c.name == name).unwrap_or(cfg)
}

/// Whether `RGK_SGEMM_TSINGLE=0` keeps one transposed problem on the variants.
fn switched_off() -> bool {
    std::env::var("RGK_SGEMM_TSINGLE").is_ok_and(|v| v == "0")
}

/// The tuned body's efficiency on one problem (or split-K's batch of its K-ranges) of
/// operations `ops` on a `bm x bn` tile, relative to the N,N flagship (H200, session 10,
/// docs/data/session10-2026-11-24/tsingle/call1: each against the route that ran before, in the
/// same process, median of 20). T,N: as the N,N flagship (4096³ 2.726 / 2.729 ms against 2.731 /
/// 2.729 with A transposed; 1000x777x1025 after B's re-pitch 0.0744 / 0.0726 / 0.0740 against
/// 0.0738 / 0.0732 / 0.0730 with A transposed). T,T on 64x64 as its batches (1000x777x1025
/// 0.0695 / 0.0721 / 0.0691 ms against 0.0741 / 0.0782 / 0.0773 with both operands transposed,
/// 1200x700x900 0.0658 against 0.0729); on wider tiles its transposing copies of B, 4 to 8 per
/// thread per slice, cost more than B's transpose (4096³ on 128x256 2.832 / 2.842 ms against
/// 2.764 / 2.769; 999x1111x1023 on 64x128 after A's re-pitch 0.0964 / 0.0960 against 0.0932 /
/// 0.0955). N,T copies both operands transposing: below B's transpose at every size measured
/// (1000x777x1025 0.0744 / 0.0764 ms against 0.0732 / 0.0734, 999x1111x1023 0.0937 / 0.0906
/// against 0.0908 / 0.0886).
pub(super) fn efficiency(ops: [Op; 2], bm: u32, bn: u32) -> f64 {
    match ops {
        [Op::N, Op::T] => 0.85,
        [Op::T, Op::T] if bm * bn > 64 * 64 => 0.9,
        _ => kernel_efficiency(ops, true, true),
    }
}

/// Time the tuned body's stream-K over every tile (`balance::balanced_plan`'s uneven second
/// round) takes beyond the grid and fix-up estimate, as `fused::FUSED_LATENCY` does for the
/// in-kernel split: the counters' fences and the completing blocks' wait on the slowest
/// segment. H200, session 10 (call 1, `host matmul`): the tuned body ran 900x800x1100 T,N in
/// 0.0658 / 0.0671 ms and T,T in 0.0666 / 0.0685 / 0.0656 against estimates of 0.0565 and
/// 0.0575, while the split-K routes' estimates were 4–6 µs under their times (T,N split in two
/// on 64x64: 0.0631 / 0.0633 ms on the variant, 0.0588 on the tuned body; T,T with B transposed,
/// then split: 0.0620 on the tuned body). The N,N flagship's estimate has the same gap (its
/// pre-pass routes at 1000x777x1025 T,T and 1200x700x900 T,T: 9–14 µs), but its picks were
/// calibrated without it. 10 µs keeps the split where it measured faster (900x800x1100 T,N and
/// T,T) and the tuned body where it did (1000x777x1025 and 1200x700x900 T,T: the pre-pass
/// would need 12 µs).
const SK_LATENCY: f64 = 10e-6;

/// Estimated seconds of one T,N problem on the tuned body with 4-byte copies ([`unaligned`]):
/// the N,N `_u` flagship's tile and efficiency, which the route it replaces (A transposed
/// first) adds its pre-pass to. The kernel differs from that one only in copying A straight
/// instead of transposing, in as many 4-byte pieces. Its grid is the tuned body's
/// (`FlagshipOpsLaunch`, 3 slots per SM since session 11), so where that is one wave spread
/// over every slot it is priced as the aligned T,N body is (`tuned_grid::time`, session 12):
/// on the N,N estimate, B's re-pitch to the aligned body priced on its launched grid would have
/// moved 1000x1111x1023 T,N, which no run measured (and the launched-grid estimate is the
/// closer at 1000x777x1025: 0.0633 ms against 0.0639–0.0671 in session 11's call 5, the N,N
/// estimate 0.0568).
pub(super) fn time_unaligned(op: &Gemm, mc: &Machine) -> f64 {
    let eff = kernel_efficiency([Op::N, Op::N], true, false);
    let tile =
        unaligned_tile(op, mc.sms).unwrap_or_else(|| super::flagship_tile(op, false, mc.sms));
    tuned_grid::time(op, tile, eff, mc).unwrap_or_else(|| flagship_grid_time_on(op, tile, eff, mc))
}

/// Estimated seconds of one problem `op` with operations `ops` (after the pre-pass) on the
/// tuned body ([`takes`]), on its tile (`tuned_grid::tile`) at [`efficiency`]. A T,N problem
/// read where it is: its launched grid (`tuned_grid::time`, session 12, calibrated on such
/// problems). The other pairs, and a T,N body after a transpose: the N,N flagship's grid on
/// that tile over every slot, plus [`SK_LATENCY`] where the tuned body's plan is stream-K over
/// every tile, the estimate their picks were measured with (session 10); priced on the new
/// grid, the model moved N,T and T,T problems such as 999x1111x1023 and 1100x900x1000 to routes
/// not measured.
pub(super) fn time(op: &Gemm, ops: [Op; 2], mc: &Machine) -> f64 {
    let tile = tuned_grid::tile(op, ops, mc.sms);
    let c = super::variant([Op::N, Op::N], tile, true);
    let eff = efficiency(ops, c.bm, c.bn);
    if ops == [Op::T, Op::N]
        && [op.op_a, op.op_b] == ops
        && let Some(t) = tuned_grid::time(op, tile, eff, mc)
    {
        return t;
    }
    let latency = if tuned_grid::every_tile(op, tile, mc) {
        SK_LATENCY
    } else {
        0.0
    };
    flagship_grid_time_on(op, tile, eff, mc) + latency
}

/// [`SK_LATENCY`] where the N,N flagship's tile for `op` (`vec_b`: B in 16-byte pieces) runs
/// stream-K over every tile on at most `slots` blocks per SM, else 0.
fn every_tile_latency(op: &Gemm, vec_b: bool, slots: u32, mc: &Machine) -> f64 {
    let cfg = choose_kernel(op.m, op.n, op.k, vec_b, mc.sms);
    let tile = TILES
        .iter()
        .position(|t| t.starts_with(&format!("{}x{}x", cfg.bm, cfg.bn)))
        .unwrap_or(TILES.len() - 1);
    let (m, n) = (op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32);
    let tiles = cfg.tiles(m, n);
    let ktiles = cfg.ktiles(op.k as u32);
    let slots = mc.per_sm[tile].min(slots);
    let split = balanced_plan(Schedule::StreamK, tiles, ktiles, mc.sms, slots);
    if split.sk_blocks > 0 && split.sk_tiles == tiles {
        SK_LATENCY
    } else {
        0.0
    }
}

/// The same latency for a T,N problem's pre-pass route that ends on the N,N flagship
/// (`op` after the pre-pass, B in 16-byte pieces if `vec_b`): it runs the same kind of
/// stream-K grid, all its slots, and pays the same gap above its estimate (session 10: 9–14 µs
/// at 1000x777x1025 T,T and 1200x700x900 T,T). Without it the model set the transposes below
/// the tuned body they compete with. H200, session 11 (docs/data/session11-2026-11-24/lead/
/// call9, three interleaved processes, ms): 1000x780x1025 T,N A transposed first 0.0675 /
/// 0.0723 / 0.0676, the tuned body direct 0.0609 / 0.0625 / 0.0626; 1200x700x900 T,N 0.0721 /
/// 0.0646 / 0.0645 against 0.0570 / 0.0562 / 0.0576; 1500x1000x800 T,N 0.0849 / 0.0856 / 0.0849
/// against 0.0690 / 0.0686 / 0.0692. N,N problems keep the estimate their picks were
/// calibrated with, and so do the other pairs for now (with it, the model moved 900x800x1100
/// and 1100x900x1000 N,T and 999x1111x1023 and 1001x779x1027 T,T to routes not measured).
pub(super) fn prepass_latency(op: &Gemm, vec_b: bool, mc: &Machine) -> f64 {
    every_tile_latency(op, vec_b, u32::MAX, mc)
}

#[cfg(test)]
mod tests {
    use super::super::{Aligned, H200, Prep, Route, choose_route};
    use super::*;

    fn route(m: usize, n: usize, k: usize, ops: [Op; 2], al: Aligned) -> Route {
        choose_route(&Gemm::new(m, n, k).ops(ops[0], ops[1]), al, &H200)
    }

    #[test]
    fn mid_size_transposes_read_their_operands_where_they_are() {
        use Op::{N, T};
        let aligned = Aligned { a: true, b: true };
        let keep = |a, b| Route { a, b, split: None };
        // T,T on 64x64: the tuned body where the operands are (1000x777x1025 with B stored
        // 777 x 1025, 1200x700x900); with A unaligned (999x1111x1023, on 64x128) A re-pitched
        // and B transposed, to the tuned T,N body: since session 13 the N,N flagship that both
        // transposes led to pays its stream-K latency (0.0864 ms against 0.0940, moved2).
        let b_odd = Aligned { a: true, b: false };
        assert_eq!(route(1000, 777, 1025, [T, T], b_odd), Route::DIRECT);
        assert_eq!(route(1200, 700, 900, [T, T], aligned), Route::DIRECT);
        let odd = Aligned { a: false, b: false };
        assert_eq!(
            route(999, 1111, 1023, [T, T], odd),
            keep(Prep::Repitch, Prep::Transpose)
        );
        // T,N with B unaligned: the tuned body with 4-byte copies where A is (before: A
        // transposed, then the N,N `_u` flagship; the re-pitch of B before the tuned T,N body
        // measured the same as that).
        assert_eq!(route(1000, 777, 1025, [T, N], b_odd), Route::DIRECT);
        assert_eq!(route(999, 1111, 1023, [T, N], odd), Route::DIRECT);
        // Where split-K measured faster than the tuned body's stream-K, the split stays.
        for ops in [[T, N], [T, T]] {
            let r = route(900, 800, 1100, ops, aligned);
            assert_eq!(r.split.map(|s| (s.tile, s.splits)), Some((3, 2)), "{ops:?}");
        }
        // N,T: B transposed to the N,N flagship, as before.
        assert_eq!(
            route(1000, 777, 1025, [N, T], odd),
            keep(Prep::Keep, Prep::Transpose)
        );
        // Large: T,N reads A where it is; T,T transposes B only, to the tuned T,N body.
        assert_eq!(route(4096, 4096, 4096, [T, N], aligned), Route::DIRECT);
        assert_eq!(
            route(4096, 4096, 4096, [T, T], aligned),
            keep(Prep::Keep, Prep::Transpose)
        );
    }

    #[test]
    fn the_switch_and_the_copies_decide() {
        use Op::{N, T};
        assert!(!takes([N, N], true));
        assert!(takes([T, N], true) && !takes([T, N], false));
        assert!(takes([T, T], true) && !takes([T, T], false));
        assert!(takes([N, T], true) && takes([N, T], false));
    }

    #[test]
    fn unaligned_t_n_takes_the_4_byte_body_on_the_n_n_u_tile() {
        use Op::{N, T};
        let one = |m, n, k, ops: [Op; 2], vec| {
            unaligned(&Gemm::new(m, n, k).ops(ops[0], ops[1]), vec, 132).map(|c| c.name)
        };
        assert_eq!(
            one(1000, 777, 1025, [T, N], false),
            Some("sgemm_tn_64x64x16_s4_8x4_u_fl")
        );
        for c in FLAGSHIP_T_U {
            assert!(c.tuned && !c.vec && c.ops == [T, N], "{}", c.name);
        }
        // Aligned, another pair, a batch, or a tile without such a kernel: not this kernel.
        assert_eq!(one(1000, 777, 1025, [T, N], true), None);
        assert_eq!(one(1000, 777, 1025, [T, T], false), None);
        assert_eq!(one(4096, 4096, 4096, [T, N], false), None);
        let batch = Gemm::new(1000, 777, 1025).ops(T, N).batch(2);
        assert_eq!(unaligned(&batch, false, 132), None);
    }

    #[test]
    fn a_aligned_twin_copies_a_in_16_byte_pieces() {
        use Op::{N, T};
        let mut twins = 0;
        for c in FLAGSHIP_T_U.iter().filter(|c| !c.vec_a) {
            let t = a_aligned_twin(c, true);
            assert_eq!(t.name, c.name.replace("_u_fl", "_ub_fl"));
            assert!(t.vec_a && !t.vec && t.ops == [T, N]);
            assert_eq!(
                (t.bm, t.bn, t.bk, t.stages, t.warps, t.thread_tile),
                (c.bm, c.bn, c.bk, c.stages, c.warps, c.thread_tile)
            );
            // A not aligned: the kernel as chosen.
            assert_eq!(a_aligned_twin(c, false), c);
            twins += 1;
        }
        assert!(twins > 0);
        // Other kernels (aligned, a variant, a twin already) stay as they are.
        for c in FLAGSHIP_T_U.iter().filter(|c| c.vec_a) {
            assert_eq!(a_aligned_twin(c, true), c);
        }
        let aligned = super::super::variant([T, N], 3, true);
        assert_eq!(a_aligned_twin(aligned, true), aligned);
        // The library's pick for the suite's 1000x777x1025 T,N (B's rows unaligned).
        let pick = unaligned(&Gemm::new(1000, 777, 1025).ops(T, N), false, 132).unwrap();
        assert_eq!(
            a_aligned_twin(pick, true).name,
            "sgemm_tn_64x64x16_s4_8x4_ub_fl"
        );
    }
}
