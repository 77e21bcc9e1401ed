//! Rung 9 of the ladder (the study's kernel 9): the vectorized kernel generalized over its tile
//! parameters, with the values the study's autotuner picked on an A6000 (BM = BN = 128,
//! BK = 16, TM = TN = 8, 256 threads). The sweep itself was not rerun on the H200.
//!
//! Against rungs 6 to 8 the tile is twice as deep in k (16), so every barrier pair covers twice
//! the FMAs, and each thread loads `BM * BK / (4 * threads)` float4s of A and as many of B per
//! step in a loop. A thread's outputs are `WMITER x WNITER` tiles of `TM x TN`, `WM = 16 TM`
//! rows and `WN = 16 TN` columns apart (one tile each at these values). The A tile is stored
//! transposed, the B tile as is, both read with `ld.shared.v4`; C is written with 128-bit stores.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (the `seq!(U in 0..4)` bound below): the
/// whole 16-deep tile unrolled is 1024 FFMAs of code per iteration for no measured gain.
const UNROLL: u32 = 4;

macro_rules! autotuned_kernels {
    ($(($name:ident, $nt:tt, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt, $wmi:tt, $wni:tt,
        $tm4:tt, $tn4:tt)),* $(,)?) => {$(
        /// # Safety
        /// `a`, `b` and `c` must point to 16-byte aligned, row-major f32 device matrices of
        /// `m x k`, `k x n` and `m x n` cells, padded to this kernel's tile multiples, with `c`
        /// overlapping neither `a` nor `b` (read through the non-coherent path); the launch must
        /// use this kernel's block and the grid `(n / tile_n, m / tile_m)` (see `matmul/mod.rs`).
        /// Every index formed below then lies inside the matrices: no kernel has bounds checks.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32) {
            const NT: u32 = $nt;
            const BM: u32 = $bm;
            const BN: u32 = $bn;
            const BK: u32 = $bk;
            const TM: u32 = $tm;
            const TN: u32 = $tn;
            const WM: u32 = 16 * TM;
            const WN: u32 = 16 * TN;
            // Rows of a tile that one pass of the block's float4 loads covers.
            const STRIDE_A: u32 = NT * 4 / BK;
            const STRIDE_B: u32 = NT / (BN / 4);
            // The study's static asserts, and the literals are the quotients they name.
            const _: () = assert!(NT == (WM / TM) * (WN / TN));
            const _: () = assert!(BM % WM == 0 && BN % WN == 0);
            const _: () = assert!((NT * 4) % BK == 0 && (NT * 4) % BN == 0);
            const _: () = assert!((BM * BK) % (4 * NT) == 0 && (BN * BK) % (4 * NT) == 0);
            const _: () = assert!($wmi == BM / WM && $wni == BN / WN);
            const _: () = assert!($tm4 * 4 == TM && $tn4 * 4 == TN && BK % UNROLL == 0);
            #[repr(C, align(16))]
            struct TileA([f32; (BK * BM) as usize]);
            #[repr(C, align(16))]
            struct TileB([f32; (BK * BN) as usize]);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<TileA> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<TileB> = MaybeUninit::uninit();

            let t = thread::thread_idx_x();
            let thread_col = t % (WN / TN);
            let thread_row = t / (WN / TN);
            let row0 = thread::block_idx_y() * BM;
            let col0 = thread::block_idx_x() * BN;
            let sa = shared_addr(addr_of!(TILE_A));
            let sb = shared_addr(addr_of!(TILE_B));
            // SAFETY: `row0` < m and `col0` < n (the grid), so both tile origins are inside A and
            // B.
            let a_tile = unsafe { (a as *const u32).add((row0 * k) as usize) };
            // SAFETY: see `a_tile`.
            let b_tile = unsafe { (b as *const u32).add(col0 as usize) };

            let mut acc = [[0.0f32; $wni * $tn]; $wmi * $tm];
            let mut k0 = 0;
            while k0 < k {
                load_k_tile!(a_tile, b_tile, n, k, k0, sa, sb, t);
                thread::sync_threads();
                seq!(WI in 0..$wmi {
                    seq!(WJ in 0..$wni {
                        let mut d = 0;
                        while d < BK {
                            seq!(U in 0..4 {
                                let kq = d + U;
                                let mut reg_m = [0.0f32; $tm];
                                let mut reg_n = [0.0f32; $tn];
                                seq!(V in 0..$tm4 {
                                    // SAFETY: `WI * WM + thread_row * TM + 4 * V` + 4 <= BM
                                    // (thread_row < WM / TM, WI < BM / WM) and kq < BK: inside
                                    // TileA, 16-byte aligned; stored by `load_k_tile!` before the
                                    // barrier above.
                                    let x = unsafe {
                                        ld_shared::<4>(sa + 4 * (kq * BM + WI * WM + thread_row * TM + 4 * V))
                                    };
                                    seq!(J in 0..4 { reg_m[4 * V + J] = f32::from_bits(x[J]); });
                                });
                                seq!(V in 0..$tn4 {
                                    // SAFETY: `WJ * WN + thread_col * TN + 4 * V` + 4 <= BN and
                                    // kq < BK: inside TileB, aligned; stored before the barrier
                                    // above.
                                    let y = unsafe {
                                        ld_shared::<4>(sb + 4 * (kq * BN + WJ * WN + thread_col * TN + 4 * V))
                                    };
                                    seq!(J in 0..4 { reg_n[4 * V + J] = f32::from_bits(y[J]); });
                                });
                                seq!(I in 0..$tm {
                                    seq!(J in 0..$tn {
                                        acc[WI * TM as usize + I][WJ * TN as usize + J] += reg_m[I] * reg_n[J];
                                    });
                                });
                            });
                            d += UNROLL;
                        }
                    });
                });
                thread::sync_threads();
                k0 += BK;
            }
            seq!(WI in 0..$wmi {
                seq!(WJ in 0..$wni {
                    seq!(I in 0..$tm {
                        seq!(V in 0..$tn4 {
                            let mut v = [0u32; 4];
                            seq!(J in 0..4 {
                                v[J] = acc[WI * TM as usize + I][WJ * TN as usize + 4 * V + J].to_bits();
                            });
                            let idx = (row0 + WI * WM + thread_row * TM + I) * n
                                + col0 + WJ * WN + thread_col * TN + 4 * V;
                            // SAFETY: `idx` is 4 aligned cells of this block's BM x BN tile of C
                            // (as in the loads above), which no other thread stores.
                            unsafe { st_global::<4>((c as *mut u32).add(idx as usize), v) };
                        });
                    });
                });
            });
        }
    )*};
}
for_each_autotuned!(autotuned_kernels);
