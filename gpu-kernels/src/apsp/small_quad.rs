//! Phase 1 (the closure) of a 64 x 64 block by quadrants (Kleene's 2 x 2 block recursion),
//! `small_tile_close!`'s arm for closure steps 0. Macros only; the kernels' files bring the
//! imports.
//!
//! Why: the closure is on the chain that every round of a small solve waits for, and at S steps
//! per barrier it still took ~200 cycles a step (session 22's probes: 64 steps, 7.7 µs of a
//! 17.4 µs round at V = 1000), most of it in the block barrier and the stores and loads of row
//! and column k around it, with 16 add-mins a thread between them. By quadrants, with
//! `A = [[A11, A12], [A21, A22]]` of 32 x 32 blocks (min-plus products, each starting from the
//! block it updates):
//!
//! ```text
//! A11 = A11*;  A12 = A11 A12, A21 = A21 A11;  A22 = A22 min A21 A12;
//! A22 = A22*;  A21 = A22 A21, A12 = A12 A22;  A11 = A11 min A12 A21
//! ```
//!
//! the 64 Floyd–Warshall steps become two closures of 32 x 32 blocks by one warp each, with no
//! block barrier inside (row and column k move between lanes by `shfl`: 12 shuffles and 32
//! add-mins a lane a step), and four stages of 32³ products on the whole block between
//! barriers, where every thread does 128 to 1024 add-mins per barrier. The result is the closure
//! (the standard Kleene / R-Kleene recursion: paths through the first half of the vertices, then
//! through the second half given the first, then the first again given the second).
//!
//! Measured (session 23, H200, `apsp-small --probe`): 12.4k cycles for the 4 x 4-cell block
//! (4 steps per barrier 13.7k, 2 steps 12.8k) and 13.6k for the 8 x 8 one (2 steps 19.0k). What
//! bounds it: the quadrants' add-mins are the 64 steps' own (64³), and the two 32 x 32 closures,
//! a quarter of them, run on one warp, one of the SM's four schedulers, where `VIADDMNMX` issues
//! every 2 cycles: 32³ / 16 = 2048 cycles each at best, 4096 for both, as long as the whole
//! block's 64³ product at the SM's full rate.

