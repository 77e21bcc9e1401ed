//! The calculator on worked examples (the lab's, Hopper's limits, the rules of
//! `cuda_occupancy.h`), its errors, and every compute capability's table.

use super::*;

fn cc(major: u32, minor: u32) -> SmLimits {
    SmLimits::for_compute_capability(major, minor).unwrap()
}

fn kernel(threads: u32, regs: u32, static_smem: u32, dynamic_smem: u32) -> KernelResources {
    KernelResources {
        threads_per_block: threads,
        registers_per_thread: regs,
        static_shared_bytes: static_smem,
        dynamic_shared_bytes: dynamic_smem,
    }
}

fn run(limits: &SmLimits, k: KernelResources) -> Occupancy {
    occupancy(limits, &k).unwrap_or_else(|e| panic!("{k:?}: {e}"))
}

#[test]
fn lab_example_register_limited() {
    // 48 regs -> 1536 per warp -> 10 warps per sub-partition -> 40 warps -> 10 blocks.
    // 5000 B -> 5120 B -> 12 blocks.
    let o = run(&cc(5, 0), kernel(128, 48, 5000, 0));
    assert_eq!(o.blocks_per_sm, 10);
    assert_eq!(o.warps_per_block, 4);
    assert_eq!(o.active_warps, 40);
    assert_eq!(o.occupancy, 0.625);
    assert_eq!(o.limiter, Limiter::Registers);
    assert_eq!(
        (
            o.blocks_by_registers,
            o.blocks_by_shared,
            o.blocks_by_warps,
            o.blocks_by_blocks
        ),
        (10, 12, 16, 32)
    );
    assert_eq!(
        describe(&o),
        "10 blocks/SM x 4 warps = 40/64 warps (62.5%), limited by registers"
    );
}

#[test]
fn lab_example_shared_limited() {
    // 10000 B -> 10240 B -> 65536 / 10240 = 6 blocks.
    let o = run(&cc(5, 0), kernel(128, 48, 10000, 0));
    assert_eq!(o.blocks_per_sm, 6);
    assert_eq!(o.active_warps, 24);
    assert_eq!(o.occupancy, 0.375);
    assert_eq!(o.limiter, Limiter::SharedMemory);
    assert_eq!(o.blocks_by_shared, 6);
    assert_eq!(o.blocks_by_registers, 10);
}

#[test]
fn hopper_full_blocks() {
    // Warps and registers both allow exactly 2; the tie goes to registers.
    let o = run(&cc(9, 0), kernel(1024, 32, 0, 0));
    assert_eq!(o.blocks_per_sm, 2);
    assert_eq!(o.occupancy, 1.0);
    assert_eq!(o.blocks_by_warps, 2);
    assert_eq!(o.blocks_by_registers, 2);
    assert_eq!(o.limiter, Limiter::Registers);
    // Fewer registers leave warps as the only limit.
    let o = run(&cc(9, 0), kernel(1024, 16, 0, 0));
    assert_eq!((o.blocks_per_sm, o.limiter), (2, Limiter::Warps));
    assert_eq!(
        describe(&o),
        "2 blocks/SM x 32 warps = 64/64 warps (100%), limited by warps per SM"
    );
}

#[test]
fn hopper_register_limited() {
    let o = run(&cc(9, 0), kernel(256, 128, 0, 0));
    assert_eq!(o.blocks_per_sm, 2);
    assert_eq!(o.occupancy, 0.25);
    assert_eq!(o.limiter, Limiter::Registers);
}

#[test]
fn hopper_shared_limited() {
    // 33792 + 1024 reserved = 34816 B (already a multiple of 128); 233472 / 34816 = 6.
    let o = run(&cc(9, 0), kernel(64, 32, 33 * 1024, 0));
    assert_eq!(o.blocks_by_shared, 6);
    assert_eq!(o.blocks_per_sm, 6);
    assert_eq!(o.active_warps, 12);
    assert_eq!(o.occupancy, 0.1875);
    assert_eq!(o.limiter, Limiter::SharedMemory);
    assert_eq!(
        describe(&o),
        "6 blocks/SM x 2 warps = 12/64 warps (18.75%), limited by shared memory"
    );
}

#[test]
fn hopper_shared_rounding_and_reservation() {
    let h = cc(9, 0);
    // 56 KB + 1 KB reserved divides 228 KB exactly; one byte more rounds up to 3 blocks.
    assert_eq!(run(&h, kernel(128, 32, 0, 56 * 1024)).blocks_by_shared, 4);
    assert_eq!(
        run(&h, kernel(128, 32, 0, 56 * 1024 + 1)).blocks_by_shared,
        3
    );
    // The opt-in maximum exactly fills the SM with its reservation.
    let o = run(&h, kernel(128, 32, 0, 227 * 1024));
    assert_eq!((o.blocks_per_sm, o.limiter), (1, Limiter::SharedMemory));
    // No shared memory still costs the 1 KB reservation on CC >= 8.0 ...
    assert_eq!(run(&h, kernel(128, 32, 0, 0)).blocks_by_shared, 228);
    // ... but nothing before it.
    assert_eq!(
        run(&cc(7, 5), kernel(128, 32, 0, 0)).blocks_by_shared,
        u32::MAX
    );
}

