//! GPU tests of the SGEMM routes (`host::matmul::route`): the operand pre-pass (transposed or
//! re-pitched into scratch), split-K (`sgemm_split_sum`, with and without a K tail) and both
//! together, forced through `gemm_device_with_route` for every operation pair, and the library's
//! own pick on the shapes the routes are for; each against the f64 reference, the gaps of C
//! checked untouched. Without a GPU they print "SKIPPED …".
mod common;

use common::gemm::{assert_batch_result, fresh_operands};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::Op;
use host::{
    Gemm, Gpu, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        layout::{self, Operand},
        route::{Prep, Route, SplitK, SplitSum, TILES},
        sgemm::gemm_device_with_route,
    },
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference;

const PAIRS: [(Op, Op); 4] = [
    (Op::N, Op::N),
    (Op::T, Op::N),
    (Op::N, Op::T),
    (Op::T, Op::T),
];

/// Runs `op` through `run` on fresh buffers (random cells, NaN gaps and three NaN cells past A
/// and B) and checks sampled problems against the f64 reference and every gap of C untouched.
fn check(gpu: &Gpu, op: &Gemm, seed: u64, what: &str, route: Option<Route>) {
    let ([a, b, c0], [d_a, d_b, mut d_c]) = fresh_operands(op, seed);
    match route {
        Some(r) => gemm_device_with_route(gpu, r, op, &d_a, &d_b, &mut d_c),
        None => gemm_device(gpu, op, &d_a, &d_b, &mut d_c),
    }
    .unwrap_or_else(|e| panic!("{what} {op:?}: {e}"));
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    let rows = (op.m > 1024).then(|| reference::sample_rows(op.m, 32, 7));
    let problems = layout::sample_problems(op.batch, 4);
    // Everything outside the problems' C must be as it was (NaN gaps stay NaN, bit for bit).
    assert_batch_result(what, op, [&a, &b, &c0], &c, &problems, rows.as_deref());
}

fn split(tile: usize, splits: u32) -> Option<SplitK> {
    Some(SplitK {
        tile,
        splits,
        sum: SplitSum::Launch,
    })
}

fn fused(tile: usize, splits: u32) -> Option<SplitK> {
    Some(SplitK {
        tile,
        splits,
        sum: SplitSum::InVariant,
    })
}

fn fused_flagship(tile: usize, splits: u32) -> Option<SplitK> {
    Some(SplitK {
        tile,
        splits,
        sum: SplitSum::InFlagship,
    })
}

#[test]
fn every_route_of_every_operation_pair_matches_the_reference() {
    let Some(gpu) = gpu_for_test("every_route_of_every_operation_pair_matches_the_reference")
    else {
        return;
    };
    let preps = [Prep::Keep, Prep::Transpose, Prep::Repitch];
    for (i, (op_a, op_b)) in PAIRS.into_iter().enumerate() {
        // Aligned and odd shapes; K with and without a tail for the splits used.
        for (j, &(m, n, k)) in [(256, 192, 2048), (333, 555, 777), (65, 97, 1031)]
            .iter()
            .enumerate()
        {
            for (l, &(pa, pb, sp)) in [
                (preps[1], preps[0], None),
                (preps[0], preps[1], None),
                (preps[1], preps[1], None),
                (preps[2], preps[2], None),
                (preps[0], preps[0], split(0, 2)),
                (preps[0], preps[0], split(2, 7)),
                (preps[0], preps[0], split(3, 16)),
                (preps[1], preps[2], split(1, 3)),
                // In-kernel splits: segments ending inside a tile's slices (5, 7) and not.
                (preps[0], preps[0], fused(0, 3)),
                (preps[0], preps[0], fused(2, 5)),
                (preps[0], preps[0], fused(3, 7)),
                (preps[0], preps[0], fused_flagship(1, 6)),
                (preps[1], preps[2], fused(1, 4)),
            ]
            .iter()
            .enumerate()
            {
                let route = Route {
                    a: pa,
                    b: pb,
                    split: sp,
                };
                let seed = (100 * i + 10 * j + l) as u64;
                let op = Gemm::new(m, n, k).ops(op_a, op_b);
                check(&gpu, &op, seed, &format!("{route:?}"), Some(route));
                // alpha/beta other than (1, 0), rows wider than the matrices.
                let (wa, wb) = (op.lda, op.ldb);
                let op = op
                    .alpha(-1.5)
                    .beta(0.75)
                    .leading_dims(wa + 3, wb + 5, n + 2);
                check(&gpu, &op, seed + 5000, &format!("{route:?}"), Some(route));
            }
        }
    }
}