/// The closure, in place, of the 64 x 64 block whose cells this thread holds in `$cell` (the
/// layout of `small_tile_item!`), through the shared tile at byte address `$sa` (64 rows of
/// `64 + 4` words, A_TILE's size); starts with a barrier (every thread is done with what the
/// tile held before) and ends with the cells back in registers.
macro_rules! small_quad_close {
    (64, 4, $gs:ident, $cell:ident, $sa:ident, $tx:ident, $ty:ident) => {
        small_quad_close!(@ 64, 4, 2, 1, $gs, $cell, $sa, $tx, $ty)
    };
    (64, 8, $gs:ident, $cell:ident, $sa:ident, $tx:ident, $ty:ident) => {
        small_quad_close!(@ 64, 8, 8, 4, $gs, $cell, $sa, $tx, $ty)
    };
    // $ra: rows a thread computes when the block runs two products at once (stages A and D),
    // $rb: when it runs one (stages B and E); four columns either way.
    (@ $b:tt, $c:tt, $ra:tt, $rb:tt, $gs:ident, $cell:ident, $sa:ident, $tx:ident, $ty:ident) => {{
        const B: u32 = $b;
        const H: u32 = B / 2;
        const P: u32 = $crate::apsp::small_tile::a_tile_pitch(B);
        const TS: u32 = B / $c;
        const NT: u32 = TS * TS;
        const _: () = assert!(H == 32 && ($ra as u32) * NT == 16 * H && ($rb as u32) * NT == 8 * H);
        let t = $ty * TS + $tx;
        thread::sync_threads();
        let mut v = [0u32; 4];
        seq!(R in 0..$c { seq!(Q in 0..$c {
            v[Q % 4] = $cell[R][Q] as u32;
            if Q % 4 == 3 {
                let (i, j) = ((R / 4) * $gs + 4 * $ty + R % 4, (Q / 4) * $gs + 4 * $tx);
                // SAFETY: row i < 64, words j..j + 4 <= 64 of the 64 x P tile (the caller's
                // tile holds 64 P words), aligned; each cell is this thread's alone, and every
                // thread is past the barrier above.
                unsafe { st_shared::<4>($sa + 4 * (i * P + j), v) };
            }
        }); });
        thread::sync_threads();
        if t < 32 {
            quad_warp_close!($sa, P, 0, t);
        }
        thread::sync_threads();
        // Stage A: A12 = A11 A12 (threads 0..NT / 2), A21 = A21 A11 (the others).
        let (p, u) = (t / (NT / 2), t % (NT / 2));
        let (a, b) = if p == 0 { ((0, 0), (0, H)) } else { ((H, 0), (0, 0)) };
        let o = if p == 0 { (0, H) } else { (H, 0) };
        let (r0, cq) = ((u / 8) * $ra, u % 8);
        let acc = quad_product!($ra, $sa, P, a, b, o, r0, cq);
        thread::sync_threads();
        quad_store!($ra, $sa, P, o, r0, cq, acc);
        thread::sync_threads();
        // Stage B: A22 = A22 min A21 A12 (each thread reads and writes only its own cells of
        // A22, and reads A21 and A12, which nobody writes in this stage).
        let (r0, cq) = ((t / 8) * $rb, t % 8);
        let acc = quad_product!($rb, $sa, P, (H, 0), (0, H), (H, H), r0, cq);
        quad_store!($rb, $sa, P, (H, H), r0, cq, acc);
        thread::sync_threads();
        if t < 32 {
            quad_warp_close!($sa, P, H, t);
        }
        thread::sync_threads();
        // Stage D: A21 = A22 A21 (threads 0..NT / 2), A12 = A12 A22 (the others).
        let (a, b) = if p == 0 { ((H, H), (H, 0)) } else { ((0, H), (H, H)) };
        let o = if p == 0 { (H, 0) } else { (0, H) };
        let (r0, cq) = ((u / 8) * $ra, u % 8);
        let acc = quad_product!($ra, $sa, P, a, b, o, r0, cq);
        thread::sync_threads();
        quad_store!($ra, $sa, P, o, r0, cq, acc);
        thread::sync_threads();
        // Stage E: A11 = A11 min A12 A21, as stage B.
        let (r0, cq) = ((t / 8) * $rb, t % 8);
        let acc = quad_product!($rb, $sa, P, (0, H), (H, 0), (0, 0), r0, cq);
        quad_store!($rb, $sa, P, (0, 0), r0, cq, acc);
        thread::sync_threads();
        seq!(R in 0..$c { seq!(Q in 0..$c {
            if Q % 4 == 0 {
                let (i, j) = ((R / 4) * $gs + 4 * $ty + R % 4, (Q / 4) * $gs + 4 * $tx);
                // SAFETY: the words this thread stored at the start, final after the barrier
                // above; the caller's next writes to the tile follow its next barrier.
                v = unsafe { ld_shared::<4>($sa + 4 * (i * P + j)) };
            }
            $cell[R][Q] = v[Q % 4] as i32;
        }); });
    }};
}

/// Rows `r0..r0 + $rm`, columns `4 cq..4 cq + 4` of the 32 x 32 block at `$o` (row, column
/// offsets in the tile at `$sa`, row pitch `$p` words) min the product of the blocks at `$a` and
/// `$bq`, into registers (`[[i32; 4]; $rm]`). The caller orders every read here after the
/// writes of the blocks read (a barrier) and before anyone's next writes to them.
macro_rules! quad_product {
    ($rm:tt, $sa:ident, $p:ident, $a:expr, $bq:expr, $o:expr, $r0:ident, $cq:ident) => {{
        let ((ar, ac), (br, bc), (or, oc)): ((u32, u32), (u32, u32), (u32, u32)) = ($a, $bq, $o);
        let mut acc = [[0i32; 4]; $rm];
        seq!(R in 0..$rm {
            // SAFETY: row or + r0 + R < 64, words oc + 4 cq..+4 <= 64 of the tile, aligned
            // (offsets multiples of 4, the pitch too); ordered by the caller (macro comment).
            let w = unsafe { ld_shared::<4>($sa + 4 * ((or + $r0 + R) * $p + oc + 4 * $cq)) };
            seq!(Q in 0..4 { acc[R][Q] = w[Q] as i32; });
        });
        seq!(K in 0..8 {
            let mut x = [[0u32; 4]; $rm];
            seq!(R in 0..$rm {
                // SAFETY: row ar + r0 + R < 64, words ac + 4 K..+4 <= 64, as above.
                x[R] = unsafe { ld_shared::<4>($sa + 4 * ((ar + $r0 + R) * $p + ac + 4 * K)) };
            });
            seq!(U in 0..4 {
                // SAFETY: row br + 4 K + U < 64, words bc + 4 cq..+4 <= 64, as above.
                let y = unsafe { ld_shared::<4>($sa + 4 * ((br + 4 * K + U) * $p + bc + 4 * $cq)) };
                seq!(R in 0..$rm { seq!(Q in 0..4 {
                    acc[R][Q] = add_min(acc[R][Q], x[R][U] as i32, y[Q] as i32);
                }); });
            });
        });
        acc
    }};
}

