//! Graph statistics from a solved distance matrix (`host apsp --stats`), without the matrix
//! leaving the GPU: per vertex the largest finite distance from it, the counts and sums of the
//! finite distances from it and to it, and the sum of the reciprocals of the distances to it.
//! The host turns these into eccentricity, closeness, harmonic centrality and the graph's
//! measures (`rgk_core::apsp::stats`).
//!
//! Two kernels. `apsp_stats_tiles` reads every cell once: block `(x, y)` covers `STATS_COLUMNS`
//! columns and `rows_per_block` rows; thread t owns 4 columns (one 16-byte load per row, a warp
//! reads 512 contiguous bytes), accumulates those columns over the block's rows in registers
//! (so no two threads ever add into the same column), and reduces each row over the block's
//! columns: within the warp by butterfly shuffles, then across the warps through shared memory
//! once per 32 rows. Each block writes one partial per row (in column band x) and one per
//! column (in row band y) — no atomics, so the integer results are exact and the f64 harmonic
//! sums are the same from run to run. `apsp_stats_finish` adds the bands per vertex in order.
//!
//! Partials: `row_max[x][i]` (u32 in a u64), `row_packed[x][i]`, `col_packed[y][j]`,
//! `col_harm[y][j]` (f64 bits), each band `stride` u64 long. A packed partial is
//! `count << STATS_COUNT_SHIFT | sum` (see that constant for why it cannot overflow), which
//! halves the 64-bit adds and shuffles.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::{
    STATS_COLUMNS, STATS_COUNT_SHIFT, STATS_ROW_CHUNK, STATS_THREADS, STATS_WARPS, StatsField,
    format::INF,
};
use crate::ptx::{
    ld_global_nc, ld_global_v4, ld_shared, rcp_rn_f64, shared_addr, shfl_bfly, st_global, st_shared,
};

// The unrolled loops below are written for these (seq! needs literals).
const _: () = assert!(STATS_THREADS == 256 && STATS_WARPS == 8 && STATS_ROW_CHUNK == 32);
const _: () = assert!(STATS_COLUMNS == 4 * STATS_THREADS);

/// One reachable cell in a packed partial.
const ONE: u64 = 1 << STATS_COUNT_SHIFT;
/// The sum bits of a packed partial.
const SUM_MASK: u64 = ONE - 1;

#[inline(always)]
fn st_u64(p: *mut u64, v: u64) {
    // SAFETY: the callers pass cells inside the buffers the host allocated for them.
    unsafe { st_global::<2>(p as *mut u32, [v as u32, (v >> 32) as u32]) }
}

#[inline(always)]
fn ld_u64(p: *const u64) -> u64 {
    // SAFETY: as `st_u64`; the partials were written by the previous launch, so the read-only
    // path is coherent for them.
    let [lo, hi] = unsafe { ld_global_nc::<2>(p as *const u32) };
    lo as u64 | (hi as u64) << 32
}

/// A u64 from the lane at xor `mask` (two 32-bit shuffles).
#[inline(always)]
fn shfl_bfly_u64(v: u64, mask: u32) -> u64 {
    shfl_bfly(v as u32, mask) as u64 | (shfl_bfly((v >> 32) as u32, mask) as u64) << 32
}

