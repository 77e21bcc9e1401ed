//! Rung 10 of the ladder (the study's kernel 10): warp tiling. Between the block tile and the
//! thread tile sits a warp tile: warp `w` of the block owns a `WM x WN` tile of C, computed as
//! `WMITER x WNITER` sub-tiles of `(WM / WMITER) x (WN / WNITER)`, and each thread `TM x TN`
//! outputs of every sub-tile.
//!
//! Why it pays: a warp's shared loads now cover a compact `WM x WN` region (its 32 threads read
//! `TM` consecutive words of A each from 8 rows and `TN` of B from 4 column groups), so the
//! reads of a warp fall in fewer banks and rows of shared memory, and each thread holds
//! `WMITER * TM + WNITER * TN` operands for `WMITER * WNITER * TM * TN` FMAs (24 for 128 at the
//! study's 64x64 warp tile, 8x4 thread tile, WNITER = 4). The block is 4 warps (128 threads)
//! for a 128x128x16 tile, so the k loop does 128 FMAs per thread per k between 6 `ld.shared.v4`.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (the `seq!(U in 0..4)` bound below).
const UNROLL: u32 = 4;

macro_rules! warptile_kernels {
    ($(($name:ident, $nt:tt, $bm:tt, $bn:tt, $bk:tt, $wm:tt, $wn:tt, $wni:tt, $tm:tt, $tn:tt,
        $wmi:tt, $tm4:tt, $tn4:tt)),* $(,)?) => {$(
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
            const WM: u32 = $wm;
            const WN: u32 = $wn;
            const TM: u32 = $tm;
            const TN: u32 = $tn;
            const WNITER: u32 = $wni;
            const WMITER: u32 = (WM * WN) / (32 * TM * TN * WNITER);
            const WSUBM: u32 = WM / WMITER;
            const WSUBN: u32 = WN / WNITER;
            const STRIDE_A: u32 = NT * 4 / BK;
            const STRIDE_B: u32 = NT / (BN / 4);
            // The study's static asserts, and the literals are the quotients they name.
            const _: () = assert!(BN % WN == 0 && BM % WM == 0);
            const _: () = assert!((BN / WN) * (BM / WM) == NT / 32);
            const _: () = assert!((WM * WN) % (32 * TM * TN * WNITER) == 0);
            const _: () = assert!(WM % WMITER == 0 && WN % WNITER == 0);
            const _: () = assert!((NT * 4) % BK == 0 && (NT * 4) % BN == 0);
            const _: () = assert!((BM * BK) % (4 * NT) == 0 && (BN * BK) % (4 * NT) == 0);
            const _: () = assert!($wmi == WMITER && $tm4 * 4 == TM && $tn4 * 4 == TN && BK % UNROLL == 0);
            #[repr(C, align(16))]
            struct TileA([f32; (BK * BM) as usize]);
            #[repr(C, align(16))]
            struct TileB([f32; (BK * BN) as usize]);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<TileA> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<TileB> = MaybeUninit::uninit();

            let t = thread::thread_idx_x();
            let warp = t / 32;
            let warp_col = warp % (BN / WN);
            let warp_row = warp / (BN / WN);
            let lane = t % 32;
            let thread_col = lane % (WSUBN / TN);
            let thread_row = lane / (WSUBN / TN);
            let row0 = thread::block_idx_y() * BM;
            let col0 = thread::block_idx_x() * BN;
            let sa = shared_addr(addr_of!(TILE_A));
            let sb = shared_addr(addr_of!(TILE_B));
            // SAFETY: `row0` < m and `col0` < n (the grid), so both tile origins are inside A and
            // B.
            let a_tile = unsafe { (a as *const u32).add((row0 * k) as usize) };
            // SAFETY: see `a_tile`.
            let b_tile = unsafe { (b as *const u32).add(col0 as usize) };
            // This thread's first A word (of a k-row of the transposed tile) and B word.
            let m0 = warp_row * WM + thread_row * TM;
            let n0 = warp_col * WN + thread_col * TN;

            let mut acc = [[0.0f32; $wni * $tn]; $wmi * $tm];
            let mut k0 = 0;
            while k0 < k {
                load_k_tile!(a_tile, b_tile, n, k, k0, sa, sb, t);
                thread::sync_threads();
                warp_tile_compute!(acc, sa, sb, m0, n0, $wmi, $wni, $tm, $tn, $tm4, $tn4);
                thread::sync_threads();
                k0 += BK;
            }
            warp_tile_store!(acc, c, n, (row0, col0), (m0, n0), $wmi, $wni, $tm, $tn4);
        }
    )*};
}
for_each_warptile!(warptile_kernels);
