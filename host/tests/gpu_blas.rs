//! GPU tests of the BLAS interface (`host::gemm_device` / `gemm_device_async` with transposes
//! and strided batches, the flagship_ops kernels) against the f64 reference: every operation
//! pair, batches with strides wider than the matrices (the gaps NaN, checked untouched),
//! alpha/beta other than (1, 0), K = 1, M = N = 1, NaN/Inf propagation, the caller's stream,
//! and cuBLAS's matching call held to the same reference. Without a GPU they print "SKIPPED …".
mod common;

use common::gemm::assert_batch_result;
use cust::{
    memory::{CopyDestination, DeviceBuffer},
    stream::{Stream, StreamFlags},
};
use gpu_kernels::matmul::{FLAGSHIP_OPS, Op, stream_k::Schedule};
use host::{
    Gemm, Gpu, gemm_device, gemm_device_async,
    gpu::gpu_for_test,
    matmul::{
        layout::{self, Operand},
        sgemm::gemm_device_with_kernel,
    },
    reference::cublas::Cublas,
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

/// Buffers of A, B and C for `op`: random cells, NaN gaps.
fn inputs(op: &Gemm, seed: u64) -> [Vec<f32>; 3] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    [Operand::A, Operand::B, Operand::C].map(|w| layout::random_buffer(op, w, &mut rng))
}

/// Runs `op` through `run` on fresh device buffers and checks sampled problems against the f64
/// reference and every gap of C untouched.
fn check_with(
    op: &Gemm,
    [a, b, c0]: &[Vec<f32>; 3],
    what: &str,
    run: impl FnOnce(&DeviceBuffer<f32>, &DeviceBuffer<f32>, &mut DeviceBuffer<f32>),
) {
    // Three NaN cells past A's and B's last ones, so the 16-byte variants may copy the final
    // piece of a stored row whole (`Gemm::vector_tail_ok`); no kernel may let them into C.
    let tail = |x: &Vec<f32>| x.iter().copied().chain([f32::NAN; 3]).collect::<Vec<f32>>();
    let d_a = DeviceBuffer::from_slice(&tail(a)).unwrap();
    let d_b = DeviceBuffer::from_slice(&tail(b)).unwrap();
    let mut d_c = DeviceBuffer::from_slice(c0).unwrap();
    run(&d_a, &d_b, &mut d_c);
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    let rows = (op.m > 1024).then(|| reference::sample_rows(op.m, 32, 7));
    let problems = layout::sample_problems(op.batch, 5);
    // Everything outside the problems' C must be as it was (NaN gaps stay NaN, bit for bit).
    assert_batch_result(what, op, [a, b, c0], &c, &problems, rows.as_deref());
}

fn check_library(gpu: &Gpu, op: &Gemm, seed: u64) {
    let bufs = inputs(op, seed);
    check_with(op, &bufs, "library", |a, b, c| {
        gemm_device(gpu, op, a, b, c).unwrap_or_else(|e| panic!("{op:?}: {e}"))
    });
}

#[test]
fn every_operation_pair_through_the_library() {
    let Some(gpu) = gpu_for_test("every_operation_pair_through_the_library") else {
        return;
    };
    for (i, (op_a, op_b)) in PAIRS.into_iter().enumerate() {
        for (j, &(m, n, k)) in [
            (512, 1024, 256),
            (1001, 515, 263),
            (17, 33, 5),
            (1, 1, 1),
            (64, 48, 1),
            (4097, 2050, 2049),
        ]
        .iter()
        .enumerate()
        {
            let op = Gemm::new(m, n, k).ops(op_a, op_b);
            check_library(&gpu, &op, (10 * i + j) as u64);
            // alpha/beta other than (1, 0), rows wider than the matrices.
            let (wa, wb) = (op.lda, op.ldb);
            let op = op
                .alpha(-1.5)
                .beta(0.75)
                .leading_dims(wa + 3, wb + 5, n + 2);
            check_library(&gpu, &op, (100 + 10 * i + j) as u64);
        }
    }
}

#[test]
fn strided_batches_with_gaps_between_the_problems() {
    let Some(gpu) = gpu_for_test("strided_batches_with_gaps_between_the_problems") else {
        return;
    };
    for (i, (op_a, op_b)) in PAIRS.into_iter().enumerate() {
        for (j, &(m, n, k, batch)) in [
            (64, 64, 64, 37),
            (33, 17, 9, 5),
            (256, 128, 300, 3),
            (1, 7, 1, 4),
        ]
        .iter()
        .enumerate()
        {
            let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch);
            check_library(&gpu, &op, (1000 + 10 * i + j) as u64);
            // Strides wider than the matrices (odd, so no 16-byte copies), alpha and beta.
            let (sa, sb, sc) = op.spans();
            let op = op.strides(sa + 13, sb + 1, sc + 7).alpha(0.5).beta(-2.0);
            check_library(&gpu, &op, (2000 + 10 * i + j) as u64);
            // One B for every problem (stride 0).
            let op = op.strides(sa + 13, 0, sc + 7);
            check_library(&gpu, &op, (3000 + 10 * i + j) as u64);
        }
    }
}

