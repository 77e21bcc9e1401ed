//! The tile of a batch with `op(B) = T` (session 9, helper "bops"): the N,N rule
//! ([`default_ops_tile`]), then the 128-row, 128-column tile instead of 128x256 and 64x64
//! instead of 64x128. Their batched flagship copies B transposing in 4-byte pieces: 8 copies
//! per thread per slice on 128x256 and 16 on 64x128 (3 stages), against 2 and 4 16-byte ones
//! for N,N. H200, session 9 call 1 (docs/data/session9-2026-11-24/bops/call1/candidates.txt):
//! 256³ x 512 N,T 128x256 0.433 ms, 128x128 0.420; T,T 0.410 and 0.407; 192³ x 384 N,T 64x128
//! 0.209, 64x64 0.171; T,T 0.199 and 0.157; 320³ x 256 T,T 0.482 and 0.423.
use super::{Op, default_ops_tile};
use crate::matmul::problem::Gemm;

/// The tile (index into `route::TILES`) of the batched kernel for `op` on `sms`
/// multiprocessors: [`default_ops_tile`], moved off 128x256 and 64x128 for a batch with
/// `op(B) = T`.
pub fn batch_tile(op: &Gemm, sms: u32) -> usize {
    let tile = default_ops_tile(op.m, op.n, op.k, op.batch, sms);
    match tile {
        0 | 2 if op.batch > 1 && op.op_b == Op::T => tile + 1,
        _ => tile,
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
            assert_eq!(pick(ops, 200, 600), 3);
            // One problem: the N,N rule.
            assert_eq!(pick(ops, 4096, 1), 0);
        }
        for ops in [(Op::N, Op::N), (Op::T, Op::N)] {
            assert_eq!(pick(ops, 256, 512), 0);
            assert_eq!(pick(ops, 200, 600), 2);
        }
    }
}
