//! GPU tests of session 9's selection rules for non-batched mid-size problems (docs/matmul.md,
//! "Session 9: mid-size problems"): stream-K over every tile where a grid of one to two blocks
//! per multiprocessor is uneven (`balance::balanced_plan`), B re-pitched for a large odd problem
//! (`route::SINGLE_MARGIN`), and split-K for a thin problem whose direct grid is one wave of
//! single blocks (`skinny_split::thin_route`). The library's own pick on each, every operation
//! pair where it applies, alpha/beta other than (1, 0), against the f64 reference with the gaps
//! of C checked untouched; the stream-K grid repeats bit for bit. Without a GPU they print
//! "SKIPPED …".
mod common;

use common::gemm::{assert_batch_result, fresh_operands};
use cust::memory::CopyDestination;
use gpu_kernels::matmul::{Op, stream_k::Schedule};
use host::{
    Gemm, Gpu, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        balance::balanced_plan,
        route::{Machine, Route, SplitK, SplitSum},
        skinny_split::thin_route,
    },
};
use rgk_core::matmul::reference;

/// Runs `op` through the library on fresh buffers (random cells, NaN gaps, three NaN cells past
/// A and B), checks sampled problems against the f64 reference and every gap of C untouched, and
/// returns C.
fn check(gpu: &Gpu, op: &Gemm, seed: u64) -> Vec<f32> {
    let ([a, b, c0], [d_a, d_b, mut d_c]) = fresh_operands(op, seed);
    gemm_device(gpu, op, &d_a, &d_b, &mut d_c).unwrap_or_else(|e| panic!("{op:?}: {e}"));
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    // Eight sampled rows on the larger problems keep the f64 reference to seconds.
    let rows = (op.m * op.n * op.k > 1 << 26).then(|| reference::sample_rows(op.m, 8, seed));
    assert_batch_result("library", op, [&a, &b, &c0], &c, &[0], rows.as_deref());
    c
}

#[test]
fn uneven_grids_run_stream_k_over_every_tile() {
    let Some(gpu) = gpu_for_test("uneven_grids_run_stream_k_over_every_tile") else {
        return;
    };
    // The rule applies on the H200's 132 SMs (64x64: 208 tiles, five blocks per SM); on other
    // GPUs the same problems check whatever grid they get.
    let s = balanced_plan(Schedule::StreamK, 208, 65, 132, 5);
    assert_eq!((s.sk_blocks, s.sk_tiles), (660, 208));
    for (i, (op_a, op_b)) in [
        (Op::N, Op::N),
        (Op::T, Op::N),
        (Op::N, Op::T),
        (Op::T, Op::T),
    ]
    .into_iter()
    .enumerate()
    {
        for (m, n, k) in [(1000, 777, 1025), (1000, 780, 1025), (1200, 700, 900)] {
            let op = Gemm::new(m, n, k)
                .ops(op_a, op_b)
                .alpha(0.75)
                .beta(if i % 2 == 0 { 0.0 } else { -0.5 });
            check(&gpu, &op, 100 + i as u64);
        }
    }
    // The partial sums are added in a fixed order: the same bits twice.
    let op = Gemm::new(1000, 777, 1025);
    assert!(
        check(&gpu, &op, 7)
            .iter()
            .zip(check(&gpu, &op, 7))
            .all(|(x, y)| x.to_bits() == y.to_bits())
    );
}

#[test]
fn thin_one_wave_and_odd_large_problems_match_the_reference() {
    let Some(gpu) = gpu_for_test("thin_one_wave_and_odd_large_problems_match_the_reference") else {
        return;
    };
    let h200 = Machine {
        sms: 132,
        per_sm: [1, 2, 3, 5],
    };
    // Split in two on the direct tile (64x128), and in three on 64x64 for 4225 x 64.
    let want = |tile, splits| Route {
        split: Some(SplitK {
            tile,
            splits,
            sum: SplitSum::Launch,
        }),
        ..Route::DIRECT
    };
    assert_eq!(thin_route(&Gemm::new(64, 16384, 4096), &h200), want(2, 2));
    assert_eq!(thin_route(&Gemm::new(4225, 64, 8192), &h200), want(3, 3));
    for (i, (m, n, k, beta)) in [
        (64, 16384, 4096, 0.0),
        (64, 8192, 2048, 1.5),
        (4225, 64, 8192, 0.0),
        (4097, 4095, 1023, -1.0),
        (4097, 4095, 1023, 0.0),
    ]
    .into_iter()
    .enumerate()
    {
        check(
            &gpu,
            &Gemm::new(m, n, k).alpha(1.25).beta(beta),
            200 + i as u64,
        );
    }
}
