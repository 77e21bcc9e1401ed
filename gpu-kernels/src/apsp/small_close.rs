//! Phase 1 (the closure) of a B x B block whose cells are in registers, `S` Floyd–Warshall steps
//! per block barrier: the last part of the one-graph kernels' work item (`small_tile.rs`), on
//! the chain that every round of a small solve waits for. Macro only; the kernels' files bring
//! the imports.
//!
//! One barrier per step (`S = 1`) made the closure of a 64 x 64 block a chain of 64 barriers,
//! each behind the owners' stores of row and column k and followed by everyone's loads of them.
//! With `S` steps per barrier the owners of rows and columns `k..k + S` (as they are after step
//! k − 1) publish them together, and every thread replays the `S` steps on its own copies: step
//! k + s changes row k + t and column k + t (t > s) only through the pivot corner `A[k..k + S][k
//! ..k + S]`, which every thread reads too, so each thread brings its part of rows and columns
//! `k + s` up to date before it uses them, as the one-step loop would have. That costs `S (S − 1)
//! C` add-mins on the row and column copies (and the corner's) per `S` steps besides the `S C²`
//! on the cells, and saves `S − 1` of every `S` barriers.

/// The closure of the block whose cells this thread holds in `$cell` (`[[i32; C]; C]`, rows
/// `(R / 4) GS + 4 ty + R % 4`, columns `(Q / 4) GS + 4 tx + Q % 4`), `$s` steps per barrier
/// (1, 2 or 4; `$s` divides B). Uses the first `16 B` words of the shared tile at byte address
/// `$sa` as two halves (by the parity of `k / S`) of `S` rows and `S` columns; starts with a
/// barrier (every thread is done with what the tile held before).
/// `$s` = 0: by quadrants instead (`small_quad.rs`; B = 64).
macro_rules! small_tile_close {
    ($b:tt, $c:tt, 0, $gs:ident, $cell:ident, $sa:ident, $tx:ident, $ty:ident) => {
        small_quad_close!($b, $c, $gs, $cell, $sa, $tx, $ty)
    };
    ($b:tt, $c:tt, $s:tt, $gs:ident, $cell:ident, $sa:ident, $tx:ident, $ty:ident) => {{
        const S: u32 = $s;
        const _: () = assert!((S == 1 || S == 2 || S == 4) && ($b as u32) % S == 0);
        // Rows k..k + S at ROWS + p + t B, columns (stored as rows) at COLS + p + t B: p is 0 or
        // 4 B, the half of this parity, so 16 B words in all.
        const ROWS: u32 = 0;
        const COLS: u32 = 8 * $b;
        thread::sync_threads();
        let mut kk = 0u32;
        while kk < $b {
            let p = ((kk / S) & 1) * 4 * $b;
            let mut v = [0u32; 4];
            seq!(R in 0..$c {
                let row = (R / 4) * $gs + 4 * $ty + R % 4;
                if row.wrapping_sub(kk) < S {
                    seq!(H in 0..$c {
                        v[H % 4] = $cell[R][H] as u32;
                        if H % 4 == 3 {
                            // SAFETY: words p + (row − kk) B + (H / 4) GS + 4 tx..+4 < 8 B of the
                            // row half (16 B <= the tile's words, the caller's assert), aligned;
                            // only the owners of row `row` write them in this group, and this
                            // parity's last reads were two groups ago, before the last barrier.
                            unsafe {
                                st_shared::<4>($sa + 4 * (ROWS + p + (row - kk) * $b
                                    + (H / 4) * $gs + 4 * $tx), v)
                            };
                        }
                    });
                }
            });
            seq!(Q in 0..$c {
                let col = (Q / 4) * $gs + 4 * $tx + Q % 4;
                if col.wrapping_sub(kk) < S {
                    seq!(G in 0..$c {
                        v[G % 4] = $cell[G][Q] as u32;
                        if G % 4 == 3 {
                            // SAFETY: as above, the column half, written by the owners of
                            // column `col` only.
                            unsafe {
                                st_shared::<4>($sa + 4 * (COLS + p + (col - kk) * $b
                                    + (G / 4) * $gs + 4 * $ty), v)
                            };
                        }
                    });
                }
            });
            thread::sync_threads();
            // This thread's part of rows (rr) and columns (ll) k..k + S, and the corner (kc).
            let mut rr = [[0i32; $c]; $s];
            let mut ll = [[0i32; $c]; $s];
            let mut kc = [[0i32; $s]; $s];
            seq!(T in 0..$s {
                let (mut x, mut y) = ([0u32; 4], [0u32; 4]);
                seq!(G in 0..$c {
                    if G % 4 == 0 {
                        // SAFETY: column and row k + T at this thread's rows and columns,
                        // written before the barrier above, not written again before the next
                        // group's barrier.
                        (x, y) = unsafe {(
                            ld_shared::<4>($sa + 4 * (COLS + p + T * $b + (G / 4) * $gs + 4 * $ty)),
                            ld_shared::<4>($sa + 4 * (ROWS + p + T * $b + (G / 4) * $gs + 4 * $tx)),
                        )};
                    }
                    ll[T][G] = x[G % 4] as i32;
                    rr[T][G] = y[G % 4] as i32;
                });
                if S > 1 {
                    // SAFETY: row k + T at columns k..k + S (kk a multiple of S: aligned), as
                    // above.
                    let z = unsafe { ld_shared::<$s>($sa + 4 * (ROWS + p + T * $b + kk)) };
                    seq!(U in 0..$s {
                        kc[T][U] = z[U] as i32;
                    });
                }
            });
            seq!(S0 in 0..$s {
                seq!(R in 0..$c { seq!(Q in 0..$c {
                    $cell[R][Q] = add_min($cell[R][Q], ll[S0][R], rr[S0][Q]);
                }); });
                // Step k + S0 on the later rows and columns of the group and on the corner.
                seq!(T in 0..$s {
                    if T > S0 {
                        seq!(Q in 0..$c {
                            rr[T][Q] = add_min(rr[T][Q], kc[T][S0], rr[S0][Q]);
                        });
                        seq!(R in 0..$c {
                            ll[T][R] = add_min(ll[T][R], ll[S0][R], kc[S0][T]);
                        });
                        seq!(U in 0..$s {
                            if U > S0 {
                                kc[T][U] = add_min(kc[T][U], kc[T][S0], kc[S0][U]);
                            }
                        });
                    }
                });
            });
            kk += S;
        }
    }};
}
