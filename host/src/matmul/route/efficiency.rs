//! The cost model's kernel efficiencies (issue #20): per tile, per kernel and operation pair,
//! relative to the tuned N,N flagship, measured on the H200 (docs/matmul.md "Routes" and
//! "Session 9: batched transposes"). Kept apart from `route.rs`'s grid and route arithmetic so
//! that recalibrating them touches one file.
use gpu_kernels::matmul::Op;

/// A tile's efficiency per FMA (smaller tiles load more bytes per FMA).
pub(super) fn tile_efficiency(bm: u32, bn: u32) -> f64 {
    match bm * bn {
        32768.. => 1.0,
        16384.. => 0.95,
        8192.. => 0.9,
        _ => 0.8,
    }
}

/// A kernel's efficiency relative to the tuned N,N flagship (H200, measured by
/// `tests/gpu_route_timing`, docs/matmul.md "Routes": the variants' register allocation is not
/// tuned; their 4-byte straight copies, where 16-byte ones are not allowed, cost a third; N,T
/// copies both operands transposing, in 4-byte pieces, always).
///
/// The batched flagship with a transposed operation (`flagship` with ops other than N,N: a
/// batch, `select_ops::batched_flagship`) runs the same main loop with its own copies:
/// [`batched_flagship_efficiency`].
pub(super) fn kernel_efficiency(ops: [Op; 2], flagship: bool, vec: bool) -> f64 {
    match (flagship, ops) {
        (true, [Op::N, Op::N]) => {
            if vec {
                1.0
            } else {
                0.95
            }
        }
        (true, ops) => batched_flagship_efficiency(ops),
        (false, [Op::N, Op::T]) => 0.77,
        (false, ops) => {
            let base = match ops {
                [Op::T, Op::N] => 0.93,
                [Op::N, Op::N] => 0.86,
                _ => 0.8,
            };
            base * if vec { 1.0 } else { 0.68 }
        }
    }
}

/// The batched flagship's efficiency for a transposed pair, relative to the N,N one (H200,
/// session 9, docs/matmul.md "Session 9: batched transposes": its time against the N,N batched
/// flagship's on the same batch).
///
/// Measured (call 1, the N,N batched flagship's time over the pair's, same tile): T,N 1.01 at
/// 256³ x 512; N,T 0.95 (128x128) at 256³ x 512, 0.91 and 0.88 (64x64) at 192³ x 384 and
/// 320³ x 256; T,T 0.98 and 0.995, 0.995.
fn batched_flagship_efficiency(ops: [Op; 2]) -> f64 {
    match ops {
        [Op::T, Op::N] => 1.0,
        [Op::N, Op::T] => 0.9,
        _ => 0.98,
    }
}
