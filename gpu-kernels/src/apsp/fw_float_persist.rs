//! The persistent phase 3 of the float Floyd–Warshall kernels (`fw_float.rs` instantiates it for
//! the list rows whose last word is `persist`): a grid of as many blocks as fit the GPU at once
//! (the host reads it from the occupancy), each walking the round's work items `blockIdx.x +
//! n · gridDim.x`, an item being `TILES` own blocks of one block row (as the grid phase 3's
//! blocks). The operand slices stream through two shared-memory stages without a break between
//! items: while slice `s` is used, slice `s + 1` is in flight — the next `KC` values of k of the
//! same item, or the first slice of the block's next item, so that the block's next prologue
//! (its A and B copies) overlaps the current product. One barrier per slice: the barrier that
//! says slice `s` landed also says every thread is done with slice `s - 1`, whose stage the
//! copy of slice `s + 1` refills. The own block of the next item is asked of L2 at the start of
//! the current one, so its load (the one wait per item left) is an L2 hit. Stores and loads of
//! the own cells go from one 64-bit pointer per thread plus 32-bit row offsets.
//!
//! The kernel takes `(d, pitch, round)` like the others and needs `pitch == rounds · B` (it
//! derives `rounds` from the pitch; `host::apsp::float::launch_rounds` checks it).

