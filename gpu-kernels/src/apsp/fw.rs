//! Blocked Floyd–Warshall phases. Kernel arguments: `(d, pitch, round)` with `d` the padded
//! distance matrix (row pitch `pitch` i32) and `round` the pivot block index.
//!
//! Thread `(tx, ty)` of a `T x T` block owns the `R x R` cells `(ty + ri*T, tx + rj*T)` of the
//! `B x B` block (R = B / T), keeping them in registers.
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
    ($phase1:ident, $phase2:ident, $phase3:ident, block = $b:tt, threads = $t:tt, cells = $r:tt) => {
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
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $phase3(d: *mut i32, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t;
            #[address_space(shared)]
            static mut COL: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            #[address_space(shared)]
            static mut ROW: [MaybeUninit<i32>; (B * B) as usize] = [MaybeUninit::uninit(); (B * B) as usize];
            let (bj, bi) = (thread::block_idx_x(), thread::block_idx_y());
            if bi == round || bj == round {
                return;
            }
            let sc = shared_addr(addr_of!(COL));
            let sr = shared_addr(addr_of!(ROW));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let d = d as *mut u32;
            let own = unsafe { d.add((bi * B * pitch + bj * B) as usize) };
            let col = unsafe { d.add((bi * B * pitch + round * B) as usize) };
            let row = unsafe { d.add((round * B * pitch + bj * B) as usize) };
            let mut cell = [[0i32; $r]; $r];
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                let off = (i * pitch + j) as usize;
                unsafe {
                    cell[I][J] = ld_global(own.add(off)) as i32;
                    sts(sc + 4 * (i * B + j), ld_global(col.add(off)) as i32);
                    sts(sr + 4 * (i * B + j), ld_global(row.add(off)) as i32);
                }
            }); });
            thread::sync_threads();
            let mut k0 = 0;
            while k0 < B {
                // Unrolled by 8: full unrolling makes ptxas hoist every load (168 registers at B=64).
                seq!(U in 0..8 {
                    let kk = k0 + U;
                    let mut a = [0i32; $r];
                    let mut b = [0i32; $r];
                    seq!(I in 0..$r { a[I] = unsafe { lds(sc + 4 * ((ty + I * T) * B + kk)) }; });
                    seq!(J in 0..$r { b[J] = unsafe { lds(sr + 4 * (kk * B + tx + J * T)) }; });
                    seq!(I in 0..$r { seq!(J in 0..$r {
                        cell[I][J] = core::cmp::min(cell[I][J], a[I] + b[J]);
                    }); });
                });
                k0 += 8;
            }
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                unsafe { st_global::<1>(own.add((i * pitch + j) as usize), [cell[I][J] as u32]) };
            }); });
        }
    };
}

fw_kernels!(
    fw_phase1_b16,
    fw_phase2_b16,
    fw_phase3_b16,
    block = 16,
    threads = 16,
    cells = 1
);
fw_kernels!(
    fw_phase1_b32,
    fw_phase2_b32,
    fw_phase3_b32,
    block = 32,
    threads = 32,
    cells = 1
);
fw_kernels!(
    fw_phase1_b64,
    fw_phase2_b64,
    fw_phase3_b64,
    block = 64,
    threads = 32,
    cells = 2
);
