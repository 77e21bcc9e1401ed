//! Vectorized tiled SGEMM: 128-bit global loads into shared memory, each thread a register tile
//! of RPI rows x VEC columns.
//!
//! Layout choices (why):
//! - The A tile is stored transposed (`As[k][m]`), so a thread's RPI values of one k are
//!   consecutive and come in with `ld.shared.v4`; the rows are padded by 4 words, which keeps
//!   16-byte alignment.
//! - A thread's VEC columns are `g` groups of `w` consecutive columns, the groups `bx * w`
//!   apart: each shared load and each global store of a warp then covers one contiguous span
//!   (conflict-free, coalesced) instead of strided chunks.
//! - The accumulators are a register array indexed only by `seq!`-unrolled constants, so they
//!   stay in registers (the ptxas check in `cargo xtask build-ptx` fails on any stack use).
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// k-steps unrolled per iteration of the inner loop (must equal the `seq!(U in 0..4)` bound below):
/// enough to hide shared-load latency, few
/// enough that ptxas does not hoist every load (which costs registers).
const UNROLL: u32 = 4;

macro_rules! vectorized_kernels {
    ($(($name:ident, $bx:tt, $by:tt, $vec:tt, $rpi:tt, $tk:tt, $w:tt, $g:tt, $aw:tt, $ra:tt)),* $(,)?) => {$(
        /// # Safety
        /// `a`, `b` and `c` must point to 16-byte aligned, row-major f32 device matrices of
        /// `m x k`, `k x n` and `m x n` cells, padded to this kernel's tile multiples, with `c`
        /// overlapping neither `a` nor `b` (read through the non-coherent path); the launch must
        /// use this kernel's block and the grid `(n / tile_n, m / tile_m)` (see `matmul/mod.rs`).
        /// Every index formed below then lies inside the matrices: no kernel has bounds checks.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32) {
            const BX: u32 = $bx;
            const BY: u32 = $by;
            const NT: u32 = BX * BY;
            const TK: u32 = $tk;
            const TM: u32 = BY * $rpi;
            const TN: u32 = BX * $vec;
            const AP: u32 = TM + 4;
            const A_VECS: u32 = TM * TK / 4;
            const B_VECS: u32 = TK * TN / 4;
            // 16-byte aligned: the tiles are read and written with 128-bit accesses.
            #[repr(C, align(16))]
            struct TileA([f32; (TK * AP) as usize]);
            #[repr(C, align(16))]
            struct TileB([f32; (TK * TN) as usize]);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<TileA> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<TileB> = MaybeUninit::uninit();

            let tx = thread::thread_idx_x();
            let ty = thread::thread_idx_y();
            let tid = ty * BX + tx;
            let row0 = thread::block_idx_y() * TM;
            let col0 = thread::block_idx_x() * TN;
            let sa = shared_addr(addr_of!(TILE_A));
            let sb = shared_addr(addr_of!(TILE_B));
            // SAFETY: `row0` < m and `col0` < n (the grid), so both tile origins are inside A and
            // B.
            let a_tile = unsafe { (a as *const u32).add((row0 * k) as usize) };
            // SAFETY: see `a_tile`.
            let b_tile = unsafe { (b as *const u32).add(col0 as usize) };

            let mut acc = [[0.0f32; $vec]; $rpi];
            let mut k0 = 0;
            while k0 < k {
                // A tile: TM rows x TK columns as float4s along k, stored transposed.
                let mut f = tid;
                while f < A_VECS {
                    let r = f / (TK / 4);
                    let q = f % (TK / 4);
                    // SAFETY: `r` < TM and 4 * q + 4 <= TK (f < A_VECS = TM * TK / 4): a 16-byte
                    // aligned float4 of this block's A tile (k and k0 multiples of 4); the shared
                    // words (4q + J) * AP + r < TK * AP are this thread's alone (f is unique per
                    // thread), their previous readers past the barrier ending the loop.
                    unsafe {
                        let v = ld_global_nc::<4>(a_tile.add((r * k + k0 + 4 * q) as usize));
                        seq!(J in 0..4 {
                            st_shared::<1>(sa + 4 * ((4 * q + J) * AP + r), [v[J]]);
                        });
                    }
                    f += NT;
                }
                // B tile: TK rows x TN columns, float4 in, float4 out.
                let mut f = tid;
                while f < B_VECS {
                    let r = f / (TN / 4);
                    let q = f % (TN / 4);
                    // SAFETY: `r` < TK and 4 * q + 4 <= TN (f < B_VECS): an aligned float4 of the B
                    // tile; shared words r * TN + 4q.. are this thread's alone, 16-byte aligned
                    // (TileB is).
                    unsafe {
                        let v = ld_global_nc::<4>(b_tile.add(((k0 + r) * n + 4 * q) as usize));
                        st_shared::<4>(sb + 4 * (r * TN + 4 * q), v);
                    }
                    f += NT;
                }
                thread::sync_threads();

                let mut kk = 0;
                while kk < TK {
                    seq!(U in 0..4 {
                        let kq = kk + U;
                        let mut af = [0.0f32; $rpi];
                        let mut bf = [0.0f32; $vec];
                        seq!(I in 0..$ra {
                            // SAFETY: `kq * AP + ty * RPI + I * AW` + AW <= TK * AP (ty < BY,
                            // TM = BY * RPI), aligned to the load width (AP, RPI, AW multiples of
                            // it); stored before the barrier above.
                            let v = unsafe { ld_shared::<$aw>(sa + 4 * (kq * AP + ty * $rpi + I * $aw)) };
                            seq!(J in 0..$aw { af[I * $aw + J] = f32::from_bits(v[J]); });
                        });
                        seq!(G in 0..$g {
                            // SAFETY: `kq * TN + G * BX * W + tx * W` + W <= TK * TN (G < g,
                            // tx < BX, VEC = g * W), aligned to W words; stored before the barrier
                            // above.
                            let v = unsafe { ld_shared::<$w>(sb + 4 * (kq * TN + G * BX * $w + tx * $w)) };
                            seq!(J in 0..$w { bf[G * $w + J] = f32::from_bits(v[J]); });
                        });
                        seq!(R in 0..$rpi {
                            seq!(C in 0..$vec {
                                acc[R][C] += af[R] * bf[C];
                            });
                        });
                    });
                    kk += UNROLL;
                }
                thread::sync_threads();
                k0 += TK;
            }

            seq!(R in 0..$rpi {
                seq!(G in 0..$g {
                    let mut v = [0u32; $w];
                    seq!(J in 0..$w { v[J] = acc[R][G * $w + J].to_bits(); });
                    let idx = (row0 + ty * $rpi + R) * n + col0 + G * BX * $w + tx * $w;
                    // SAFETY: `idx` is W aligned cells of this block's TM x TN tile of C (row
                    // ty * RPI + R < TM, column G * BX * W + tx * W < TN), which no other thread
                    // stores.
                    unsafe { st_global::<$w>((c as *mut u32).add(idx as usize), v) };
                });
            });
        }
    )*};
}
for_each_vectorized!(vectorized_kernels);