/// The in-kernel split on the N,N flagship (B aligned) and its variants, K = 1 and short K
/// (fewer k-slices than segments), alpha/beta, and the same bits on a second run (the
/// segments are summed in a fixed order whichever block completes a tile).
#[test]
fn in_kernel_splits_match_the_reference_and_repeat_bit_for_bit() {
    let Some(gpu) = gpu_for_test("in_kernel_splits_match_the_reference_and_repeat_bit_for_bit")
    else {
        return;
    };
    for (i, &(m, n, k)) in [
        (200, 300, 1),
        (130, 260, 17),
        (512, 512, 4096),
        (333, 556, 777),
    ]
    .iter()
    .enumerate()
    {
        for (j, (op_a, op_b)) in PAIRS.into_iter().enumerate() {
            for tile in 0..TILES.len() {
                for (segments, split) in [
                    (2u64, fused(tile, 2)),
                    (8, fused(tile, 8)),
                    (5, fused_flagship(tile, 5)),
                ] {
                    let route = Route {
                        split,
                        ..Route::DIRECT
                    };
                    let seed = (1000 * i + 100 * j + 10 * tile) as u64 + segments;
                    let op = Gemm::new(m, n, k).ops(op_a, op_b).alpha(0.5).beta(-1.25);
                    check(&gpu, &op, seed, &format!("{route:?}"), Some(route));
                }
            }
        }
        let op = Gemm::new(m, n, k);
        let mut rng = ChaCha8Rng::seed_from_u64(i as u64);
        let [a, b, c0] =
            [Operand::A, Operand::B, Operand::C].map(|w| layout::random_buffer(&op, w, &mut rng));
        let (d_a, d_b) = (
            DeviceBuffer::from_slice(&a).unwrap(),
            DeviceBuffer::from_slice(&b).unwrap(),
        );
        let mut runs = Vec::new();
        for split in [
            fused(0, 8),
            fused(0, 8),
            fused_flagship(3, 8),
            fused_flagship(3, 8),
        ] {
            let route = Route {
                split,
                ..Route::DIRECT
            };
            let mut d_c = DeviceBuffer::from_slice(&c0).unwrap();
            gemm_device_with_route(&gpu, route, &op, &d_a, &d_b, &mut d_c).unwrap();
            let mut c = vec![0f32; c0.len()];
            d_c.copy_to(&mut c[..]).unwrap();
            runs.push(c.iter().map(|x| x.to_bits()).collect::<Vec<u32>>());
        }
        assert_eq!(runs[0], runs[1], "{m}x{n}x{k}: two runs differ");
        assert_eq!(runs[2], runs[3], "{m}x{n}x{k}: two runs differ (flagship)");
    }
}

#[test]
fn pre_passed_batches_with_gaps_and_shared_operands() {
    let Some(gpu) = gpu_for_test("pre_passed_batches_with_gaps_and_shared_operands") else {
        return;
    };
    for (i, (op_a, op_b)) in PAIRS.into_iter().enumerate() {
        for (j, &(m, n, k, batch)) in [(96, 80, 70, 5), (256, 256, 256, 3)].iter().enumerate() {
            let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
            let (sa, sb, sc) = op.spans();
            for (l, op) in [
                op,
                op.strides(sa + 13, sb + 1, sc + 7).alpha(0.5).beta(-2.0),
                // One A and one B for every problem.
                op.strides(0, 0, sc),
            ]
            .iter()
            .enumerate()
            {
                let route = Route {
                    a: Prep::Transpose,
                    b: Prep::Transpose,
                    split: None,
                };
                check(
                    &gpu,
                    op,
                    (1000 + 100 * i + 10 * j + l) as u64,
                    "batch",
                    Some(route),
                );
            }
        }
    }
}

