//! Which route a problem takes through the library's SGEMM (issue #20): straight to the
//! flagship or its variants (what `select` and `select_ops` pick), or through a pre-pass that
//! transposes or re-pitches an operand into scratch memory, and/or split-K (a batch of
//! K-ranges summed by `sgemm_split_sum`; `gpu_kernels::matmul::split_k`). A leaf of pure
//! arithmetic, CUDA-free: the runner (`split_run`) measures the GPU and launches.
//!
//! The choice is a cost model, not a list of shapes: every route's time is estimated from the
//! grid it launches (blocks per multiprocessor, how many run at once, the warps that hide
//! latency; for the direct N,N flagship, its stream-K split and fix-up), each kernel's measured efficiency, and the bytes the pre-pass and the sum move;
//! the cheapest route wins when it beats the direct one by [`MARGIN`]. The constants are the
//! H200's (docs/matmul.md, "Routes"): where they are wrong the model errs towards the direct
//! route, which is what ran before.
use gpu_kernels::matmul::{FLAGSHIP_OPS, FlagshipOpsConfig, Op};
use rgk_core::matmul::tune::SHORT_K;

use super::problem::{Gemm, MAX_DIM};

/// What the pre-pass does with an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prep {
    /// Used where it is.
    Keep,
    /// Copied transposed (its `op` flips: a stored `T` operand becomes `N`, and the other way).
    Transpose,
    /// Copied as it is with rows a multiple of 4 floats apart (16-byte copies become possible).
    Repitch,
}

/// K cut into `splits` ranges of tile `TILES[tile]`'s kernel, summed as `sum` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitK {
    pub tile: usize,
    pub splits: u32,
    pub sum: SplitSum,
}

impl SplitK {
    /// Whether the partial sums are added inside the GEMM's launch.
    pub fn fused(&self) -> bool {
        self.sum != SplitSum::Launch
    }
}

/// Where a split's partial sums are added, always in a fixed order (split 0 first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SplitSum {
    /// A batch of the variant, one problem per range, then the sum kernel (`sgemm_split_sum`,
    /// which adds the last `K mod splits` k-values itself): two launches, the sum spread over
    /// the whole GPU.
    Launch,
    /// One launch of the variant in which every tile's k-slices are shared by `splits` blocks
    /// and the block completing a tile adds their partial sums (stream-K's fix-up over every
    /// tile, 8 accumulator vectors per memory round trip: `stream_k_sum_group`).
    InVariant,
    /// The same on the tuned N,N flagship (N,N with B aligned after the pre-pass, else the
    /// variant runs): its faster main loop, its fix-up one vector per round trip.
    InFlagship,
}

/// A problem's route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Route {
    pub a: Prep,
    pub b: Prep,
    pub split: Option<SplitK>,
}

impl Route {
    /// No pre-pass, no split: `select` or `select_ops` as before.
    pub const DIRECT: Route = Route {
        a: Prep::Keep,
        b: Prep::Keep,
        split: None,
    };
}

/// The variants' tiles, largest first, as `bm x bn x bk` and the rest of the name after the
/// operations (the N,N default choice's tiles, `select::choose_kernel`).
pub const TILES: &[&str] = &[
    "128x256x8_s4_8x16",
    "128x128x8_s4_16x8",
    "64x128x16_s3_8x8",
    "64x64x16_s4_8x4",
];

/// The variant of `TILES[tile]` for operations `ops`, with 16-byte copies if `vec` (N,T has
/// none: its `_u` variant).
pub fn variant(ops: [Op; 2], tile: usize, vec: bool) -> &'static FlagshipOpsConfig {
    FLAGSHIP_OPS
        .iter()
        .find(|c| {
            c.ops == ops
                && c.name.contains(TILES[tile])
                && (c.vec == vec || !c.vec && ops == [Op::N, Op::T])
        })
        .expect("every tile has a variant of every operation pair (flagship_ops_config.rs)")
}

