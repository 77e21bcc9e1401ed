//! The strip kernels' items (`small_strip.rs`, whose module comment says what a strip does and
//! why): one strip of a round's chain, and the closure of a block on its own. Macros only; the
//! kernels' files bring the imports.

/// One strip of round `$r`'s chain (`small_strip.rs`) on 16 x 16 threads: strip `$st` of `$s`
/// (2 or 4; one would need a third 64 x 68 tile, past 48 KiB of static shared memory), rows `st B / S + ty + 16 i` (i < 4 / S) and columns `4 tx..4 tx + 4` of `C` and
/// `N` per thread. `P*` goes to the tile at `$sb` (64 x 64), `R` to the one at `$sa` (64 rows of
/// `a_tile_pitch(64)` words), the strip of `C` (then of `C P*`) to the one at `$sx` (B / S rows
/// of that pitch). Starts with a barrier (the previous item's threads are done with the tiles),
/// runs `$loaded` once the operands are in shared memory and `$pre` before the stores, and ends
/// with the stores.
macro_rules! small_strip_item {
    (2, $($rest:tt)*) => { small_strip_item!(@ 2, 2, $($rest)*) };
    (4, $($rest:tt)*) => { small_strip_item!(@ 4, 1, $($rest)*) };
    (@ $s:tt, $rs:tt, $d:ident, $pitch:ident, $r:expr, $st:expr, $sa:ident, $sb:ident, $sx:ident,
        loaded: $loaded:block, before_store: $pre:block) => {{
        const B: u32 = 64;
        const SC: u32 = $crate::apsp::small_tile::a_tile_pitch(B);
        const SR: u32 = B / $s;
        const _: () = assert!(SR == 16 * $rs);
        let (d, pitch): (*mut i32, u32) = ($d, $pitch);
        let (r, st): (u32, u32) = ($r, $st);
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        // Copies of the whole operands: thread (tx, ty) takes quad tx of rows ty + 16 N.
        let c4 = 4 * tx;
        thread::sync_threads();
        let pivot = block_at::<B>(d, pitch, r, r);
        let row = block_at::<B>(d, pitch, r, r + 1);
        let col = block_at::<B>(d, pitch, r + 1, r);
        let next = block_at::<B>(d, pitch, r + 1, r + 1);
        seq!(N in 0..4 {
            let i = ty + 16 * N;
            let off = in_block(pitch, i, c4) as usize;
            // SAFETY: global: 16 aligned bytes of row i < 64 of P* and R, which no block writes
            // while this strip may read them but round r's phase-2 item of R, whose cells only
            // fall (`small_strip.rs`); shared: row i of the two tiles, each quad copied by one
            // thread, read after the wait and the barrier below.
            unsafe {
                cp_async_16($sb + 4 * (i * B + c4), pivot.add(off));
                cp_async_16($sa + 4 * (i * SC + c4), row.add(off));
            }
        });
        let mut x = [[0i32; 4]; $rs];
        let mut y = [[0i32; 4]; $rs];
        seq!(I in 0..$rs {
            let i = ty + 16 * I;
            let off = in_block(pitch, st * SR + i, c4) as usize;
            // SAFETY: row st SR + i < 64 of C, its quad c4: this strip's alone (the other
            // strips take other rows; nobody else touches C until it is published); shared: row
            // i < SR of the strip tile, this thread's quad.
            unsafe { cp_async_16($sx + 4 * (i * SC + c4), col.add(off)) };
            // SAFETY: the same cells of N, this strip's alone until N is published.
            let v = unsafe { ld_global_v4(next.add(off)) };
            seq!(Q in 0..4 { y[I][Q] = v[Q] as i32; });
        });
        cp_async_wait_all();
        thread::sync_threads();
        $loaded
        seq!(I in 0..$rs {
            // SAFETY: this thread's own quad of the strip tile, copied before the barrier.
            let v = unsafe { ld_shared::<4>($sx + 4 * ((ty + 16 * I) * SC + c4)) };
            seq!(Q in 0..4 { x[I][Q] = v[Q] as i32; });
        });
        // C_s = C_s min C_s P*.
        let mut k = 0;
        while k < B {
            let mut a = [[0u32; 4]; $rs];
            seq!(I in 0..$rs {
                // SAFETY: row ty + 16 I < SR, words k..k + 4 of the strip tile, aligned; not
                // written until the barrier after this loop.
                a[I] = unsafe { ld_shared::<4>($sx + 4 * ((ty + 16 * I) * SC + k)) };
            });
            seq!(U in 0..4 {
                // SAFETY: row k + U < 64 of P*'s tile, words c4..c4 + 4, aligned; not written
                // during the item.
                let b = unsafe { ld_shared::<4>($sb + 4 * ((k + U) * B + c4)) };
                seq!(I in 0..$rs { seq!(Q in 0..4 {
                    x[I][Q] = add_min(x[I][Q], a[I][U] as i32, b[Q] as i32);
                }); });
            });
            k += 4;
        }
        thread::sync_threads();
        seq!(I in 0..$rs {
            let v = [x[I][0] as u32, x[I][1] as u32, x[I][2] as u32, x[I][3] as u32];
            // SAFETY: this thread's quad of the strip tile; every thread's reads of the old
            // strip ended at the barrier above, the new one is read after the next.
            unsafe { st_shared::<4>($sx + 4 * ((ty + 16 * I) * SC + c4), v) };
        });
        thread::sync_threads();
        // N_s = N_s min C_s R.
        let mut k = 0;
        while k < B {
            let mut a = [[0u32; 4]; $rs];
            seq!(I in 0..$rs {
                // SAFETY: as above, the strip tile now holding C_s P*; not written again.
                a[I] = unsafe { ld_shared::<4>($sx + 4 * ((ty + 16 * I) * SC + k)) };
            });
            seq!(U in 0..4 {
                // SAFETY: row k + U < 64 of R's tile, words c4..c4 + 4 < SC, aligned; copied
                // before the first barrier, not written during the item.
                let b = unsafe { ld_shared::<4>($sa + 4 * ((k + U) * SC + c4)) };
                seq!(I in 0..$rs { seq!(Q in 0..4 {
                    y[I][Q] = add_min(y[I][Q], a[I][U] as i32, b[Q] as i32);
                }); });
            });
            k += 4;
        }
        $pre
        seq!(I in 0..$rs {
            let off = in_block(pitch, st * SR + ty + 16 * I, c4) as usize;
            let vx = [x[I][0] as u32, x[I][1] as u32, x[I][2] as u32, x[I][3] as u32];
            let vy = [y[I][0] as u32, y[I][1] as u32, y[I][2] as u32, y[I][3] as u32];
            // SAFETY: the strip's cells of C and N this thread loaded, 16-byte aligned; only
            // this strip writes them, and nobody reads them before they are published.
            unsafe {
                st_global::<4>(col.add(off), vx);
                st_global::<4>(next.add(off), vy);
            }
        });
    }};
}

