//! Shared-memory tiled SGEMM: one output per thread, `T x T` threads, `T x T` tiles of A and B
//! staged in shared memory per step of k.
//!
//! A warp reads a row of the A tile (the same for all its threads: a broadcast) and a row of the
//! B tile (consecutive words): no column reads, so no bank conflicts. The A row is read 4 floats
//! at a time (`ld.shared.v4`), which halves shared-memory traffic per FMA compared with scalar
//! reads (5 instead of 8 loads per 4 FMAs); that needs 16-byte aligned rows, so rows are padded
//! by 4 words rather than 1.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

macro_rules! tiled_kernels {
    ($(($name:ident, $tile:tt, $quads:tt)),* $(,)?) => {$(
        /// # Safety
        /// `a`, `b` and `c` must point to 16-byte aligned, row-major f32 device matrices of
        /// `m x k`, `k x n` and `m x n` cells, padded to this kernel's tile multiples, with `c`
        /// overlapping neither `a` nor `b` (read through the non-coherent path); the launch must
        /// use this kernel's block and the grid `(n / tile_n, m / tile_m)` (see `matmul/mod.rs`).
        /// Every index formed below then lies inside the matrices: no kernel has bounds checks.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(a: *const f32, b: *const f32, c: *mut f32, n: u32, k: u32) {
            const T: u32 = $tile;
            // Padded rows, 16-byte aligned (see the module doc).
            const P: u32 = T + 4;
            #[repr(C, align(16))]
            struct Tile([f32; (T * P) as usize]);
            #[address_space(shared)]
            static mut TILE_A: MaybeUninit<Tile> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut TILE_B: MaybeUninit<Tile> = MaybeUninit::uninit();

            let tx = thread::thread_idx_x();
            let ty = thread::thread_idx_y();
            let row = thread::block_idx_y() * T + ty;
            let col = thread::block_idx_x() * T + tx;
            let sa = shared_addr(addr_of!(TILE_A));
            let sb = shared_addr(addr_of!(TILE_B));
            let (a, b) = (a as *const u32, b as *const u32);

            let mut sum = 0.0f32;
            let mut k0 = 0;
            while k0 < k {
                // SAFETY: global: `row` < m, `col` < n (grid x block) and k0 + tx, k0 + ty < k (k
                // is a multiple of T); shared: `ty * P + tx` < T * P, each thread its own word, the
                // previous step's readers past the barrier at the end of the loop.
                unsafe {
                    let va = ld_global_nc::<1>(a.add((row * k + k0 + tx) as usize));
                    let vb = ld_global_nc::<1>(b.add(((k0 + ty) * n + col) as usize));
                    st_shared::<1>(sa + 4 * (ty * P + tx), va);
                    st_shared::<1>(sb + 4 * (ty * P + tx), vb);
                }
                thread::sync_threads();
                seq!(Q in 0..$quads {
                    // SAFETY: `ty * P + 4 * Q` + 0..4 < T * P, 16-byte aligned (P and 4Q multiples
                    // of 4 words, Tile aligned to 16); stored before the barrier above.
                    let x = unsafe { ld_shared::<4>(sa + 4 * (ty * P + 4 * Q)) };
                    seq!(J in 0..4 {
                        // SAFETY: `(4 * Q + J) * P + tx` < T * P; stored before the barrier above.
                        let y = unsafe { ld_shared::<1>(sb + 4 * ((4 * Q + J) * P + tx)) };
                        sum += f32::from_bits(x[J]) * f32::from_bits(y[0]);
                    });
                });
                thread::sync_threads();
                k0 += T;
            }
            // SAFETY: `(row, col)` is inside C; each thread stores its own cell.
            unsafe { st_global::<1>((c as *mut u32).add((row * n + col) as usize), [sum.to_bits()]) };
        }
    )*};
}
for_each_tiled!(tiled_kernels);
