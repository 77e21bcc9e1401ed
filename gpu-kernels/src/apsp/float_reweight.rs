//! Johnson's reweighting of an f32 matrix with negative weights, so that the faster `nonneg`
//! Floyd–Warshall kernels (`FwFloatConfig::nonneg`, values in +0 ..= +inf only) can close it.
//!
//! Potentials `h` (f64, one per vertex) come from Bellman–Ford from a virtual source joined to
//! every vertex by a 0 edge: `h₀ = 0`, and one launch of [`POTENTIAL_KERNEL`] computes
//! `h_{t+1}(v) = min(h_t(v), min_u h_t(u) + w(u, v))` (Jacobi: reads `h_t`, writes `h_{t+1}`,
//! so the result does not depend on thread order). When a launch changes nothing, `h(v) ≤
//! fl(h(u) + w(u, v))` for every edge in f64, so every reweighted edge `w'(u, v) = fl(fl(w(u,
//! v) + h(u)) − h(v))` is ≥ 0 (a difference of f64 values `a ≥ b` rounds to ≥ +0) and the cycles
//! keep their weights: the shortest paths of `w'` are those of `w`, with `d'(i, j) = d(i, j) +
//! h(i) − h(j)`. [`REWEIGHT_KERNEL`] writes `w'` (rounded to f32, negative zero made +0) before
//! the solve and `d = d' − h(i) + h(j)` after it; `+inf` (no edge, no path) stays `+inf`. A
//! negative cycle keeps lowering `h`, so the host stops after a bounded number of launches and
//! solves the matrix as given instead.
//!
//! Both kernels work on the padded `n x n` matrix (row pitch `n`, `n` a multiple of 64): the
//! padding rows and columns are `+inf`, so their potentials stay 0 and their cells `+inf`.
//! Kernel arguments: [`PotentialArgs`] and [`ReweightArgs`] by value, one definition for kernel
//! and host.

/// Bellman–Ford's step: block `x` covers columns `x·POTENTIAL_COLUMNS..` (one warp wide, so
/// that a warp's loads of a row are one 128-byte line), its warps take every
/// `POTENTIAL_ROW_GROUPS`-th row, and the block adds their minima up in shared memory.
pub const POTENTIAL_KERNEL: &str = "apsp_potential_f32";
/// The reweighting before the solve and its inverse after it ([`ReweightArgs::back`]).
pub const REWEIGHT_KERNEL: &str = "apsp_reweight_f32";
pub const POTENTIAL_COLUMNS: u32 = 32;
pub const POTENTIAL_ROW_GROUPS: u32 = 8;
/// Threads per block of [`POTENTIAL_KERNEL`].
pub const POTENTIAL_THREADS: u32 = POTENTIAL_COLUMNS * POTENTIAL_ROW_GROUPS;
/// Rows a warp loads at once in [`POTENTIAL_KERNEL`] (its loop steps by
/// `POTENTIAL_ROW_GROUPS · POTENTIAL_UNROLL` rows, which must divide `n`).
pub const POTENTIAL_UNROLL: u32 = 4;
/// Threads per block of [`REWEIGHT_KERNEL`]; block `(x, y)` covers columns `x·THREADS..` of
/// rows `y, y + grid_y, ..`.
pub const REWEIGHT_THREADS: u32 = 256;

/// One Bellman–Ford step (module comment) on the padded `n x n` f32 matrix `d`. `changed` is
/// set to a non-zero value when any potential decreased.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PotentialArgs {
    pub d: *const f32,
    pub h_in: *const f64,
    pub h_out: *mut f64,
    pub changed: *mut u32,
    pub n: u32,
}

/// `d(u, v) ← max(+0, d(u, v) + h(u) − h(v))` (`back == 0`) or `d(u, v) ← d(u, v) − h(u) +
/// h(v)` (`back != 0`) on the cells that are not `+inf`, in f64, rounded to f32.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ReweightArgs {
    pub d: *mut f32,
    pub h: *const f64,
    pub n: u32,
    pub back: u32,
}

#[cfg(target_arch = "nvptx64")]
mod kernels {
    use core::mem::MaybeUninit;
    use core::ptr::addr_of;

    use cuda_std::{address_space, kernel, thread};
    use seq_macro::seq;

    use super::{
        POTENTIAL_COLUMNS, POTENTIAL_ROW_GROUPS, POTENTIAL_THREADS, POTENTIAL_UNROLL,
        PotentialArgs, REWEIGHT_THREADS, ReweightArgs,
    };
    use crate::ptx::{ld_shared, shared_addr, st_relaxed_gpu, st_shared};