#[test]
fn nan_and_inf_pass_through_the_split_sum() {
    let Some(gpu) = gpu_for_test("nan_and_inf_pass_through_the_split_sum") else {
        return;
    };
    let (m, n, k) = (128, 128, 4099);
    let op = Gemm::new(m, n, k);
    let mut a = vec![1.0f32; m * k];
    let b = vec![0.5f32; k * n];
    // Row 3 meets a NaN in split 0, row 7 an Inf in the tail (k = 4098 > 4 · 1024).
    a[3 * k + 5] = f32::NAN;
    a[7 * k + 4098] = f32::INFINITY;
    let d_a = DeviceBuffer::from_slice(&a).unwrap();
    let d_b = DeviceBuffer::from_slice(&b).unwrap();
    let mut d_c = DeviceBuffer::from_slice(&vec![f32::NAN; m * n]).unwrap();
    let route = Route {
        a: Prep::Keep,
        b: Prep::Keep,
        split: split(3, 4),
    };
    gemm_device_with_route(&gpu, route, &op, &d_a, &d_b, &mut d_c).unwrap();
    let mut c = vec![0f32; m * n];
    d_c.copy_to(&mut c[..]).unwrap();
    for r in 0..m {
        for col in 0..n {
            let v = c[r * n + col];
            match r {
                3 => assert!(v.is_nan(), "({r}, {col}) = {v}"),
                7 => assert_eq!(v, f32::INFINITY, "({r}, {col})"),
                // beta = 0: the NaN in C is not read; k/2 exactly.
                _ => assert_eq!(v, k as f32 * 0.5, "({r}, {col})"),
            }
        }
    }
}

#[test]
fn the_librarys_pick_on_deep_k_and_transposed_shapes() {
    let Some(gpu) = gpu_for_test("the_librarys_pick_on_deep_k_and_transposed_shapes") else {
        return;
    };
    for (i, &(m, n, k, (op_a, op_b), batch)) in [
        (128, 128, 16384, (Op::N, Op::N), 1),
        (300, 200, 9001, (Op::T, Op::N), 1),
        (512, 512, 16384, (Op::N, Op::T), 1),
        (1000, 777, 1025, (Op::T, Op::T), 1),
        (2048, 2048, 2048, (Op::N, Op::T), 1),
        (256, 256, 256, (Op::T, Op::T), 8),
    ]
    .iter()
    .enumerate()
    {
        let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
        check(&gpu, &op, 9000 + i as u64, "library", None);
    }
    // Every tile serves a split.
    for tile in 0..TILES.len() {
        let route = Route {
            a: Prep::Keep,
            b: Prep::Keep,
            split: split(tile, 5),
        };
        check(
            &gpu,
            &Gemm::new(200, 300, 3000),
            9100 + tile as u64,
            "tile",
            Some(route),
        );
    }
}

#[test]
fn a_split_larger_than_k_is_refused_in_one_sentence() {
    let Some(gpu) = gpu_for_test("a_split_larger_than_k_is_refused_in_one_sentence") else {
        return;
    };
    let op = Gemm::new(100, 100, 3);
    let a = DeviceBuffer::from_slice(&[1.0f32; 300]).unwrap();
    let b = DeviceBuffer::from_slice(&[1.0f32; 300]).unwrap();
    let mut c = DeviceBuffer::from_slice(&[0.0f32; 10000]).unwrap();
    let route = Route {
        a: Prep::Keep,
        b: Prep::Keep,
        split: split(0, 4),
    };
    let e = gemm_device_with_route(&gpu, route, &op, &a, &b, &mut c).unwrap_err();
    assert!(e.to_string().contains("split-K takes one problem"), "{e}");
    assert!(!e.to_string().contains('\n'), "{e}");
}
