//! The float Floyd–Warshall kernels (`float.rs` has their table and the conventions): per
//! weight type, phase 1 (the pivot block, in place, one barrier per k), phases 2 and 3 (a
//! register-tiled (min, +) product staged through shared memory), and the add-min ceiling.
//!
//! Phase 2 is the product `own = P ⊗ own` (row block) or `own ⊗ P` (column block) with the
//! block's *old* values, as in the int32 `tile` layout: P is closed by phase 1 (zero diagonal),
//! so every chain through several pivot vertices is dominated by its direct P entry. Phase 3 is
//! `own = min(own, A ⊗ B)` with A the pivot-column block of its row and B the pivot-row block
//! of its column. The k range is staged `k_chunk` values at a time, so that the slices stay
//! under 48 KB of static shared memory. The weight types' cells and add-min: `float_cell.rs`.
use core::mem::MaybeUninit;
use core::ptr::addr_of;

use cuda_std::{address_space, kernel, thread};
use seq_macro::seq;

use super::float::float_type;
use super::float_cell::{Cell, cp_async_ca_16, prefetch_l2, sm_count};
use super::offsets::{block_origin, in_block};
use crate::ptx::{cp_async_16, cp_async_commit, cp_async_wait, cp_async_wait_all, shared_addr};

/// Top-left cell of block `(bi, bj)` of the matrix at `d` (row pitch `pitch` cells): a 64-bit
/// offset ([`block_origin`]), the cells of the block then 32-bit offsets from it.
#[inline(always)]
fn block_ptr<W, const B: u32>(d: *mut W, pitch: u32, bi: u32, bj: u32) -> *mut W {
    // SAFETY: not checked here: every caller passes a block of the matrix `d` points to (its
    // launch grid and `round` < rounds), whose first cell `block_origin` computes in 64 bits.
    unsafe { d.add(block_origin(B, pitch, bi, bj)) }
}

/// `p` as it is, through an `asm!` with side effects: LLVM cannot merge what is computed from
/// it with what was computed from `p` before.
#[inline(always)]
fn opaque_ptr<W>(p: *mut W) -> *mut W {
    let mut q = p;
    // SAFETY: a register move; no memory is touched.
    unsafe {
        core::arch::asm!("mov.b64 {q}, {q};", q = inout(reg64) q, options(nomem, nostack, preserves_flags));
    }
    q
}

/// `$ak` cells of an A row at shared address `$addr` (4: 16 bytes f32 / 32 bytes f64; 2).
macro_rules! fwf_ld_a {
    ($ty:ty, 4, $addr:expr) => {
        <$ty as Cell>::ld4_shared($addr)
    };
    ($ty:ty, 2, $addr:expr) => {
        <$ty as Cell>::ld2_shared($addr)
    };
}

