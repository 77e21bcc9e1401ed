//! The skinny kernels' output: one output written to C (alpha, beta) or stored as a split's
//! partial sum ([`finish`]), and the reduction kernel that adds the splits' partial sums up in a
//! fixed order, split 0 first (so the result does not depend on timing), and writes C.
use cuda_std::{kernel, thread};

use seq_macro::seq;

use super::skinny::SkinnyParams;
use crate::ptx::{ld_global, ld_global_nc, st_global};

/// `alpha·v + beta·C[r][c]`, reading C only when `beta != 0` (BLAS: NaN in C does not leak).
///
/// # Safety
/// `r < m`, `c < n` and `p` satisfies the [`SkinnyParams`] contract.
#[inline(always)]
pub(super) unsafe fn write_c(p: &SkinnyParams, r: u32, c: u32, v: f32) {
    // SAFETY: r < m, c < n: a cell of C.
    let q = unsafe { p.c.add(r as usize * p.ldc as usize + c as usize) } as *mut u32;
    let out = if p.beta == 0.0 {
        p.alpha * v
    } else {
        // SAFETY: `q` is a cell of C.
        p.alpha * v + p.beta * f32::from_bits(unsafe { ld_global(q) })
    };
    // SAFETY: a cell of C that only this thread writes.
    unsafe { st_global::<1>(q, [out.to_bits()]) };
}

/// Output `(r, c)` of this block's split, `v` = its part of (A·B)[r][c]: written to C when K is
/// not split, else stored in the split's workspace slice.
///
/// # Safety
/// `r < m`, `c < n`, `p` satisfies the [`SkinnyParams`] contract, the launch's grid z is
/// `splits`, and no other thread of the launch writes this output.
#[inline(always)]
pub(super) unsafe fn finish(p: &SkinnyParams, r: u32, c: u32, v: f32) {
    if p.splits <= 1 {
        // SAFETY: the caller's contract.
        unsafe { write_c(p, r, c, v) };
    } else {
        let s = thread::block_idx_z() as usize;
        let at = (s * p.m as usize + r as usize) * p.n as usize + c as usize;
        // SAFETY: s < splits, r < m, c < n: inside the `splits * m * n` floats of `work`.
        unsafe { st_global::<1>(p.work.add(at) as *mut u32, [v.to_bits()]) };
    }
}

/// Split loads of the reduction issued together (the `seq!` below is written for 16): 64 splits
/// take 4 rounds of L2 latency instead of 8 (1 x 4096 x 4096 splits 64 ways; its whole product
/// should take about 14 µs at the H200's bandwidth, and 8 rounds of ~0.6 µs were a third of
/// what was left above cuBLAS's time).
const REDUCE_UNROLL: usize = 16;

/// C = alpha·(sum of the `splits` partial products in `work`) + beta·C, one output per thread
/// of a grid-stride loop over the `m x n` outputs (consecutive threads, consecutive columns).
///
/// # Safety
/// `p` must satisfy the [`SkinnyParams`] contract with `splits > 1` and `work` holding every
/// split's partial products (written by an earlier launch on the same stream); any 1-D launch.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn sgemm_splitk_reduce(p: SkinnyParams) {
    let total = p.m as usize * p.n as usize;
    let slice = total;
    let mut i = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let stride = (thread::grid_dim_x() * thread::block_dim_x()) as usize;
    while i < total {
        // SAFETY: i < m * n: split 0's partial sum, written by the previous launch.
        let mut v = f32::from_bits(unsafe { ld_global_nc::<1>(p.work.add(i) as *const u32) }[0]);
        // The splits' loads go out REDUCE_UNROLL at a time and are added in split order: a chain
        // of one load per split would add up their latencies (64 splits of ~0.3 µs of L2 latency
        // each: about as long as the whole 1 x 4096 x 4096 product should take).
        let splits = p.splits as usize;
        let mut s = 1;
        while s < splits {
            let mut x = [0u32; REDUCE_UNROLL];
            seq!(U in 0..16 {
                if s + U < splits {
                    // SAFETY: s + U < splits, i < m * n: inside `work`.
                    x[U] = unsafe { ld_global_nc::<1>(p.work.add((s + U) * slice + i) as *const u32) }[0];
                }
            });
            seq!(U in 0..16 {
                if s + U < splits {
                    v += f32::from_bits(x[U]);
                }
            });
            s += REDUCE_UNROLL;
        }
        let (r, c) = ((i / p.n as usize) as u32, (i % p.n as usize) as u32);
        // SAFETY: r < m, c < n; output i is this thread's alone.
        unsafe { write_c(&p, r, c, v) };
        i += stride;
    }
}
