//! GPU tests of split-K for thin problems (`matmul::skinny_split`: M or N of 17–64 with a deep
//! K) through the library's own choice, against the f64 reference: tall and wide, every
//! transpose pair, K not a multiple of the split (the sum kernel's tail), alpha/beta, leading
//! dimensions wider than the matrices (gaps NaN, checked untouched), misaligned buffers (the
//! 4-byte copies), and the same bits on a second run (the sum's order is fixed). Without a GPU
//! they print "SKIPPED …".
mod common;

use common::gemm::{assert_batch_result, upload_after_nans};
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::Op;
use host::{
    Gemm, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        layout::{self, Operand},
        skinny_split::thin_route,
        split_run,
    },
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Runs `op` through `gemm_device` on buffers `off` floats into their allocations, checks C
/// against the f64 reference and the gaps untouched, and returns C.
fn run_checked(gpu: &host::Gpu, op: &Gemm, off: usize) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64((op.m * 7 + op.n * 3 + op.k) as u64);
    let [a, b, c0] =
        [Operand::A, Operand::B, Operand::C].map(|w| layout::random_buffer(op, w, &mut rng));
    let d_a = upload_after_nans(&a, off);
    let d_b = upload_after_nans(&b, off);
    let mut d_c = DeviceBuffer::from_slice(&c0).unwrap();
    gemm_device(gpu, op, &d_a[off..], &d_b[off..], &mut d_c)
        .unwrap_or_else(|e| panic!("{op:?}: {e}"));
    let mut c = vec![0f32; c0.len()];
    d_c.copy_to(&mut c[..]).unwrap();
    assert_batch_result("thin split", op, [&a, &b, &c0], &c, &[0], None);
    c
}

#[test]
fn thin_deep_problems_split_and_match_the_reference() {
    let Some(gpu) = gpu_for_test("thin_deep_problems_split_and_match_the_reference") else {
        return;
    };
    let mc = split_run::machine(&gpu).unwrap();
    for &(m, n, k) in &[
        (1000, 24, 4097),
        (40, 3000, 2000),
        (777, 63, 1503),
        (17, 640, 5000),
    ] {
        for (op_a, op_b) in [
            (Op::N, Op::N),
            (Op::T, Op::N),
            (Op::N, Op::T),
            (Op::T, Op::T),
        ] {
            let op = Gemm::new(m, n, k).ops(op_a, op_b);
            assert!(
                thin_route(&op, &mc).split.is_some(),
                "{m}x{n}x{k} is expected to split"
            );
            let first = run_checked(&gpu, &op, 0);
            // The split sums in a fixed order: the same bits again.
            assert_eq!(
                first.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                run_checked(&gpu, &op, 0)
                    .iter()
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>(),
                "{op:?}"
            );
        }
        // Alpha/beta, wide leading dimensions, misaligned buffers.
        let op = Gemm::new(m, n, k)
            .alpha(0.5)
            .beta(-2.0)
            .leading_dims(k + 3, n + 5, n + 1);
        run_checked(&gpu, &op, 1);
    }
}
