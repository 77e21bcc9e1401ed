//! The work item of the one-graph persistent kernels (`small.rs`, `small_flow.rs`,
//! `small_pull.rs`): one block update `own = min(own, A ⊗ B)`, optionally followed by the
//! closure (phase 1) of `own` in place. Macro only; the kernels' files bring the imports.

/// One work item, `own = min(own, A ⊗ B)` on the B x B blocks at block coordinates `own`, `a`
/// and `b` of the matrix at `$d` (row pitch `$pitch`), then, if `close`, phase 1 on `own` in
/// place. `B / C x B / C` threads, C x C cells each (C = `$c`, 4 or 8), in groups of 4 rows
/// `g GS + 4 ty + 0..4` and 4 columns `h GS + 4 tx + 0..4` (GS = B / (C / 4)): the register tile
/// of `fw_tile_update!` in `fw.rs`, whose comment says why (at C = 4 simply rows `4 ty + 0..4`).
/// `$q`: the copy steps of one operand (`q · T² = B · B / 4` quads). Starts with a barrier (the
/// previous item's threads are done with the tiles) and ends with the own block's stores; the
/// caller orders them before any other block's reads. `before_store` (optional) runs in every
/// thread after the update (and closure), before those stores: the pull kernels take their
/// next ticket there, so that its latency overlaps the stores and the publication.
macro_rules! small_tile_item {
    ($b:tt, $c:tt, $q:tt, $d:ident, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr,
        close: $close:expr) => {
        small_tile_item!($b, $c, $q, $d, $pitch, own: $own, a: $a, b: $bb, close: $close,
            before_store: {})
    };
    ($b:tt, $c:tt, $q:tt, $d:ident, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr,
        close: $close:expr, before_store: $pre:block) => {{
        const B: u32 = $b;
        const C: u32 = $c;
        const T: u32 = B / C;
        const GS: u32 = B / (C / 4);
        // Row pitch (words) of the A tile; 16-byte rows that spread the ty over banks.
        const SC: u32 = B + 4;
        const KQ: u32 = B / 4;
        const ROWS_PER_STEP: u32 = T * T / KQ;
        const _: () = assert!(T * C == B && C % 4 == 0 && (T * T) % KQ == 0);
        const _: () = assert!(ROWS_PER_STEP * $q == B, "copy steps");
        #[repr(C, align(16))]
        struct ATile([i32; (B * SC) as usize]);
        #[repr(C, align(16))]
        struct BTile([i32; (B * B) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();
        let (d, pitch): (*mut i32, u32) = ($d, $pitch);
        let ((oi, oj), (ai, aj), (bi, bj)): ((u32, u32), (u32, u32), (u32, u32)) = ($own, $a, $bb);
        let close: bool = $close;
        let sa = shared_addr(addr_of!(A_TILE));
        let sb = shared_addr(addr_of!(B_TILE));
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let t = ty * T + tx;
        let (r0, c4) = (t / KQ, 4 * (t % KQ));
        // The previous item's threads are done with the tiles.
        thread::sync_threads();
        let own = block_at::<B>(d, pitch, oi, oj);
        let mut cell = [[0i32; $c]; $c];
        let mut v = [0u32; 4];
        seq!(R in 0..$c { seq!(Q in 0..$c {
            if Q % 4 == 0 {
                let (i, j) = ((R / 4) * GS + 4 * ty + R % 4, (Q / 4) * GS + 4 * tx);
                // SAFETY: row i < B, columns j..j + 4 <= B of the own block (`block_at` of a
                // block of the matrix, the item's blocks < rounds), 16-byte aligned; only this
                // thread stores them, at the end of the item.
                v = unsafe { ld_global_v4(own.add(in_block(pitch, i, j) as usize)) };
            }
            cell[R][Q] = v[Q % 4] as i32;
        }); });
        let pa = block_at::<B>(d, pitch, ai, aj);
        let pb = block_at::<B>(d, pitch, bi, bj);
        seq!(N in 0..$q {
            let off = in_block(pitch, r0 + N * ROWS_PER_STEP, c4) as usize;
            // SAFETY: global: 16 aligned bytes of row r0 + N * ROWS_PER_STEP < B of the A and B
            // blocks, which no block writes while this item may read them (the caller's
            // dependencies) or are this block's own, written only after the barrier below.
            // Shared: those rows of the tiles, each quad copied by one thread, read after the
            // wait and the barrier below.
            unsafe {
                cp_async_16(sa + 4 * ((r0 + N * ROWS_PER_STEP) * SC + c4), pa.add(off));
                cp_async_16(sb + 4 * ((r0 + N * ROWS_PER_STEP) * B + c4), pb.add(off));
            }
        });
        cp_async_wait_all();
        thread::sync_threads();
        let mut k = 0;
        while k < B {
            let mut a = [[0u32; 4]; $c];
            seq!(R in 0..$c {
                // SAFETY: row (R / 4) GS + 4 ty + R % 4 < B, columns k..k + 4 <= B of A_TILE,
                // aligned; copied before the barrier above, not written during the loop.
                a[R] = unsafe { ld_shared::<4>(sa + 4 * (((R / 4) * GS + 4 * ty + R % 4) * SC + k)) };
            });
            seq!(U in 0..4 {
                let mut b = [0i32; $c];
                let mut vb = [0u32; 4];
                seq!(Q in 0..$c {
                    if Q % 4 == 0 {
                        // SAFETY: row k + U < B, columns (Q / 4) GS + 4 tx..+4 <= B of B_TILE,
                        // aligned; copied before the barrier above, never written after.
                        vb = unsafe { ld_shared::<4>(sb + 4 * ((k + U) * B + (Q / 4) * GS + 4 * tx)) };
                    }
                    b[Q] = vb[Q % 4] as i32;
                });
                seq!(R in 0..$c { seq!(Q in 0..$c {
                    cell[R][Q] = add_min(cell[R][Q], a[R][U] as i32, b[Q]);
                }); });
            });
            k += 4;
        }
        if close {
            // Phase 1 of the next round on the block just updated, the cells staying in
            // registers. Step kk reads only row kk and column kk, which do not change in step
            // kk (the module comment of `fw.rs`), so their owners copy them, as they are after
            // step kk - 1, to a row and a column buffer in A_TILE (free after the barrier
            // below), alternating between two pairs by the parity of kk: one barrier per step,
            // 2 C / 4 128-bit loads and C² branch-free add-mins per thread.
            const ROWS: u32 = 0;
            const COLS: u32 = 2 * B;
            thread::sync_threads();
            let mut kk = 0;
            while kk < B {
                let p = (kk & 1) * B;
                seq!(R in 0..$c {
                    if kk == (R / 4) * GS + 4 * ty + R % 4 {
                        seq!(H in 0..$c {
                            v[H % 4] = cell[R][H] as u32;
                            if H % 4 == 3 {
                                // SAFETY: words p + (H / 4) GS + 4 tx..+4 < 2B of the row buffer
                                // in A_TILE (4B <= B x SC words), aligned; only the owners of
                                // row kk write them in step kk, and the last reads of this
                                // parity were in step kk - 2, before the barrier of step kk - 1.
                                unsafe { st_shared::<4>(sa + 4 * (ROWS + p + (H / 4) * GS + 4 * tx), v) };
                            }
                        });
                    }
                });
                seq!(Q in 0..$c {
                    if kk == (Q / 4) * GS + 4 * tx + Q % 4 {
                        seq!(G in 0..$c {
                            v[G % 4] = cell[G][Q] as u32;
                            if G % 4 == 3 {
                                // SAFETY: as above, words p + (G / 4) GS + 4 ty..+4 of the column
                                // buffer, written by the owners of column kk only.
                                unsafe { st_shared::<4>(sa + 4 * (COLS + p + (G / 4) * GS + 4 * ty), v) };
                            }
                        });
                    }
                });
                thread::sync_threads();
                let (mut a, mut b) = ([0u32; $c], [0u32; $c]);
                let (mut x, mut y) = ([0u32; 4], [0u32; 4]);
                seq!(G in 0..$c {
                    if G % 4 == 0 {
                        // SAFETY: column kk of rows (G / 4) GS + 4 ty..+4 and row kk of columns
                        // (G / 4) GS + 4 tx..+4, written before the barrier above, not written
                        // again before the next step's barrier.
                        (x, y) = unsafe {(
                            ld_shared::<4>(sa + 4 * (COLS + p + (G / 4) * GS + 4 * ty)),
                            ld_shared::<4>(sa + 4 * (ROWS + p + (G / 4) * GS + 4 * tx)),
                        )};
                    }
                    a[G] = x[G % 4];
                    b[G] = y[G % 4];
                });
                seq!(R in 0..$c { seq!(Q in 0..$c {
                    cell[R][Q] = add_min(cell[R][Q], a[R] as i32, b[Q] as i32);
                }); });
                kk += 1;
            }
        }
        $pre
        let own = block_at::<B>(d, pitch, oi, oj);
        seq!(R in 0..$c { seq!(Q in 0..$c {
            v[Q % 4] = cell[R][Q] as u32;
            if Q % 4 == 3 {
                let (i, j) = ((R / 4) * GS + 4 * ty + R % 4, (Q / 4) * GS + 4 * tx);
                // SAFETY: the cells this thread loaded at the start of the item (same i, j:
                // inside the own block, aligned), stored by it alone; no other item reads or
                // writes this block until the caller publishes it.
                unsafe { st_global::<4>(own.add(in_block(pitch, i, j) as usize), v) };
            }
        }); });
    }};
}