/// `own = min(own, A ⊗ B)` for `B x B` blocks at `$own`, `$a`, `$b` (pointers to their top-left
/// cells, row pitch `$pitch`), by `TX x TY` threads with `CR x CC` cells each: rows
/// `(R / 4) * 4TY + 4 * ty + R % 4`, columns `(Q / 4) * 4TX + 4 * tx + Q % 4`, as the int32
/// `fw_tile_update!`. The k range goes through shared memory `KC` at a time: A's rows (pitch
/// KC + 4 cells, so that the rows of one warp's `ty`s fall in different banks) and B's. With
/// `ST` = 2 stages the next slice's copies are in flight while the current one is used (one
/// barrier per slice); with 1, copy, wait and use follow each other. Copies are `cp.async` of 16
/// bytes; shared loads are 16 bytes (f64: two of them); each A load covers `$ak` = 4 or 2 k
/// (2: half the A registers live at once, for shapes that must fit a register cap).
///
/// Memory `[$own, _, $acp]` (the list's last column): `early` reads the own cells into the
/// registers before the product; `late` starts them at +inf, asks L2 for the own block at the
/// start (its DRAM read then overlaps the product instead of the prologue of a whole wave of
/// blocks at once) and folds it in at the end (`min_first`: the own value wins ties, as it does
/// when it comes first, so the result is the same). `$ahead`, if given, is a later block's own
/// block to ask L2 for. `$acp` = `ca` copies A through L1 (the blocks of an SM mostly share A,
/// the pivot-column block of their row), `cg` past it.
macro_rules! fwf_tile_update {
    ($ty:ty, $es:tt, $b:tt, ($tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt, $st:tt, $ak:tt,
        [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt]), $pitch:ident,
        own: $own:expr, a: $a:expr, b: $bb:expr, ahead: $ahead:expr, half: $half:expr,
        store: $store:expr) => {{
        const B: u32 = $b;
        const TX: u32 = $tx;
        const TY: u32 = $tyn;
        const ES: u32 = $es;
        // Distance between a thread's groups of 4 rows (columns).
        const GR: u32 = 4 * TY;
        const GC: u32 = 4 * TX;
        const KC: u32 = $kc;
        const ST: u32 = $st;
        // Own blocks sharing the A slice (the block's threads: `TILES` tiles of TX x TY along
        // y, tile `half`); with 2, A rows are unpadded and swizzled (`SWZ`, see `float.rs`).
        const TILES: u32 = $tl;
        const SWZ: bool = TILES == 2;
        const SC: u32 = if SWZ { KC } else { KC + 4 };
        // Bytes per A row in shared memory.
        const RB: u32 = SC * ES;
        const LEAN: bool = fw_float_word!($cpy);
        const CHUNKS: u32 = B / KC;
        const QA: u32 = KC * ES / 16;
        const QB: u32 = B * ES / 16;
        const NT: u32 = TX * TY;
        // Bytes of one stage of each slice.
        const SA_BYTES: u32 = B * SC * ES;
        const SB_BYTES: u32 = KC * B * ES;
        const SB_STAGE: u32 = SB_BYTES * TILES;
        const LATE: bool = fw_float_word!($own_at);
        const A_L1: bool = fw_float_word!($acp);
        // Cells per 128-byte line, lines per block row.
        const LINE: u32 = 128 / ES;
        const ROW_LINES: u32 = B / LINE;
        const _: () = assert!(TY * $cr == B && TX * $cc == B && $cr % 4 == 0 && $cc % 4 == 0);
        const _: () = assert!((B * QA) % NT == 0 && (KC * QB) % NT == 0);
        const _: () = assert!(ST == 1 || (ST == 2 && CHUNKS >= 2));
        // The swizzle: quad bits 4–5 of a row's byte offset XOR (row / 4) % 4, rows of a
        // multiple of 128 bytes on a 64-byte aligned tile, and a thread's rows all with
        // (row / 4) % 4 = ty % 4 (TY a multiple of 4).
        const _: () = assert!(!SWZ || (RB % 128 == 0 && TY % 4 == 0 && (B * RB) % 64 == 0));
        #[repr(C, align(128))]
        struct ATile([$ty; (ST * B * SC) as usize]);
        #[repr(C, align(128))]
        struct BTile([$ty; (ST * KC * B * TILES) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();
        let pitch: u32 = $pitch;
        let sa = shared_addr(addr_of!(A_TILE));
        let sb = shared_addr(addr_of!(B_TILE));
        let half: u32 = $half;
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y() - half * TY);
        let t = ty * TX + tx;
        // The swizzle of row r's quads (bytes), 0 without.
        let sw = |r: u32| if SWZ { ((r >> 2) & 3) << 4 } else { 0 };

        let own: *mut $ty = $own;
        let mut cell = [[<$ty>::INFINITY; $cc]; $cr];
        let mut v = [<$ty>::INFINITY; 4];
        let prefetch: Option<*const $ty> = if LATE { Some(own as *const $ty) } else { $ahead };
        if let Some(p) = prefetch {
            let mut q = t;
            while q < B * ROW_LINES {
                // SAFETY: the line of cell (q / ROW_LINES, (q % ROW_LINES) * LINE) < (B, B) of the
                // B x B block at `p` (this block's own, or the later block `$ahead` names).
                unsafe { prefetch_l2(p.add(in_block(pitch, q / ROW_LINES, (q % ROW_LINES) * LINE) as usize)) };
                q += NT;
            }
        }
        if !LATE {
            seq!(R in 0..$cr { seq!(Q in 0..$cc {
                if Q % 4 == 0 {
                    let i = (R / 4) * GR + 4 * ty + R % 4;
                    let j = (Q / 4) * GC + 4 * tx;
                    // SAFETY: cells (i, j..j + 4) of the own B x B block (i < B: R / 4 < CR / 4
                    // groups of GR = 4TY rows, 4 * ty + 3 < GR; j + 3 < B likewise), 16-byte
                    // aligned (j a multiple of 4, pitch of B). Only this thread stores them,
                    // after its load.
                    v = unsafe { <$ty as Cell>::ld4_global(own.add(in_block(pitch, i, j) as usize)) };
                }
                cell[R][Q] = v[Q % 4];
            }); });
        }

        let (pa, pb): (*mut $ty, *mut $ty) = ($a, $bb);
        // Starts the copies of slice `c0..c0 + KC` (A's columns, B's rows) into stage `s`.
        let copy = |c0: u32, s: u32| {
            let (da, db) = (sa + s * SA_BYTES, sb + s * SB_STAGE + half * SB_BYTES);
            if LEAN {
                // Thread `ta` of the A copiers (every tile's threads) copies quad ta % QA of
                // rows ta / QA + N·RSA, thread t of a tile quad t % QB of B rows t / QB + N·RSB:
                // one offset per operand, then a constant step per copy.
                const NTA: u32 = NT * TILES;
                const RSA: u32 = NTA / QA;
                const NA: u32 = B * QA / NTA;
                const RSB: u32 = NT / QB;
                const NB: u32 = KC * QB / NT;
                let ta = half * NT + t;
                let (ra, qa) = (ta / QA, ta % QA);
                let (rb, qb) = (t / QB, t % QB);
                let (ga, gb) = (in_block(pitch, ra, c0 + qa * 16 / ES), in_block(pitch, c0 + rb, qb * 16 / ES));
                let (step_a, step_b) = (RSA * pitch, RSB * pitch);
                seq!(N in 0..16 {
                    if N < NA {
                        let r = ra + N * RSA;
                        // SAFETY: as the loop below: global row r < B (NA·RSA = B rows), quad qa
                        // < QA of the slice's columns of the A block; shared: that quad of row r
                        // of stage s of A_TILE, swizzled inside its 64-byte group (a bijection on
                        // the row), copied by this thread only.
                        unsafe {
                            let src = pa.add((ga + N * step_a) as usize) as *const u32;
                            let dst = da + r * RB + ((qa * 16) ^ sw(r));
                            if A_L1 { cp_async_ca_16(dst, src) } else { cp_async_16(dst, src) }
                        }
                    }
                });
                seq!(N in 0..16 {
                    if N < NB {
                        // SAFETY: as for A: row c0 + rb + N·RSB < c0 + KC of the B block, quad
                        // qb < QB; this tile's B slice of stage s.
                        unsafe {
                            let src = pb.add((gb + N * step_b) as usize) as *const u32;
                            cp_async_16(db + (rb + N * RSB) * B * ES + qb * 16, src);
                        }
                    }
                });
                return;
            }
            let mut q = t;
            while q < B * QA {
                let (r, cq) = (q / QA, q % QA);
                // SAFETY: global: 16 aligned bytes of row r < B, columns c0 + cq·16/ES.. < B of
                // the A block, not written in this launch before the last barrier (phase 3
                // never writes the pivot column; phase 2's own block is stored after every
                // slice is read). Shared: quad cq of row r of stage s of A_TILE (row pitch SC
                // cells), copied by this thread only; nobody reads that stage until the copies
                // are waited for and a barrier passed, and the barrier before this call ended
                // every read of the slice it held before.
                unsafe {
                    let src = pa.add(in_block(pitch, r, c0 + cq * 16 / ES) as usize);
                    if A_L1 {
                        cp_async_ca_16(da + r * SC * ES + cq * 16, src as *const u32);
                    } else {
                        cp_async_16(da + r * SC * ES + cq * 16, src as *const u32);
                    }
                }
                q += NT;
            }
            let mut q = t;
            while q < KC * QB {
                let (r, cq) = (q / QB, q % QB);
                // SAFETY: as for A: row c0 + r < B, quad cq of the B block; stage s of B_TILE.
                unsafe {
                    let src = pb.add(in_block(pitch, c0 + r, cq * 16 / ES) as usize);
                    cp_async_16(db + r * B * ES + cq * 16, src as *const u32);
                }
                q += NT;
            }
        };
        if ST == 2 {
            copy(0, 0);
            // SAFETY: closes this thread's group of copies just started.
            unsafe { cp_async_commit() };
        }
        let mut c = 0;
        while c < CHUNKS {
            if ST == 1 {
                if c > 0 {
                    // Every thread is done with the previous slice before it is overwritten.
                    thread::sync_threads();
                }
                copy(c * KC, 0);
                cp_async_wait_all();
            } else if c + 1 < CHUNKS {
                // The other stage was last read in step c - 1, which the barrier at its end
                // closed for every thread.
                copy((c + 1) * KC, (c + 1) % 2);
                // SAFETY: closes the group just started, then waits for all but it (slice c).
                unsafe {
                    cp_async_commit();
                    cp_async_wait::<1>();
                }
            } else {
                // SAFETY: waits for every copy (slice c).
                unsafe { cp_async_wait::<0>() };
            }
            thread::sync_threads();

            let s = if ST == 1 { 0 } else { c % 2 };
            let a_base = sa + s * SA_BYTES + 4 * ty * RB;
            let b_base = sb + s * SB_STAGE + half * SB_BYTES + ES * (4 * tx);
            // This thread's rows all have the swizzle of row 4 * ty.
            let swz = sw(4 * ty);
            // One step per A load: `$ak` values of k. ptxas issues a step's shared loads
            // together ahead of its updates, so the step's operands (A: CR x AK cells, B: AK x
            // CC) are live at once next to the CR x CC cells: AK = 2 halves them. `$un` steps
            // per iteration.
            let mut k0 = 0;
            while k0 < KC {
              seq!(UN in 0..$un {{
                let k = k0 + UN * $ak;
                // Row 4 * ty's cells k.. (a_base is a multiple of 64 bytes, so the XOR of the
                // quad bits commutes with adding whole rows below).
                let a_k = (a_base + ES * k) ^ swz;
                let mut a = [[<$ty>::INFINITY; $ak]; $cr];
                seq!(R in 0..$cr {
                    // SAFETY: row (R / 4) * GR + 4 * ty + R % 4 < B of the stage's A slice,
                    // cells k..k + AK <= KC <= SC, aligned to AK cells (k and SC multiples of
                    // 4, the rows 16-byte aligned; the swizzle moves whole 16-byte quads within
                    // the row); landed before the barrier above.
                    a[R] = unsafe { fwf_ld_a!($ty, $ak, a_k + RB * ((R / 4) * GR + R % 4)) };
                });
                seq!(U in 0..$ak {
                    let mut b = [<$ty>::INFINITY; $cc];
                    let mut vb = [<$ty>::INFINITY; 4];
                    seq!(Q in 0..$cc {
                        if Q % 4 == 0 {
                            // SAFETY: row k + U < KC of the stage's B slice, cells (Q / 4) * GC +
                            // 4 * tx..+4 <= B, aligned; landed before the barrier above.
                            vb = unsafe { <$ty as Cell>::ld4_shared(b_base + ES * ((k + U) * B + (Q / 4) * GC)) };
                        }
                        b[Q] = vb[Q % 4];
                    });
                    seq!(R in 0..$cr { seq!(Q in 0..$cc {
                        cell[R][Q] = <$ty as Cell>::add_min(cell[R][Q], a[R][U], b[Q]);
                    }); });
                });
              }});
              k0 += $un * $ak;
            }
            if ST == 2 && c + 1 < CHUNKS {
                // Every thread is done with this stage before step c + 1 refills it.
                thread::sync_threads();
            }
            c += 1;
        }

        let own: *mut $ty = $own;
        // Lean copies: the own block's pointer through an opaque move, so that the compilers
        // recompute the stores' addresses here instead of keeping the 16 load addresses of
        // the prologue live across the k loop (32 registers: 172 in all, or spills under a cap).
        let own = if LEAN { opaque_ptr(own) } else { own };
        if LATE {
            // A quarter of the rows at a time: a quarter's loads all in flight before its
            // folds and stores (a store may alias a later load as far as the compilers know,
            // so loads and stores interleaved would wait for L2 once per 4 cells), and few
            // registers beside the cells.
            seq!(H in 0..4 {
                let mut o = [[<$ty>::INFINITY; $cc]; $cr];
                seq!(R in 0..$cr { seq!(Q in 0..$cc {
                    if R * 4 / $cr == H {
                        if Q % 4 == 0 {
                            let i = (R / 4) * GR + 4 * ty + R % 4;
                            let j = (Q / 4) * GC + 4 * tx;
                            // SAFETY: as the `early` load above: cells (i, j..j + 4) of the own
                            // block, aligned, stored by this thread only, after this load.
                            v = unsafe { <$ty as Cell>::ld4_global_cg(own.add(in_block(pitch, i, j) as usize)) };
                        }
                        o[R][Q] = v[Q % 4];
                    }
                }); });
                seq!(R in 0..$cr { seq!(Q in 0..$cc {
                    if R * 4 / $cr == H {
                        v[Q % 4] = <$ty as Cell>::min_first(o[R][Q], cell[R][Q]);
                        if Q % 4 == 3 {
                            let i = (R / 4) * GR + 4 * ty + R % 4;
                            let j = (Q / 4) * GC + 4 * tx;
                            // SAFETY: the 4 own cells just loaded (same i, j), stored by this
                            // thread only, after every thread read its last operand slice.
                            unsafe { <$ty as Cell>::st4_global(own.add(in_block(pitch, i, j) as usize), v) };
                        }
                    }
                }); });
            });
        } else if $store {
            seq!(R in 0..$cr { seq!(Q in 0..$cc {
                v[Q % 4] = cell[R][Q];
                if Q % 4 == 3 {
                    let i = (R / 4) * GR + 4 * ty + R % 4;
                    let j = (Q / 4) * GC + 4 * tx;
                    // SAFETY: the 4 own cells this thread loaded at the start (same i, j), stored
                    // by it only, after every thread read its last operand slice (barrier above).
                    unsafe { <$ty as Cell>::st4_global(own.add(in_block(pitch, i, j) as usize), v) };
                }
            }); });
        }
    }};
}

macro_rules! fw_float_type_kernels {
    ($(($ty:ident, $es:tt, $p1:ident, $peak:ident, $b:tt, $t1:tt, $r:tt)),* $(,)?) => {$(
        /// Phase 1: closes the pivot block `(round, round)` in place; one block of
        /// `T1 x T1` threads with `R x R` cells `(ty + I*T1, tx + J*T1)` each.
        ///
        /// # Safety
        /// `d` must point to the padded matrix on the device: `rounds * B` rows of `pitch`
        /// cells, `pitch` a multiple of B and at least `rounds * B`, one block row (B x pitch)
        /// fewer than 2^32 cells; `round` < `rounds`; the launch geometry of `FW_FLOAT` (phase
        /// 1: one block; 2: grid `(rounds, 2)`; 3: grid `(rounds, rounds)`), the phases of a
        /// round in order, each launch alone on the matrix.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p1(d: *mut $ty, pitch: u32, round: u32) {
            const B: u32 = $b;
            const T: u32 = $t1;
            const ES: u32 = $es;
            #[repr(C, align(16))]
            struct Tile([$ty; (B * B) as usize]);
            #[address_space(shared)]
            static mut PIVOT: MaybeUninit<Tile> = MaybeUninit::uninit();
            let sp = shared_addr(addr_of!(PIVOT));
            let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
            let base = block_ptr::<$ty, B>(d, pitch, round, round);
            let mut cell = [[<$ty>::INFINITY; $r]; $r];
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                // SAFETY: cell (i, j), i, j < B, of the pivot block; only this thread stores it.
                // Shared: its PIVOT cell, read by others after the barrier below.
                unsafe {
                    cell[I][J] = *base.add(in_block(pitch, i, j) as usize);
                    <$ty as Cell>::st1_shared(sp + ES * (i * B + j), cell[I][J]);
                }
            }); });
            thread::sync_threads();
            for kk in 0..B {
                let (mut a, mut b) = ([<$ty>::INFINITY; $r], [<$ty>::INFINITY; $r]);
                seq!(I in 0..$r {
                    // SAFETY: PIVOT cells (ty + I*T, kk) and (kk, tx + I*T) < (B, B), stored
                    // before the last barrier; column and row kk do not change in step kk (zero
                    // diagonal, module comment of `float.rs`).
                    unsafe {
                        a[I] = <$ty as Cell>::ld1_shared(sp + ES * ((ty + I * T) * B + kk));
                        b[I] = <$ty as Cell>::ld1_shared(sp + ES * (kk * B + tx + I * T));
                    }
                });
                seq!(I in 0..$r { seq!(J in 0..$r {
                    let via = a[I] + b[J];
                    if via < cell[I][J] {
                        cell[I][J] = via;
                        // SAFETY: this thread's own PIVOT cell; not in row or column kk when it
                        // improves, and the barrier below orders it before step kk + 1.
                        unsafe { <$ty as Cell>::st1_shared(sp + ES * ((ty + I * T) * B + tx + J * T), via) };
                    }
                }); });
                thread::sync_threads();
            }
            seq!(I in 0..$r { seq!(J in 0..$r {
                let (i, j) = (ty + I * T, tx + J * T);
                // SAFETY: the cell this thread loaded above, stored by it only.
                unsafe { *base.add(in_block(pitch, i, j) as usize) = cell[I][J] };
            }); });
        }

        /// The add-min ceiling of this weight type: as `apsp_addmin_peak` (16 independent
        /// chains, 2 x 16 updates per iteration, each from another chain's previous value),
        /// with `w` from the host; stores only if the result equals `w` (practically never).
        ///
        /// # Safety
        /// `out` must point to a writable cell of device memory; any grid.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $peak(out: *mut $ty, w: $ty, iters: u32) {
            let t = thread::index_1d();
            let mut x = [<$ty>::INFINITY; 16];
            let mut y = [<$ty>::INFINITY; 16];
            seq!(I in 0..16 {
                x[I] = ((t.wrapping_mul(2_654_435_761).wrapping_add(I * 40_503)) >> 12) as $ty;
            });
            let mut n = 0;
            while n < iters {
                seq!(I in 0..16 {
                    y[I] = <$ty as Cell>::add_min(x[I], x[(I + 1) % 16], w);
                });
                seq!(I in 0..16 {
                    x[I] = <$ty as Cell>::add_min(y[I], y[(I + 5) % 16], w);
                });
                n += 1;
            }
            let mut s = <$ty>::INFINITY;
            seq!(I in 0..16 {
                s = if x[I] < s { x[I] } else { s };
            });
            if s == w {
                // SAFETY: `out` is a writable cell (the caller's contract) that nothing reads
                // during the launch; threads that store concurrently store the same value (see
                // `apsp_addmin_peak`).
                unsafe { *out = s };
            }
        }
    )*};
}

