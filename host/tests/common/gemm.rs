//! The result check of the GPU GEMM tests that run strided batches (`gpu_blas`, `gpu_route`,
//! `gpu_batched_small`): one copy of the reference comparison and of the gap check; and the
//! upload of an operand at an offset (`gpu_batched_small`, `gpu_skinny_split`), and fresh
//! operands with NaN gaps and tails (`fresh_operands`).
use cust::memory::DeviceBuffer;
use host::{
    Gemm,
    matmul::layout::{self, Operand},
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference;

/// Asserts that `c`, the whole C buffer after the call, holds for each of `problems` the f64
/// reference of `op` on `a`, `b` and the C before the call `c0`, within the reference's bound
/// (on `rows` only where given), and that every element outside the problems' C is still
/// `c0`'s, bit for bit (NaN gaps stay NaN). `what` starts the failure messages.
pub fn assert_batch_result(
    what: &str,
    op: &Gemm,
    [a, b, c0]: [&[f32]; 3],
    c: &[f32],
    problems: &[usize],
    rows: Option<&[usize]>,
) {
    for &i in problems {
        let re = layout::reference_of(op, [a, b, c0], i, rows);
        let r = reference::check(&layout::rows_of(op, c, i, &re), &re);
        assert!(
            r.passed(),
            "{what} {op:?} problem {i}: {} failures, worst {:?}",
            r.failures,
            r.worst
        );
    }
    let mut inside = vec![false; c.len()];
    for i in 0..op.batch {
        for r in 0..op.m {
            let at = i * op.stride_c + r * op.ldc;
            inside[at..at + op.n].iter_mut().for_each(|x| *x = true);
        }
    }
    for (j, (&got, &was)) in c.iter().zip(c0).enumerate() {
        if !inside[j] {
            assert_eq!(
                got.to_bits(),
                was.to_bits(),
                "{what} {op:?}: gap {j} written"
            );
        }
    }
}

/// `x` on the GPU behind `off` NaN cells: `&buffer[off..]` is `x` at an address `off` cells past
/// an allocation's start (not 16-byte aligned unless `off` is a multiple of 4), and a kernel
/// that read before it would meet NaN.
pub fn upload_after_nans(x: &[f32], off: usize) -> DeviceBuffer<f32> {
    let padded: Vec<f32> = std::iter::repeat_n(f32::NAN, off)
        .chain(x.iter().copied())
        .collect();
    DeviceBuffer::from_slice(&padded).unwrap()
}

/// Fresh operands for `op` (`gpu_route`, `gpu_mid`, `gpu_flagship_batched`): random cells with
/// NaN gaps (`layout::random_buffer`, seeded by `seed`), on the host and on the GPU, where A and
/// B carry three NaN cells past their ends so that a kernel reading past an operand folds NaN
/// into C.
pub fn fresh_operands(op: &Gemm, seed: u64) -> ([Vec<f32>; 3], [DeviceBuffer<f32>; 3]) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let host = [Operand::A, Operand::B, Operand::C].map(|w| layout::random_buffer(op, w, &mut rng));
    let tail = |x: &Vec<f32>| x.iter().copied().chain([f32::NAN; 3]).collect::<Vec<f32>>();
    let gpu = [
        DeviceBuffer::from_slice(&tail(&host[0])).unwrap(),
        DeviceBuffer::from_slice(&tail(&host[1])).unwrap(),
        DeviceBuffer::from_slice(&host[2]).unwrap(),
    ];
    (host, gpu)
}
