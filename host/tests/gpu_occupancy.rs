//! The occupancy calculator against the driver's cuOccupancyMaxActiveBlocksPerMultiprocessor,
//! for every kernel. Without a GPU it prints "SKIPPED …" and passes.
use gpu_kernels::apsp::Phase3Layout;
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

#[test]
fn apsp_kernels_as_loaded_respect_the_register_cap() {
    let Some(gpu) = gpu_for_test("apsp_kernels_as_loaded_respect_the_register_cap") else {
        return;
    };
    for cfg in gpu_kernels::apsp::FW_CONFIGS {
        let tiled = matches!(cfg.phase3_layout, Phase3Layout::Tile { .. });
        for (name, threads, tile_update) in [
            (cfg.phase1, cfg.threads * cfg.threads, false),
            (cfg.phase2, cfg.phase2_threads().pow(2), tiled),
            (cfg.phase3, cfg.phase3_block_threads(), tiled),
        ] {
            let f = gpu.function(name).unwrap();
            let regs = f
                .get_attribute(cust::function::FunctionAttribute::NumRegisters)
                .unwrap() as u32;
            if let Some(cap) = gpu_kernels::registry::max_registers(name) {
                assert!(regs <= cap, "{name}: {regs} registers, cap {cap}");
            } else if tile_update {
                // The uncapped register-tiled update (B = 64): registers must not be what
                // limits it below the 6 blocks per SM that its shared memory allows.
                assert!(regs * threads * 6 <= 65536, "{name}: {regs} registers");
            } else {
                // Uncapped phase 1: a block must still fit (and two per SM).
                assert!(regs * threads * 2 <= 65536, "{name}: {regs} registers");
            }
        }
    }
}
