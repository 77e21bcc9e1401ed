//! Which transposing or batched flagship variant (`FLAGSHIP_OPS`) a problem runs with, and its
//! launch settings. The variants have the tiles of the N,N default choice (`select::choose_kernel`)
//! and follow its rule, counting the tiles of the whole batch. Kept apart from `select` (the N,N
//! choice and the tuning cache) so the two evolve separately; the environment overrides are
//! `select`'s.
use gpu_kernels::matmul::{FLAGSHIP_BATCHED, FlagshipOpsConfig, Op, stream_k::Schedule};

use super::{
    problem::Gemm,
    route::{Machine, TILES, batch_tile, single_t, tuned_grid, variant},
    select::{DEFAULT_GROUP, DEFAULT_SCHEDULE, group_override, schedule_override},
};

/// The default variant for `op` on a GPU with `sms` multiprocessors: the tile of
/// `route::batch_tile` (`route::default_ops_tile`, the N,N rule of `select::choose_kernel` over
/// the whole batch: a batch takes the large tiles where they pad little; other tiles for a
/// batch with `op(B) = T`). `RGK_SGEMM_OPS_TILE` (an index into `route::TILES`) overrides the
/// tile, for timing runs. `vec`: the operands allow 16-byte copies
/// ([`Gemm::straight_vector_ok`]).
pub fn choose_ops_kernel(op: &Gemm, vec: bool, mc: &Machine) -> &'static FlagshipOpsConfig {
    let sms = mc.sms;
    let tile_override = ops_tile_override();
    // One T,N problem with unaligned straight copies: the tuned body with 4-byte copies on the
    // N,N `_u` flagship's tile (`route::single_t::unaligned`), unless a tile is forced.
    if tile_override.is_none()
        && let Some(c) = single_t::unaligned(op, vec, sms)
    {
        return c;
    }
    let ops = [op.op_a, op.op_b];
    let one_tuned = op.batch == 1 && single_t::takes(ops, vec);
    // One problem on the tuned body: its tile (`route::tuned_grid::tile`, the N,N rule's but
    // for T,N grids that 64x128 would spread over every tile), which the route model prices.
    let tile = tile_override.unwrap_or_else(|| {
        if one_tuned {
            tuned_grid::tile(op, ops, sms)
        } else {
            batch_tile(op, mc)
        }
    });
    // One problem with a transposed operand: the same kernels (`route::single_t`).
    if ops != [Op::N, Op::N]
        && (op.batch > 1 || one_tuned)
        && let Some(c) = batched_flagship(ops, tile, vec)
    {
        return c;
    }
    batch_kernel(ops, tile, vec)
}

/// The batched flagship (`FLAGSHIP_BATCHED`) of `ops` and tile `TILES[tile]`, where its
/// straight copies may go in 16-byte pieces (`vec`; N,T copies nothing straight, so any
/// operands) and `RGK_SGEMM_TUNED_BATCH=0` does not ask for the variants. A batch with a
/// transposed operand takes it (`choose_ops_kernel`; H200, session 9: docs/matmul.md "Session
/// 9: batched transposes"), and so does one such problem (session 10, `route::single_t`:
/// `RGK_SGEMM_TSINGLE=0` keeps the variants there).
pub fn batched_flagship(
    ops: [Op; 2],
    tile: usize,
    vec: bool,
) -> Option<&'static FlagshipOpsConfig> {
    let vec = vec || ops == [Op::N, Op::T];
    if !vec || tuned_batch_off() {
        return None;
    }
    let tile = format!("_{}_", TILES[tile]);
    FLAGSHIP_BATCHED
        .iter()
        .find(|c| c.ops == ops && c.name.contains(&tile))
}

/// The kernel of tile `TILES[tile]` for a batch of `ops` problems (and for split-K's batch of
/// K-ranges): the tuned N,N flagship with a batch index (`FLAGSHIP_BATCHED`) where the problem
/// is N,N with B allowing 16-byte copies (`vec`), the tuned body of a transposed pair where one
/// such problem takes it (`route::single_t`; H200, session 10: 900x800x1100 T,N split in two
/// on 64x64 0.0588 ms, on the variant 0.0631 / 0.0633), else the variant (`route::variant`). The
/// tuned main loop is what the variants lack (docs/matmul.md, session 8); the route model
/// still prices the variants' (its picks are the ones it was calibrated with, now run on the
/// faster loop). `RGK_SGEMM_TUNED_BATCH=0` keeps the variants, for timing runs.
pub fn batch_kernel(ops: [Op; 2], tile: usize, vec: bool) -> &'static FlagshipOpsConfig {
    match batched_flagship(ops, tile, vec) {
        Some(c) if ops == [Op::N, Op::N] || single_t::takes(ops, vec) => c,
        _ => variant(ops, tile, vec),
    }
}

/// Whether `RGK_SGEMM_TUNED_BATCH=0` asks for the variants instead of the batched flagship.
fn tuned_batch_off() -> bool {
    std::env::var("RGK_SGEMM_TUNED_BATCH").is_ok_and(|v| v == "0")
}

