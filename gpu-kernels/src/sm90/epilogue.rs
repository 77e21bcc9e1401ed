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
use crate::ptx::{ld_global, st_global};

use super::asm90::ld_global_v2;

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
