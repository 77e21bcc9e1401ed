//! The k-tile load shared by the ladder's rungs 9–11 (autotuned, warp tiling, double
//! buffering): one macro, expanded inside each generated kernel with its own tile constants.

/// Loads k-tile `k0` into shared memory at `sa` (A's `BM x BK` tile, transposed: word
/// `c * BM + r`) and `sb` (B's `BK x BN` tile, row-major), with 128-bit global loads: thread `lt`
/// of the loading threads copies a float4 of A (stored as four words) and of B every
/// `STRIDE_A` / `STRIDE_B` rows. Uses the calling kernel's `BM`, `BN`, `BK`, `STRIDE_A` and
/// `STRIDE_B`. Rungs 9 (autotuned) and 10 (warp tiling) load with all threads, rung 11 (double
/// buffering) with the half that is not computing.
macro_rules! load_k_tile {
    ($a_tile:ident, $b_tile:ident, $n:ident, $k:ident, $k0:expr, $sa:expr, $sb:expr, $lt:ident) => {{
        let (row_a, col_a) = ($lt / (BK / 4), $lt % (BK / 4));
        let (row_b, col_b) = ($lt / (BN / 4), $lt % (BN / 4));
        let (k0, sa, sb) = ($k0, $sa, $sb);
        let mut off = 0;
        while off < BM {
            let r = row_a + off;
            unsafe {
                let v = ld_global_nc::<4>($a_tile.add((r * $k + k0 + 4 * col_a) as usize));
                seq!(J in 0..4 {
                    st_shared::<1>(sa + 4 * ((4 * col_a + J) * BM + r), [v[J]]);
                });
            }
            off += STRIDE_A;
        }
        let mut off = 0;
        while off < BK {
            let r = row_b + off;
            unsafe {
                let v = ld_global_nc::<4>($b_tile.add(((k0 + r) * $n + 4 * col_b) as usize));
                st_shared::<4>(sb + 4 * (r * BN + 4 * col_b), v);
            }
            off += STRIDE_B;
        }
    }};
}
