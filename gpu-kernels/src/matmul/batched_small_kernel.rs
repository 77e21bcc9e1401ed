//! The batched small-matrix kernel (`sgemm_batched_32`): see `batched_small.rs` for the design.
//!
//! Why this shape of work:
//! - A batch of 32 x 32 x 32 problems moves 12 KB per problem and does 32 K FMAs: it is bound by
//!   memory and by how many loads are in flight, not by arithmetic. A thread of a problem issues
//!   its 4 float4 loads of A and 4 of B before any store to shared memory, and a block has 4
//!   problems (32 KB) in flight.
//! - A's slice is kept as it is stored (`As[r][k]`, rows 36 words apart so float4 rows stay
//!   16-byte aligned) and B's likewise (`Bs[k][c]`): a thread reads 4 k of each of its 4 rows of
//!   A and its 4 columns of B for those k with 8 `ld.shared.v4` per 64 FMAs. An 8-lane phase of a
//!   128-bit load has one row of A (a broadcast) and 8 consecutive float4s of B (conflict-free).
//! - Rows past M, columns past N and k past K are zeros in shared memory and never stored, so
//!   they add exact zeros to the stored outputs; a block's slots past the batch recompute the
//!   last problem and store nothing (every thread reaches every barrier).
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::batched_small::{
    BATCHED_SMALL_DIM, BATCHED_SMALL_KC, BATCHED_SMALL_PER_BLOCK, BATCHED_SMALL_THREADS,
    BATCHED_SMALL_THREADS_PER_PROBLEM, BatchedSmallParams,
};
use crate::ptx::{ld_global, ld_global_nc, ld_shared, shared_addr, st_global, st_shared};

/// Row pitch of a problem's A slice in words (32 k + 4: 16-byte aligned rows).
const AP: u32 = BATCHED_SMALL_KC + 4;
/// Row pitch of a problem's B slice in words.
const BP: u32 = BATCHED_SMALL_DIM;
/// Words of one problem's A and B slices.
const A_WORDS: u32 = BATCHED_SMALL_DIM * AP;
const B_WORDS: u32 = BATCHED_SMALL_KC * BP;
const SLOTS: u32 = BATCHED_SMALL_PER_BLOCK;

// The unrolled loops below are written for these (seq! needs literals).
const _: () = assert!(
    BATCHED_SMALL_DIM == 32
        && BATCHED_SMALL_KC == 32
        && BATCHED_SMALL_THREADS_PER_PROBLEM == 64
        && BATCHED_SMALL_THREADS == 256
);

/// # Safety
/// `p` must satisfy the [`BatchedSmallParams`] contract (with `vec == 1` only when A and B allow
/// 128-bit loads as it says), and the launch must use 256 threads and
/// `batched_small_blocks(batch)` blocks in x.
#[kernel]
#[allow(improper_ctypes_definitions)]
pub unsafe fn sgemm_batched_32(p: BatchedSmallParams) {
    #[address_space(shared)]
    static mut AS: [MaybeUninit<f32>; (SLOTS * A_WORDS) as usize] =
        [MaybeUninit::uninit(); (SLOTS * A_WORDS) as usize];
    #[address_space(shared)]
    static mut BS: [MaybeUninit<f32>; (SLOTS * B_WORDS) as usize] =
        [MaybeUninit::uninit(); (SLOTS * B_WORDS) as usize];

    let tid = thread::thread_idx_x();
    let (slot, t) = (tid / 64, tid % 64);
    let (ty, tx) = (t / 8, t % 8);
    let prob = thread::block_idx_x() * SLOTS + slot;
    let live = prob < p.batch;
    let prob = if live { prob } else { p.batch - 1 } as usize;
    // SAFETY: only the addresses of the shared statics are taken; each slot has its own part.
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
        // Piece I of this thread: float4 (e % 8) of row e / 8 of the A slice (32 rows x 32 k)
        // and of the B slice (32 k x 32 columns), e = t + 64 I. All 8 loads before any store.
        let mut va = [[0u32; 4]; 4];
        let mut vb = [[0u32; 4]; 4];
        seq!(I in 0..4 {{
            let e = t + 64 * I;
            let (r, c4) = (e / 8, 4 * (e % 8));
            let kg = k0 + c4;
            if r < p.m {
                // SAFETY: r < m: row r of this problem's A.
                let row = unsafe { a.add(r as usize * lda) };
                if vec && kg + 4 <= p.k {
                    // SAFETY: kg + 4 <= k: 4 cells of the row, 16-byte aligned (vec: lda and
                    // stride_a multiples of 4, A aligned; kg a multiple of 4); never written.
                    va[I] = unsafe { ld_global_nc::<4>(row.add(kg as usize) as *const u32) };
                } else {
                    seq!(J in 0..4 {
                        if kg + J < p.k {
                            // SAFETY: kg + J < k: a cell of the row, never written.
                            va[I][J] = unsafe { ld_global_nc::<1>(row.add((kg + J) as usize) as *const u32) }[0];
                        }
                    });
                }
            }
            let kr = k0 + r;
            if kr < p.k {
                // SAFETY: kr < k: row kr of this problem's B.
                let row = unsafe { b.add(kr as usize * ldb) };
                if vec && c4 + 4 <= p.n {
                    // SAFETY: c4 + 4 <= n: 4 cells of the row, 16-byte aligned as for A; never
                    // written.
                    vb[I] = unsafe { ld_global_nc::<4>(row.add(c4 as usize) as *const u32) };
                } else {
                    seq!(J in 0..4 {
                        if c4 + J < p.n {
                            // SAFETY: c4 + J < n: a cell of the row, never written.
                            vb[I][J] = unsafe { ld_global_nc::<1>(row.add((c4 + J) as usize) as *const u32) }[0];
                        }
                    });
                }
            }
        }});
        seq!(I in 0..4 {{
            let e = t + 64 * I;
            let (r, c4) = (e / 8, 4 * (e % 8));
            // SAFETY: r < 32, c4 + 4 <= 32: words r * AP + c4.. of this slot's A slice and
            // r * BP + c4.. of its B slice, 16-byte aligned (AP, BP, c4 multiples of 4); between
            // the barriers only this thread writes them.
            unsafe { st_shared::<4>(as_ + 4 * (r * AP + c4), va[I]) };
            // SAFETY: as above.
            unsafe { st_shared::<4>(bs + 4 * (r * BP + c4), vb[I]) };
        }});
        thread::sync_threads();

        bs_fma_slice!(acc, as_, bs, AP, BP, ty, tx, 8);
        k0 += BATCHED_SMALL_KC;
    }

    if live {
        // SAFETY: prob < batch: the start of this problem's C.
        let c = unsafe { p.c.add(prob * p.stride_c as usize) };
        seq!(I in 0..4 {
            seq!(J in 0..4 {{
                let (r, col) = (4 * ty + I, 4 * tx + J);
                if r < p.m && col < p.n {
                    // SAFETY: r < m, col < n: a cell of this problem's C, which only this thread
                    // writes (problems' C do not overlap).
                    let q = unsafe { c.add(r as usize * p.ldc as usize + col as usize) } as *mut u32;
                    let out = if p.beta == 0.0 {
                        p.alpha * acc[I][J]
                    } else {
                        // SAFETY: `q` is a cell of C.
                        p.alpha * acc[I][J] + p.beta * f32::from_bits(unsafe { ld_global(q) })
                    };
                    // SAFETY: as above.
                    unsafe { st_global::<1>(q, [out.to_bits()]) };
                }
            }});
        });
    }
}