/// What the model needs to know of the GPU: its multiprocessors and how many blocks of each
/// tile (`TILES` order) one holds at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    pub sms: u32,
    pub per_sm: [u32; 4],
}

/// The H200's occupancy of the four tiles (blocks per SM), as `split_run::machine` read it
/// (docs/data/session5-2026-11-24/shapes/call1/route_timings.txt): the machine the CPU tests
/// of the route model and of the listed picks (`matmul::picks`) price on.
#[cfg(test)]
pub(crate) const H200: Machine = Machine {
    sms: 132,
    per_sm: [1, 2, 3, 5],
};

/// Whether each operand, where it is, allows 16-byte copies along its stored rows (leading
/// dimension and stride multiples of 4, 16-byte aligned, the last piece inside the buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Aligned {
    pub a: bool,
    pub b: bool,
}

/// Floating-point rate of one multiprocessor running the tuned N,N kernel with enough warps
/// (H200: 51.2 TFLOP/s over 132 SMs at 4096³, as cuBLAS).
const SM_FLOPS: f64 = 51.2e12 / 132.0;
/// Warps per multiprocessor from which latency is hidden; below, the rate falls as the square
/// root of the fraction (H200: one 4-warp 64x128 block per SM ran 1024³ at 65% of the rate).
const FULL_WARPS: f64 = 8.0;
/// Bytes per second of the pre-pass and the split sum (H200: 4.8 TB/s peak).
const COPY_BANDWIDTH: f64 = 3.0e12;
/// Cost of one more launch on the stream, seconds.
const LAUNCH: f64 = 3.0e-6;
/// The fewest k-values of one split (its pipeline fill and epilogue must amortize).
pub const MIN_SPLIT_K: usize = 256;
/// The split counts weighed: a geometric ladder up to 64 (a choice weighs every one against
/// every tile and pre-pass, so the ladder keeps it short; `tests/gpu_route_timing` times the
/// same counts).
pub const SPLIT_COUNTS: [u32; 11] = [2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];
/// A route other than the direct one must be estimated at most this fraction of the direct
/// one's time: a pre-pass alone ([`MARGIN`]) or with split-K ([`SPLIT_MARGIN`]); the model
/// was within a few percent of the H200's times on the problems that decide these
/// (`picks_follow_the_h200_measurements`).
pub const MARGIN: f64 = 0.96;
pub const SPLIT_MARGIN: f64 = 0.96;
/// [`MARGIN`] for a pre-pass alone on one problem: the model was within 1 % of the H200's
/// times of the route that decides it (4097x4095x1023 with B re-pitched, 3 % faster than direct
/// in three runs, sessions 5 and 9; docs/matmul.md "Session 9: mid-size problems").
pub const SINGLE_MARGIN: f64 = 0.97;

/// Estimated seconds of one launch of a `bm x bn x bk` tile kernel of `warps` warps over
/// `batch · splits` problems of `m x n x k/splits`, `per_sm` blocks resident per SM, at
/// efficiency `eff`: the busiest multiprocessor's blocks, at the rate its concurrent warps allow.
#[allow(clippy::too_many_arguments)]
fn grid_time(
    (m, n, k): (usize, usize, usize),
    batch: usize,
    splits: u32,
    (bm, bn, bk): (u32, u32, u32),
    warps: u32,
    per_sm: u32,
    sms: u32,
    eff: f64,
) -> f64 {
    let tiles = m.div_ceil(bm as usize) * n.div_ceil(bn as usize);
    let blocks = tiles * batch * splits as usize;
    let busiest = blocks.div_ceil(sms.max(1) as usize);
    let kp = k.div_ceil(splits as usize).next_multiple_of(bk as usize);
    let work = 2.0 * (bm as f64) * (bn as f64) * kp as f64;
    // The busiest multiprocessor runs its blocks `per_sm` at a time, sharing its rate, which
    // the warps of the blocks running together set; a last, smaller round runs alone.
    let round = |together: usize| {
        let occupancy = ((together as f64 * warps as f64) / FULL_WARPS)
            .min(1.0)
            .sqrt();
        together as f64 * work / (SM_FLOPS * eff * occupancy * tile_efficiency(bm, bn))
    };
    let per_sm = per_sm.max(1) as usize;
    let (full, rest) = (busiest / per_sm, busiest % per_sm);
    full as f64 * round(per_sm) + if rest > 0 { round(rest) } else { 0.0 } + LAUNCH
}

