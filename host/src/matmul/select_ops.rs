//! Which transposing or batched flagship variant (`FLAGSHIP_OPS`) a problem runs with, and its
//! launch settings. The variants have the tiles of the N,N default choice (`select::choose_kernel`)
//! and follow its rule, counting the tiles of the whole batch. Kept apart from `select` (the N,N
//! choice and the tuning cache) so the two evolve separately; the environment overrides are
//! `select`'s.
use gpu_kernels::matmul::{FLAGSHIP_OPS, FlagshipOpsConfig, stream_k::Schedule};
use rgk_core::matmul::tune::SHORT_K;

use super::{
    problem::{Gemm, MAX_DIM},
    select::{DEFAULT_GROUP, DEFAULT_SCHEDULE, group_override, schedule_override},
};

/// The tiles, largest first, as `bm x bn x bk` and the rest of the name after the operations.
const TILES: &[&str] = &[
    "128x256x8_s4_8x16",
    "128x128x8_s4_16x8",
    "64x128x16_s3_8x8",
    "64x64x16_s4_8x4",
];

/// The variant of `tile` for `op`'s operations; `vec` asks for 16-byte straight copies (ignored
/// for N,T, which has none).
fn variant(op: &Gemm, tile: &str, vec: bool) -> &'static FlagshipOpsConfig {
    FLAGSHIP_OPS
        .iter()
        .find(|c| {
            c.ops == [op.op_a, op.op_b]
                && c.name.contains(tile)
                && (c.vec == vec || !c.vec && c.ops[1].is_t() && !c.ops[0].is_t())
        })
        .expect("every tile has a variant of every operation pair (flagship_ops_config.rs)")
}

/// The default variant for `op` on a GPU with `sms` multiprocessors: the largest tile whose
/// grid, over the whole batch, has a block for at least 90% of them, and no 128-row tile when K
/// is below `SHORT_K` (the N,N rule, `select::choose_kernel`); nor a tile of which half or more
/// would be padding (a batch of 64x64 problems runs 64x64 tiles). `vec`: the operands allow
/// 16-byte copies ([`Gemm::straight_vector_ok`]).
pub fn choose_ops_kernel(op: &Gemm, vec: bool, sms: u32) -> &'static FlagshipOpsConfig {
    let (m, n) = (op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32);
    let enough = u64::from(sms.saturating_mul(9).div_ceil(10));
    let mut last = None;
    for tile in TILES {
        let cfg = variant(op, tile, vec);
        let padded = (m.next_multiple_of(cfg.bm) as u64) * (n.next_multiple_of(cfg.bn) as u64);
        if op.k < SHORT_K && cfg.bm >= 128 || 2 * u64::from(m) * u64::from(n) <= padded {
            last = Some(cfg);
            continue;
        }
        if u64::from(cfg.tiles(m, n)) * op.batch as u64 >= enough {
            return cfg;
        }
        last = Some(cfg);
    }
    last.expect("the tile list is not empty")
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
    use gpu_kernels::matmul::Op;

    #[test]
    fn every_operation_pair_gets_its_own_variant_by_the_n_n_rule() {
        for op_a in Op::ALL {
            for op_b in Op::ALL {
                for vec in [true, false] {
                    let pick = |m, n, k, batch| {
                        let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
                        let c = choose_ops_kernel(&op, vec, 132);
                        assert_eq!(c.ops, [op_a, op_b]);
                        assert!(!c.vec || vec, "{}", c.name);
                        c.name
                    };
                    assert!(pick(4096, 4096, 4096, 1).contains("128x256x8"));
                    assert!(pick(1024, 1024, 1024, 1).contains("64x128x16"));
                    assert!(pick(1, 1, 1, 1).contains("64x64x16"));
                    // A batch fills the GPU with its problems' tiles together.
                    assert!(pick(256, 256, 4096, 64).contains("128x256x8"));
                    assert!(pick(64, 64, 64, 4096).contains("64x64x16"));
                    assert!(pick(256, 256, 256, 512).contains("64x128x16"));
                }
            }
        }
    }
}
