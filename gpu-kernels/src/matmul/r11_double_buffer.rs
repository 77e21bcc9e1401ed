//! Rung 11 of the ladder (the study's kernel 11): double buffering on top of warp tiling. Shared
//! memory holds two tiles of A and B; the block's threads are split in two halves that take
//! turns, one half loading the next tile from global memory while the other computes on the
//! tile already in shared memory.
//!
//! The schedule, per pair of k-tiles `t` (buffer 0) and `t + 1` (buffer 1), with a barrier
//! after each phase (buffer 0 holds tile `t` on entry, loaded by half 0):
//!
//! | phase | half 0 (threads 0..NT/2)     | half 1 (threads NT/2..NT)    |
//! |-------|------------------------------|------------------------------|
//! | 1     | compute buffer 0             | load tile t + 1 → buffer 1   |
//! | 2     | compute buffer 1             | compute buffer 0             |
//! | 3     | load tile t + 2 → buffer 0   | compute buffer 1             |
//!
//! This is the study's schedule with its barriers moved out of the two halves' branches (the
//! study calls `__syncthreads` inside them; each half then meets the other at the same three
//! barriers either way). Each half loads its tiles with `NT / 2` threads, twice the loads per
//! thread of rung 10. At the study's parameters (128x256x16 block tile, 8 warps of 128x32, 8x8
//! thread tiles in two 64-row sub-tiles) the two buffers take exactly 48 KiB of static shared
//! memory.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (the `seq!(U in 0..4)` bound below).
const UNROLL: u32 = 4;

macro_rules! double_buffer_kernels {
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
            // Each half of the block loads whole tiles.
            const HALF: u32 = NT / 2;
            const STRIDE_A: u32 = HALF * 4 / BK;
            const STRIDE_B: u32 = HALF / (BN / 4);
            // The study's static asserts, and the literals are the quotients they name.
            const _: () = assert!(BN % WN == 0 && BM % WM == 0);
            const _: () = assert!((BN / WN) * (BM / WM) == NT / 32);
            const _: () = assert!((WM * WN) % (32 * TM * TN * WNITER) == 0);
            const _: () = assert!(WM % WMITER == 0 && WN % WNITER == 0);
            const _: () = assert!((HALF * 4) % BK == 0 && (HALF * 4) % BN == 0);
            const _: () = assert!((BM * BK) % (4 * HALF) == 0 && (BN * BK) % (4 * HALF) == 0);
            const _: () = assert!($wmi == WMITER && $tm4 * 4 == TM && $tn4 * 4 == TN && BK % UNROLL == 0);
            // Two buffers of each tile, 16-byte aligned for the 128-bit accesses.
            #[repr(C, align(16))]
            struct TileA([f32; (2 * BK * BM) as usize]);
            #[repr(C, align(16))]
            struct TileB([f32; (2 * BK * BN) as usize]);
            const _: () = assert!(core::mem::size_of::<TileA>() + core::mem::size_of::<TileB>() <= 48 * 1024);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<TileA> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<TileB> = MaybeUninit::uninit();

            let t = thread::thread_idx_x();
            let loader_half = t >= HALF; // half 1 loads first
            let lt = t % HALF;
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
            // Byte addresses of buffer 1.
            let (sa1, sb1) = (sa + 4 * BK * BM, sb + 4 * BK * BN);
            // SAFETY: `row0` < m and `col0` < n (the grid), so both tile origins are inside A and
            // B.
            let a_tile = unsafe { (a as *const u32).add((row0 * k) as usize) };
            // SAFETY: see `a_tile`.
            let b_tile = unsafe { (b as *const u32).add(col0 as usize) };
            let m0 = warp_row * WM + thread_row * TM;
            let n0 = warp_col * WN + thread_col * TN;

            let mut acc = [[0.0f32; $wni * $tn]; $wmi * $tm];
            if !loader_half {
                load_k_tile!(a_tile, b_tile, n, k, 0, sa, sb, lt);
            }
            thread::sync_threads();
            let mut k0 = 0;
            while k0 < k {
                let next = k0 + BK < k;
                // Phase 1.
                if loader_half {
                    if next {
                        load_k_tile!(a_tile, b_tile, n, k, k0 + BK, sa1, sb1, lt);
                    }
                } else {
                    warp_tile_compute!(acc, sa, sb, m0, n0, $wmi, $wni, $tm, $tn, $tm4, $tn4);
                }
                thread::sync_threads();
                // Phase 2: half 0 computes buffer 1, half 1 buffer 0.
                if loader_half || next {
                    let (pa, pb) = if loader_half { (sa, sb) } else { (sa1, sb1) };
                    warp_tile_compute!(acc, pa, pb, m0, n0, $wmi, $wni, $tm, $tn, $tm4, $tn4);
                }
                thread::sync_threads();
                // Phase 3.
                if loader_half {
                    if next {
                        warp_tile_compute!(acc, sa1, sb1, m0, n0, $wmi, $wni, $tm, $tn, $tm4, $tn4);
                    }
                } else if k0 + 2 * BK < k {
                    load_k_tile!(a_tile, b_tile, n, k, k0 + 2 * BK, sa, sb, lt);
                }
                thread::sync_threads();
                k0 += 2 * BK;
            }
            warp_tile_store!(acc, c, n, (row0, col0), (m0, n0), $wmi, $wni, $tm, $tn4);
        }
    )*};
}
for_each_double_buffer!(double_buffer_kernels);
