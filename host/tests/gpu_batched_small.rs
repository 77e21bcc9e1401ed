//! GPU tests of the batched small-matrix kernels (`sgemm_batched_32` and the class kernels
//! `sgemm_batched_a8/_a16/_a32`: strided N,N batches of M, N ≤ their bound) against the f64
//! reference: through the library's own choice and every kernel that holds the problem by
//! name, sizes 1 to 32 with K below, at and past one slice, a batch not a multiple of 4 problems,
//! strides wider than the matrices (gaps NaN, checked untouched), leading dimensions and
//! buffers that rule out 128-bit loads, alpha/beta other than (1, 0), a shared A (stride 0),
//! NaN/Inf, and a problem it does not take refused in one sentence. Without a GPU they print
//! "SKIPPED …".
mod common;

use common::gemm::{assert_batch_result, upload_after_nans};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::{
    Op,
    batched_small::{BATCHED_SMALL, BATCHED_SMALL_KERNEL},
    stream_k::Schedule,
};
use host::{
    Gemm, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        batched_small::takes,
        layout::{self, Operand},
        sgemm::gemm_device_with_kernel,
    },
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Runs `op` (by the library's choice, or the batched kernel `by_name`) on buffers `off` floats
/// into their allocations (1: misaligned, the 4-byte loads) and checks every problem against
/// the f64 reference and every gap of C untouched. `poison` edits A and B first.
fn check(
    gpu: &host::Gpu,
    op: &Gemm,
    by_name: Option<&str>,
    off: usize,
    poison: impl Fn(&mut [f32], &mut [f32]),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(op.m as u64 * 1000 + op.k as u64);
    let [mut a, mut b, c0] =
        [Operand::A, Operand::B, Operand::C].map(|w| layout::random_buffer(op, w, &mut rng));
    poison(&mut a, &mut b);
    let d_a = upload_after_nans(&a, off);
    let d_b = upload_after_nans(&b, off);
    let mut d_c = DeviceBuffer::from_slice(&c0).unwrap();
    let (sa, sb) = (&d_a[off..], &d_b[off..]);
    if let Some(name) = by_name {
        gemm_device_with_kernel(gpu, name, Schedule::DataParallel, op, sa, sb, &mut d_c)
    } else {
        gemm_device(gpu, op, sa, sb, &mut d_c)
    }
    .unwrap_or_else(|e| panic!("{by_name:?} {op:?}: {e}"));
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    let problems: Vec<usize> = (0..op.batch).collect();
    let what = by_name.unwrap_or("default");
    assert_batch_result(what, op, [&a, &b, &c0], &c, &problems, None);
}

#[test]
fn batches_of_small_problems_against_the_reference() {
    let Some(gpu) = gpu_for_test("batches_of_small_problems_against_the_reference") else {
        return;
    };
    for &(m, n, k, batch) in &[
        (32, 32, 32, 67),
        (16, 16, 16, 9),
        (1, 1, 1, 2),
        (31, 17, 33, 5),
        (32, 1, 100, 3),
        (5, 32, 64, 4),
        (24, 24, 1000, 6),
        (8, 8, 8, 130),
        (7, 3, 20, 65),
        (16, 9, 17, 33),
        (12, 16, 5, 17),
    ] {
        let op = Gemm::new(m, n, k).batch(batch);
        assert!(takes(&op), "{op:?}");
        check(&gpu, &op, None, 0, |_, _| {});
        for cfg in BATCHED_SMALL.iter().filter(|c| m.max(n) <= c.dim as usize) {
            check_variants(&gpu, m, n, k, batch, Some(cfg.name));
        }
    }
}

/// Alpha/beta, odd leading dimensions, gaps between the problems and misaligned buffers, then a
/// shared A with aligned rows, through kernel `name`.
fn check_variants(gpu: &host::Gpu, m: usize, n: usize, k: usize, batch: usize, name: Option<&str>) {
    {
        // Alpha/beta, odd leading dimensions, gaps between the problems, misaligned buffers.
        let op = Gemm::new(m, n, k)
            .alpha(-1.5)
            .beta(0.75)
            .leading_dims(k + 3, n + 1, n + 2)
            .batch(batch);
        let (sa, sb, sc) = op.spans();
        let op = op.strides(sa + 5, sb + 2, sc + 7);
        check(gpu, &op, name, 1, |_, _| {});
        // One A for every problem (stride 0), aligned rows of 4.
        let op = Gemm::new(m, n, k)
            .leading_dims(k.next_multiple_of(4), n.next_multiple_of(4), n)
            .batch(batch);
        let op = op.strides(0, op.stride_b, op.stride_c);
        check(gpu, &op, name, 0, |_, _| {});
        // Every leading dimension and stride a multiple of 4 (C's 16-byte stores), beta on.
        let op = Gemm::new(m, n, k)
            .beta(0.5)
            .leading_dims(
                k.next_multiple_of(4),
                n.next_multiple_of(4),
                n.next_multiple_of(4),
            )
            .batch(batch);
        let (sa, sb, sc) = op.spans();
        let op = op.strides(
            sa.next_multiple_of(4),
            sb.next_multiple_of(4),
            sc.next_multiple_of(4) + 4,
        );
        check(gpu, &op, name, 0, |_, _| {});
    }
}

#[test]
fn nan_and_inf_propagate() {
    let Some(gpu) = gpu_for_test("nan_and_inf_propagate") else {
        return;
    };
    // A problem of each class, through the default and every kernel that holds it.
    for (m, n, k) in [(20, 30, 40), (6, 8, 12), (16, 11, 20)] {
        let op = Gemm::new(m, n, k).batch(70);
        let names = BATCHED_SMALL
            .iter()
            .filter(|c| m.max(n) <= c.dim as usize)
            .map(|c| Some(c.name));
        for name in std::iter::once(None).chain(names) {
            check(&gpu, &op, name, 0, |a, b| {
                a[op.stride_a * 2 + 3 * op.lda + 5] = f32::NAN; // problem 2, row 3
                b[op.stride_b * 4 + 7 * op.ldb + 5] = f32::INFINITY; // problem 4, column 5
                b[op.stride_b * 65 + (k - 1) * op.ldb] = f32::NEG_INFINITY; // problem 65, the last k
            });
        }
    }
}

#[test]
fn problems_it_does_not_take_are_refused_in_one_sentence() {
    let Some(gpu) = gpu_for_test("problems_it_does_not_take_are_refused_in_one_sentence") else {
        return;
    };
    let a = DeviceBuffer::from_slice(&vec![1.0f32; 64 * 64 * 4]).unwrap();
    let b = DeviceBuffer::from_slice(&vec![1.0f32; 64 * 64 * 4]).unwrap();
    let mut c = DeviceBuffer::from_slice(&vec![0.0f32; 64 * 64 * 4]).unwrap();
    for (name, op) in [
        (BATCHED_SMALL_KERNEL, Gemm::new(33, 8, 8).batch(4)),
        (
            BATCHED_SMALL_KERNEL,
            Gemm::new(8, 8, 8).ops(Op::T, Op::N).batch(4),
        ),
        ("sgemm_batched_a8", Gemm::new(9, 8, 8).batch(4)),
        ("sgemm_batched_a16", Gemm::new(16, 17, 8).batch(4)),
    ] {
        let e = gemm_device_with_kernel(&gpu, name, Schedule::DataParallel, &op, &a, &b, &mut c)
            .unwrap_err()
            .to_string();
        assert!(e.contains("takes N,N problems") && !e.contains('\n'), "{e}");
    }
    // A stride smaller than a matrix is the library's sentence, before any launch.
    let op = Gemm::new(8, 8, 8).batch(4);
    let op = op.strides(op.stride_a, op.stride_b, 10);
    let e = gemm_device(&gpu, &op, &a, &b, &mut c)
        .unwrap_err()
        .to_string();
    assert!(e.contains("stride_c"), "{e}");
}
