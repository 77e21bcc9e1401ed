//! The flagship SGEMM's memory helpers outside its main loop: global loads and the
//! predicated or vectorized stores of the epilogue, the rasterized tile origin, and the
//! stream-K fix-up (the partial-sum workspace and the per-tile counters). All are
//! `#[inline(always)]`: they exist only inside the kernels of `flagship.rs`.
use cuda_std::thread;
use seq_macro::seq;

use super::SgemmParams;
use super::stream_k::Split;
use crate::ptx::{atom_add_acq_rel_gpu, fence_acq_rel_gpu, ld_global_cg, st_global};

/// Coherent 16-byte global load (C is read and written by this launch, so not `.nc`), as
/// floats. (`ptx::ld_global_v4` and `ptx::ld_global` with conversions instead renumber the
/// kernels' PTX registers, which can change ptxas's allocation of the timed kernels.)
///
/// # Safety
/// `p` must point to 4 readable floats of global memory, 16-byte aligned.
#[inline(always)]
pub(super) unsafe fn ld_global4(p: *const f32) -> [f32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: `p` is 4 aligned readable floats (the caller's contract).
    unsafe {
        core::arch::asm!("ld.global.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) a,
             b = out(reg32) b, c = out(reg32) c, d = out(reg32) d, p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    [
        f32::from_bits(a),
        f32::from_bits(b),
        f32::from_bits(c),
        f32::from_bits(d),
    ]
}

/// Coherent 4-byte global load (C, as [`ld_global4`]).
///
/// # Safety
/// `p` must point to a readable float of global memory.
#[inline(always)]
pub(super) unsafe fn ld_global1(p: *const f32) -> f32 {
    let v: u32;
    // SAFETY: `p` is a readable float (the caller's contract).
    unsafe {
        core::arch::asm!("ld.global.b32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    f32::from_bits(v)
}

/// Writes 4 consecutive outputs `v` (accumulated A·B) of row `row`, columns `col..col + 4`:
/// `alpha·v + beta·C`, reading C only when `beta != 0`. `fast`: the 4 are in range and 16-byte
/// aligned.
///
/// # Safety
/// `p` must satisfy the [`SgemmParams`] contract, `(row, col)` lie in the padded tile grid of C
/// (row < m rounded up to the tile, col likewise), and no other thread may store these 4 outputs.
#[inline(always)]
pub(super) unsafe fn store4(p: &SgemmParams, row: u32, col: u32, v: [f32; 4], fast: bool) {
    let at = row as usize * p.ldc as usize + col as usize;
    // SAFETY: `at` is inside C for row < m and col < n. For a row or column past C's edge (a
    // partial tile) the pointer is formed but never dereferenced: every access below is under
    // `fast` (the whole tile is inside C) or `row < m` and `col + J < n`. (Rust's `add` asks for an
    // in-bounds result even unused; `wrapping_add` would say so, but may change the PTX.)
    let ptr = unsafe { p.c.add(at) };
    if fast {
        let mut out = [0u32; 4];
        if p.beta == 0.0 {
            seq!(J in 0..4 { out[J] = (p.alpha * v[J]).to_bits(); });
        } else {
            // SAFETY: `fast`: the 4 floats are inside C and 16-byte aligned (ldc % 4 == 0 and C
            // aligned).
            let old = unsafe { ld_global4(ptr) };
            seq!(J in 0..4 { out[J] = (p.alpha * v[J] + p.beta * old[J]).to_bits(); });
        }
        // SAFETY: as the load: 4 aligned floats of C, this thread's outputs only.
        unsafe { st_global::<4>(ptr as *mut u32, out) };
    } else if row < p.m {
        seq!(J in 0..4 {
            if col + J < p.n {
                // SAFETY: row < m and col + J < n (checked above): a cell of C.
                let q = unsafe { ptr.add(J) };
                let out = if p.beta == 0.0 {
                    p.alpha * v[J]
                } else {
                    // SAFETY: `q` is a cell of C (see above).
                    p.alpha * v[J] + p.beta * unsafe { ld_global1(q) }
                };
                // SAFETY: `q` is a cell of C that only this thread stores.
                unsafe { st_global::<1>(q as *mut u32, [out.to_bits()]) };
            }
        });
    }
}

/// The first row and column of `tile` (numbered in launch order): rasterized, `group` tile rows
/// walked down before moving one tile column right, so the blocks of a wave share A and B
/// panels in L2.
#[inline(always)]
pub(super) fn tile_origin<const BM: u32, const BN: u32>(p: &SgemmParams, tile: u32) -> (u32, u32) {
    let tiles_m = p.m.div_ceil(BM);
    let per_group = p.group * p.n.div_ceil(BN);
    let first = tile / per_group * p.group;
    let gsize = if tiles_m - first < p.group {
        tiles_m - first
    } else {
        p.group
    };
    let in_group = tile % per_group;
    ((first + in_group % gsize) * BM, in_group / gsize * BN)
}

/// Index in `SgemmParams::partials` of accumulator `e` (the `e % 4`-th of 4-vector `e / 4`) of
/// thread `tid` in slot `slot` (slots of `SLOT` floats): a warp's 32 threads store and load 128
/// consecutive bytes. The stores are 4-byte ones: a 16-byte store would need its 4 accumulators
/// in an aligned register quad, which ties ptxas's allocation of the main loop (179 FFMAs per
/// k-slice reading two operands from one register bank, against 116 with 4-byte stores;
/// docs/matmul.md).
#[inline(always)]
pub(super) fn partial_index<const NT: u32, const SLOT: u32>(slot: u32, e: u32, tid: u32) -> usize {
    slot as usize * SLOT as usize + e as usize * NT as usize + tid as usize
}

/// Counts this block's stored segment of a split tile; true in the block that completes the
/// count, which then sums the tile. The same answer in every thread.
///
/// # Safety
/// `p` must satisfy the [`SgemmParams`] contract with `sk_blocks > 0`, `tile` < `sk_tiles` and
/// `nseg` its segment count; every thread of the block must call it (it has barriers).
#[inline(always)]
pub(super) unsafe fn stream_k_count(p: &SgemmParams, tile: u32, nseg: u32) -> bool {
    // Every thread's partial sums are visible GPU-wide before thread 0 counts them.
    fence_acq_rel_gpu();
    thread::sync_threads();
    let last = thread::thread_idx_x() == 0
        // SAFETY: `tile` < sk_tiles (only split tiles get here), so `counters + tile` is one of the
        // counters the [`SgemmParams`] contract provides; the add is atomic.
        && unsafe { atom_add_acq_rel_gpu(p.counters.add(tile as usize), 1) } + 1 == nseg;
    let last = thread::sync_threads_or(last as u32) != 0;
    if last {
        fence_acq_rel_gpu();
    }
    last
}

/// 4-vector `q` of this thread in a split tile, summed over the tile's `nseg` segments (blocks
/// `seg0..seg0 + nseg`) in order, segment 0 first, so the result does not depend on which block
/// sums.
///
/// # Safety
/// `p` must satisfy the [`SgemmParams`] contract with `split` its split, `tile` a split tile with
/// segments `seg0..seg0 + nseg`, `q` < RM * RN / 4, and every segment's partial sums stored and
/// made visible ([`stream_k_count`] returned true).
#[inline(always)]
pub(super) unsafe fn stream_k_sum<const NT: u32, const SLOT: u32>(
    p: &SgemmParams,
    split: &Split,
    tile: u32,
    seg0: u32,
    nseg: u32,
    q: u32,
) -> [f32; 4] {
    let tid = thread::thread_idx_x();
    let load = |c: u32| {
        let base = partial_index::<NT, SLOT>(split.slot(c, tile), 4 * q, tid);
        // SAFETY: `base + j * NT` < 2 * sk_blocks * SLOT: slot < 2 * sk_blocks (`Split::slot`),
        // 4 * q + j < SLOT / NT accumulators per thread and tid < NT, inside `partials` (the
        // [`SgemmParams`] contract); the writers' stores precede this read through
        // `stream_k_count`'s fences and counter.
        let v: [u32; 4] = core::array::from_fn(|j| unsafe {
            ld_global_cg(p.partials.add(base + j * NT as usize) as *const u32)
        });
        v.map(f32::from_bits)
    };
    let mut total = load(seg0);
    let mut s = 1;
    while s < nseg {
        let x = load(seg0 + s);
        total = [
            total[0] + x[0],
            total[1] + x[1],
            total[2] + x[2],
            total[3] + x[3],
        ];
        s += 1;
    }
    total
}

/// Accumulator 4-vectors fetched together by [`stream_k_sum_group`] (divides every variant's
/// `RM * RN / 4`: 8, 16, 32).
pub(super) const SUM_GROUP: u32 = 8;
// The groups below are unrolled by literal.
const _: () = assert!(SUM_GROUP == 8);

/// 4-vectors `q0..q0 + SUM_GROUP` of this thread in a split tile, summed over the tile's `nseg`
/// segments in order, segment 0 first, exactly as [`stream_k_sum`] sums each (so the result
/// does not depend on which block sums). The variants' fix-up: the `SUM_GROUP` vectors of one
/// segment are loaded together, one memory round trip per segment and group instead of one per
/// segment and vector, which is what makes a split over more segments (route.rs's in-kernel
/// split) cheap. Not used by the tuned N,N kernels, whose code stays as it was.
///
/// # Safety
/// As [`stream_k_sum`] for every `q` in `q0..q0 + SUM_GROUP`.
#[inline(always)]
pub(super) unsafe fn stream_k_sum_group<const NT: u32, const SLOT: u32>(
    p: &SgemmParams,
    split: &Split,
    tile: u32,
    seg0: u32,
    nseg: u32,
    q0: u32,
) -> [[f32; 4]; SUM_GROUP as usize] {
    let tid = thread::thread_idx_x();
    let load = |c: u32| {
        let slot = split.slot(c, tile);
        let mut out = [[0f32; 4]; SUM_GROUP as usize];
        seq!(Q in 0..8 {
            seq!(J in 0..4 {
                let idx = partial_index::<NT, SLOT>(slot, 4 * (q0 + Q) + J, tid);
                // SAFETY: as in `stream_k_sum`: inside `partials`, the writers' stores visible
                // through `stream_k_count`.
                out[Q][J] = f32::from_bits(unsafe { ld_global_cg(p.partials.add(idx) as *const u32) });
            });
        });
        out
    };
    let mut total = load(seg0);
    let mut s = 1;
    while s < nseg {
        let x = load(seg0 + s);
        seq!(Q in 0..8 {
            seq!(J in 0..4 {
                total[Q][J] += x[Q][J];
            });
        });
        s += 1;
    }
    total
}
