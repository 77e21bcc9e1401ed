//! The tile of a batch with `op(B) = T` (session 9, helper "bops"): the N,N rule
//! ([`default_ops_tile`]), then 128x128 instead of 128x256. Their batched flagship copies B
//! transposing in 4-byte pieces, 8 per thread per slice on 128x256 (against 2 16-byte ones for
//! N,N). H200, session 9 (docs/data/session9-2026-11-24/bops/call{1,2}/candidates.txt):
//! 256³ x 512 N,T 128x256 0.433 / 0.435 ms, 128x128 0.420 / 0.424; T,T 0.410 / 0.411 and
//! 0.407 / 0.408. (64x128 → 64x64 was tried in call 2 and dropped: 200³ x 600 N,T ran 0.448 ms
//! on 64x64 against 0.430 on 64x128; where 64x128 measured slower, 192³ and 320³, the N,N rule
//! already takes 64x64 for its padding.)
use super::{Op, default_ops_tile};
use crate::matmul::problem::Gemm;

/// The tile (index into `route::TILES`) of the batched kernel for `op` on `sms`
/// multiprocessors: [`default_ops_tile`], 128x128 instead of 128x256 for a batch with
/// `op(B) = T`.
pub fn batch_tile(op: &Gemm, sms: u32) -> usize {
    let tile = default_ops_tile(op.m, op.n, op.k, op.batch, sms);
    if tile == 0 && op.batch > 1 && op.op_b == Op::T {
        1
    } else {
        tile
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_with_b_transposed_take_the_tiles_that_measured_faster() {
        let pick = |ops: (Op, Op), m, batch| {
            batch_tile(&Gemm::new(m, m, m).ops(ops.0, ops.1).batch(batch), 132)
        };
        for ops in [(Op::N, Op::T), (Op::T, Op::T)] {
            assert_eq!(pick(ops, 256, 512), 1);
            assert_eq!(pick(ops, 192, 384), 3);
            assert_eq!(pick(ops, 200, 600), 2);
            // One problem: the N,N rule.
            assert_eq!(pick(ops, 4096, 1), 0);
        }
        for ops in [(Op::N, Op::N), (Op::T, Op::N)] {
            assert_eq!(pick(ops, 256, 512), 0);
            assert_eq!(pick(ops, 200, 600), 2);
        }
    }
}