/// The closure of block `$own` in place, by quadrants, through the tile at `$sa`: its cells in
/// the layout of `small_tile_item!` at 4 x 4 cells (rows `4 ty + 0..4`, columns `4 tx + 0..4`),
/// `$pre` before the stores. The caller has made the block's last stores visible to this one.
macro_rules! strip_close {
    ($d:ident, $pitch:ident, $own:expr, $sa:ident, before_store: $pre:block) => {{
        const B: u32 = 64;
        const GS: u32 = 64;
        let (oi, oj): (u32, u32) = $own;
        let (tx, ty) = (thread::thread_idx_x(), thread::thread_idx_y());
        let own = block_at::<B>($d, $pitch, oi, oj);
        let mut cell = [[0i32; 4]; 4];
        seq!(R in 0..4 {
            // SAFETY: row 4 ty + R < 64, columns 4 tx..+4 of the block, aligned; only this
            // thread stores them, at the end.
            let v = unsafe { ld_global_v4(own.add(in_block($pitch, 4 * ty + R, 4 * tx) as usize)) };
            seq!(Q in 0..4 { cell[R][Q] = v[Q] as i32; });
        });
        small_tile_close!(64, 4, 0, GS, cell, $sa, tx, ty);
        $pre
        seq!(R in 0..4 {
            let v = [cell[R][0] as u32, cell[R][1] as u32, cell[R][2] as u32, cell[R][3] as u32];
            // SAFETY: the cells loaded above, stored by this thread alone; nobody reads the
            // block before the caller publishes it.
            unsafe { st_global::<4>(own.add(in_block($pitch, 4 * ty + R, 4 * tx) as usize), v) };
        });
    }};
}