    /// One Bellman–Ford step (module comment).
    ///
    /// # Safety
    /// `a.d` is a live `n x n` f32 buffer, `h_in`/`h_out` live buffers of `n` f64 that do not
    /// overlap, `changed` a live word; `n` a multiple of `POTENTIAL_ROW_GROUPS ·
    /// POTENTIAL_UNROLL` and of `POTENTIAL_COLUMNS`; grid `n / POTENTIAL_COLUMNS` blocks of
    /// `POTENTIAL_THREADS` threads.
    #[kernel]
    #[allow(improper_ctypes_definitions)]
    pub unsafe fn apsp_potential_f32(a: PotentialArgs) {
        #[address_space(shared)]
        static mut PART: [MaybeUninit<u64>; POTENTIAL_THREADS as usize] =
            [MaybeUninit::uninit(); POTENTIAL_THREADS as usize];
        let s_part = shared_addr(addr_of!(PART));
        let t = thread::thread_idx_x();
        let (lane, group) = (t % POTENTIAL_COLUMNS, t / POTENTIAL_COLUMNS);
        let v = (thread::block_idx_x() * POTENTIAL_COLUMNS + lane) as usize;
        let n = a.n as usize;
        let mut m = f64::INFINITY;
        let mut u = group as usize;
        while u < n {
            // POTENTIAL_UNROLL rows' loads in flight at once, then their sums.
            let mut q = [0f32; POTENTIAL_UNROLL as usize];
            let mut hu = [0f64; POTENTIAL_UNROLL as usize];
            seq!(R in 0..4 {
                let r = u + R * POTENTIAL_ROW_GROUPS as usize;
                // SAFETY: r < n (n is a multiple of the loop's step) and v < n (the grid), so
                // r * n + v is inside the n x n matrix; h_in has n entries.
                unsafe {
                    q[R] = *a.d.add(r * n + v);
                    hu[R] = *a.h_in.add(r);
                }
            });
            seq!(R in 0..4 {
                let s = hu[R] + q[R] as f64;
                if s < m {
                    m = s;
                }
            });
            u += (POTENTIAL_ROW_GROUPS * POTENTIAL_UNROLL) as usize;
        }
        let bits = m.to_bits();
        // SAFETY: thread t's own slot of PART, read by others only after the barrier below.
        unsafe { st_shared::<2>(s_part + 8 * t, [bits as u32, (bits >> 32) as u32]) };
        thread::sync_threads();
        if group == 0 {
            // SAFETY: v < n (the grid); h_in and h_out are n-entry buffers.
            let old = unsafe { *a.h_in.add(v) };
            let mut best = old;
            seq!(G in 0..8 {
                // SAFETY: slots written before the barrier above.
                let [lo, hi] = unsafe { ld_shared::<2>(s_part + 8 * (G * POTENTIAL_COLUMNS + lane)) };
                let x = f64::from_bits(lo as u64 | (hi as u64) << 32);
                if x < best {
                    best = x;
                }
            });
            // SAFETY: as above; `changed` is only ever set to 1 during the launch.
            unsafe {
                *a.h_out.add(v) = best;
                if best < old {
                    st_relaxed_gpu(a.changed, 1);
                }
            }
        }
    }

    /// The reweighting or its inverse ([`ReweightArgs`]).
    ///
    /// # Safety
    /// `a.d` is a live `n x n` f32 buffer and `a.h` a live buffer of `n` f64 that nothing else
    /// writes during the launch; grid `(n / REWEIGHT_THREADS rounded up, any y)` of
    /// `REWEIGHT_THREADS` threads.
    #[kernel]
    #[allow(improper_ctypes_definitions)]
    pub unsafe fn apsp_reweight_f32(a: ReweightArgs) {
        let j = (thread::block_idx_x() * REWEIGHT_THREADS + thread::thread_idx_x()) as usize;
        let n = a.n as usize;
        if j >= n {
            return;
        }
        // SAFETY: j < n.
        let hj = unsafe { *a.h.add(j) };
        let mut i = thread::block_idx_y() as usize;
        while i < n {
            let at = i * n + j;
            // SAFETY: i, j < n, so `at` is inside the matrix; cell (i, j) is this thread's.
            unsafe {
                let x = *a.d.add(at);
                if x != f32::INFINITY {
                    let hi = *a.h.add(i);
                    let y = if a.back == 0 {
                        let y = (x as f64 + hi) - hj;
                        // Rounding can leave -0 (or, with potentials from another matrix, a
                        // negative value): the `nonneg` kernels take +0 ..= +inf only.
                        if y > 0.0 { y } else { 0.0 }
                    } else {
                        (x as f64 - hi) + hj
                    };
                    *a.d.add(at) = y as f32;
                }
            }
            i += thread::grid_dim_y() as usize;
        }
    }

    // The unrolled loops above are written for these values.
    const _: () = assert!(POTENTIAL_UNROLL == 4 && POTENTIAL_ROW_GROUPS == 8);
}
