//! The occupancy calculator against the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor,
//! for every kernel. Without a GPU it prints "SKIPPED …" and passes.
use host::{gpu::gpu_for_test, kernels::occupancy_rows};

#[test]
fn calculator_matches_driver_for_every_kernel() {
    let Some(gpu) = gpu_for_test("calculator_matches_driver_for_every_kernel") else {
        return;
    };
    let rows = occupancy_rows(&gpu).unwrap();
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(
            r.blocks_per_sm, r.driver_blocks_per_sm,
            "{}: calculator {} vs driver {}",
            r.kernel, r.blocks_per_sm, r.driver_blocks_per_sm
        );
    }
}
