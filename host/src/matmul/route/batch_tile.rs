//! The tile of a batch with `op(B) = T` (session 9, helper "bops"): the N,N rule
//! ([`default_ops_tile`]), then 128x128 instead of 128x256. Their batched flagship copies B
//! transposing in 4-byte pieces, 8 per thread per slice on 128x256 (against 2 16-byte ones for
//! N,N). H200, session 9 (docs/data/session9-2026-11-24/bops/call{1,2}/candidates.txt):
//! 256³ x 512 N,T 128x256 0.433 / 0.435 ms, 128x128 0.420 / 0.424; T,T 0.410 / 0.411 and
//! 0.407 / 0.408. (64x128 → 64x64 was tried in call 2 and dropped: 200³ x 600 N,T ran 0.448 ms
//! on 64x64 against 0.430 on 64x128; where 64x128 measured slower, 192³ and 320³, the N,N rule
//! already takes 64x64 for its padding.)
use super::{Machine, Op, default_ops_tile, kernel_efficiency, variant, variant_grid_time};
use crate::matmul::problem::Gemm;

/// The tile (index into `route::TILES`) of the batched kernel for `op` on `mc`:
/// [`default_ops_tile`]; for a batch with `op(B) = T`, 128x128 instead of 128x256, and 64x128
/// instead of 128x128 where the grid estimate prices it lower: the last wave of one and the
/// other fills the slots unevenly. H200, session 13 (docs/data/session13-2026-11-28/batch_tiles,
/// kernels by name, three processes): 384³ x 100 T,T 0.2693–0.2709 ms on 64x128 against
/// 0.2942–0.2964 on 128x128, N,T 0.2854–0.2864 against 0.3030–0.3058 (estimates 0.2605 / 0.2613
/// and 0.2833 / 0.2843); 128x128 ahead where the estimate puts it ahead, 256³ x 512 (T,T 0.4035–0.4056
/// against 0.4134–0.4163), 512²x256 x 192 and 128³ x 1024 N,T (0.1241–0.1265 against 0.1375–0.1389).
pub fn batch_tile(op: &Gemm, mc: &Machine) -> usize {
    let tile = default_ops_tile(op.m, op.n, op.k, op.batch, mc.sms);
    if op.batch == 1 || op.op_b != Op::T {
        return tile;
    }
    let tile = if tile == 0 { 1 } else { tile };
    if tile != 1 {
        return tile;
    }
    let ops = [op.op_a, op.op_b];
    let eff = kernel_efficiency(ops, true, true);
    let time = |t: usize| variant_grid_time(op, variant(ops, t, true), t, op.batch, 1, eff, mc);
    if time(2) < time(1) { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::super::H200;
    use super::*;

    #[test]
    fn batches_with_b_transposed_take_the_tiles_that_measured_faster() {
        let pick = |ops: (Op, Op), m, batch| {
            batch_tile(&Gemm::new(m, m, m).ops(ops.0, ops.1).batch(batch), &H200)
        };
        for ops in [(Op::N, Op::T), (Op::T, Op::T)] {
            assert_eq!(pick(ops, 256, 512), 1);
            assert_eq!(pick(ops, 192, 384), 3);
            assert_eq!(pick(ops, 200, 600), 2);
            assert_eq!(pick(ops, 384, 100), 2);
            assert_eq!(pick(ops, 128, 1024), 1);
            // One problem: the N,N rule.
            assert_eq!(pick(ops, 4096, 1), 0);
        }
        for ops in [(Op::N, Op::N), (Op::T, Op::N)] {
            assert_eq!(pick(ops, 256, 512), 0);
            assert_eq!(pick(ops, 200, 600), 2);
        }
    }
}
