//! The batched small-matrix kernels sized by class (`sgemm_batched_a8`, `_a16`, `_a32`): see
//! `batched_small.rs` for the contract. One kernel per bound `D` on M and N (8, 16, 32), so a
//! problem's block share fits it: `(D/4)²` threads per problem (a 4 x 4 corner of C each), `256 /
//! (D/4)²` problems per 256-thread block (64 of 8 x 8, 16 of 16 x 16, 4 of 32 x 32), k in slices
//! of `D`, so every class keeps 32 KB of A and B slices in shared memory per block.
//!
//! Why, against `sgemm_batched_32` (`batched_small_kernel.rs`, registers-staged loads):
//! - A batch of tiny problems is bound by loads in flight, not arithmetic. `cp.async` moves A's
//!   and B's slices straight into shared memory, so no register holds them in between (the
//!   staged kernel's 32 registers of loads, which kept it at 128 registers and two blocks per
//!   multiprocessor), and a problem of 8 x 8 no longer occupies the 64 threads of a 32 x 32 slot.
//! - Pieces past M, N or K are zeros in shared memory (plain shared stores for whole pieces,
//!   `cp.async`'s zero-fill for partial ones), so they add exact zeros; rows and columns past M
//!   and N are never stored. A block's slots past the batch recompute the last problem and store
//!   nothing (every thread reaches every barrier).
//! - C is written in 16-byte pieces where `ldc`, the stride and the buffer allow (`vec_c`).
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::batched_small::{BATCHED_SMALL_THREADS, BatchedSmallParams};
use crate::ptx::{
    cp_async_ca4, cp_async_cg16, cp_async_commit, cp_async_wait_all, ld_global, ld_global_v4,
    ld_shared, shared_addr, st_global, st_shared,
};