/// The problem after the pre-pass: its operations and which operands allow 16-byte copies.
fn after(op: &Gemm, aligned: Aligned, a: Prep, b: Prep) -> ([Op; 2], Aligned) {
    let flip = |o: Op| if o == Op::N { Op::T } else { Op::N };
    let ops = [
        if a == Prep::Transpose {
            flip(op.op_a)
        } else {
            op.op_a
        },
        if b == Prep::Transpose {
            flip(op.op_b)
        } else {
            op.op_b
        },
    ];
    let fresh = |p: Prep, was: bool| p != Prep::Keep || was;
    (
        ops,
        Aligned {
            a: fresh(a, aligned.a),
            b: fresh(b, aligned.b),
        },
    )
}

/// Whether the variant for `ops` copies with 16-byte pieces: its straight operands (A stored
/// transposed, B as is) allow them.
fn variant_vec(ops: [Op; 2], al: Aligned) -> bool {
    (ops[0] == Op::N || al.a) && (ops[1] == Op::T || al.b)
}

/// Seconds of the pre-pass of one operand stored `rows x cols` (`batch` of them).
fn prep_time(p: Prep, rows: usize, cols: usize, batch: usize) -> f64 {
    match p {
        Prep::Keep => 0.0,
        Prep::Transpose | Prep::Repitch => {
            8.0 * (rows * cols * batch) as f64 / COPY_BANDWIDTH + LAUNCH
        }
    }
}

/// The tile of the variants' default choice (`select_ops::choose_ops_kernel`), by index into
/// [`TILES`]: the largest whose grid, over the whole batch, has a block for at least 90% of the
/// multiprocessors; for one problem no 128-row tile when K is below `SHORT_K` (the N,N rule,
/// `select::choose_kernel`), nor a tile of which half or more would be padding. A batch has
/// waves enough to hide a short K's pipeline fill, so it takes the large tiles (H200, 256³ x 512
/// N,N: 128x256 0.444 ms, 64x128 0.470; T,T 0.476 against 0.535), except where a tile would pad
/// a ninth or more (384³ x 100 N,T: 128x256 0.479 ms, 64x128 0.395), and where it pads a ninth
/// more than the smallest tile does (session 8: 192³ x 384 N,N on 64x128 0.185 ms, on 64x64
/// 0.149; 320³ x 256 0.458 and 0.416; 200³ x 600, where both pad alike, 0.393 and 0.412).
pub fn default_ops_tile(m: usize, n: usize, k: usize, batch: usize, sms: u32) -> usize {
    let (m, n) = (m.min(MAX_DIM) as u64, n.min(MAX_DIM) as u64);
    let enough = u64::from(sms.saturating_mul(9).div_ceil(10));
    let dims = [(128u64, 256u64), (128, 128), (64, 128), (64, 64)];
    let pad = |(bm, bn): (u64, u64)| m.next_multiple_of(bm) * n.next_multiple_of(bn);
    let least = pad(dims[dims.len() - 1]);
    let mut last = 0;
    for (i, &(bm, bn)) in dims.iter().enumerate() {
        last = i;
        let padded = pad((bm, bn));
        let skip = 2 * m * n <= padded
            || if batch == 1 {
                k < SHORT_K && bm >= 128
            } else {
                (bm >= 128 && 8 * padded > 9 * m * n) || 8 * padded > 9 * least
            };
        if skip {
            continue;
        }
        if m.div_ceil(bm) * n.div_ceil(bn) * batch as u64 >= enough {
            return i;
        }
    }
    last
}

