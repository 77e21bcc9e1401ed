//! The consumers' epilogue: a warp group's f32 accumulators stored to C as
//! `alpha·acc + beta·C`.
//!
//! Two paths, because the general one is slow: with every element bounds-checked, `beta` tested
//! and the address recomputed per pair, storing one 64 x 256 fragment took ~1500 instructions a
//! thread, about 14 % of the consumers' time in a 4096³ BF16 product (ncu's stall samples of the
//! one-block kernel, session 16), with the tensor cores idle meanwhile. A thread whose fragment
//! lies wholly inside C, with 8-byte pairs and `beta` 0 (C only written), takes the fast path:
//! one address per fragment row, constant offsets, an `FMUL` pair and one 8-byte store per pair.
//! Both paths store the same bits (`alpha·acc`, C not read).
//!
//! Even the fast path keeps the consumers ~7 % of their time (ncu, session 16): every SM stores
//! its tile at about the same moment and the stores drain at L2's pace, with the tensor cores
//! idle. So the one-block 16-bit kernels and the TMA-fed TF32 kernels store a whole tile with
//! TMA where `beta` is 0 and C's rows are 16-byte aligned ([`Out::store_tma`]): a warp group
//! writes its 64 x 256 fragment, 64 x 32 at a time, into a swizzled box in shared memory, and one
//! thread hands each box to the copy engine, which writes it to C (clipping rows and columns past
//! C) while the warp group goes on to the next tile: 0.7-1.8 points of cuBLAS more at 4096³
//! than the fast path, about the same at 8192³ (session 17).
use core::arch::asm;

use seq_macro::seq;

use crate::ptx::{fresh_tid_x, ld_global, st_global, st_shared};

use super::asm90::{fence_proxy_async_shared, fence_tensormap, ld_global_v2, warp_group_barrier};
use super::{EPI_BOX_COLS, EPI_BOX_ROWS, EPI_BUFFERS};

/// Bytes of one store box (64 rows of 128 bytes).
const BOX_BYTES: u32 = EPI_BOX_COLS * EPI_BOX_ROWS * 4;

/// Where a consumer stores its results: `c = alpha·acc + beta·c` inside `m x n`, rows `ldc` apart.
#[derive(Clone, Copy)]
pub(super) struct Out {
    pub c: *mut f32,
    pub m: u32,
    pub n: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
}

impl Out {
    /// Whether two neighbours at an even column may be stored as one 8-byte access.
    #[inline(always)]
    pub(super) fn pairs(&self) -> bool {
        self.ldc.is_multiple_of(2) && (self.c as usize).is_multiple_of(8)
    }

    /// Whether a thread's fragment, its elements at or after its first (row, column) and at
    /// most `row_last` and `col_last`, may take the fast path ([`Out::put_pair`]): all inside C,
    /// 8-byte pairs (`pairs`, [`Out::pairs`]) and `beta` 0.
    #[inline(always)]
    pub(super) fn whole(&self, pairs: bool, row_last: u32, col_last: u32) -> bool {
        pairs && self.beta == 0.0 && row_last < self.m && col_last < self.n
    }

    /// The address of (row, col) of C, as 32-bit words (computed, not dereferenced).
    #[inline(always)]
    pub(super) fn at(&self, row: u32, col: u32) -> *mut u32 {
        self.c
            .wrapping_add(row as usize * self.ldc as usize + col as usize) as *mut u32
    }

    /// The fast path's store: `alpha·(v0, v1)` (f32 bits) at `p` in one 8-byte store.
    ///
    /// # Safety
    /// `p` must be [`Out::at`] of an element inside C whose neighbour is inside C too, 8-byte
    /// aligned (both hold where [`Out::whole`] holds for the fragment and the column is even),
    /// and the two elements written by no other thread.
    #[inline(always)]
    pub(super) unsafe fn put_pair(&self, p: *mut u32, v0: u32, v1: u32) {
        let s = |v: u32| (self.alpha * f32::from_bits(v)).to_bits();
        // SAFETY: the caller's contract.
        unsafe { st_global::<2>(p, [s(v0), s(v1)]) }
    }

