//! The in-kernel split (`SplitSum::InFlagship`, `InVariant`): its estimate and the candidates
//! the model weighs, calibrated on the H200's timings of session 6 (docs/matmul.md, "In-kernel
//! split-K").
use gpu_kernels::matmul::Op;

use super::{
    Aligned, FIXUP_BANDWIDTH, Machine, Prep, Route, SplitK, SplitSum, TILES, after,
    kernel_efficiency, split_tile_allowed, variant, variant_grid_time, variant_vec,
};
use crate::matmul::problem::{Gemm, MAX_DIM};

/// The segment counts `tests/gpu_route_timing` times for the in-kernel split.
pub const FUSED_COUNTS: [u32; 9] = [2, 3, 4, 6, 8, 12, 16, 24, 32];
/// The most segments the model weighs for the in-kernel split on the flagship (its fix-up
/// reads one vector per round trip) and on the variant (8 per round trip). H200, session 6
/// (docs/matmul.md): more segments never won, and 384x384x12000 with 6 on the flagship ran 5%
/// slower than the split-K launch the model would otherwise take.
pub const MAX_FUSED_FLAGSHIP: u32 = 4;
pub const MAX_FUSED_VARIANT: u32 = 8;
/// The fewest k-values of one segment of the in-kernel split (no sum launch to amortize).
pub const MIN_FUSED_K: usize = 128;
/// As [`FIXUP_BANDWIDTH`] for the variants' fix-up, which loads 8 vectors per round trip
/// (assumed 4 times faster; the H200's in-kernel split times, docs/matmul.md session 6, did not
/// separate the fix-up from the rest).
const GROUP_FIXUP_BANDWIDTH: f64 = 80e9;

/// Time the in-kernel split takes beyond its grid and fix-up estimate (H200, session 6: its
/// measured times of 333x555x777, 700x700x2000, 768x640x8192 and 1000x777x1025 T,N were 11 to
/// 13 µs above the estimate; the counters' fences and the completing blocks' wait on the
/// slowest segment, which the model does not see).
const FUSED_LATENCY: f64 = 8e-6;

/// Whether the in-kernel split of a problem with operations `ops` (after the pre-pass) runs
/// the tuned N,N flagship (`split_run`): N,N with 16-byte copies of B.
pub fn fused_on_flagship(ops: [Op; 2], vec: bool) -> bool {
    ops == [Op::N, Op::N] && vec
}

/// Estimated seconds of the in-kernel split `s`: `splits` blocks per tile, one launch, and the
/// completing block of each tile reading the segments back one after another.
pub(super) fn fused_time(op: &Gemm, ops: [Op; 2], vec: bool, s: SplitK, mc: &Machine) -> f64 {
    let c = variant(ops, s.tile, vec);
    let flagship = s.sum == SplitSum::InFlagship && fused_on_flagship(ops, vec);
    let eff = kernel_efficiency(ops, flagship, vec);
    let bandwidth = if flagship {
        FIXUP_BANDWIDTH
    } else {
        GROUP_FIXUP_BANDWIDTH
    };
    let fixup = f64::from(s.splits) * 8.0 * f64::from(c.bm * c.bn) / bandwidth + FUSED_LATENCY;
    variant_grid_time(op, c, s.tile, 1, s.splits, eff, mc) + fixup
}

/// The in-kernel splits worth weighing after pre-pass `a`, `b`: only where op(B) is N after it
/// (the N,T and T,T variants' estimates were far too low: 1000x777x1025 T,T ran 0.091 ms
/// against the 0.076 of its pre-pass route), only tiles whose grid covers at most half the
/// multiprocessors (where the timings measured it; 1000x1000x1000's 128 tiles of 64x128 were
/// not), at most two blocks per resident slot, and each segment at least [`MIN_FUSED_K`] k-values
/// (4097x4095x1023 split in two ran 15% slower than direct, which the model missed).
pub(super) fn fused_candidates(
    op: &Gemm,
    aligned: Aligned,
    a: Prep,
    b: Prep,
    mc: &Machine,
) -> Vec<Route> {
    let (ops, al) = after(op, aligned, a, b);
    if ops[1] != Op::N {
        return Vec::new();
    }
    let vec = variant_vec(ops, al);
    let (sum, most) = if fused_on_flagship(ops, vec) {
        (SplitSum::InFlagship, MAX_FUSED_FLAGSHIP)
    } else {
        (SplitSum::InVariant, MAX_FUSED_VARIANT)
    };
    let mut out = Vec::new();
    for tile in (0..TILES.len()).filter(|&t| split_tile_allowed(op, t)) {
        let c = variant(ops, tile, vec);
        let tiles = u64::from(c.tiles(op.m.min(MAX_DIM) as u32, op.n.min(MAX_DIM) as u32));
        let slots = u64::from(mc.sms) * u64::from(mc.per_sm[tile]);
        for splits in FUSED_COUNTS {
            if splits <= most
                && 2 * tiles <= u64::from(mc.sms)
                && tiles * u64::from(splits) <= 2 * slots
                && op.k / splits as usize >= MIN_FUSED_K
            {
                out.push(Route {
                    a,
                    b,
                    split: Some(SplitK { tile, splits, sum }),
                });
            }
        }
    }
    out
}
