//! The work item of the one-graph persistent kernels (`small.rs`, `small_flow.rs`,
//! `small_pull.rs`): one block update `own = min(own, A ⊗ B)`, optionally followed by the
//! closure (phase 1) of `own` in place. Macros (and the tile's pitch); the kernels' files bring
//! the imports.

/// Row pitch (words) of A_TILE at block factor `b`: 16-byte rows padded by one quad, so that the
/// rows the threads of a warp read at once fall on different banks. The item's A operand, the
/// closures (`small_close.rs`, `small_quad.rs`) and the strips (`small_strip.rs`) use it.
pub(super) const fn a_tile_pitch(b: u32) -> u32 {
    b + 4
}

/// One work item, `own = min(own, A ⊗ B)` on the B x B blocks at block coordinates `own`, `a`
/// and `b` of the matrix at `$d` (row pitch `$pitch`), then, if `close`, phase 1 on `own` in
/// place. `B / C x B / C` threads, C x C cells each (C = `$c`, 4 or 8), in groups of 4 rows
/// `g GS + 4 ty + 0..4` and 4 columns `h GS + 4 tx + 0..4` (GS = B / (C / 4)): the register tile
/// of `fw_tile_update!` in `fw.rs`, whose comment says why (at C = 4 simply rows `4 ty + 0..4`).
/// `$q`: the copy steps of one operand (`q · T² = B · B / 4` quads). Starts with a barrier (the
/// previous item's threads are done with the tiles) and ends with the own block's stores; the
/// caller orders them before any other block's reads. `$s`: the closure's Floyd–Warshall steps
/// per barrier (`small_close.rs`). The hooks run in every thread: `loaded` once the operands are
/// in shared memory, `multiplied` after the product, `before_store` after the update (and
/// closure), before the stores: the pull kernels take their next ticket there, so that its
/// latency overlaps the stores and the publication; the probes (`small_probe.rs`) stamp times.
macro_rules! small_tile_item {
    ($b:tt, $c:tt, $q:tt, $s:tt, $d:ident, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr,
        close: $close:expr) => {
        small_tile_item!($b, $c, $q, $s, $d, $pitch, own: $own, a: $a, b: $bb, close: $close,
            loaded: {}, multiplied: {}, before_store: {})
    };
    ($b:tt, $c:tt, $q:tt, $s:tt, $d:ident, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr,
        close: $close:expr, before_store: $pre:block) => {
        small_tile_item!($b, $c, $q, $s, $d, $pitch, own: $own, a: $a, b: $bb, close: $close,
            loaded: {}, multiplied: {}, before_store: $pre)
    };
    ($b:tt, $c:tt, $q:tt, $s:tt, $d:ident, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr,
        close: $close:expr, loaded: $loaded:block, multiplied: $multiplied:block,
        before_store: $pre:block) => {{
        let (sa, sb) = small_tiles!($b);
        small_tile_item!($b, $c, $q, $s, $d, $pitch, own: $own, a: $a, b: $bb, close: $close,
            tiles: (sa, sb), loaded: $loaded, multiplied: $multiplied, before_store: $pre)
    }};
    // The item on tiles the caller declared with `small_tiles!` (a kernel with other work that
    // shares them: `small_strip.rs`).
    ($b:tt, $c:tt, $q:tt, $s:tt, $d:ident, $pitch:ident, own: $own:expr, a: $a:expr, b: $bb:expr,
        close: $close:expr, tiles: ($sa:expr, $sb:expr), loaded: $loaded:block,
        multiplied: $multiplied:block, before_store: $pre:block) => {{
        const B: u32 = $b;
        const C: u32 = $c;
        const T: u32 = B / C;
        const GS: u32 = B / (C / 4);
        const SC: u32 = $crate::apsp::small_tile::a_tile_pitch(B);
        const KQ: u32 = B / 4;
        const ROWS_PER_STEP: u32 = T * T / KQ;
        const _: () = assert!(T * C == B && C % 4 == 0 && (T * T) % KQ == 0);
        const _: () = assert!(ROWS_PER_STEP * $q == B, "copy steps");
        // The closure's row and column halves fit in A_TILE (`small_close.rs`).
        const _: () = assert!(16 * B <= B * SC);
        let (d, pitch): (*mut i32, u32) = ($d, $pitch);
        let ((oi, oj), (ai, aj), (bi, bj)): ((u32, u32), (u32, u32), (u32, u32)) = ($own, $a, $bb);
        let close: bool = $close;
        let (sa, sb): (u32, u32) = ($sa, $sb);
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
        $loaded
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
        $multiplied
        if close {
            // Phase 1 of the next round on the block just updated, the cells staying in
            // registers (`small_close.rs`); A_TILE is free after its barrier.
            small_tile_close!($b, $c, $s, GS, cell, sa, tx, ty);
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

/// The shared tiles of `small_tile_item!` at block factor `$b`, declared once where this is
/// expanded: `(A_TILE, B_TILE)` as shared byte addresses, A_TILE `B` rows of `B + 4` words (the
/// pitch the item's A operand and the closures use), B_TILE `B` rows of `B` words.
macro_rules! small_tiles {
    ($b:tt) => {{
        const B: u32 = $b;
        const SC: u32 = $crate::apsp::small_tile::a_tile_pitch(B);
        #[repr(C, align(16))]
        struct ATile([i32; (B * SC) as usize]);
        #[repr(C, align(16))]
        struct BTile([i32; (B * B) as usize]);
        #[address_space(shared)]
        static mut A_TILE: MaybeUninit<ATile> = MaybeUninit::uninit();
        #[address_space(shared)]
        static mut B_TILE: MaybeUninit<BTile> = MaybeUninit::uninit();
        (shared_addr(addr_of!(A_TILE)), shared_addr(addr_of!(B_TILE)))
    }};
}