    /// Stores the f32 bits `v0`, `v1` at (row, col) and (row, col + 1), those inside C; `col`
    /// is even, and with `pairs` ([`Out::pairs`]) both go in one 8-byte store.
    ///
    /// # Safety
    /// `c` must be `m x n` f32 with rows `ldc` apart, (row, col..col + 2) written by no other
    /// thread.
    #[inline(always)]
    pub(super) unsafe fn store_pair(&self, pairs: bool, row: u32, col: u32, v0: u32, v1: u32) {
        if row >= self.m {
            return;
        }
        // SAFETY: (row, col) is inside C when col < n (checked before each access), and with
        // `pairs` (row·ldc + col)·4 is a multiple of 8 (even col and ldc, 8-byte aligned c).
        unsafe {
            let at = self.c.add(row as usize * self.ldc as usize + col as usize) as *mut u32;
            let scale = |v: u32, old: u32| {
                let mut x = self.alpha * f32::from_bits(v);
                if self.beta != 0.0 {
                    x += self.beta * f32::from_bits(old);
                }
                x.to_bits()
            };
            if pairs && col + 1 < self.n {
                let old = if self.beta != 0.0 {
                    ld_global_v2(at)
                } else {
                    [0, 0]
                };
                st_global::<2>(at, [scale(v0, old[0]), scale(v1, old[1])]);
            } else {
                if col < self.n {
                    let old = if self.beta != 0.0 { ld_global(at) } else { 0 };
                    st_global::<1>(at, [scale(v0, old)]);
                }
                if col + 1 < self.n {
                    let old = if self.beta != 0.0 {
                        ld_global(at.add(1))
                    } else {
                        0
                    };
                    st_global::<1>(at.add(1), [scale(v1, old)]);
                }
            }
        }
    }
}

impl Out {
    /// Stores a consumer warp group's m64n256 accumulators (`acc`, wgmma's fragment; scaled in
    /// place, so they hold `alpha·acc` afterwards) as `alpha·acc` into C's columns
    /// `n0..n0 + 256` of the warp group's 64 rows of the tile at row `m0` (those inside C)
    /// through the tensor map `map` ([`super::WgmmaParams::tmap_c`]): 8 boxes of 64 x 32, each
    /// written by the warp group into its two boxes (alternating) after the ring's barriers
    /// (`boxes`, [`super::pipeline::Ring::epilogue`]) in the 128-byte swizzled layout, then
    /// stored by the `lead` thread with `cp.async.bulk.tensor`. Before a box is handed over, the
    /// lead waits until every earlier box has been read out of shared memory, so the other
    /// buffer is free for the next box (and across tiles). Warp group `cw` of the consumers
    /// (threads `128 (cw + 1)..`) takes boxes `2 cw`, `2 cw + 1` and named barrier `1 + cw`.
    ///
    /// # Safety
    /// `beta` must be 0; every thread of the warp group calls this for the same tile, after
    /// every wgmma writing `acc` retired; `boxes` holds [`EPI_BYTES`](super::EPI_BYTES),
    /// 1024-byte aligned, used by nothing else; named barrier `1 + cw` is this warp group's
    /// alone while it runs; `map` a valid tensor map of C as the field says (fenced here), and
    /// the lead calls [`bulk_wait_all`] before the block exits.
    #[inline(always)]
    pub(super) unsafe fn store_tma(
        &self,
        map: *const u8,
        boxes: u32,
        lead: bool,
        acc: &mut [u32; 128],
        m0: u32,
        n0: u32,
    ) {
        let cw = fresh_tid_x() / 128 - 1;
        let (bufs, bar, row) = (
            boxes + cw * EPI_BUFFERS * BOX_BYTES,
            1 + cw,
            m0 + cw * EPI_BOX_ROWS,
        );
        if lead {
            // SAFETY: C's map is 128 bytes of global memory (the contract). Once a tile: the
            // kernel keeps no register for the map across its main loop.
            unsafe { fence_tensormap(map) };
        }
        let lane = fresh_tid_x() % 32;
        let (g, t) = (lane / 4, lane % 4);
        // This thread's rows of a box are `16 warp + g` and 8 below (+1024 bytes), 128 bytes
        // each, both of swizzle phase g: the 16-byte chunk index `2 J + t / 2` of columns
        // `8 J + 2 t ..` is XORed with g, which is `32 (J ^ g / 2)` bytes plus
        // `16 (t / 2 ^ g % 2)`; the first part per J below, the rest in `at` (few registers
        // beside the 128 accumulators).
        let at =
            ((fresh_tid_x() % 128) / 32 * 16 + g) * 128 + ((t / 2) ^ (g % 2)) * 16 + (t % 2) * 8;
        let q = (g / 2) * 32;
        seq!(B in 0..8 {
            let dst = bufs + (B % 2) * BOX_BYTES + at;
            // Fragment pairs 4 B + J of both rows, scaled in place (no temporaries: the
            // accumulators are dead after this, and registers are short).
            seq!(J in 0..4 {
                seq!(I in 0..4 {
                    acc[(4 * B + J) * 4 + I] = (self.alpha * f32::from_bits(acc[(4 * B + J) * 4 + I])).to_bits();
                });
                let p = dst + (q ^ (32 * J));
                // SAFETY: inside this warp group's box (the caller's contract), which the copy
                // engine finished reading (the lead's wait before the previous barrier).
                unsafe {
                    st_shared::<2>(p, [acc[(4 * B + J) * 4], acc[(4 * B + J) * 4 + 1]]);
                    st_shared::<2>(p + 1024, [acc[(4 * B + J) * 4 + 2], acc[(4 * B + J) * 4 + 3]]);
                }
            });
            // The box's writes before the copy engine's reads (async proxy), and the other
            // buffer free: every earlier box read out (a no-op in the threads that issued no
            // store; every thread waits, so that none branches around the barrier).
            fence_proxy_async_shared();
            bulk_wait_read_all();
            warp_group_barrier(bar);
            if lead {
                // SAFETY: the box is complete (barrier) and stays untouched until the lead's
                // next wait; `map` as the contract says.
                unsafe { tma_store_2d(map, n0 + EPI_BOX_COLS * B, row, dst) };
                bulk_commit();
            }
        });
    }
}