/// [`grid_time`] of variant tile `tile` (configuration `c`) for `op`: `batch` problems of
/// `splits` K-ranges each, at kernel efficiency `eff`.
fn variant_grid_time(
    op: &Gemm,
    c: &FlagshipOpsConfig,
    tile: usize,
    batch: usize,
    splits: u32,
    eff: f64,
    mc: &Machine,
) -> f64 {
    grid_time(
        (op.m, op.n, op.k),
        batch,
        splits,
        (c.bm, c.bn, c.bk),
        c.threads() / 32,
        mc.per_sm[tile],
        mc.sms,
        eff,
    )
}

/// Estimated seconds of the GEMM (and split sum) part of a route for operations `ops`.
fn gemm_time(op: &Gemm, ops: [Op; 2], al: Aligned, split: Option<SplitK>, mc: &Machine) -> f64 {
    let vec = variant_vec(ops, al);
    match split {
        None if ops == [Op::N, Op::N] && op.batch == 1 => direct_flagship_time(op, al.b, mc),
        None if op.batch == 1 && single_t::takes(ops, vec) => single_t::time(op, ops, mc),
        None if single_t::unaligned(op, vec, mc.sms).is_some() => single_t::time_unaligned(op, mc),
        None => {
            let tile = batch_tile(op, mc);
            // An N,N batch with B aligned runs the tuned flagship (`select_ops::batch_kernel`;
            // H200, session 8: 256³ x 512 95.1 % of cuBLAS, the variant 86.8 %), so an N,T
            // batch's B is worth transposing. (Split-K's batch runs it too, but its picks keep
            // the variant's estimate they were calibrated with: priced as the flagship, the
            // model split problems it measured faster direct, 1025x1023x1023.)
            // So does a batch with a transposed operand where its straight copies are aligned
            // (`select_ops::batched_flagship`; `vec` always for N,T, which has none).
            let eff = kernel_efficiency(ops, vec && op.batch > 1, vec);
            variant_grid_time(op, variant(ops, tile, vec), tile, op.batch, 1, eff, mc)
        }
        Some(s) if s.fused() => fused_time(op, ops, vec, s, mc),
        Some(s) => {
            let c = variant(ops, s.tile, vec);
            // The variant's estimate, which the split picks were calibrated with, also where
            // the batch runs the tuned body (N,N above; a transposed pair where one problem
            // takes it, `single_t`).
            let eff = kernel_efficiency(ops, false, vec);
            let slices = s.splits as f64 * (op.m * op.n) as f64;
            // Partial sums written and read back, C written (and read with beta).
            let c_bytes = if op.beta == 0.0 { 4.0 } else { 8.0 } * (op.m * op.n) as f64;
            let sum = (8.0 * slices + c_bytes) / COPY_BANDWIDTH + LAUNCH;
            variant_grid_time(op, c, s.tile, 1, s.splits, eff, mc) + sum
        }
    }
}

/// Estimated seconds of `route` for `op`.
pub fn route_time(op: &Gemm, aligned: Aligned, route: &Route, mc: &Machine) -> f64 {
    let (ops, al) = after(op, aligned, route.a, route.b);
    let (sa, sb) = stored_shapes(op);
    // A T,N problem brought to N,N by A's transpose, then straight to the flagship (the other
    // pairs' pre-pass routes keep their estimates: not measured against the tuned body yet).
    let to_flagship = [op.op_a, op.op_b] == [Op::T, Op::N]
        && ops == [Op::N, Op::N]
        && route.split.is_none()
        && op.batch == 1;
    prep_time(route.a, sa.0, sa.1, op.batch)
        + prep_time(route.b, sb.0, sb.1, op.batch)
        + gemm_time(op, ops, al, route.split, mc)
        + if to_flagship {
            single_t::prepass_latency(op, al.b, mc)
        } else {
            0.0
        }
}

