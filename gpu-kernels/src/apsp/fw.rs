//! Blocked Floyd–Warshall phases. Kernel arguments: `(d, pitch, round)` with `d` the padded
//! distance matrix (row pitch `pitch` i32) and `round` the pivot block index.
//!
//! In phases 1 and 2, thread `(tx, ty)` of a `T x T` block owns the `R x R` cells
//! `(ty + ri*T, tx + rj*T)` of the `B x B` block (R = B / T), keeping them in registers; phase 3
//! maps cells differently (see there).
//!
//! Phases 1 and 2 update in place with one barrier per k. That is race-free because with
//! non-negative weights and a zero diagonal, row k and column k of the pivot block do not
//! change in step k; cells are stored only when they improve, so nothing in row or column k is
//! ever written while it is being read.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use crate::ptx::{ld_global, ld_shared, shared_addr, st_global, st_shared};

#[inline(always)]
unsafe fn lds(addr: u32) -> i32 {
    unsafe { ld_shared::<1>(addr)[0] as i32 }
}

#[inline(always)]
unsafe fn sts(addr: u32, v: i32) {
    unsafe { st_shared::<1>(addr, [v as u32]) }
}

macro_rules! fw_kernels {
    ($(($phase1:ident, $phase2:ident, $phase3:ident, $b:tt, $t:tt, $r:tt, $rows:tt)),* $(,)?) => {$(
        /// Phase 1: closes the pivot block `(round, round)`. One block.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase1(d: *mut i32, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t;
            #[address_space(shared)]
            static mut PIVOT: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            let sp = shared_addr(addr_of!(PIVOT));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let base = unsafe { (d as *mut u32).add((round * B * pitch + round * B) as usize) };
            let mut cell = [[0i32; $r]; $r];
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                cell[I][J] = unsafe { ld_global(base.add((i * pitch + j) as usize)) } as i32;
                unsafe { sts(sp + 4 * (i * B + j), cell[I][J]) };
            }); });
            thread::sync_threads();
            for kk in 0..B {
                seq!(I in 0..$r { seq!(J in 0..$r {
                    let (i, j) = (ty + I * T, tx + J * T);
                    let via = unsafe { lds(sp + 4 * (i * B + kk)) + lds(sp + 4 * (kk * B + j)) };
                    if via < cell[I][J] {
                        cell[I][J] = via;
                        unsafe { sts(sp + 4 * (i * B + j), via) };
                    }
                }); });
                thread::sync_threads();
            }
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                unsafe { st_global::<1>(base.add((i * pitch + j) as usize), [cell[I][J] as u32]) };
            }); });
        }

        /// Phase 2: the blocks of the pivot row (`block_idx.y == 0`) and pivot column
        /// (`block_idx.y == 1`); `block_idx.x` walks the row or column, skipping the pivot.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase2(d: *mut i32, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t;
            #[address_space(shared)]
            static mut PIVOT: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            #[address_space(shared)]
            static mut OWN: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            let x = thread::block_idx_x();
            if x == round {
                return;
            }
            let in_row = thread::block_idx_y() == 0;
            let (bi, bj) = if in_row { (round, x) } else { (x, round) };
            let sp = shared_addr(addr_of!(PIVOT));
            let so = shared_addr(addr_of!(OWN));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let d = d as *mut u32;
            let pivot = unsafe { d.add((round * B * pitch + round * B) as usize) };
            let own = unsafe { d.add((bi * B * pitch + bj * B) as usize) };
            let mut cell = [[0i32; $r]; $r];
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                let off = (i * pitch + j) as usize;
                cell[I][J] = unsafe { ld_global(own.add(off)) } as i32;
                unsafe {
                    sts(so + 4 * (i * B + j), cell[I][J]);
                    sts(sp + 4 * (i * B + j), ld_global(pivot.add(off)) as i32);
                }
            }); });
            thread::sync_threads();
            for kk in 0..B {
                seq!(I in 0..$r { seq!(J in 0..$r {
                    let (i, j) = (ty + I * T, tx + J * T);
                    // Row block: d[i][j] via pivot[i][k] + own[k][j]; column block: own[i][k] + pivot[k][j].
                    let via = unsafe {
                        if in_row {
                            lds(sp + 4 * (i * B + kk)) + lds(so + 4 * (kk * B + j))
                        } else {
                            lds(so + 4 * (i * B + kk)) + lds(sp + 4 * (kk * B + j))
                        }
                    };
                    if via < cell[I][J] {
                        cell[I][J] = via;
                        unsafe { sts(so + 4 * (i * B + j), via) };
                    }
                }); });
                thread::sync_threads();
            }
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                unsafe { st_global::<1>(own.add((i * pitch + j) as usize), [cell[I][J] as u32]) };
            }); });
        }

        /// Phase 3: every block outside the pivot row and column, from the (final) pivot-column
        /// block of its row and pivot-row block of its column. No barrier inside the k loop.
        ///
        /// Cell mapping (why it differs from phases 1–2): thread `(tx, ty)` owns `$rows`
        /// consecutive rows of one column, so a warp covers `$rows` rows x 32 columns. Per k it
        /// then reads one 128-byte row segment of the pivot-row block (one shared wavefront) and
        /// its own rows of the pivot-column block as 128-bit loads covering 4 k at once
        /// (broadcast): 2 wavefronts per 128 updates instead of 2.5 with 2 rows x 64 columns.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase3(d: *mut i32, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t;
            const RR: u32 = $rows;
            // Rows covered by one column of threads; the rest of ty picks the column group.
            const ROW_GROUPS: u32 = B / RR;
            #[repr(C, align(16))]
            struct Tile([i32; (B * B) as usize]);
            #[address_space(shared)]
            static mut COL: MaybeUninit<Tile> = MaybeUninit::uninit();
            #[address_space(shared)]
            static mut ROW: MaybeUninit<Tile> = MaybeUninit::uninit();
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == round || bj == round {
                return;
            }
            let sc = shared_addr(addr_of!(COL));
            let sr = shared_addr(addr_of!(ROW));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let row0 = (ty % ROW_GROUPS) * RR;
            let col = (ty / ROW_GROUPS) * T + tx;
            let d = d as *mut u32;
            // Offset of this thread's first cell in block (bi, bj); recomputed after the k loop
            // rather than kept live across it (registers decide whether 2 blocks fit per SM).
            let first = move |bi: u32, bj: u32| ((bi * B + row0) * pitch + bj * B + col) as usize;
            let mut cell = [0i32; $rows];
            seq!(I in 0..$rows {
                let i = row0 + I;
                let step = (I * pitch) as usize;
                unsafe {
                    cell[I] = ld_global(d.add(first(bi, bj) + step)) as i32;
                    sts(sc + 4 * (i * B + col), ld_global(d.add(first(bi, round) + step)) as i32);
                    sts(sr + 4 * (i * B + col), ld_global(d.add(first(round, bj) + step)) as i32);
                }
            });
            thread::sync_threads();
            let mut k0 = 0;
            while k0 < B {
                // 4 k per iteration: unrolling further makes ptxas hoist loads (more registers).
                seq!(H in 0..1 {
                    let kq = k0 + 4 * H;
                    // b for 4 k first, then one row's a at a time: 12 values live, not 20, which
                    // keeps the kernel at <= 32 registers (2 blocks of 1024 threads per SM).
                    let mut b = [0i32; 4];
                    seq!(J in 0..4 { b[J] = unsafe { lds(sr + 4 * ((kq + J) * B + col)) }; });
                    seq!(I in 0..$rows {
                        let a = unsafe { ld_shared::<4>(sc + 4 * ((row0 + I) * B + kq)) };
                        seq!(J in 0..4 {
                            cell[I] = core::cmp::min(cell[I], a[J] as i32 + b[J]);
                        });
                    });
                });
                k0 += 4;
            }
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            seq!(I in 0..$rows {
                unsafe { st_global::<1>(d.add(first(bi, bj) + (I * pitch) as usize), [cell[I] as u32]) };
            });
        }
    )*};
}

for_each_fw!(fw_kernels);
