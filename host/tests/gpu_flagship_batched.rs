//! GPU tests of the tuned flagship with a batch index (`FLAGSHIP_BATCHED`, sessions 8 and 9):
//! every kernel by name, in each operation pair, and through the library's choice (batches
//! with the straight-copied operands aligned, split-K's batch of K-ranges) against the f64
//! reference: aligned and odd sizes, K = 1 and K below a slice, alpha/beta other than (1, 0),
//! strides wider than the matrices (the gaps NaN, checked untouched), a shared A, and a split K
//! whose tail the sum adds. Without a GPU they print "SKIPPED …".
mod common;

use common::gemm::{assert_batch_result, fresh_operands};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::{FLAGSHIP_BATCHED, Op, stream_k::Schedule};
use host::{
    Gemm, Gpu, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        layout,
        route::{Route, SplitK, SplitSum},
        select_ops::batch_kernel,
        sgemm::{gemm_device_with_kernel, gemm_device_with_route},
    },
};
use rgk_core::matmul::reference;

/// Runs `op` through `run` on fresh buffers (random cells, NaN gaps, three NaN cells past A's
/// and B's ends for the 16-byte copies' last piece) and checks sampled problems against the f64
/// reference and every gap of C untouched.
fn check(
    op: &Gemm,
    seed: u64,
    what: &str,
    run: impl FnOnce(&DeviceBuffer<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>),
) {
    let ([a, b, c0], [d_a, d_b, mut d_c]) = fresh_operands(op, seed);
    run(&d_a, &d_b, &mut d_c);
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    let rows = (op.m > 1024).then(|| reference::sample_rows(op.m, 32, 7));
    let problems = layout::sample_problems(op.batch, 5);
    assert_batch_result(
        what,
        op,
        [&a[..], &b[..], &c0[..]],
        &c,
        &problems,
        rows.as_deref(),
    );
}

/// Problems for every kernel: (m, n, k, batch); N a multiple of 4 (B in 16-byte pieces).
const SHAPES: [(usize, usize, usize, usize); 6] = [
    (256, 256, 256, 5),
    (1001, 516, 263, 2),
    (65, 132, 31, 3),
    (130, 260, 1, 4),
    (7, 12, 5, 9),
    (300, 200, 1000, 1),
];

#[test]
fn every_batched_flagship_kernel_by_name() {
    let Some(gpu) = gpu_for_test("every_batched_flagship_kernel_by_name") else {
        return;
    };
    for (i, cfg) in FLAGSHIP_BATCHED.iter().enumerate() {
        let [op_a, op_b] = cfg.ops;
        for (j, &(m, n, k, batch)) in SHAPES.iter().enumerate() {
            let seed = (100 * i + 10 * j) as u64;
            // A stored k x m and copied straight in 16-byte pieces needs its rows a multiple
            // of 4 apart: the packed problem gets M rounded up (the wide one below keeps the
            // odd M with padded rows).
            let dense_m = if op_a == Op::T {
                m.next_multiple_of(4)
            } else {
                m
            };
            let op = Gemm::new(dense_m, n, k).ops(op_a, op_b).batch(batch);
            run_named(&gpu, cfg.name, &op, seed);
            // alpha/beta, rows and problems further apart than the matrices (a straight-copied
            // operand's a multiple of 4, the others' odd), and a shared A.
            let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
            let pad = |straight: bool, width: usize, odd: usize| {
                if straight {
                    width.next_multiple_of(4) + 8
                } else {
                    width + odd
                }
            };
            let lda = pad(op_a == Op::T, if op_a == Op::T { m } else { k }, 3);
            let ldb = pad(op_b == Op::N, if op_b == Op::N { n } else { k }, 5);
            let wide = op.leading_dims(lda, ldb, n + 1).alpha(-1.5).beta(0.75);
            let (sa, sb, sc) = wide.spans();
            let gap = |span: usize, straight: bool| {
                if straight {
                    span.next_multiple_of(4) + 4
                } else {
                    span + 13
                }
            };
            let wide = wide.strides(gap(sa, op_a == Op::T), gap(sb, op_b == Op::N), sc + 7);
            run_named(&gpu, cfg.name, &wide, seed + 1);
            let shared = wide.strides(0, wide.stride_b, wide.stride_c);
            run_named(&gpu, cfg.name, &shared, seed + 2);
        }
    }
}

fn run_named(gpu: &Gpu, name: &str, op: &Gemm, seed: u64) {
    // A batch runs data-parallel; one problem also under stream-K (grid y of 1).
    for schedule in [Schedule::DataParallel, Schedule::StreamK] {
        check(op, seed, name, |a, b, c| {
            gemm_device_with_kernel(gpu, name, schedule, op, a, b, c)
                .unwrap_or_else(|e| panic!("{name} {op:?}: {e}"))
        });
    }
}

#[test]
fn the_library_runs_n_n_batches_and_split_k_on_it() {
    let Some(gpu) = gpu_for_test("the_library_runs_n_n_batches_and_split_k_on_it") else {
        return;
    };
    for (j, &(m, n, k, batch)) in [(256, 256, 256, 12), (192, 320, 200, 40), (100, 100, 77, 3)]
        .iter()
        .enumerate()
    {
        let op = Gemm::new(m, n, k).batch(batch).alpha(2.0).beta(-1.0);
        check(&op, 7000 + j as u64, "library batch", |a, b, c| {
            gemm_device(&gpu, &op, a, b, c).unwrap()
        });
        // The transposed pairs: the library's pick (a batched flagship where the operands
        // allow it and the model prices it fastest).
        for (o, ops) in [[Op::T, Op::N], [Op::N, Op::T], [Op::T, Op::T]]
            .iter()
            .enumerate()
        {
            let op = op.ops(ops[0], ops[1]).batch(batch);
            check(
                &op,
                7100 + 10 * j as u64 + o as u64,
                "library batch",
                |a, b, c| gemm_device(&gpu, &op, a, b, c).unwrap(),
            );
        }
    }
    // Split-K on every tile: K a multiple of the splits and not (the sum adds the tail).
    for tile in 0..4 {
        assert!(batch_kernel([Op::N, Op::N], tile, true).tuned);
        for (j, &(m, n, k, splits)) in [(256, 256, 4096, 8), (200, 300, 1037, 4)]
            .iter()
            .enumerate()
        {
            let route = Route {
                split: Some(SplitK {
                    tile,
                    splits,
                    sum: SplitSum::Launch,
                }),
                ..Route::DIRECT
            };
            let op = Gemm::new(m, n, k).alpha(0.5).beta(1.5);
            check(
                &op,
                8000 + 10 * tile as u64 + j as u64,
                "split-K",
                |a, b, c| gemm_device_with_route(&gpu, route, &op, a, b, c).unwrap(),
            );
        }
    }
}
