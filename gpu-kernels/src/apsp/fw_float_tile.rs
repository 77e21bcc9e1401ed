//! The float Floyd–Warshall kernels' shared pieces (`fw_float.rs` instantiates them): the
//! block pointer, an opaque pointer move, and the register-tiled (min, +) product
//! `fwf_tile_update!` of phases 2 and 3 with its A-row load `fwf_ld_a!`. The macros expand in
//! `fw_float.rs`, whose imports their bodies use.
use super::offsets::block_origin;

/// Top-left cell of block `(bi, bj)` of the matrix at `d` (row pitch `pitch` cells): a 64-bit
/// offset ([`block_origin`]), the cells of the block then 32-bit offsets from it.
#[inline(always)]
pub(super) fn block_ptr<W, const B: u32>(d: *mut W, pitch: u32, bi: u32, bj: u32) -> *mut W {
    // SAFETY: not checked here: every caller passes a block of the matrix `d` points to (its
    // launch grid and `round` < rounds), whose first cell `block_origin` computes in 64 bits.
    unsafe { d.add(block_origin(B, pitch, bi, bj)) }
}

/// `p` as it is, through an `asm!` with side effects: LLVM cannot merge what is computed from
/// it with what was computed from `p` before.
#[inline(always)]
pub(super) fn opaque_ptr<W>(p: *mut W) -> *mut W {
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

/// A thread's `CG` cells of a B row at shared address `$addr` (`CG` = 4, or 2 with columns in
/// pairs, the other two then copies), as 4 cells.
macro_rules! fwf_ld_b {
    ($ty:ty, $addr:expr) => {
        if CG == 4 {
            <$ty as Cell>::ld4_shared($addr)
        } else {
            let w = <$ty as Cell>::ld2_shared($addr);
            [w[0], w[1], w[0], w[1]]
        }
    };
}

/// One slice's product: `$cell = min($cell, A ⊗ B)` over the `KC` values of k of a shared-memory
/// stage whose A rows start at `$a_base` (this thread's rows, swizzle `$swz`) and whose B rows
/// start at `$b_base` (this thread's columns). One step per A load: `$ak` values of k. ptxas
/// issues a step's shared loads together ahead of its updates, so the step's operands (A: CR x
/// AK cells, B: AK x CC) are live at once next to the CR x CC cells: AK = 2 halves them. `$un`
/// steps per iteration. The grid kernels' `fwf_tile_update!` and the persistent
/// `fwf_persist_update!` share it (the constants `KC`, `B`, `GR`, `GC`, `CG`, `RB`, `ES` are
/// theirs: `CG` columns per group, groups `GC` apart).
macro_rules! fwf_slice_product {
    ($ty:ty, $cr:tt, $cc:tt, $ak:tt, $un:tt, $cell:ident, $a_base:ident, $b_base:ident, $swz:ident) => {
        let mut k0 = 0;
        while k0 < KC {
          seq!(UN in 0..$un {{
            let k = k0 + UN * $ak;
            // Row 4 * ty's cells k.. (a_base is a multiple of 64 bytes, so the XOR of the
            // quad bits commutes with adding whole rows below).
            let a_k = ($a_base + ES * k) ^ $swz;
            let mut a = [[<$ty>::INFINITY; $ak]; $cr];
            seq!(R in 0..$cr {
                // SAFETY: row (R / 4) * GR + 4 * ty + R % 4 < B of the stage's A slice,
                // cells k..k + AK <= KC, aligned to AK cells (k and KC multiples of 4, the rows
                // 16-byte aligned; the swizzle moves whole 16-byte quads within the row); the
                // caller's barrier has seen the slice land.
                a[R] = unsafe { fwf_ld_a!($ty, $ak, a_k + RB * ((R / 4) * GR + R % 4)) };
            });
            seq!(U in 0..$ak {
                let mut b = [<$ty>::INFINITY; $cc];
                let mut vb = [<$ty>::INFINITY; 4];
                seq!(Q in 0..$cc {
                    if Q % CG == 0 {
                        let p = $b_base + ES * ((k + U) * B + (Q / CG) * GC);
                        // SAFETY: row k + U < KC of the stage's B slice, cells (Q / CG) * GC +
                        // CG * tx..+CG <= B, aligned to CG cells (16 bytes); the caller's
                        // barrier has seen it land.
                        vb = unsafe { fwf_ld_b!($ty, p) };
                    }
                    b[Q] = vb[Q % CG as usize];
                });
                seq!(R in 0..$cr { seq!(Q in 0..$cc {
                    $cell[R][Q] = <$ty as Cell>::add_min($cell[R][Q], a[R][U], b[Q]);
                }); });
            });
          }});
          k0 += $un * $ak;
        }
    };
}

/// `own = min(own, A ⊗ B)` for `B x B` blocks at `$own`, `$a`, `$b` (pointers to their top-left
/// cells, row pitch `$pitch`), by `TX x TY` threads with `CR x CC` cells each: rows
/// `(R / 4) * 4TY + 4 * ty + R % 4`, columns `(Q / 4) * 4TX + 4 * tx + Q % 4`, as the int32
/// `fw_tile_update!`. The k range goes through shared memory `KC` at a time: A's rows (pitch
/// KC + 4 cells, so that the rows of one warp's `ty`s fall in different banks) and B's. With
/// `ST` = 2 stages the next slice's copies are in flight while the current one is used (one
/// barrier per slice); with 1, copy, wait and use follow each other; with `ST` = 3 the stages
/// are a ring, the copies two slices ahead, and the one barrier per slice also frees the stage
/// the next copy refills (A rows then unpadded and swizzled, as for two own blocks). Copies are
/// `cp.async` of 16 bytes; shared loads are 16 bytes (f64: two of them); each A load covers `$ak` = 4 or 2 k
/// (2: half the A registers live at once, for shapes that must fit a register cap).
///
/// Memory `[$own, _, $acp]` (the list's last column): `early` reads the own cells into the
/// registers before the product; `late` starts them at +inf, asks L2 for the own block at the
/// start (its DRAM read then overlaps the product instead of the prologue of a whole wave of
/// blocks at once) and folds it in at the end (`min_first`: the own value wins ties, as it does
/// when it comes first, so the result is the same). `$ahead`, if given, is a later block's own
/// block to ask L2 for. `$acp` = `ca` copies A through L1 (the blocks of an SM mostly share A,
/// the pivot-column block of their row), `cg` past it. `$cpy` = `lean32`/`loop32` (32-bit
/// offsets): A, B and the own block through opaque 64-bit base pointers, the own cells by row
/// from the thread's first cell (the column groups an immediate offset), so that each address
/// costs 2–3 instructions instead of 5 and no offsets stay live across the k loop.
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
        // Columns per group: 4, or 2 with columns in pairs (`FwFloatConfig::b_pairs`).
        const CG: u32 = if fw_float_pairs!($cpy) { 2 } else { 4 };
        const GC: u32 = CG * TX;
        const KC: u32 = $kc;
        const ST: u32 = $st;
        // Own blocks sharing the A slice (the block's threads: `TILES` tiles of TX x TY along
        // y, tile `half`); with 2, A rows are unpadded and swizzled (`SWZ`, see `float.rs`).
        const TILES: u32 = $tl;
        const ST3: bool = ST == 3;
        const SWZ: bool = TILES == 2 || ST3;
        // A row pad: 4 cells, or 16 bytes (`FwFloatConfig::a_pad16`).
        const PAD: u32 = if fw_float_pad16!($cpy) { 16 / ES } else { 4 };
        const SC: u32 = if SWZ { KC } else { KC + PAD };
        // Bytes per A row in shared memory.
        const RB: u32 = SC * ES;
        const LEAN: bool = fw_float_word!($cpy);
        // Opaque base pointers, 32-bit offsets from them (`FwFloatConfig::offsets32`).
        const O32: bool = fw_float_offsets32!($cpy);
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
        const _: () = assert!(ST == 1 || (ST == 2 && CHUNKS >= 2) || (ST3 && CHUNKS >= 3));
        const _: () = assert!(!(O32 && LATE) && (CG == 4 || (O32 && TILES == 1)));
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
        // This thread's first own cell (32-bit offsets): its rows then go by multiples of the
        // pitch, its column groups by an immediate.
        let first = move |p: *mut $ty| -> *mut $ty {
            // SAFETY: cell (4·ty, CG·tx) < (B, B) of the B x B block at `p`.
            unsafe { opaque_ptr(p).add(in_block(pitch, 4 * ty, CG * tx) as usize) }
        };
        if O32 {
            let own0 = first(own);
            seq!(R in 0..$cr { seq!(Q in 0..$cc {
                if Q % CG == 0 {
                    // SAFETY: as the load below: cells (i, j..j + CG) of the own block, i = (R /
                    // 4)·GR + 4·ty + R % 4, j = (Q / CG)·GC + CG·tx, from its cell (4·ty, CG·tx),
                    // aligned to CG cells.
                    v = unsafe {
                        let p = own0.add((((R / 4) * GR + R % 4) * pitch) as usize).add(((Q / CG) * GC) as usize);
                        if CG == 4 {
                            <$ty as Cell>::ld4_global(p)
                        } else {
                            let w = <$ty as Cell>::ld2_global(p);
                            [w[0], w[1], w[0], w[1]]
                        }
                    };
                }
                cell[R][Q] = v[Q % CG as usize];
            }); });
        } else if !LATE {
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

        let (pa, pb): (*mut $ty, *mut $ty) = if O32 { (opaque_ptr($a), opaque_ptr($bb)) } else { ($a, $bb) };
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
                    // (Swizzled rows with a ring of 3 stages: the quad moves inside its
                    // 64-byte group, a bijection on the row.)
                    let dst = da + r * RB + ((cq * 16) ^ sw(r));
                    if A_L1 {
                        cp_async_ca_16(dst, src as *const u32);
                    } else {
                        cp_async_16(dst, src as *const u32);
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
        if ST >= 2 {
            copy(0, 0);
            // SAFETY: closes this thread's group of copies just started.
            unsafe { cp_async_commit() };
        }
        if ST3 {
            copy(KC, 1);
            // SAFETY: as above (slice 1 into stage 1).
            unsafe { cp_async_commit() };
        }
        let mut c = 0;
        while c < CHUNKS {
            if ST3 {
                // Slices c and c + 1 (if any) are in flight: wait for c only. The barrier below
                // then says slice c landed for every thread and that every thread is done with
                // slice c - 1, whose stage (c + 2) % 3 the copy after it refills.
                if c + 1 < CHUNKS {
                    // SAFETY: waits for all but the newest group of this thread.
                    unsafe { cp_async_wait::<1>() };
                } else {
                    // SAFETY: waits for every copy (slice c).
                    unsafe { cp_async_wait::<0>() };
                }
                thread::sync_threads();
                if c + 2 < CHUNKS {
                    copy((c + 2) * KC, (c + 2) % 3);
                    // SAFETY: closes the group just started.
                    unsafe { cp_async_commit() };
                }
            } else if ST == 1 {
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
            if !ST3 {
                thread::sync_threads();
            }

            let s = if ST == 1 { 0 } else { c % ST };
            let a_base = sa + s * SA_BYTES + 4 * ty * RB;
            let b_base = sb + s * SB_STAGE + half * SB_BYTES + ES * (CG * tx);
            // This thread's rows all have the swizzle of row 4 * ty.
            let swz = sw(4 * ty);
            fwf_slice_product!($ty, $cr, $cc, $ak, $un, cell, a_base, b_base, swz);
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
        } else if O32 {
            if $store {
                let own0 = first($own);
                seq!(R in 0..$cr { seq!(Q in 0..$cc {
                    v[Q % CG as usize] = cell[R][Q];
                    if Q % CG == CG - 1 {
                        // SAFETY: the CG own cells this thread loaded at the start (same rows and
                        // columns from the same first cell), stored by it only, after every
                        // thread read its last operand slice.
                        unsafe {
                            let p = own0.add((((R / 4) * GR + R % 4) * pitch) as usize).add(((Q / CG) * GC) as usize);
                            if CG == 4 {
                                <$ty as Cell>::st4_global(p, v)
                            } else {
                                <$ty as Cell>::st2_global(p, [v[0], v[1]])
                            }
                        };
                    }
                }); });
            }
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
