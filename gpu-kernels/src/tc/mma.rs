//! The tensor-core instructions as inline PTX (NVVM 7 emits none of them): `ldmatrix`,
//! `mma.sync` for BF16, FP16 and TF32, `cvt.rna.tf32.f32`, and a byte-addressed `cp.async`.
//! Fragment layouts are PTX ISA 9.7.13's: for `m16n8k16` (and `m16n8k8` in 32-bit units), lane
//! `l` with `g = l / 4`, `t = l % 4` holds A rows `g`, `g + 8` and B column `g`; the f32
//! accumulators `d0, d1` are row `g`, columns `2t, 2t + 1`, and `d2, d3` row `g + 8`.
use core::arch::asm;

/// Four 8x8 matrices of 16-bit elements from shared memory: lanes `8i .. 8i + 7` give the row
/// addresses of matrix `i`; lane `l` receives, of matrix `i`, row `l / 4`, elements `2(l % 4)`
/// and `2(l % 4) + 1` in register `i`. With `TRANS`, the matrices are transposed on the way.
///
/// # Safety
/// Every lane of the warp must call it (`.sync.aligned`), each with `addr` the 16-byte aligned
/// shared-window address of a 16-byte row inside this block's shared memory, whose stores are
/// ordered before the load (a barrier, or `cp.async` waited for and then a barrier).
#[inline(always)]
pub unsafe fn ldmatrix_x4<const TRANS: bool>(addr: u32) -> [u32; 4] {
    let mut r = [0u32; 4];
    // SAFETY: the caller's contract: every lane takes part and every row address is a landed,
    // aligned 16-byte row of this block's shared memory; the asm only reads them.
    unsafe {
        if TRANS {
            asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{a}, {b}, {c}, {d}}}, [{p}];",
                 a = out(reg32) r[0], b = out(reg32) r[1], c = out(reg32) r[2], d = out(reg32) r[3],
                 p = in(reg32) addr, options(nostack, readonly, preserves_flags));
        } else {
            asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{a}, {b}, {c}, {d}}}, [{p}];",
                 a = out(reg32) r[0], b = out(reg32) r[1], c = out(reg32) r[2], d = out(reg32) r[3],
                 p = in(reg32) addr, options(nostack, readonly, preserves_flags));
        }
    }
    r
}

/// `d += a·b` on a 16x8 tile, k = 16, BF16 inputs (`BF16`) or FP16 ones, f32 accumulators.
/// Every lane of the warp must call it (`.sync.aligned`).
#[inline(always)]
pub fn mma_16x8x16<const BF16: bool>(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    // SAFETY: register arithmetic on the warp's fragments; every lane runs it (the callers run
    // it in warp-uniform code).
    unsafe {
        if BF16 {
            asm!("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{d0}, {d1}, {d2}, {d3}}}, \
                  {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
                 d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2],
                 d3 = inout(reg32) d[3], a0 = in(reg32) a[0], a1 = in(reg32) a[1],
                 a2 = in(reg32) a[2], a3 = in(reg32) a[3], b0 = in(reg32) b[0],
                 b1 = in(reg32) b[1], options(pure, nomem, nostack, preserves_flags));
        } else {
            asm!("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{{d0}, {d1}, {d2}, {d3}}}, \
                  {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
                 d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2],
                 d3 = inout(reg32) d[3], a0 = in(reg32) a[0], a1 = in(reg32) a[1],
                 a2 = in(reg32) a[2], a3 = in(reg32) a[3], b0 = in(reg32) b[0],
                 b1 = in(reg32) b[1], options(pure, nomem, nostack, preserves_flags));
        }
    }
}

/// `d += a·b` on a 16x8 tile, k = 8, TF32 inputs (bit patterns from [`tf32`]), f32
/// accumulators. Every lane of the warp must call it.
#[inline(always)]
pub fn mma_16x8x8_tf32(d: &mut [f32; 4], a: [u32; 4], b: [u32; 2]) {
    // SAFETY: as `mma_16x8x16`.
    unsafe {
        asm!("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{{d0}, {d1}, {d2}, {d3}}}, \
              {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
             d0 = inout(reg32) d[0], d1 = inout(reg32) d[1], d2 = inout(reg32) d[2],
             d3 = inout(reg32) d[3], a0 = in(reg32) a[0], a1 = in(reg32) a[1],
             a2 = in(reg32) a[2], a3 = in(reg32) a[3], b0 = in(reg32) b[0], b1 = in(reg32) b[1],
             options(pure, nomem, nostack, preserves_flags));
    }
}

/// `x` rounded to TF32 (nearest, ties away from zero), as f32 bits with the low 13 zero.
#[inline(always)]
pub fn tf32(x: f32) -> u32 {
    let r: u32;
    // SAFETY: register arithmetic only.
    unsafe {
        asm!("cvt.rna.tf32.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// 3xTF32's split of `x`: `(hi, lo)` with `hi = tf32(x)` and `lo = tf32(x - hi)`.
#[inline(always)]
pub fn split_tf32(x: f32) -> (u32, u32) {
    let hi = tf32(x);
    (hi, tf32(x - f32::from_bits(hi)))
}

/// Copies 16 bytes global → shared asynchronously through L2 (`cp.async.cg`); `bytes` (0..=16)
/// of them are read from `src`, the rest zero-filled.
///
/// # Safety
/// `dst` must be the 16-byte aligned shared-window address of 16 bytes of this block's shared
/// memory and `src` 16-byte aligned with `bytes` readable bytes of global memory (any valid
/// address when `bytes` is 0); no thread may touch `dst` before the copy's group is waited for.
#[inline(always)]
pub unsafe fn cp_async16(dst: u32, src: *const u8, bytes: u32) {
    // SAFETY: the caller's contract; the hardware zero-fills what it does not read.
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};", d = in(reg32) dst,
             s = in(reg64) src, n = in(reg32) bytes, options(nostack, preserves_flags));
    }
}

/// Copies 16 bytes global → shared asynchronously through L2 (`cp.async.cg`), all of them read
/// (the interior copies of the `lean` kernels: no source-size operand to compute).
///
/// # Safety
/// `dst` must be the 16-byte aligned shared-window address of 16 bytes of this block's shared
/// memory and `src` 16 readable, 16-byte aligned bytes of global memory; no thread may touch
/// `dst` before the copy's group is waited for.
#[inline(always)]
pub unsafe fn cp_async16_full(dst: u32, src: *const u8) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16;", d = in(reg32) dst, s = in(reg64) src,
             options(nostack, preserves_flags));
    }
}

/// Stores two f32 to global memory as one 8-byte access.
///
/// # Safety
/// `p` must point to two writable, 8-byte aligned floats of global memory that no other thread
/// accesses during the launch.
#[inline(always)]
pub unsafe fn st_global_v2(p: *mut f32, v: [f32; 2]) {
    // SAFETY: the caller's contract.
    unsafe {
        asm!("st.global.v2.f32 [{p}], {{{a}, {b}}};", p = in(reg64) p, a = in(reg32) v[0],
             b = in(reg32) v[1], options(nostack, preserves_flags));
    }
}
