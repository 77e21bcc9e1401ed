//! Rungs 7 and 8 of the ladder (the study's kernels 7 and 8): the study's vectorized kernel
//! (kernel 6) with the B tile laid out in shared memory so as to avoid bank conflicts.
//!
//! The common kernel: `BM * BN / (TM * TN)` threads; each loads one float4 of A and one of B
//! per step of k (`ld.global.nc.v4`), stores the A tile transposed (`As[k][m]`, so a thread's
//! `TM` values of one k are consecutive: `ld.shared.v4`), and computes a `TM x TN` register tile
//! as in rung 5; C is written with 128-bit stores.
//!
//! The B tile, which a warp reads as 16 threads x 8 consecutive words per k:
//! - `linear` (rung 7) stores element `(r, col)` at `(r * TN + col % TN) * (BN / TN) + col / TN`,
//!   so that the 16 threads' j-th words are 16 consecutive words: one conflict-free scalar
//!   load each instead of words 8 apart (4 threads per bank);
//! - `offset` (rung 8) pads each row by 5 words (`BN + 5`), which shifts rows against each other
//!   but breaks the 16-byte alignment, so its loads are scalar too.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (the `seq!(U in 0..4)` bound below).
const UNROLL: u32 = 4;

/// Row pitch of the B tile in words.
macro_rules! bank_pitch {
    (linear, $bn:expr) => {
        $bn
    };
    (offset, $bn:expr) => {
        $bn + 5
    };
}

/// Word index in the B tile of element `(r, col)`.
macro_rules! bank_b_index {
    (linear, $r:expr, $col:expr, $bn:expr, $tn:expr) => {
        ($r * $tn + $col % $tn) * ($bn / $tn) + $col / $tn
    };
    (offset, $r:expr, $col:expr, $bn:expr, $tn:expr) => {
        $r * ($bn + 5) + $col
    };
}

macro_rules! bank_kernels {
    ($(($name:ident, $layout:ident, $bm:tt, $bn:tt, $bk:tt, $tm:tt, $tn:tt, $tm4:tt, $tn4:tt)),* $(,)?) => {$(
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
            const BP: u32 = bank_pitch!($layout, BN);
            // One float4 of each tile per thread; the literals are the quotients they name.
            const _: () = assert!(BM * BK == 4 * NT && BK * BN == 4 * NT);
            const _: () = assert!($tm4 * 4 == TM && $tn4 * 4 == TN && BK % UNROLL == 0);
            #[repr(C, align(16))]
            struct TileA([f32; (BK * BM) as usize]);
            #[repr(C, align(16))]
            struct TileB([f32; (BK * BP) as usize]);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<TileA> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<TileB> = MaybeUninit::uninit();

            let t = thread::thread_idx_x();
            let thread_col = t % (BN / TN);
            let thread_row = t / (BN / TN);
            let (row_a, col_a) = (t / (BK / 4), t % (BK / 4));
            let (row_b, col_b) = (t / (BN / 4), t % (BN / 4));
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
                // SAFETY: global: row `row_a` < BM, columns 4 * col_a.. < BK of the A tile and row
                // `row_b` < BK, columns 4 * col_b.. < BN of the B tile (t < NT, BM * BK = BK * BN =
                // 4 * NT), 16-byte aligned; shared: (4 * col_a + J) * BM + row_a < BK * BM and
                // `bank_b_index!` < BK * BP for r < BK, col < BN, each word stored by this thread
                // only, its previous readers past the barrier ending the loop.
                unsafe {
                    let v = ld_global_nc::<4>(a_tile.add((row_a * k + k0 + 4 * col_a) as usize));
                    seq!(J in 0..4 {
                        st_shared::<1>(sa + 4 * ((4 * col_a + J) * BM + row_a), [v[J]]);
                    });
                    let v = ld_global_nc::<4>(b_tile.add(((k0 + row_b) * n + 4 * col_b) as usize));
                    seq!(J in 0..4 {
                        let i = bank_b_index!($layout, row_b, (4 * col_b + J), BN, TN);
                        st_shared::<1>(sb + 4 * i, [v[J]]);
                    });
                }
                thread::sync_threads();
                let mut d = 0;
                while d < BK {
                    seq!(U in 0..4 {
                        let kq = d + U;
                        let mut reg_m = [0.0f32; $tm];
                        let mut reg_n = [0.0f32; $tn];
                        seq!(V in 0..$tm4 {
                            // SAFETY: `kq * BM + thread_row * TM + 4 * V` + 4 <= BK * BM
                            // (thread_row < BM / TM), 16-byte aligned; stored before the barrier
                            // above.
                            let x = unsafe { ld_shared::<4>(sa + 4 * (kq * BM + thread_row * TM + 4 * V)) };
                            seq!(J in 0..4 { reg_m[4 * V + J] = f32::from_bits(x[J]); });
                        });
                        seq!(J in 0..$tn {
                            let i = bank_b_index!($layout, kq, (thread_col * TN + J), BN, TN);
                            // SAFETY: `bank_b_index!` of (kq, col) with col < BN lies below
                            // BK * BP; stored before the barrier above.
                            reg_n[J] = f32::from_bits(unsafe { ld_shared::<1>(sb + 4 * i) }[0]);
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
                seq!(V in 0..$tn4 {
                    let v = [
                        acc[I][4 * V].to_bits(),
                        acc[I][4 * V + 1].to_bits(),
                        acc[I][4 * V + 2].to_bits(),
                        acc[I][4 * V + 3].to_bits(),
                    ];
                    let idx = (row0 + thread_row * TM + I) * n + col0 + thread_col * TN + 4 * V;
                    // SAFETY: `idx` is 4 aligned cells of this block's BM x BN tile of C (row
                    // thread_row * TM + I < BM, column thread_col * TN + 4 * V < BN), which no
                    // other thread stores.
                    unsafe { st_global::<4>((c as *mut u32).add(idx as usize), v) };
                });
            });
        }
    )*};
}
for_each_bank!(bank_kernels);