/// A TMA store of the box at shared address `src` to the element coordinates (`x` innermost,
/// `y`) of the tensor map `map`, in this thread's current bulk group (elements past the
/// tensor's bounds are not written).
///
/// # Safety
/// `map` must be a valid, fenced tensor map; `src` a box-sized, 1024-byte aligned region of
/// shared memory whose writes are ordered before (`fence.proxy.async`) and which nothing writes
/// until the group's reads complete ([`bulk_wait_read_all`]).
#[inline(always)]
unsafe fn tma_store_2d(map: *const u8, x: u32, y: u32, src: u32) {
    // SAFETY: the caller's contract; the copy reads only the box at `src`.
    unsafe {
        asm!("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [{m}, {{{x}, {y}}}], [{s}];",
             m = in(reg64) map, x = in(reg32) x, y = in(reg32) y, s = in(reg32) src,
             options(nostack, preserves_flags));
    }
}

/// Closes this thread's current bulk group (the stores issued since the last commit).
#[inline(always)]
fn bulk_commit() {
    // SAFETY: bookkeeping of this thread's bulk groups; touches no memory.
    unsafe {
        asm!(
            "cp.async.bulk.commit_group;",
            options(nostack, preserves_flags)
        )
    }
}

/// Waits until every bulk group of this thread has finished reading its shared memory.
#[inline(always)]
fn bulk_wait_read_all() {
    // SAFETY: a wait; touches no memory.
    unsafe {
        asm!(
            "cp.async.bulk.wait_group.read 0;",
            options(nostack, preserves_flags)
        )
    }
}

/// Waits until every bulk group of this thread has completed (its writes to global memory
/// done): before the block exits, whose shared memory the groups read.
#[inline(always)]
pub(super) fn bulk_wait_all() {
    // SAFETY: a wait; touches no memory.
    unsafe {
        asm!(
            "cp.async.bulk.wait_group 0;",
            options(nostack, preserves_flags)
        )
    }
}

/// Stores a consumer thread's wgmma accumulator fragment (m64nN: rows `row0` and `row0 + 8`,
/// column pairs `col0 + 8 J` for `J < nj`, pair `J` of row `row0 + 8 I` in `acc[4 J + 2 I ..]`)
/// through `out` ([`Out`]): every pair with one 8-byte store where [`Out::whole`] holds for the
/// whole fragment, each pair checked otherwise. Expands in an `unsafe` context whose caller
/// owns those elements of C (no other thread writes them).
macro_rules! store_fragment {
    ($out:expr, $pairs:expr, $acc:expr, $row0:expr, $col0:expr, $nj:tt) => {{
        let (out, pairs, row0, col0) = ($out, $pairs, $row0, $col0);
        if out.whole(pairs, row0 + 8, col0 + 8 * ($nj - 1) + 1) {
            let (p0, p1) = (out.at(row0, col0), out.at(row0 + 8, col0));
            ::seq_macro::seq!(J in 0..$nj {
                out.put_pair(p0.wrapping_add(8 * J), $acc[J * 4], $acc[J * 4 + 1]);
                out.put_pair(p1.wrapping_add(8 * J), $acc[J * 4 + 2], $acc[J * 4 + 3]);
            });
        } else {
            ::seq_macro::seq!(J in 0..$nj {
                ::seq_macro::seq!(I in 0..2 {
                    out.store_pair(pairs, row0 + 8 * I, col0 + 8 * J,
                                   $acc[J * 4 + I * 2], $acc[J * 4 + I * 2 + 1]);
                });
            });
        }
    }};
}
pub(super) use store_fragment;
