//! Rung 4 of the ladder (the study's kernel 4): 1D block tiling. Each thread computes a column
//! of `TM` outputs instead of one.
//!
//! A block of `BM * BN / TM` threads stages a `BM x BK` tile of A and a `BK x BN` tile of B in
//! shared memory (one word of each per thread, as in rung 3), then, per k, reads one word of
//! the B tile into a register and reuses it for `TM` FMAs with `TM` words of the A tile. That
//! is `TM + 1` shared loads per `TM` FMAs instead of 2 per FMA; the A words are the same for
//! the whole warp (broadcasts). The accumulators are a register array indexed only by `seq!`
//! constants.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (the `seq!(U in 0..4)` bound below).
const UNROLL: u32 = 4;

macro_rules! blocktile_1d_kernels {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt)),* $(,)?) => {$(
        /// # Safety
        /// `a`, `b` and `c` must point to 16-byte aligned, row-major f32 device matrices of
        /// `m x k`, `k x n` and `m x n` cells, padded to this kernel's tile multiples, with `c`
        /// overlapping neither `a` nor `b` (read through the non-coherent path); the launch must
        /// use this kernel's block and the grid `(n / tile_n, m / tile_m)` (see `matmul/mod.rs`).
        /// Every index formed below then lies inside the matrices: no kernel has bounds checks.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32) {
            const BM: u32 = $bm;
            const BN: u32 = $bn;
            const BK: u32 = $bk;
            const TM: u32 = $tm;
            const NT: u32 = BM * BN / TM;
            // Every thread loads exactly one word of each tile.
            const _: () = assert!(BM * BK == NT && BN * BK == NT && BK % UNROLL == 0);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<[f32; (BM * BK) as usize]> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<[f32; (BK * BN) as usize]> = MaybeUninit::uninit();

            let t = thread::thread_idx_x();
            let thread_col = t % BN;
            let thread_row = t / BN;
            let (row_a, col_a) = (t / BK, t % BK);
            let (row_b, col_b) = (t / BN, t % BN);
            let row0 = thread::block_idx_y() * BM;
            let col0 = thread::block_idx_x() * BN;
            let sa = shared_addr(addr_of!(TILE_A));
            let sb = shared_addr(addr_of!(TILE_B));
            // SAFETY: `row0` < m and `col0` < n (the grid), so both tile origins are inside A and
            // B.
            let a_tile = unsafe { (a as *const u32).add((row0 * k) as usize) };
            // SAFETY: see `a_tile`.
            let b_tile = unsafe { (b as *const u32).add(col0 as usize) };

            let mut acc = [0.0f32; $tm];
            let mut k0 = 0;
            while k0 < k {
                // SAFETY: global: rows `row_a` < BM and `row_b` < BK, columns `col_a` < BK and
                // `col_b` < BN (t < NT = BM * BK = BN * BK) of this block's tiles, k0 + BK <= k;
                // shared: word t of each tile, this thread's alone, the previous step's readers
                // past the barrier ending the loop.
                unsafe {
                    let va = ld_global_nc::<1>(a_tile.add((row_a * k + k0 + col_a) as usize));
                    let vb = ld_global_nc::<1>(b_tile.add(((k0 + row_b) * n + col_b) as usize));
                    st_shared::<1>(sa + 4 * (row_a * BK + col_a), va);
                    st_shared::<1>(sb + 4 * (row_b * BN + col_b), vb);
                }
                thread::sync_threads();
                let mut d = 0;
                while d < BK {
                    seq!(U in 0..4 {
                        let kq = d + U;
                        // SAFETY: `kq * BN + thread_col` < BK * BN; stored before the barrier
                        // above.
                        let tmp_b = f32::from_bits(unsafe { ld_shared::<1>(sb + 4 * (kq * BN + thread_col)) }[0]);
                        seq!(R in 0..$tm {
                            // SAFETY: `(thread_row * TM + R) * BK + kq` < BM * BK (thread_row < NT
                            // / BN = BM / TM); stored before the barrier above.
                            let x = unsafe { ld_shared::<1>(sa + 4 * ((thread_row * TM + R) * BK + kq)) };
                            acc[R] += f32::from_bits(x[0]) * tmp_b;
                        });
                    });
                    d += UNROLL;
                }
                thread::sync_threads();
                k0 += BK;
            }
            seq!(R in 0..$tm {
                let idx = (row0 + thread_row * TM + R) * n + col0 + thread_col;
                // SAFETY: row `row0 + thread_row * TM + R` < row0 + BM and column
                // `col0 + thread_col` < col0 + BN: inside C, and no other thread stores that cell.
                unsafe { st_global::<1>((c as *mut u32).add(idx as usize), [acc[R].to_bits()]) };
            });
        }
    )*};
}
for_each_blocktile_1d!(blocktile_1d_kernels);