/// Rows and columns of the stored A and B.
pub fn stored_shapes(op: &Gemm) -> ((usize, usize), (usize, usize)) {
    let a = match op.op_a {
        Op::N => (op.m, op.k),
        Op::T => (op.k, op.m),
    };
    let b = match op.op_b {
        Op::N => (op.k, op.n),
        Op::T => (op.n, op.k),
    };
    (a, b)
}

/// Whether split-K may run on tile `TILES[tile]` for `op`: no 128-row tile when K is below
/// `SHORT_K`, the rule of the direct choice (`select::choose_kernel`), since each split has
/// still fewer k-slices to hide the large tile's pipeline fill and epilogue behind (H200,
/// session 9: 999x1111x1023 T,N split 3 ways on 128x256, the model's pick, 67 % of cuBLAS in
/// two runs; 1000x777x1025 T,N split 4 ways on it 0.093 ms against 0.076 direct, session 6).
pub fn split_tile_allowed(op: &Gemm, tile: usize) -> bool {
    op.k >= SHORT_K || !TILES[tile].starts_with("128x")
}

/// Every route worth estimating for `op` on `mc`: each operand kept, transposed, or re-pitched
/// where it does not allow 16-byte copies; split-K (one problem only) for every tile and split
/// count leaving each split at least [`MIN_SPLIT_K`] k-values, and the in-kernel splits of
/// `fused_candidates`.
pub fn candidates(op: &Gemm, aligned: Aligned, mc: &Machine) -> Vec<Route> {
    let preps = |ok: bool| {
        let mut v = vec![Prep::Keep, Prep::Transpose];
        if !ok {
            v.push(Prep::Repitch);
        }
        v
    };
    let mut splits = vec![None];
    if op.batch == 1 {
        let most = op.k / MIN_SPLIT_K;
        for tile in (0..TILES.len()).filter(|&t| split_tile_allowed(op, t)) {
            splits.extend(
                SPLIT_COUNTS
                    .iter()
                    .filter(|&&s| s as usize <= most)
                    .map(|&splits| {
                        Some(SplitK {
                            tile,
                            splits,
                            sum: SplitSum::Launch,
                        })
                    }),
            );
        }
    }
    let mut out = Vec::new();
    for a in preps(aligned.a) {
        for b in preps(aligned.b) {
            for &split in &splits {
                out.push(Route { a, b, split });
            }
            if op.batch == 1 {
                out.extend(fused_candidates(op, aligned, a, b, mc));
            }
        }
    }
    out
}

/// The route for `op` on `mc`: the cheapest of [`candidates`] whose estimate is within its
/// margin ([`MARGIN`], [`SINGLE_MARGIN`], [`SPLIT_MARGIN`]) of the direct route's, else the
/// direct route.
pub fn choose_route(op: &Gemm, aligned: Aligned, mc: &Machine) -> Route {
    let direct = route_time(op, aligned, &Route::DIRECT, mc);
    candidates(op, aligned, mc)
        .into_iter()
        .map(|r| (route_time(op, aligned, &r, mc), r))
        .filter(|(t, r)| {
            *t <= direct
                * match (r.split, op.batch) {
                    (Some(_), _) => SPLIT_MARGIN,
                    (None, 1) => SINGLE_MARGIN,
                    (None, _) => MARGIN,
                }
        })
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .map_or(Route::DIRECT, |(_, r)| r)
}

mod batch_tile;
mod efficiency;
mod flagship_grid;
mod fused;
mod parse;
pub mod single_t;
pub mod tuned_grid;
pub use batch_tile::batch_tile;
use efficiency::{kernel_efficiency, tile_efficiency};
use flagship_grid::{FIXUP_BANDWIDTH, direct_flagship_time, flagship_grid_time_on, flagship_tile};
pub use fused::{
    FUSED_COUNTS, MAX_FUSED_FLAGSHIP, MAX_FUSED_VARIANT, MIN_FUSED_K, fused_on_flagship,
};
use fused::{fused_candidates, fused_time};
pub use parse::parse_route;

#[cfg(test)]
mod tests;
