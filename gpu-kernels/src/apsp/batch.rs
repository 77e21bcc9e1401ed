//! Many small graphs in one launch (`BATCH_CONFIGS`): block g solves graph g, whose padded
//! `n x n` matrix lives in the registers of its `n / 4 x n / 4` threads (4 x 4 cells each, rows
//! `4 ty + 0..4`, columns `4 tx + 0..4`) for the whole solve. Plain Floyd–Warshall, one step per
//! real vertex k (padding vertices relay nothing: INF rows and columns): each step reads the
//! current row k and column k from shared memory, updates all cells, and the owners of row and
//! column k + 1 publish them into the other half of a double buffer; one barrier per step.
//!
//! Why the buffers suffice: with non-negative weights and a zero diagonal, row k and column k do
//! not change in step k, so the values published after step k - 1 are the ones step k needs, and
//! step k writes only the other half, read in step k + 1 after the barrier.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{add_min, ld_global, ld_global_v4, ld_shared, shared_addr, st_global, st_shared};

macro_rules! batch_kernels {
    ($(($name:ident, $n:tt, $t:tt)),* $(,)?) => {$(
        /// Solves `graphs` padded matrices of `n x n` i32 in place, one block each (module
        /// comment).
        ///
        /// # Safety
        /// `d` must point to `graphs` matrices of `n x n` i32 of device memory one after another
        /// (16-byte aligned), each with non-negative weights, a zero diagonal and INF in the rows
        /// and columns from its V on; `vertices` to `graphs` u32, each V ≤ `n`; nothing else
        /// touching them during the launch; `n / 4 x n / 4` threads per block, any 1-D grid.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, vertices: *const u32, graphs: u32) {
            const N: u32 = $n;
            const T: u32 = $t;
            const _: () = assert!(T * 4 == N);
            #[repr(C, align(16))]
            struct Lines([i32; (2 * N) as usize]);
            // Row k and column k of the current step, in half k % 2 of each.
            #[address_space(shared)]
            static mut ROW: MaybeUninit<Lines> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut COL: MaybeUninit<Lines> = MaybeUninit::uninit();
            let g = thread::block_idx_x();
            if g >= graphs {
                return;
            }
            let (sr, sc) = (shared_addr(addr_of!(ROW)), shared_addr(addr_of!(COL)));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            // SAFETY: g < graphs: an element of the caller's `vertices`.
            let v = unsafe { ld_global(vertices.add(g as usize)) }.min(N);
            // SAFETY: the start of matrix g < graphs of the caller's buffer.
            let base = unsafe { (d as *mut u32).add(g as usize * (N * N) as usize) };
            let at = |r: u32| (r * N + 4 * tx) as usize;
            let mut cell = [[0i32; 4]; 4];
            seq!(R in 0..4 {
                // SAFETY: row 4 ty + R < N, columns 4 tx..+4 <= N of matrix g, 16-byte aligned;
                // only this thread stores them, at the end.
                let x = unsafe { ld_global_v4(base.add(at(4 * ty + R))) };
                seq!(Q in 0..4 { cell[R][Q] = x[Q] as i32; });
            });
            // Publishes row and column `k` of this thread's cells into half `h`.
            let publish = |cell: &[[i32; 4]; 4], k: u32, h: u32| {
                seq!(R in 0..4 {
                    if 4 * ty + R == k {
                        let x = [cell[R][0] as u32, cell[R][1] as u32, cell[R][2] as u32, cell[R][3] as u32];
                        // SAFETY: ROW half h, columns 4 tx..+4 < N, aligned: written by this
                        // thread alone (the owner of those cells of row k), read after the
                        // barrier that follows every publish.
                        unsafe { st_shared::<4>(sr + 4 * (h * N + 4 * tx), x) };
                    }
                });
                seq!(Q in 0..4 {
                    if 4 * tx + Q == k {
                        let x = [cell[0][Q] as u32, cell[1][Q] as u32, cell[2][Q] as u32, cell[3][Q] as u32];
                        // SAFETY: COL half h, rows 4 ty..+4 < N, aligned, as above.
                        unsafe { st_shared::<4>(sc + 4 * (h * N + 4 * ty), x) };
                    }
                });
            };
            publish(&cell, 0, 0);
            thread::sync_threads();
            let mut k = 0;
            while k < v {
                let h = k & 1;
                // SAFETY: half h of COL (rows 4 ty..+4) and ROW (columns 4 tx..+4), aligned,
                // published before the last barrier and not written in this step (the other
                // half is).
                let (a, b) = unsafe {
                    (ld_shared::<4>(sc + 4 * (h * N + 4 * ty)), ld_shared::<4>(sr + 4 * (h * N + 4 * tx)))
                };
                seq!(R in 0..4 { seq!(Q in 0..4 {
                    cell[R][Q] = add_min(cell[R][Q], a[R] as i32, b[Q] as i32);
                }); });
                if k + 1 < v {
                    publish(&cell, k + 1, h ^ 1);
                }
                thread::sync_threads();
                k += 1;
            }
            seq!(R in 0..4 {
                let x = [cell[R][0] as u32, cell[R][1] as u32, cell[R][2] as u32, cell[R][3] as u32];
                // SAFETY: the cells this thread loaded at the start, stored by it alone.
                unsafe { st_global::<4>(base.add(at(4 * ty + R)), x) };
            });
        }
    )*};
}

for_each_batch!(batch_kernels);