/// The body of a persistent phase-3 kernel on the matrix `$d` (row pitch `$pitch`, round
/// `$round`), with the tile shape of `fwf_tile_update!` (`$tl` own blocks per item, `$un` k
/// steps per loop iteration, lean copies, two stages of `KC`). A rows are stored unpadded and
/// swizzled when a row is a multiple of 128 bytes, padded by 4 cells otherwise.
macro_rules! fwf_persist_update {
    ($ty:ty, $es:tt, $b:tt, ($tx:tt, $tyn:tt, $cr:tt, $cc:tt, $kc:tt, $ak:tt, $tl:tt, $un:tt),
        $d:ident, $pitch:ident, $round:ident) => {{
        const B: u32 = $b;
        const TX: u32 = $tx;
        const TY: u32 = $tyn;
        const ES: u32 = $es;
        const GR: u32 = 4 * TY;
        const CG: u32 = 4;
        const GC: u32 = CG * TX;
        const KC: u32 = $kc;
        const TILES: u32 = $tl;
        const SWZ: bool = (KC * ES) % 128 == 0;
        const SC: u32 = if SWZ { KC } else { KC + 4 };
        const RB: u32 = SC * ES;
        const CHUNKS: u32 = B / KC;
        const QA: u32 = KC * ES / 16;
        const QB: u32 = B * ES / 16;
        const NT: u32 = TX * TY;
        const SA_BYTES: u32 = B * SC * ES;
        const SB_BYTES: u32 = KC * B * ES;
        const SB_STAGE: u32 = SB_BYTES * TILES;
        const LINE: u32 = 128 / ES;
        const ROW_LINES: u32 = B / LINE;
        // Lean copies (as `fwf_tile_update!`): A by every thread of the block, B by each tile's.
        const NTA: u32 = NT * TILES;
        const RSA: u32 = NTA / QA;
        const NA: u32 = B * QA / NTA;
        const RSB: u32 = NT / QB;
        const NB: u32 = KC * QB / NT;
        const _: () = assert!(TY * $cr == B && TX * $cc == B && $cr % 4 == 0 && $cc % 4 == 0);
        const _: () = assert!(CHUNKS >= 2 && B % KC == 0);
        const _: () = assert!(NT % QA == 0 && NTA % QA == 0 && NT % QB == 0);
        const _: () = assert!((B * QA) % NTA == 0 && NA <= 16 && (KC * QB) % NT == 0 && NB <= 16);
        // The swizzle as in `fwf_tile_update!`: a thread's rows all have (row / 4) % 4 = ty % 4.
        const _: () = assert!(!SWZ || (TY % 4 == 0 && SA_BYTES % 128 == 0));
        #[repr(C, align(128))]
        struct ATile([$ty; (2 * B * SC) as usize]);
        #[repr(C, align(128))]
        struct BTile([$ty; (2 * KC * B * TILES) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();

        let (d, pitch, round): (*mut $ty, u32, u32) = ($d, $pitch, $round);
        // Blocks off the pivot per row and column, and items (groups of TILES of them) per row.
        let off = pitch / B - 1;
        let per_row = off.div_ceil(TILES);
        let items = off * per_row;
        if thread::block_idx_x() >= items {
            return;
        }
        let sa = shared_addr(addr_of!(A_TILE));
        let sb = shared_addr(addr_of!(B_TILE));
        let half = thread::thread_idx_y() / TY;
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y() - half * TY);
        let t = ty * TX + tx;
        let sw = |r: u32| if SWZ { ((r >> 2) & 3) << 4 } else { 0 };
        // Item w's (block row, own block column of this thread's tile, whether it stores): the
        // second tile of a row's odd last item repeats the first without storing it.
        let place = move |w: u32| {
            let (r, x) = (w / per_row, w % per_row);
            let j0 = x * TILES;
            let (j, store) = if j0 + half < off { (j0 + half, true) } else { (j0, false) };
            (if r < round { r } else { r + 1 }, if j < round { j } else { j + 1 }, store)
        };
        // Starts the copies of item w's slice c (A's columns, this tile's B rows c·KC..) into
        // stage s.
        let copy = move |w: u32, c: u32, s: u32| {
            let (bi, bj, _) = place(w);
            let pa = block_ptr::<$ty, B>(d, pitch, bi, round);
            let pb = block_ptr::<$ty, B>(d, pitch, round, bj);
            let (da, db) = (sa + s * SA_BYTES, sb + s * SB_STAGE + half * SB_BYTES);
            let c0 = c * KC;
            let ta = half * NT + t;
            let (ra, qa) = (ta / QA, ta % QA);
            let (rb, qb) = (t / QB, t % QB);
            let (ga, gb) = (in_block(pitch, ra, c0 + qa * 16 / ES), in_block(pitch, c0 + rb, qb * 16 / ES));
            seq!(N in 0..16 {
                if N < NA {
                    let r = ra + N * RSA;
                    // SAFETY: global: 16 aligned bytes of row r < B (NA·RSA = B rows), quad qa <
                    // QA of the slice's columns of the A block (the pivot column, which phase 3
                    // never writes). Shared: that quad of row r of stage s of A_TILE (swizzled
                    // inside its 64-byte group, a bijection on the row), copied by this thread
                    // only; the barrier before this call ended every read of the stage.
                    unsafe {
                        let src = pa.add((ga + N * RSA * pitch) as usize) as *const u32;
                        cp_async_16(da + r * RB + ((qa * 16) ^ sw(r)), src);
                    }
                }
            });
            seq!(N in 0..16 {
                if N < NB {
                    // SAFETY: as for A: row c0 + rb + N·RSB < c0 + KC of the B block (the pivot
                    // row, never written in phase 3), quad qb < QB; this tile's B slice of stage s.
                    unsafe {
                        let src = pb.add((gb + N * RSB * pitch) as usize) as *const u32;
                        cp_async_16(db + (rb + N * RSB) * B * ES + qb * 16, src);
                    }
                }
            });
            // SAFETY: closes this thread's group of the copies just started.
            unsafe { cp_async_commit() };
        };
        // This thread's first own cell of the B x B block at `p`: rows then go by 32-bit offsets.
        let first_cell = move |p: *mut $ty| -> *mut $ty {
            // SAFETY: cell (4·ty, 4·tx) < (B, B) of the block at `p`.
            unsafe { p.add(in_block(pitch, 4 * ty, 4 * tx) as usize) }
        };

        let mut w = thread::block_idx_x();
        let g = thread::grid_dim_x();
        copy(w, 0, 0);
        let mut s: u32 = 0;
        loop {
            let (bi, bj, store) = place(w);
            let own = first_cell(block_ptr::<$ty, B>(d, pitch, bi, bj));
            if w + g < items {
                let (ni, nj, _) = place(w + g);
                let next = block_ptr::<$ty, B>(d, pitch, ni, nj) as *const $ty;
                let mut q = t;
                while q < B * ROW_LINES {
                    // SAFETY: the line of cell (q / ROW_LINES, (q % ROW_LINES)·LINE) < (B, B) of
                    // the next item's own block of this tile.
                    unsafe { prefetch_l2(next.add(in_block(pitch, q / ROW_LINES, (q % ROW_LINES) * LINE) as usize)) };
                    q += NT;
                }
            }
            let mut cell = [[<$ty>::INFINITY; $cc]; $cr];
            let mut v = [<$ty>::INFINITY; 4];
            seq!(R in 0..$cr { seq!(Q in 0..$cc {
                if Q % 4 == 0 {
                    // SAFETY: cells (i, j..j + 4) of the own block, i = (R / 4)·GR + 4·ty + R % 4
                    // < B and j = (Q / 4)·GC + 4·tx, j + 3 < B, 16-byte aligned; stored by this
                    // thread only, after this load (the item's other tile, if it repeats this
                    // block, does not store).
                    v = unsafe { <$ty as Cell>::ld4_global(own.add((((R / 4) * GR + R % 4) * pitch) as usize).add((Q / 4 * GC) as usize)) };
                }
                cell[R][Q] = v[Q % 4];
            }); });
            let mut c = 0;
            while c < CHUNKS {
                // SAFETY: waits for this thread's copies of slice s (the only group in flight).
                unsafe { cp_async_wait::<0>() };
                // Slice s landed for every thread, and every thread is done with slice s - 1.
                thread::sync_threads();
                if c + 1 < CHUNKS {
                    copy(w, c + 1, (s + 1) % 2);
                } else if w + g < items {
                    copy(w + g, 0, (s + 1) % 2);
                }
                let stage = s % 2;
                let a_base = sa + stage * SA_BYTES + 4 * ty * RB;
                let b_base = sb + stage * SB_STAGE + half * SB_BYTES + ES * (4 * tx);
                let swz = sw(4 * ty);
                fwf_slice_product!($ty, $cr, $cc, $ak, $un, cell, a_base, b_base, swz);
                s += 1;
                c += 1;
            }
            if store {
                seq!(R in 0..$cr { seq!(Q in 0..$cc {
                    v[Q % 4] = cell[R][Q];
                    if Q % 4 == 3 {
                        // SAFETY: the 4 own cells this thread loaded for this item (same row and
                        // columns), stored by it only; no thread reads the own block again.
                        unsafe { <$ty as Cell>::st4_global(own.add((((R / 4) * GR + R % 4) * pitch) as usize).add((Q / 4 * GC) as usize), v) };
                    }
                }); });
            }
            w += g;
            if w >= items {
                break;
            }
        }
    }};
}