/// Stores `quad_product!`'s registers `$acc` back to the same cells of the block at `$o`.
macro_rules! quad_store {
    ($rm:tt, $sa:ident, $p:ident, $o:expr, $r0:ident, $cq:ident, $acc:ident) => {{
        let (or, oc): (u32, u32) = $o;
        seq!(R in 0..$rm {
            let w = [$acc[R][0] as u32, $acc[R][1] as u32, $acc[R][2] as u32, $acc[R][3] as u32];
            // SAFETY: the cells `quad_product!` read for this thread (in the tile, aligned),
            // written by this thread alone; the caller orders everyone's reads of them first.
            unsafe { st_shared::<4>($sa + 4 * ((or + $r0 + R) * $p + oc + 4 * $cq), w) };
        });
    }};
}

/// The closure, in place, of the 32 x 32 block at rows and columns `$o..$o + 32` of the tile
/// at `$sa` (row pitch `$p` words) by the warp of lanes `$l` (all 32 must run it): lane `l`
/// holds rows `8 (l / 8)..+8` and columns `4 (l % 8)..+4` in registers; at step k each lane
/// takes column k at its rows from the lane holding them (8 shuffles) and row k at its columns
/// (4), then updates its 32 cells. The caller orders the tile's writes before and its reads
/// after with barriers.
macro_rules! quad_warp_close {
    ($sa:ident, $p:ident, $o:expr, $l:ident) => {{
        let o: u32 = $o;
        let (rg, cg) = ($l / 8, $l % 8);
        let mut x = [[0i32; 4]; 8];
        seq!(I in 0..8 {
            // SAFETY: row o + 8 rg + I < 64, words o + 4 cg..+4 <= 64 of the tile, aligned;
            // this lane's alone inside the warp, ordered by the caller's barriers.
            let w = unsafe { ld_shared::<4>($sa + 4 * ((o + 8 * rg + I) * $p + o + 4 * cg)) };
            seq!(J in 0..4 { x[I][J] = w[J] as i32; });
        });
        // No software pipelining: taking step k + 1's shuffles before step k's other add-mins
        // measured the same (12424 against 12481 cycles for the closure, session 23): a step
        // is bound by its 32 add-mins on one scheduler (`VIADDMNMX` issues every 2 cycles),
        // not by the shuffles' latency.
        seq!(K in 0..32 {
            let mut col = [0i32; 8];
            let mut row = [0i32; 4];
            seq!(I in 0..8 {
                col[I] = shfl_idx(x[I][K % 4] as u32, 8 * rg + K / 4) as i32;
            });
            seq!(J in 0..4 {
                row[J] = shfl_idx(x[K % 8][J] as u32, 8 * (K / 8) + cg) as i32;
            });
            seq!(I in 0..8 { seq!(J in 0..4 {
                x[I][J] = add_min(x[I][J], col[I], row[J]);
            }); });
        });
        seq!(I in 0..8 {
            let w = [x[I][0] as u32, x[I][1] as u32, x[I][2] as u32, x[I][3] as u32];
            // SAFETY: the words this lane loaded above.
            unsafe { st_shared::<4>($sa + 4 * ((o + 8 * rg + I) * $p + o + 4 * cg), w) };
        });
    }};
}