/// The tile `RGK_SGEMM_OPS_TILE` asks for (an index into `route::TILES`), if any.
fn ops_tile_override() -> Option<usize> {
    std::env::var("RGK_SGEMM_OPS_TILE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&t| t < TILES.len())
}

/// The rasterization group and schedule for a variant: `RGK_SGEMM_GROUP` /
/// `RGK_SGEMM_SCHEDULE` if set, else the N,N defaults; data-parallel on a stream other than the
/// GPU's (`own_stream` false), where stream-K's workspace may not go.
pub fn ops_launch_settings(own_stream: bool) -> (u32, Schedule) {
    let group = group_override().unwrap_or(DEFAULT_GROUP);
    let schedule = if own_stream {
        schedule_override().unwrap_or(DEFAULT_SCHEDULE)
    } else {
        Schedule::DataParallel
    };
    (group, schedule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matmul::route::H200;

    #[test]
    fn n_n_batches_with_b_aligned_run_the_tuned_flagship() {
        for (tile, name) in TILES.iter().enumerate() {
            let c = batch_kernel([Op::N, Op::N], tile, true);
            assert!(c.tuned && c.name.contains(name), "{}", c.name);
            assert!(!batch_kernel([Op::N, Op::N], tile, false).tuned);
            // Split-K's batch with a transposed operand: the tuned body where one problem takes
            // it (`route::single_t`).
            assert!(batch_kernel([Op::T, Op::N], tile, true).tuned);
            assert!(!batch_kernel([Op::T, Op::N], tile, false).tuned);
            // Batches with a transposed operand take the batched flagship of their pair (N,T
            // whatever the alignment); one such problem keeps the variant.
            for ops in [[Op::T, Op::N], [Op::N, Op::T], [Op::T, Op::T]] {
                let c = batched_flagship(ops, tile, true).unwrap();
                assert!(
                    c.tuned && c.ops == ops && c.name.contains(name),
                    "{}",
                    c.name
                );
                assert_eq!(
                    batched_flagship(ops, tile, false).is_some(),
                    ops == [Op::N, Op::T]
                );
            }
        }
        for (ops, name) in [
            ([Op::T, Op::N], "sgemm_tn_128x256x8_s4_8x16_fl"),
            ([Op::N, Op::T], "sgemm_nt_128x128x8_s4_16x8_fl"),
            ([Op::T, Op::T], "sgemm_tt_128x128x8_s4_16x8_fl"),
        ] {
            let op = Gemm::new(256, 256, 256).ops(ops[0], ops[1]);
            assert_eq!(choose_ops_kernel(&op.batch(512), true, &H200).name, name);
            // One problem: the same kernels on the N,N rule's tile (session 10).
            let one = choose_ops_kernel(&op, true, &H200);
            assert!(one.tuned && one.name.contains("64x64x16"), "{}", one.name);
            // Unaligned: N,T needs nothing, T,N takes its body with 4-byte copies
            // (`route::single_t::unaligned`), T,T the variant.
            let odd = choose_ops_kernel(&op, false, &H200);
            assert_eq!(odd.tuned, ops != [Op::T, Op::T], "{}", odd.name);
            assert_eq!(odd.vec, ops == [Op::N, Op::T], "{}", odd.name);
        }
        let op = Gemm::new(256, 256, 256).batch(512);
        assert_eq!(
            choose_ops_kernel(&op, true, &H200).name,
            "sgemm_nn_128x256x8_s4_8x16_fl"
        );
    }

    #[test]
    fn every_operation_pair_gets_its_own_variant_by_the_n_n_rule() {
        for op_a in Op::ALL {
            for op_b in Op::ALL {
                for vec in [true, false] {
                    let pick = |m, n, k, batch| {
                        let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
                        let c = choose_ops_kernel(&op, vec, &H200);
                        assert_eq!(c.ops, [op_a, op_b]);
                        // N,T copies nothing straight: its batched flagship needs nothing.
                        assert!(!c.vec || vec || c.ops == [Op::N, Op::T], "{}", c.name);
                        c.name
                    };
                    assert!(pick(4096, 4096, 4096, 1).contains("128x256x8"));
                    assert!(pick(1024, 1024, 1024, 1).contains("64x128x16"));
                    assert!(pick(1, 1, 1, 1).contains("64x64x16"));
                    // A batch fills the GPU with its problems' tiles together, large tiles
                    // where they pad little; with op(B) = T, 128x128 for 128x256
                    // (`route::batch_tile`).
                    let large = if op_b == Op::T {
                        "128x128x8"
                    } else {
                        "128x256x8"
                    };
                    let mid = "64x128x16";
                    assert!(pick(256, 256, 4096, 64).contains(large));
                    assert!(pick(64, 64, 64, 4096).contains("64x64x16"));
                    assert!(pick(256, 256, 256, 512).contains(large));
                    // 384³ x 100: 128x128, or with op(B) = T 64x128, whose last wave the
                    // estimate prices as fuller (`route::batch_tile`, session 13).
                    let at_384 = if op_b == Op::T { mid } else { "128x128x8" };
                    assert!(pick(384, 384, 384, 100).contains(at_384));
                    // 64x128 and 64x64 pad 100 alike: the larger; a third less on 64x64 at 192.
                    assert!(pick(100, 100, 100, 100).contains(mid));
                    assert!(pick(200, 200, 200, 600).contains(mid));
                    assert!(pick(192, 192, 192, 384).contains("64x64x16"));
                    assert!(pick(320, 320, 320, 256).contains("64x64x16"));
                }
            }
        }
    }
}
