//! Device code shared by the ladder's rungs 9–11 (autotuned, warp tiling, double buffering): the
//! k-tile load (rungs 9–11), the warp-tiled compute and the epilogue (rungs 10 and 11). Macros,
//! expanded inside each generated kernel with its own tile constants.

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
            // SAFETY: `r` < BM, 4 * col_a + 4 <= BK (the loaders' float4s tile BM x BK exactly): an
            // aligned float4 of this block's A tile (k0 + BK <= k); each shared word
            // (4 * col_a + J) * BM + r < BK * BM is stored by one loader only. No thread reads this
            // buffer until the caller's next barrier: rungs 9–10 load between barriers, rung 11
            // loads the buffer its other half is not computing on.
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
            // SAFETY: `r` < BK, 4 * col_b + 4 <= BN: an aligned float4 of the B tile, stored to its
            // own aligned shared words r * BN + 4 * col_b.. < BK * BN (ordered as for A).
            unsafe {
                let v = ld_global_nc::<4>($b_tile.add(((k0 + r) * $n + 4 * col_b) as usize));
                st_shared::<4>(sb + 4 * (r * BN + 4 * col_b), v);
            }
            off += STRIDE_B;
        }
    }};
}

/// The warp-tiled inner loop of rungs 10 and 11: accumulates the product of the k-tiles at `sa`
/// (A, transposed) and `sb` (B) in shared memory into `acc`, `UNROLL` (= 4) k-steps per
/// iteration. `m0`/`n0`: the thread's first row/column within the block tile. Uses the calling
/// kernel's `BM`, `BN`, `BK`, `TM`, `TN`, `WSUBM`, `WSUBN` and `UNROLL`.
macro_rules! warp_tile_compute {
    ($acc:ident, $sa:expr, $sb:expr, $m0:ident, $n0:ident, $wmi:tt, $wni:tt, $tm:tt, $tn:tt,
     $tm4:tt, $tn4:tt) => {{
        let (sa, sb) = ($sa, $sb);
        let mut d = 0;
        while d < BK {
            seq!(U in 0..4 {
                let kq = d + U;
                let mut reg_m = [0.0f32; $wmi * $tm];
                let mut reg_n = [0.0f32; $wni * $tn];
                seq!(WI in 0..$wmi {
                    seq!(V in 0..$tm4 {
                        // SAFETY: `$m0 + WI * WSUBM + 4 * V` + 4 <= BM (the thread's warp tile lies
                        // inside the block tile) and kq < BK: inside the A buffer at `sa`, 16-byte
                        // aligned; stored before the caller's last barrier.
                        let x = unsafe { ld_shared::<4>(sa + 4 * (kq * BM + $m0 + WI * WSUBM + 4 * V)) };
                        seq!(J in 0..4 { reg_m[WI * TM as usize + 4 * V + J] = f32::from_bits(x[J]); });
                    });
                });
                seq!(WJ in 0..$wni {
                    seq!(V in 0..$tn4 {
                        // SAFETY: `$n0 + WJ * WSUBN + 4 * V` + 4 <= BN and kq < BK: inside the B
                        // buffer at `sb`, aligned; stored before the caller's last barrier.
                        let y = unsafe { ld_shared::<4>(sb + 4 * (kq * BN + $n0 + WJ * WSUBN + 4 * V)) };
                        seq!(J in 0..4 { reg_n[WJ * TN as usize + 4 * V + J] = f32::from_bits(y[J]); });
                    });
                });
                seq!(I in 0..$wmi {
                    seq!(RI in 0..$tm {
                        seq!(JW in 0..$wni {
                            seq!(RJ in 0..$tn {
                                $acc[I * TM as usize + RI][JW * TN as usize + RJ] +=
                                    reg_m[I * TM as usize + RI] * reg_n[JW * TN as usize + RJ];
                            });
                        });
                    });
                });
            });
            d += UNROLL;
        }
    }};
}

/// The epilogue of rungs 10 and 11: stores the thread's warp-tile accumulators `acc` to C (`c`,
/// row pitch `n` floats) with 128-bit stores; `(row0, col0)` is the block tile's origin in C,
/// `(m0, n0)` the thread's first row/column within it. Uses the calling kernel's `TM`, `TN`,
/// `WSUBM` and `WSUBN`.
macro_rules! warp_tile_store {
    ($acc:ident, $c:ident, $n:ident, ($row0:ident, $col0:ident), ($m0:ident, $n0:ident), $wmi:tt,
     $wni:tt, $tm:tt, $tn4:tt) => {{
        seq!(WI in 0..$wmi {
            seq!(WJ in 0..$wni {
                seq!(I in 0..$tm {
                    seq!(V in 0..$tn4 {
                        let mut v = [0u32; 4];
                        seq!(J in 0..4 {
                            v[J] = $acc[WI * TM as usize + I][WJ * TN as usize + 4 * V + J].to_bits();
                        });
                        let idx = ($row0 + $m0 + WI * WSUBM + I) * $n + $col0 + $n0 + WJ * WSUBN + 4 * V;
                        // SAFETY: `idx` is 4 aligned cells of the block's BM x BN tile of C at
                        // (row0, col0), inside the padded C by the grid; no other thread stores
                        // them.
                        unsafe { st_global::<4>(($c as *mut u32).add(idx as usize), v) };
                    });
                });
            });
        });
    }};
}