for_each_float_type!(fw_float_type_kernels);

macro_rules! fw_float_tile_kernels {
    ($(($v:ident, $p2:ident, $p3:ident, $ty:ident, $tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt,
        $st:tt, $ak:tt, $cap:tt, [$own_at:ident, $pf:tt, $acp:ident, $cpy:ident, $tl:tt, $un:tt])),* $(,)?) => {$(
        /// Phase 2: the pivot row's blocks (`block_idx.y == 0`, `own = P ⊗ own`) and the
        /// pivot column's (`block_idx.y == 1`, `own = own ⊗ P`); `block_idx.x` walks them,
        /// skipping the pivot. One own block per block and the loop copies whatever the row
        /// says (phase 2 is a few blocks per round; the lean copies spill in f64's phase 2
        /// under the 128-register cap).
        ///
        /// # Safety
        /// As phase 1 (`fwf32_phase1_b64`), with this variant's block of threads.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p2(d: *mut $ty, pitch: u32, round: u32) {
            if thread::block_idx_x() == round {
                return;
            }
            let own = move || {
                let x = thread::block_idx_x();
                let (bi, bj) = if thread::block_idx_y() == 0 { (round, x) } else { (x, round) };
                block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, bi, bj)
            };
            let pivot = block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, round, round);
            let in_row = thread::block_idx_y() == 0;
            let a = if in_row { pivot } else { own() };
            let b = if in_row { own() } else { pivot };
            fwf_tile_update!($ty, { float_type(stringify!($ty)).cell_bytes },
                { float_type(stringify!($ty)).block }, ($tx, $tyn, $cr, $cc, $kc, $st, $ak, [$own_at, $pf, $acp, loop, 1, $un]),
                pitch, own: own(), a: a, b: b, ahead: None, half: 0, store: true);
        }

        /// Phase 3: every block outside the pivot row and column.
        ///
        /// # Safety
        /// As phase 1.
        #[kernel]
        #[allow(improper_ctypes_definitions)]
        pub unsafe fn $p3(d: *mut $ty, pitch: u32, round: u32) {
            const TILES: u32 = $tl;
            // (own block column, tile of this thread, whether it stores), from the special
            // registers each time (not kept live across the k loop). With 2 tiles, block x
            // takes blocks 2x and 2x + 1 of the `rounds - 1` off the pivot column; the second
            // of an odd count repeats the first without storing it. A block row's blocks return
            // at once where there is none (the pivot row, or x past them).
            let col = move || {
                if TILES == 1 {
                    return (thread::block_idx_x(), 0, true);
                }
                let off = thread::grid_dim_y() - 1;
                let j0 = thread::block_idx_x() * TILES;
                let half = thread::thread_idx_y() / $tyn;
                let (j, store) = if j0 + half < off { (j0 + half, true) } else { (j0, false) };
                (if j < round { j } else { j + 1 }, half, store)
            };
            let bi = thread::block_idx_y();
            let (bj, half, _) = col();
            if bi == round || bj == round || (TILES > 1 && thread::block_idx_x() * TILES >= thread::grid_dim_y() - 1) {
                return;
            }
            let own = || block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, thread::block_idx_y(), col().0);
            // The block `$pf` blocks per SM later in launch order (x fastest), which runs about
            // one wave of `$pf` co-resident blocks per SM after this one, if it updates.
            const AHEAD: u32 = $pf;
            let ahead = if AHEAD == 0 {
                None
            } else {
                // (bi, bj + later) carried over the rows: 32-bit divisions only.
                let (n, later) = (thread::grid_dim_x(), bj + AHEAD * sm_count());
                let (li, lj) = (bi + later / n, later % n);
                if li < thread::grid_dim_y() && li != round && lj != round {
                    Some(block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, li, lj) as *const $ty)
                } else {
                    None
                }
            };
            fwf_tile_update!($ty, { float_type(stringify!($ty)).cell_bytes },
                { float_type(stringify!($ty)).block }, ($tx, $tyn, $cr, $cc, $kc, $st, $ak, [$own_at, $pf, $acp, $cpy, $tl, $un]),
                pitch, own: own(),
                a: block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, bi, round),
                b: block_ptr::<$ty, { float_type(stringify!($ty)).block }>(d, pitch, round, bj),
                ahead: ahead, half: half, store: col().2);
        }

    )*};
}

for_each_fw_float!(fw_float_tile_kernels);
