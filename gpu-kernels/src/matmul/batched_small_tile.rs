//! Pieces shared by the batched small-matrix kernels (`batched_small_kernel.rs`, registers-staged
//! loads, and `batched_small_async.rs`, `cp.async`), as macros: they expand inside each kernel,
//! whose imports (`seq`, `ld_shared`, `cp_async_*`, `st_shared`) their bodies use, so the
//! kernels' code is what it was when each wrote them out.

/// One k slice of a thread's 4 x 4 corner of C: `$acc[I][J] += A[4 ty + I][k] · B[k][4 tx + J]`
/// for the `4 $g` k of the slice, A's rows at shared word address `$as` (pitch `$ap` words), B's
/// at `$bs` (pitch `$bp` words). Both slices must be written and behind a barrier.
macro_rules! bs_fma_slice {
    ($acc:ident, $as:ident, $bs:ident, $ap:expr, $bp:expr, $ty:ident, $tx:ident, $g:tt) => {
        seq!(G in 0..$g {{
            let kk = 4 * G;
            let mut av = [[0u32; 4]; 4];
            seq!(I in 0..4 {
                // SAFETY: row 4 ty + I of the slice, words kk..kk + 4 < the pitch: this slot's A
                // slice, 16-byte aligned, written before the barrier (the caller's contract).
                av[I] = unsafe { ld_shared::<4>($as + 4 * ((4 * $ty + I) * $ap + kk)) };
            });
            seq!(R in 0..4 {{
                // SAFETY: row kk + R of the slice, columns 4 tx..4 tx + 4: this slot's B slice,
                // 16-byte aligned, written before the barrier (the caller's contract).
                let bv = unsafe { ld_shared::<4>($bs + 4 * ((kk + R) * $bp + 4 * $tx)) };
                seq!(I in 0..4 {
                    let x = f32::from_bits(av[I][R]);
                    seq!(J in 0..4 { $acc[I][J] += x * f32::from_bits(bv[J]); });
                });
            }});
        }});
    };
}

/// One 16-byte piece of an operand slice into shared memory at word address `$dst`: where
/// `$inside` (the piece's first cell is in the operand), from `$src` (evaluated only then) with
/// one 16-byte `cp.async` where `$full` (all 4 cells inside and 16-byte aligned), else 4 of 4
/// bytes, cells `$x + J` at or past `$lim` zero-filled (nothing read); a piece outside is
/// stored as zeros. The caller commits and waits.
macro_rules! bs_copy_piece {
    ($dst:ident, $inside:expr, $src:expr, $full:expr, $x:expr, $lim:expr) => {
        if $inside {
            let src = $src;
            if $full {
                // SAFETY: 4 cells of the operand's row, 16-byte aligned (`$full`); words
                // `$dst`.. of this slot's slice, 16-byte aligned, not read before the wait and
                // the barrier that follow.
                unsafe { cp_async_cg16($dst, src, 16) };
            } else {
                seq!(J in 0..4 {
                    let ok = $x + J < $lim;
                    // SAFETY: a word of the slice; the cell `$x + J` is read only when it is
                    // inside (else zero-filled, nothing read: `src` stays a readable cell).
                    unsafe {
                        cp_async_ca4(
                            $dst + 4 * J,
                            if ok { src.add(J) } else { src },
                            if ok { 4 } else { 0 },
                        )
                    };
                });
            }
        } else {
            // SAFETY: a 16-byte aligned piece of this slot's slice; a piece outside is zeros.
            unsafe { st_shared::<4>($dst, [0; 4]) };
        }
    };
}
