//! Many small graphs in one launch (`BATCH_KERNELS`): block g solves graph g, whose padded
//! `n x n` matrix lives in the registers of its threads for the whole solve. Thread `(tx, ty)`
//! owns `ROWS x COLS` cells: rows `g * GR + 4 ty + 0..4` for each group g of 4 rows (GR = 4 *
//! threads in y) and columns `h * GC + 4 tx + 0..4` likewise, so that a warp's loads of row and
//! column k are 128-bit and conflict-free (one quarter-warp reads 128 contiguous bytes).
//! Plain Floyd–Warshall, one step per vertex k below V rounded up to 4 (padding vertices relay
//! nothing: INF rows and columns, zero diagonal; INF + INF fits in an i32): each step reads the
//! current row k and column k from shared memory, updates all cells, and the owners of row and
//! column k + 1 publish them into the other half of a double buffer; one barrier per step. The
//! k loop runs 4 steps per iteration, so which of a thread's cell rows (columns) holds row
//! (column) k + 1 is known at compile time up to the group, a uniform branch.
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
    ($(($name:ident, $n:tt, $rows:tt, $cols:tt, $d:ident, $cap:expr)),* $(,)?) => {$(
        /// Solves `graphs` padded matrices of `n x n` i32 in place, one block each (module
        /// comment).
        ///
        /// # Safety
        /// `d` must point to `graphs` matrices of `n x n` i32 of device memory one after another
        /// (16-byte aligned), each with non-negative weights, a zero diagonal and INF in the rows
        /// and columns from its V on; `vertices` to `graphs` u32, each V ≤ `n`; nothing else
        /// touching them during the launch; `n / cols x n / rows` threads per block (x, y), any
        /// 1-D grid.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(d: *mut i32, vertices: *const u32, graphs: u32) {
            const N: u32 = $n;
            const TX: u32 = N / $cols;
            const TY: u32 = N / $rows;
            // Distance between a thread's groups of 4 rows (columns).
            const GR: u32 = 4 * TY;
            const GC: u32 = 4 * TX;
            const _: () = assert!(TX * $cols == N && TY * $rows == N);
            const _: () = assert!($rows % 4 == 0 && $cols % 4 == 0);
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
            let v4 = (v + 3) & !3;
            // SAFETY: the start of matrix g < graphs of the caller's buffer.
            let base = unsafe { (d as *mut u32).add(g as usize * (N * N) as usize) };
            // Offset of the 4 cells of row group R (R % 4 == 0 .. ) and column group P.
            let at = |r: u32, p: u32| ((r / 4 * GR + 4 * ty + r % 4) * N + p / 4 * GC + 4 * tx) as usize;
            let mut cell = [[0i32; $cols]; $rows];
            seq!(R in 0..$rows { seq!(P in 0..$cols {
                if P % 4 == 0 {
                    // SAFETY: row R / 4 * GR + 4 ty + R % 4 < N and columns P / 4 * GC + 4 tx..+4
                    // <= N of matrix g, 16-byte aligned; only this thread stores them, at the end.
                    let x = unsafe { ld_global_v4(base.add(at(R, P))) };
                    seq!(Q in 0..4 { cell[R][P / 4 * 4 + Q] = x[Q] as i32; });
                }
            }); });
            // Publishes row and column `r` into half `h`, `s` = r % 4 (a constant after
            // inlining: the k loop below is unrolled by 4).
            let publish = |cell: &[[i32; $cols]; $rows], r: u32, h: u32, s: u32| {
                if ty == (r % GR) / 4 {
                    seq!(G in 0..$rows {
                        if G % 4 == s && G / 4 == r / GR {
                            seq!(P in 0..$cols {
                                if P % 4 == 0 {
                                    let x = [cell[G][P / 4 * 4] as u32, cell[G][P / 4 * 4 + 1] as u32, cell[G][P / 4 * 4 + 2] as u32, cell[G][P / 4 * 4 + 3] as u32];
                                    // SAFETY: ROW half h, columns P / 4 * GC + 4 tx..+4 <= N,
                                    // aligned: written by this thread alone (the owner of those
                                    // cells of row r), read after the barrier that follows every
                                    // publish.
                                    unsafe { st_shared::<4>(sr + 4 * (h * N + P / 4 * GC + 4 * tx), x) };
                                }
                            });
                        }
                    });
                }
                if tx == (r % GC) / 4 {
                    seq!(G in 0..$cols {
                        if G % 4 == s && G / 4 == r / GC {
                            seq!(P in 0..$rows {
                                if P % 4 == 0 {
                                    let x = [cell[P / 4 * 4][G] as u32, cell[P / 4 * 4 + 1][G] as u32, cell[P / 4 * 4 + 2][G] as u32, cell[P / 4 * 4 + 3][G] as u32];
                                    // SAFETY: COL half h, rows P / 4 * GR + 4 ty..+4 <= N,
                                    // aligned, as above.
                                    unsafe { st_shared::<4>(sc + 4 * (h * N + P / 4 * GR + 4 * ty), x) };
                                }
                            });
                        }
                    });
                }
            };
            publish(&cell, 0, 0, 0);
            thread::sync_threads();
            let mut k = 0;
            while k < v4 {
                seq!(U in 0..4 {
                    // k % 4 == 0: the half of step k + U.
                    let h = U & 1;
                    let mut a = [0u32; $rows];
                    let mut b = [0u32; $cols];
                    seq!(P in 0..$rows {
                        if P % 4 == 0 {
                            // SAFETY: half h of COL, rows P / 4 * GR + 4 ty..+4 <= N, aligned,
                            // published before the last barrier and not written in this step
                            // (the other half is).
                            let x = unsafe { ld_shared::<4>(sc + 4 * (h * N + P / 4 * GR + 4 * ty)) };
                            seq!(Q in 0..4 { a[P / 4 * 4 + Q] = x[Q]; });
                        }
                    });
                    seq!(P in 0..$cols {
                        if P % 4 == 0 {
                            // SAFETY: half h of ROW, columns P / 4 * GC + 4 tx..+4 <= N, as above.
                            let x = unsafe { ld_shared::<4>(sr + 4 * (h * N + P / 4 * GC + 4 * tx)) };
                            seq!(Q in 0..4 { b[P / 4 * 4 + Q] = x[Q]; });
                        }
                    });
                    seq!(R in 0..$rows { seq!(Q in 0..$cols {
                        cell[R][Q] = add_min(cell[R][Q], a[R] as i32, b[Q] as i32);
                    }); });
                    let r = k + U + 1;
                    if r < v4 {
                        publish(&cell, r, h ^ 1, (U + 1) % 4);
                    }
                    thread::sync_threads();
                });
                k += 4;
            }
            seq!(R in 0..$rows { seq!(P in 0..$cols {
                if P % 4 == 0 {
                    let x = [cell[R][P / 4 * 4] as u32, cell[R][P / 4 * 4 + 1] as u32, cell[R][P / 4 * 4 + 2] as u32, cell[R][P / 4 * 4 + 3] as u32];
                    // SAFETY: the cells this thread loaded at the start, stored by it alone.
                    unsafe { st_global::<4>(base.add(at(R, P)), x) };
                }
            }); });
        }
    )*};
}

for_each_batch!(batch_kernels);
