//! The flagship's k-loop of one unit, shared by `flagship.rs` (N,N), `flagship_t.rs` (batched,
//! transposed operations) and `flagship_ops.rs`: the prologue that puts `STAGES - 1` k-slices
//! in flight, the register-double-buffered fragment loads and the FFMAs, one barrier per
//! slice. What differs between those kernels is how a k-slice reaches shared memory (their
//! `load_tile`), not this loop.
//!
//! A macro rather than a function: it is expanded inside each generated kernel with that
//! kernel's constants, to the very tokens each file held before (their PTX is unchanged, and
//! the N,N kernels' speed rests on ptxas's allocation of exactly that PTX: docs/matmul.md,
//! "What limits it at 4096").

/// The k-slices `kb..ke` of a unit: copies issued by `$load_tile(t, stage)`, accumulated into
/// `$acc` (declared here, `[[f32; RN]; RM]`, for the caller's epilogue). Uses the calling
/// kernel's `BK`, `LY`, `LX`, `AP`, `STAGES` and `STAGE_BYTES`; `$bp` is the B slice's row pitch
/// in floats (`BN`, or `BN + 4` where B is copied transposing); `$a_frag`, `$b_frag` the lane's
/// byte offsets of its A and B fragments in a stage. Ends with no copy still writing shared
/// memory.
macro_rules! flagship_k_loop {
    ($smem:ident, $kb:ident, $ke:ident, $load_tile:ident, $a_frag:ident, $b_frag:ident, $acc:ident;
     pitch_b: $bp:ident, stages: $st:tt, bk: $bk:tt, thread_tile: $rm:tt x $rn:tt,
     groups: $ga:tt x $gb:tt, ffma_order: $ord:ident) => {
        // Prologue: slices kb..kb+STAGES-1 in flight, one group each (possibly empty).
        seq!(S in 0..$st {
            if S + 1 < STAGES {
                if $kb + S < $ke {
                    $load_tile($kb + S, S * STAGE_BYTES);
                }
                // SAFETY: closes this thread's group (possibly empty); no memory access.
                unsafe { cp_async_commit() };
            }
        });
        // SAFETY: waits only.
        unsafe { cp_async_wait::<{ $st - 2 }>() };
        thread::sync_threads();

        let mut $acc = [[0.0f32; $rn]; $rm];
        let mut fa = [[0.0f32; $rm]; 2];
        let mut fb = [[0.0f32; $rn]; 2];
        let mut read = 0u32;
        let mut write = (STAGES - 1) * STAGE_BYTES;
        // Fragments of step 0.
        seq!(G in 0..$ga {
            // SAFETY: `read + a_frag + 4 * G * LY * 4` + 16 bytes stays in row 0 of stage
            // `read`'s A slice (the lane's 4 rows at warp / WN * WTM + lane / LX * 4 +
            // G * LY * 4 < BM), 16-byte aligned; the stage landed (wait) and is ordered by
            // the barrier above.
            let v = unsafe { ld_shared::<4>($smem + read + $a_frag + 4 * G * LY * 4) };
            seq!(J in 0..4 { fa[0][G * 4 + J] = f32::from_bits(v[J]); });
        });
        seq!(H in 0..$gb {
            // SAFETY: `b_frag + 4 * H * LX * 4` + 16 bytes stays in row 0 of the B slice
            // (column < BN), aligned; landed and ordered as above.
            let v = unsafe { ld_shared::<4>($smem + read + $b_frag + 4 * H * LX * 4) };
            seq!(J in 0..4 { fb[0][H * 4 + J] = f32::from_bits(v[J]); });
        });

        let mut kt = $kb;
        while kt < $ke {
            seq!(KK in 0..$bk {
                if KK == BK - 1 {
                    // Slice kt+1 has landed; every warp is done with slice kt-1's
                    // stage, which the copies issued at KK == 0 of the next round
                    // overwrite.
                    // SAFETY: waits only.
                    unsafe { cp_async_wait::<{ $st - 2 }>() };
                    thread::sync_threads();
                    read = if read + STAGE_BYTES == STAGES * STAGE_BYTES { 0 } else { read + STAGE_BYTES };
                }
                {
                    const NEXT: u32 = (KK + 1) % BK;
                    const NB: usize = (KK + 1) % 2;
                    seq!(G in 0..$ga {
                        // SAFETY: row NEXT < BK of stage `read`'s A slice, columns < BM
                        // (as at step 0); that stage landed before the barrier at KK == BK
                        // - 1 (or the prologue), and the copies issued since write another
                        // stage.
                        let v = unsafe {
                            ld_shared::<4>($smem + read + $a_frag + 4 * (NEXT * AP + G * LY * 4))
                        };
                        seq!(J in 0..4 { fa[NB][G * 4 + J] = f32::from_bits(v[J]); });
                    });
                    seq!(H in 0..$gb {
                        // SAFETY: row NEXT < BK of the B slice (of the caller's row pitch),
                        // columns < BN; ordered as the A fragment.
                        let v = unsafe {
                            ld_shared::<4>($smem + read + $b_frag + 4 * (NEXT * $bp + H * LX * 4))
                        };
                        seq!(J in 0..4 { fb[NB][H * 4 + J] = f32::from_bits(v[J]); });
                    });
                }
                if KK == 0 {
                    let t = kt + STAGES - 1;
                    if t < $ke {
                        $load_tile(t, write);
                    }
                    // SAFETY: closes this thread's group; no memory access.
                    unsafe { cp_async_commit() };
                    write = if write + STAGE_BYTES == STAGES * STAGE_BYTES { 0 } else { write + STAGE_BYTES };
                }
                {
                    const CB: usize = KK % 2;
                    seq!(R in 0..$rm {
                        seq!(C in 0..$rn {{
                            const RC: (usize, usize) = ffma_order(R * $rn + C, $rm, $rn, FfmaOrder::$ord);
                            $acc[RC.0][RC.1] += fa[CB][RC.0] * fb[CB][RC.1];
                        }});
                    });
                }
            });
            kt += 1;
        }
        // No copy may still be writing shared memory when the unit ends.
        // SAFETY: waits only.
        unsafe { cp_async_wait::<0>() };
    };
}