macro_rules! batched_async_kernels {
    ($(($name:ident, $d:tt, $q:tt)),* $(,)?) => {$(
        /// # Safety
        /// `p` must satisfy the [`BatchedSmallParams`] contract with `m, n <=` this kernel's
        /// bound (`vec` only when A and B allow 16-byte loads, `vec_c` only when C allows
        /// 16-byte accesses), and the launch must use 256 threads and
        /// `BatchedSmallConfig::blocks(batch)` blocks in x.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $name(p: BatchedSmallParams) {
            /// The bound on M and N, and k per slice.
            const D: u32 = $d;
            /// Threads per problem along a side (`$q == D / 4`).
            const Q: u32 = $q;
            const TPP: u32 = Q * Q;
            const SLOTS: u32 = BATCHED_SMALL_THREADS / TPP;
            /// Row pitch of A's slice in words (16-byte aligned rows), B's rows are D apart.
            const AP: u32 = D + 4;
            const A_WORDS: u32 = D * AP;
            const B_WORDS: u32 = D * D;
            const _: () = assert!(Q * 4 == D && SLOTS * TPP == BATCHED_SMALL_THREADS);
            // Each thread copies 4 float4 pieces of each slice (D rows of Q pieces).
            const _: () = assert!(D * Q == 4 * TPP);
            #[address_space(shared)]
            static mut AS: [MaybeUninit<f32>; (SLOTS * A_WORDS) as usize] =
                [MaybeUninit::uninit(); (SLOTS * A_WORDS) as usize];
            #[address_space(shared)]
            static mut BS: [MaybeUninit<f32>; (SLOTS * B_WORDS) as usize] =
                [MaybeUninit::uninit(); (SLOTS * B_WORDS) as usize];

            let tid = thread::thread_idx_x();
            let (slot, t) = (tid / TPP, tid % TPP);
            let (ty, tx) = (t / Q, t % Q);
            let prob = thread::block_idx_x() * SLOTS + slot;
            let live = prob < p.batch;
            let prob = if live { prob } else { p.batch - 1 } as usize;
            // SAFETY: only the addresses of the shared statics are taken; each slot has its
            // own part.
            let as_ = shared_addr(unsafe { addr_of!(AS) }) + 4 * slot * A_WORDS;
            // SAFETY: as above.
            let bs = shared_addr(unsafe { addr_of!(BS) }) + 4 * slot * B_WORDS;
            // SAFETY: prob < batch: the start of a problem's A and B (the contract's strides).
            let a = unsafe { p.a.add(prob * p.stride_a as usize) };
            // SAFETY: as above.
            let b = unsafe { p.b.add(prob * p.stride_b as usize) };
            let (lda, ldb) = (p.lda as usize, p.ldb as usize);
            let vec = p.vec != 0;
            let mut acc = [[0.0f32; 4]; 4];

            let mut k0 = 0;
            while k0 < p.k {
                // Every thread is done with the previous slice.
                thread::sync_threads();
                // Piece I of this thread: float4 (e % Q) of row e / Q of the A slice (D rows x
                // D k) and of the B slice (D k x D columns), e = t + TPP I.
                seq!(I in 0..4 {{
                    let e = t + TPP * I;
                    let (r, c4) = (e / Q, 4 * (e % Q));
                    let kg = k0 + c4;
                    let dst = as_ + 4 * (r * AP + c4);
                    bs_copy_piece!(dst, r < p.m && kg < p.k,
                        // SAFETY: evaluated only where r < m: row r of this problem's A.
                        unsafe { a.add(r as usize * lda + kg as usize) },
                        vec && kg + 4 <= p.k, kg, p.k);
                    let kr = k0 + r;
                    let dst = bs + 4 * (r * D + c4);
                    bs_copy_piece!(dst, kr < p.k && c4 < p.n,
                        // SAFETY: evaluated only where kr < k, c4 < n: a cell of row kr of B.
                        unsafe { b.add(kr as usize * ldb + c4 as usize) },
                        vec && c4 + 4 <= p.n, c4, p.n);
                }});
                // SAFETY: closes this thread's copies of the slice, then waits for them; the
                // barrier makes every thread's copies and stores visible to the block.
                unsafe { cp_async_commit() };
                cp_async_wait_all();
                thread::sync_threads();

                bs_fma_slice!(acc, as_, bs, AP, D, ty, tx, $q);
                k0 += D;
            }

            if live {
                // SAFETY: prob < batch: the start of this problem's C.
                let c = unsafe { p.c.add(prob * p.stride_c as usize) };
                let col = 4 * tx;
                seq!(I in 0..4 {{
                    let r = 4 * ty + I;
                    if r < p.m && col < p.n {
                        // SAFETY: r < m, col < n: a cell of this problem's C, which only this
                        // thread writes (problems' C do not overlap).
                        let q = unsafe { c.add(r as usize * p.ldc as usize + col as usize) }
                            as *mut u32;
                        if p.vec_c != 0 && col + 4 <= p.n {
                            let mut out = [0u32; 4];
                            if p.beta == 0.0 {
                                seq!(J in 0..4 { out[J] = (p.alpha * acc[I][J]).to_bits(); });
                            } else {
                                // SAFETY: cells col..col + 4 of row r, 16-byte aligned (vec_c:
                                // ldc and stride_c multiples of 4, C aligned; col a multiple
                                // of 4).
                                let old = unsafe { ld_global_v4(q) };
                                seq!(J in 0..4 {
                                    out[J] = (p.alpha * acc[I][J]
                                        + p.beta * f32::from_bits(old[J])).to_bits();
                                });
                            }
                            // SAFETY: as above.
                            unsafe { st_global::<4>(q, out) };
                        } else {
                            seq!(J in 0..4 {
                                if col + J < p.n {
                                    // SAFETY: col + J < n: a cell of the row of C.
                                    let qj = unsafe { q.add(J) };
                                    let out = if p.beta == 0.0 {
                                        p.alpha * acc[I][J]
                                    } else {
                                        // SAFETY: as above.
                                        let old = unsafe { ld_global(qj) };
                                        p.alpha * acc[I][J] + p.beta * f32::from_bits(old)
                                    };
                                    // SAFETY: as above.
                                    unsafe { st_global::<1>(qj, [out.to_bits()]) };
                                }
                            });
                        }
                    }
                }});
            }
        }
    )*};
}

batched_async_kernels! {
    (sgemm_batched_a8, 8, 2),
    (sgemm_batched_a16, 16, 4),
    (sgemm_batched_a32, 32, 8),
}