#[test]
fn every_flagship_ops_kernel_at_an_aligned_and_an_odd_shape() {
    let Some(gpu) = gpu_for_test("every_flagship_ops_kernel_at_an_aligned_and_an_odd_shape") else {
        return;
    };
    for (i, cfg) in FLAGSHIP_OPS.iter().enumerate() {
        for (j, &(m, n, k, batch)) in [(512, 1024, 256, 1), (1001, 515, 263, 1), (65, 129, 31, 3)]
            .iter()
            .enumerate()
        {
            let op = Gemm::new(m, n, k).ops(cfg.ops[0], cfg.ops[1]);
            // Stored rows a multiple of 4 apart so the 16-byte variants run at odd sizes too.
            let r4 = |x: usize| x.next_multiple_of(4);
            let op = op.leading_dims(r4(op.lda), r4(op.ldb), n).batch(batch);
            let op = op.strides(r4(op.stride_a), r4(op.stride_b), op.stride_c);
            for schedule in [Schedule::DataParallel, Schedule::StreamK] {
                let bufs = inputs(&op, (10 * i + j) as u64);
                check_with(&op, &bufs, cfg.name, |a, b, c| {
                    gemm_device_with_kernel(&gpu, cfg.name, schedule, &op, a, b, c)
                        .unwrap_or_else(|e| panic!("{} {op:?}: {e}", cfg.name))
                });
            }
        }
    }
}

#[test]
fn nan_and_inf_propagate_through_every_pair() {
    let Some(gpu) = gpu_for_test("nan_and_inf_propagate_through_every_pair") else {
        return;
    };
    for (op_a, op_b) in PAIRS {
        let op = Gemm::new(70, 90, 50).ops(op_a, op_b).batch(2);
        let mut bufs = inputs(&op, 5);
        // A NaN in problem 0's A, an Inf in problem 1's B: the reference says which cells
        // of C become NaN or ±Inf, and `check` holds the GPU to it.
        bufs[0][3] = f32::NAN;
        let at = op.stride_b + 2 * op.ldb + 1;
        bufs[1][at] = f32::INFINITY;
        check_with(&op, &bufs, "nan/inf", |a, b, c| {
            gemm_device(&gpu, &op, a, b, c).unwrap()
        });
    }
}

#[test]
fn the_callers_stream_without_waiting() {
    let Some(gpu) = gpu_for_test("the_callers_stream_without_waiting") else {
        return;
    };
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None).unwrap();
    for (op_a, op_b) in PAIRS {
        for &(m, n, k, batch) in &[(300, 200, 100, 1), (64, 64, 64, 9), (2048, 2048, 512, 1)] {
            let op = Gemm::new(m, n, k).ops(op_a, op_b).batch(batch).beta(1.0);
            let bufs = inputs(&op, 9);
            check_with(&op, &bufs, "async", |a, b, c| {
                gemm_device_async(&gpu, &stream, &op, a, b, c).unwrap();
                stream.synchronize().unwrap();
            });
        }
    }
}

#[test]
fn cublas_matching_call_meets_the_same_reference() {
    let Some(gpu) = gpu_for_test("cublas_matching_call_meets_the_same_reference") else {
        return;
    };
    let cublas = match Cublas::load(&gpu) {
        Ok(c) => c,
        Err(e) => return rgk_core::testdata::skip("cublas_matching_call", &format!("{e:#}")),
    };
    for (op_a, op_b) in PAIRS {
        for &(m, n, k, batch) in &[(123, 45, 67, 1), (64, 32, 16, 7)] {
            let dense = Gemm::new(m, n, k).ops(op_a, op_b);
            let (wa, wb) = (dense.lda, dense.ldb);
            let op = Gemm::new(m, n, k)
                .ops(op_a, op_b)
                .leading_dims(wa + 1, wb + 2, n + 3)
                .batch(batch)
                .alpha(2.0)
                .beta(0.5);
            let bufs = inputs(&op, 11);
            check_with(&op, &bufs, "cublas", |a, b, c| {
                cublas.gemm(&op, a, b, c).unwrap();
                gpu.stream.synchronize().unwrap();
            });
        }
    }
}

#[test]
fn bad_batches_are_bad_input() {
    let Some(gpu) = gpu_for_test("bad_batches_are_bad_input") else {
        return;
    };
    let op = Gemm::new(8, 8, 8).ops(Op::T, Op::N).batch(4);
    let (la, lb, lc) = op.min_lens();
    let a = DeviceBuffer::from_slice(&vec![0f32; la]).unwrap();
    let b = DeviceBuffer::from_slice(&vec![0f32; lb - 1]).unwrap();
    let mut c = DeviceBuffer::from_slice(&vec![0f32; lc]).unwrap();
    let e = gemm_device(&gpu, &op, &a, &b, &mut c).unwrap_err();
    assert!(matches!(e, host::Error::BadInput(_)), "{e}");
    assert!(e.to_string().contains("B has"), "{e}");
    let e = gemm_device(&gpu, &op.strides(64, 64, 10), &a, &b, &mut c).unwrap_err();
    assert!(e.to_string().contains("stride_c = 10"), "{e}");
}
