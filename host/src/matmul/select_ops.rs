//! Which transposing or batched flagship variant (`FLAGSHIP_OPS`) a problem runs with, and its
//! launch settings. The variants have the tiles of the N,N default choice (`select::choose_kernel`)
//! and follow its rule, counting the tiles of the whole batch. Kept apart from `select` (the N,N
//! choice and the tuning cache) so the two evolve separately; the environment overrides are
//! `select`'s.
use gpu_kernels::matmul::{FlagshipOpsConfig, stream_k::Schedule};

use super::{
    problem::Gemm,
    route::{TILES, default_ops_tile, variant},
    select::{DEFAULT_GROUP, DEFAULT_SCHEDULE, group_override, schedule_override},
};

/// The default variant for `op` on a GPU with `sms` multiprocessors: the tile of
/// `route::default_ops_tile` (the N,N rule of `select::choose_kernel` over the whole batch;
/// a batch takes the large tiles where they pad little). `RGK_SGEMM_OPS_TILE` (an index into `route::TILES`) overrides the
/// tile, for timing runs. `vec`: the operands allow 16-byte copies
/// ([`Gemm::straight_vector_ok`]).
pub fn choose_ops_kernel(op: &Gemm, vec: bool, sms: u32) -> &'static FlagshipOpsConfig {
    let tile =
        ops_tile_override().unwrap_or_else(|| default_ops_tile(op.m, op.n, op.k, op.batch, sms));
    variant([op.op_a, op.op_b], tile, vec)
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
                    // A batch fills the GPU with its problems' tiles together, large tiles
                    // where they pad little.
                    assert!(pick(256, 256, 4096, 64).contains("128x256x8"));
                    assert!(pick(64, 64, 64, 4096).contains("64x64x16"));
                    assert!(pick(256, 256, 256, 512).contains("128x256x8"));
                    assert!(pick(384, 384, 384, 100).contains("128x128x8"));
                    assert!(pick(100, 100, 100, 100).contains("64x128x16"));
                }
            }
        }
    }
}