/// The partials of one tile of `d` (row pitch `pitch` i32, the first `v` rows and columns are
/// the graph). Launch: `(ceil(v / STATS_COLUMNS), ceil(v / rows_per_block))` blocks of
/// `STATS_THREADS`; `rows_per_block` a multiple of `STATS_ROW_CHUNK`, at most
/// `STATS_MAX_TILE_ROWS`; `pitch` a multiple of 4 and `stride >= v` a multiple of 4.
///
/// # Safety
///
/// `d` points to a solved matrix of at least `v` rows of `pitch` i32 (16-byte aligned), and the
/// partial buffers hold one entry per row and column band of this grid (`stride` apart), as
/// `host::apsp::stats` allocates them; launched with the geometry above.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_stats_tiles(
    d: *const i32,
    pitch: u32,
    v: u32,
    rows_per_block: u32,
    stride: u32,
    row_max: *mut u64,
    row_packed: *mut u64,
    col_packed: *mut u64,
    col_harm: *mut u64,
) {
    #[address_space(shared)]
    static mut MAX: [MaybeUninit<u32>; STATS_THREADS as usize] =
        [MaybeUninit::uninit(); STATS_THREADS as usize];
    #[address_space(shared)]
    static mut PACKED: [MaybeUninit<u64>; STATS_THREADS as usize] =
        [MaybeUninit::uninit(); STATS_THREADS as usize];
    let (s_max, s_packed) = (shared_addr(addr_of!(MAX)), shared_addr(addr_of!(PACKED)));
    let t = thread::thread_idx_x();
    let (lane, warp) = (t % 32, t / 32);
    let (bx, by) = (thread::block_idx_x(), thread::block_idx_y());
    let col0 = bx * STATS_COLUMNS + 4 * t;
    let row0 = by * rows_per_block;
    // Padding columns (col0 + k >= v) are INF in the matrix except on the padding diagonal,
    // and rows >= v are not read: every cell is masked by the graph's size.
    let live = [0, 1, 2, 3].map(|k| col0 + k < v);
    let mut c_packed = [0u64; 4];
    let mut c_harm = [0f64; 4];
    let mut chunk = 0;
    while chunk < rows_per_block {
        // After the chunk, lane r holds this warp's partial of row chunk + r.
        let (mut keep_max, mut keep_packed) = (0u32, 0u64);
        // 4 groups of 8 rows: a loop, not unrolled, so that only one group's loads are in
        // registers at a time.
        let mut g = 0;
        while g < 4 {
            // 8 rows' loads in flight at once, then their sums.
            let mut q = [[INF as u32; 4]; 8];
            seq!(R in 0..8 {
                let i = row0 + chunk + g * 8 + R;
                if live[0] && i < v {
                    // SAFETY: row i < v and columns col0..col0 + 4 <= pitch of the matrix.
                    q[R] = unsafe {
                        ld_global_v4((d as *const u32).add(i as usize * pitch as usize + col0 as usize))
                    };
                }
            });
            seq!(R in 0..8 {
                let (mut mx, mut packed) = (0u32, 0u64);
                seq!(K in 0..4 {
                    let x = q[R][K];
                    let reach = live[K] && x < INF as u32;
                    let term = if reach { ONE | x as u64 } else { 0 };
                    packed += term;
                    c_packed[K] += term;
                    mx = mx.max(if reach { x } else { 0 });
                    // 1/d over the finite non-zero distances (networkx skips d = 0: the
                    // diagonal and zero-weight paths); max(x, 1) keeps rcp off its slow path.
                    let inv = rcp_rn_f64(x.max(1) as f64);
                    c_harm[K] += if reach && x > 0 { inv } else { 0.0 };
                });
                seq!(S in 0..5 {
                    mx = mx.max(shfl_bfly(mx, 1 << S));
                    packed += shfl_bfly_u64(packed, 1 << S);
                });
                if lane == g * 8 + R {
                    keep_max = mx;
                    keep_packed = packed;
                }
            });
            g += 1;
        }
        // SAFETY: thread t's own slot of the two shared arrays.
        unsafe {
            st_shared::<1>(s_max + 4 * t, [keep_max]);
            st_shared::<2>(
                s_packed + 8 * t,
                [keep_packed as u32, (keep_packed >> 32) as u32],
            );
        }
        thread::sync_threads();
        if warp == 0 {
            let (mut mx, mut packed) = (0u32, 0u64);
            seq!(W in 0..8 {
                let slot = W * 32 + lane;
                // SAFETY: slots written before the barrier above.
                let (m, [lo, hi]) = unsafe {
                    (ld_shared::<1>(s_max + 4 * slot)[0], ld_shared::<2>(s_packed + 8 * slot))
                };
                mx = mx.max(m);
                packed += lo as u64 | (hi as u64) << 32;
            });
            let i = row0 + chunk + lane;
            if i < v {
                let at = bx as usize * stride as usize + i as usize;
                // SAFETY: band bx < ceil(v / STATS_COLUMNS) of the host's buffers, row i < v.
                unsafe {
                    st_u64(row_max.add(at), mx as u64);
                    st_u64(row_packed.add(at), packed);
                }
            }
        }
        // The shared slots are written again in the next chunk.
        thread::sync_threads();
        chunk += STATS_ROW_CHUNK;
    }
    seq!(K in 0..4 {
        if live[K] {
            let at = by as usize * stride as usize + (col0 + K) as usize;
            // SAFETY: band by < ceil(v / rows_per_block) of the host's buffers, column < v.
            unsafe {
                st_u64(col_packed.add(at), c_packed[K]);
                st_u64(col_harm.add(at), c_harm[K].to_bits());
            }
        }
    });
}

/// Adds the bands of the partials per vertex, in band order, into `out` (`StatsField::COUNT`
/// arrays of `stride` u64, in `StatsField` order). One thread per vertex, `STATS_FINISH_THREADS`
/// per block; `col_bands` and `row_bands` are the tiles kernel's grid.
///
/// # Safety
///
/// The partial buffers are those the tiles kernel wrote with the same `v`, `stride` and bands,
/// and `out` holds `StatsField::COUNT * stride` u64; launched with one thread per vertex.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn apsp_stats_finish(
    v: u32,
    stride: u32,
    col_bands: u32,
    row_bands: u32,
    row_max: *const u64,
    row_packed: *const u64,
    col_packed: *const u64,
    col_harm: *const u64,
    out: *mut u64,
) {
    let u = thread::index_1d();
    if u >= v {
        return;
    }
    let (mut out_max, mut out_count, mut out_sum) = (0u64, 0u64, 0u64);
    let mut b = 0;
    while b < col_bands {
        let at = b as usize * stride as usize + u as usize;
        // SAFETY: band b of the partials, vertex u < v.
        let (m, p) = unsafe { (ld_u64(row_max.add(at)), ld_u64(row_packed.add(at))) };
        out_max = out_max.max(m);
        out_count += p >> STATS_COUNT_SHIFT;
        out_sum += p & SUM_MASK;
        b += 1;
    }
    let (mut in_count, mut in_sum, mut harm) = (0u64, 0u64, 0f64);
    let mut b = 0;
    while b < row_bands {
        let at = b as usize * stride as usize + u as usize;
        // SAFETY: as above.
        let (p, h) = unsafe { (ld_u64(col_packed.add(at)), ld_u64(col_harm.add(at))) };
        in_count += p >> STATS_COUNT_SHIFT;
        in_sum += p & SUM_MASK;
        harm += f64::from_bits(h);
        b += 1;
    }
    let field = |f: StatsField| f as usize * stride as usize + u as usize;
    // SAFETY: `out` holds StatsField::COUNT arrays of `stride` u64, u < v <= stride.
    unsafe {
        st_u64(out.add(field(StatsField::OutMax)), out_max);
        st_u64(out.add(field(StatsField::OutCount)), out_count);
        st_u64(out.add(field(StatsField::OutSum)), out_sum);
        st_u64(out.add(field(StatsField::InCount)), in_count);
        st_u64(out.add(field(StatsField::InSum)), in_sum);
        st_u64(out.add(field(StatsField::InHarmonic)), harm.to_bits());
    }
}
