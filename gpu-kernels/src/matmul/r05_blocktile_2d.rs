//! Rung 5 of the ladder (the study's kernel 5): 2D block tiling. Each thread computes a
//! `TM x TN` register tile.
//!
//! A block of `BM * BN / (TM * TN)` threads stages `BM x BK` of A and `BK x BN` of B in shared
//! memory, each thread loading `BM * BK / threads` and `BK * BN / threads` words (scalar loads,
//! warps along rows, so each warp's loads coalesce). Per k a thread reads `TM` words of the A
//! tile and `TN` of the B tile into registers (the outer product's operands) and does
//! `TM * TN` FMAs: 16 shared loads per 64 FMAs at 8x8, against 9 per 8 in rung 4. The
//! accesses are scalar, as in the study's source; rung 6 makes them 128 bits wide.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (the `seq!(U in 0..4)` bound below).
const UNROLL: u32 = 4;

macro_rules! blocktile_2d_kernels {
    ($(($name:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt)),* $(,)?) => {$(
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
            const TN: u32 = $tn;
            const NT: u32 = BM * BN / (TM * TN);
            // Rows of the tiles split evenly over the threads.
            const STRIDE_A: u32 = NT / BK;
            const STRIDE_B: u32 = NT / BN;
            const _: () = assert!(NT % BK == 0 && NT % BN == 0);
            const _: () = assert!(BM % STRIDE_A == 0 && BK % STRIDE_B == 0 && BK % UNROLL == 0);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<[f32; (BM * BK) as usize]> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<[f32; (BK * BN) as usize]> = MaybeUninit::uninit();

            let t = thread::thread_idx_x();
            let thread_col = t % (BN / TN);
            let thread_row = t / (BN / TN);
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

            let mut acc = [[0.0f32; $tn]; $tm];
            let mut k0 = 0;
            while k0 < k {
                let mut off = 0;
                while off < BM {
                    let r = row_a + off;
                    // SAFETY: `r` < BM and `col_a` < BK: inside the A tile (k0 + BK <= k); shared
                    // word r * BK + col_a is this thread's alone (the rows step by NT / BK), its
                    // previous readers past the barrier ending the loop.
                    unsafe {
                        let v = ld_global_nc::<1>(a_tile.add((r * k + k0 + col_a) as usize));
                        st_shared::<1>(sa + 4 * (r * BK + col_a), v);
                    }
                    off += STRIDE_A;
                }
                let mut off = 0;
                while off < BK {
                    let r = row_b + off;
                    // SAFETY: `r` < BK and `col_b` < BN: inside the B tile; the shared word is this
                    // thread's alone, as for A.
                    unsafe {
                        let v = ld_global_nc::<1>(b_tile.add(((k0 + r) * n + col_b) as usize));
                        st_shared::<1>(sb + 4 * (r * BN + col_b), v);
                    }
                    off += STRIDE_B;
                }
                thread::sync_threads();
                let mut d = 0;
                while d < BK {
                    seq!(U in 0..4 {
                        let kq = d + U;
                        let mut reg_m = [0.0f32; $tm];
                        let mut reg_n = [0.0f32; $tn];
                        seq!(I in 0..$tm {
                            // SAFETY: `(thread_row * TM + I) * BK + kq` < BM * BK (thread_row < BM
                            // / TM); stored before the barrier above.
                            let x = unsafe { ld_shared::<1>(sa + 4 * ((thread_row * TM + I) * BK + kq)) };
                            reg_m[I] = f32::from_bits(x[0]);
                        });
                        seq!(J in 0..$tn {
                            // SAFETY: `kq * BN + thread_col * TN + J` < BK * BN (thread_col < BN /
                            // TN); stored before the barrier above.
                            let y = unsafe { ld_shared::<1>(sb + 4 * (kq * BN + thread_col * TN + J)) };
                            reg_n[J] = f32::from_bits(y[0]);
                        });
                        seq!(I in 0..$tm {
                            seq!(J in 0..$tn {
                                acc[I][J] += reg_m[I] * reg_n[J];
                            });
                        });
                    });
                    d += UNROLL;
                }
                thread::sync_threads();
                k0 += BK;
            }
            seq!(I in 0..$tm {
                seq!(J in 0..$tn {
                    let idx = (row0 + thread_row * TM + I) * n + col0 + thread_col * TN + J;
                    // SAFETY: `idx` is cell (row0 + thread_row * TM + I, col0 + thread_col *
                    // TN + J) of this block's BM x BN tile of C, which no other thread stores.
                    unsafe { st_global::<1>((c as *mut u32).add(idx as usize), [acc[I][J].to_bits()]) };
                });
            });
        }
    )*};
}
for_each_blocktile_2d!(blocktile_2d_kernels);