#[test]
fn registers_split_over_sub_partitions() {
    // 40 regs -> 1280 per warp: 16384 / 1280 = 12 per sub-partition -> 48 warps,
    // where floor(65536 / 1280) = 51 would give 25 blocks of 2 warps.
    let o = run(&cc(9, 0), kernel(64, 40, 0, 0));
    assert_eq!(o.blocks_by_registers, 24);
    assert_eq!((o.blocks_per_sm, o.limiter), (24, Limiter::Registers));
    // GP100 has two sub-partitions: 32768 / 1280 = 25 -> 50 warps.
    assert_eq!(run(&cc(6, 0), kernel(32, 40, 0, 0)).blocks_by_registers, 50);
    assert_eq!(run(&cc(6, 1), kernel(32, 40, 0, 0)).blocks_by_registers, 48);
    // No registers: unlimited by registers.
    assert_eq!(
        run(&cc(9, 0), kernel(32, 0, 0, 0)).blocks_by_registers,
        u32::MAX
    );
}

#[test]
fn errors() {
    let h = cc(9, 0);
    let err = |k| occupancy(&h, &k).unwrap_err();
    // 65 regs -> 2304 per warp x 32 warps = 73728 > 65536.
    assert!(err(kernel(1024, 65, 0, 0)).contains("73728 registers per block"));
    // 25 warps x 2560 = 64000 fits, but the launch check counts 28 warps.
    assert!(err(kernel(800, 80, 0, 0)).contains("71680"));
    assert!(occupancy(&h, &kernel(800, 72, 0, 0)).is_ok());
    assert!(err(kernel(0, 32, 0, 0)).contains("0 threads"));
    assert!(err(kernel(1025, 32, 0, 0)).contains("1024"));
    assert!(err(kernel(32, 256, 0, 0)).contains("255"));
    assert!(err(kernel(128, 32, 0, 227 * 1024 + 1)).contains("233472"));
    assert!(err(kernel(128, 32, 200 * 1024, 28 * 1024)).contains("more than the maximum"));
    let m = cc(5, 0);
    assert!(occupancy(&m, &kernel(128, 32, 48 * 1024, 0)).is_ok());
    assert!(occupancy(&m, &kernel(128, 32, 48 * 1024, 1)).is_err());
    // Sums past u32 must not wrap into a small request.
    assert!(err(kernel(128, 32, u32::MAX, u32::MAX)).contains("shared memory"));
}

#[test]
fn table() {
    let known = [
        (5, 0),
        (5, 2),
        (5, 3),
        (6, 0),
        (6, 1),
        (6, 2),
        (7, 0),
        (7, 2),
        (7, 5),
        (8, 0),
        (8, 6),
        (8, 7),
        (8, 9),
        (9, 0),
    ];
    for (major, minor) in known {
        let l = cc(major, minor);
        assert_eq!(l.compute_capability, (major, minor));
        // One maximal block must always be launchable.
        assert!(
            l.max_shared_memory_per_block + l.reserved_shared_memory_per_block
                <= l.shared_memory_per_sm
        );
        assert!(l.max_threads_per_block <= l.max_warps_per_sm * l.warp_size);
        assert!(l.max_registers_per_block <= l.registers_per_sm);
        let o = run(
            &l,
            kernel(
                l.max_threads_per_block,
                32,
                0,
                l.max_shared_memory_per_block,
            ),
        );
        assert!(o.blocks_per_sm >= 1);
    }
    for (major, minor) in [(3, 5), (4, 0), (7, 1), (8, 8), (9, 1), (10, 0), (12, 0)] {
        assert_eq!(SmLimits::for_compute_capability(major, minor), None);
    }
    let h = cc(9, 0);
    assert_eq!(
        (
            h.max_warps_per_sm,
            h.max_blocks_per_sm,
            h.registers_per_sm,
            h.max_registers_per_block
        ),
        (64, 32, 65536, 65536)
    );
    assert_eq!(
        (h.shared_memory_per_sm, h.max_shared_memory_per_block),
        (233472, 232448)
    );
    assert_eq!(
        (
            h.shared_memory_allocation_unit,
            h.reserved_shared_memory_per_block
        ),
        (128, 1024)
    );
    let a = cc(8, 0);
    assert_eq!(
        (a.shared_memory_per_sm, a.max_shared_memory_per_block),
        (167936, 166912)
    );
    assert_eq!(
        (cc(8, 6).max_warps_per_sm, cc(8, 6).max_blocks_per_sm),
        (48, 16)
    );
    assert_eq!(
        (cc(8, 9).max_warps_per_sm, cc(8, 9).max_blocks_per_sm),
        (48, 24)
    );
    assert_eq!(
        (cc(7, 5).max_warps_per_sm, cc(7, 5).max_blocks_per_sm),
        (32, 16)
    );
    assert_eq!(cc(7, 0).shared_memory_per_sm, 98304);
    let m = cc(5, 0);
    assert_eq!(
        (
            m.shared_memory_allocation_unit,
            m.reserved_shared_memory_per_block
        ),
        (256, 0)
    );
}

#[test]
fn serializes() {
    fn assert_serialize<T: serde::Serialize>() {}
    assert_serialize::<Occupancy>();
    assert_serialize::<SmLimits>();
    assert_serialize::<KernelResources>();
}
