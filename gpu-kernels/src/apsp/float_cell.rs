//! The weight types of the float Floyd–Warshall kernels (`fw_float.rs`): loads and stores of
//! their cells, the add-min update that the kernels and the ceiling kernel share (so that the
//! ceiling is measured on the kernels' own instruction sequence), and the few memory
//! instructions only the float kernels use (L2 prefetch, L1-cached `cp.async`, L2-only loads).
use crate::ptx::{ld_global_v4, ld_shared, st_global, st_shared};

/// A weight type the float kernels run on: loads and stores of one cell and of 4 consecutive
/// cells (16-byte aligned groups), and the fused `min(c, a + b)`.
pub(super) trait Cell: Copy + PartialOrd + core::ops::Add<Output = Self> {
    /// # Safety
    /// `p` points to 4 readable cells of global memory, 16-byte aligned.
    unsafe fn ld4_global(p: *const Self) -> [Self; 4];
    /// [`Cell::ld4_global`] through L2 only (`.cg`): cells read once, which must not evict
    /// operands that other blocks of the SM read through L1.
    ///
    /// # Safety
    /// As [`Cell::ld4_global`].
    unsafe fn ld4_global_cg(p: *const Self) -> [Self; 4];
    /// # Safety
    /// `p` points to 4 writable cells of global memory, 16-byte aligned, that no other thread
    /// accesses during the launch.
    unsafe fn st4_global(p: *mut Self, v: [Self; 4]);
    /// 2 cells (16 bytes for f64, 8 for f32) at `p`, aligned to their size.
    ///
    /// # Safety
    /// `p` points to 2 readable cells of global memory, aligned to 2 cells.
    unsafe fn ld2_global(p: *const Self) -> [Self; 2];
    /// # Safety
    /// `p` points to 2 writable cells of global memory, aligned to 2 cells, that no other
    /// thread accesses during the launch.
    unsafe fn st2_global(p: *mut Self, v: [Self; 2]);
    /// # Safety
    /// As [`ld_shared`] for the 4 cells' words at `addr` (16-byte aligned).
    unsafe fn ld4_shared(addr: u32) -> [Self; 4];
    /// # Safety
    /// As [`ld_shared`] for the 2 cells' words at `addr` (aligned to 2 cells).
    unsafe fn ld2_shared(addr: u32) -> [Self; 2];
    /// # Safety
    /// As [`ld_shared`] for the cell's words at `addr` (aligned to the cell's size).
    unsafe fn ld1_shared(addr: u32) -> Self;
    /// # Safety
    /// As [`st_shared`] for the cell's words at `addr` (aligned to the cell's size).
    unsafe fn st1_shared(addr: u32, v: Self);
    fn add_min(c: Self, a: Self, b: Self) -> Self;
    /// `c` after `t` is offered to it as the update would (`add_min` without the add): the
    /// first of equal values stays.
    fn min_first(c: Self, t: Self) -> Self;
}

impl Cell for f32 {
    /// # Safety
    /// As [`Cell::ld4_global`].
    #[inline(always)]
    unsafe fn ld4_global(p: *const f32) -> [f32; 4] {
        // SAFETY: the caller's contract is `ld_global_v4`'s.
        unsafe { ld_global_v4(p as *const u32) }.map(f32::from_bits)
    }
    /// # Safety
    /// As [`Cell::ld4_global`].
    #[inline(always)]
    unsafe fn ld4_global_cg(p: *const f32) -> [f32; 4] {
        // SAFETY: the caller's contract is `ld_global_cg_v4`'s.
        unsafe { ld_global_cg_v4(p as *const u32) }.map(f32::from_bits)
    }
    /// # Safety
    /// As [`Cell::st4_global`].
    #[inline(always)]
    unsafe fn st4_global(p: *mut f32, v: [f32; 4]) {
        // SAFETY: the caller's contract is `st_global`'s with N = 4.
        unsafe { st_global::<4>(p as *mut u32, v.map(f32::to_bits)) }
    }
    /// # Safety
    /// As [`Cell::ld2_global`].
    #[inline(always)]
    unsafe fn ld2_global(p: *const f32) -> [f32; 2] {
        // SAFETY: 2 readable cells at `p` (the caller's contract).
        unsafe { [*p, *p.add(1)] }
    }
    /// # Safety
    /// As [`Cell::st2_global`].
    #[inline(always)]
    unsafe fn st2_global(p: *mut f32, v: [f32; 2]) {
        // SAFETY: the caller's contract is `st_global`'s with N = 2.
        unsafe { st_global::<2>(p as *mut u32, v.map(f32::to_bits)) }
    }
    /// # Safety
    /// As [`Cell::ld4_shared`].
    #[inline(always)]
    unsafe fn ld4_shared(addr: u32) -> [f32; 4] {
        // SAFETY: the caller's contract is `ld_shared`'s with N = 4.
        unsafe { ld_shared::<4>(addr) }.map(f32::from_bits)
    }
    /// # Safety
    /// As [`Cell::ld2_shared`].
    #[inline(always)]
    unsafe fn ld2_shared(addr: u32) -> [f32; 2] {
        // SAFETY: the caller's contract is `ld_shared`'s with N = 2.
        unsafe { ld_shared::<2>(addr) }.map(f32::from_bits)
    }
    /// # Safety
    /// As [`Cell::ld1_shared`].
    #[inline(always)]
    unsafe fn ld1_shared(addr: u32) -> f32 {
        // SAFETY: the caller's contract is `ld_shared`'s with N = 1.
        f32::from_bits(unsafe { ld_shared::<1>(addr) }[0])
    }
    /// # Safety
    /// As [`Cell::st1_shared`].
    #[inline(always)]
    unsafe fn st1_shared(addr: u32, v: f32) {
        // SAFETY: the caller's contract is `st_shared`'s with N = 1.
        unsafe { st_shared::<1>(addr, [v.to_bits()]) }
    }
    /// One inline-PTX block, so that each add sits right before its min (as the int32
    /// `add_min`); `add.rn` is what `a + b` means.
    #[inline(always)]
    fn add_min(c: f32, a: f32, b: f32) -> f32 {
        let mut c = c;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!("{{ .reg .f32 t; add.rn.f32 t, {a}, {b}; min.f32 {c}, {c}, t; }}",
                c = inout(reg32) c, a = in(reg32) a, b = in(reg32) b,
                options(pure, nomem, nostack, preserves_flags));
        }
        c
    }
    /// `min.f32`, the update's own min.
    #[inline(always)]
    fn min_first(c: f32, t: f32) -> f32 {
        let mut c = c;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!("min.f32 {c}, {c}, {t};", c = inout(reg32) c, t = in(reg32) t,
                options(pure, nomem, nostack, preserves_flags));
        }
        c
    }
}

/// Two f32 add-mins of one cell, `min(c, a0 + b0, a1 + b1)`, for values in +0 ..= +inf only
/// (the `nonneg` kernels, `FwFloatConfig::nonneg`): there the IEEE bit patterns, read as
/// signed integers, are ordered as the values, so the min of the two sums and the cell is one
/// 3-input integer min. ptxas fuses the two chained `min.s32` into one `VIMNMX3` on sm_90 (the
/// pattern CUDA's `__vimin3_s32` emits): 3 instructions per 2 add-mins, the `FADD`s on the FMA
/// pipe, against 4 (`FADD`, `FMNMX`, both halves on the issue-bound path) for `add_min` twice.
/// Measured (H200, session 14): the ceiling 63.8 add-mins per SM per clock against 56.6.
///
/// Exact: for such values the integer min is the float min, bit for bit (equal values have
/// equal patterns, as no -0 is among them), and sums of them stay in the range (`+0 + +0 =
/// +0`, `x + inf = inf`). A negative value, -0 or a NaN breaks the ordering; the host runs
/// these kernels only on matrices with none of them.
#[inline(always)]
pub(super) fn add_min2_nonneg(c: f32, a0: f32, b0: f32, a1: f32, b1: f32) -> f32 {
    let mut c = c.to_bits();
    // SAFETY: register arithmetic only (.b32 registers take the f32 adds and the s32 mins).
    unsafe {
        core::arch::asm!("{{ .reg .b32 t, u; add.rn.f32 t, {a0}, {b0}; add.rn.f32 u, {a1}, {b1}; min.s32 {c}, {c}, t; min.s32 {c}, {c}, u; }}",
            c = inout(reg32) c, a0 = in(reg32) a0.to_bits(), b0 = in(reg32) b0.to_bits(),
            a1 = in(reg32) a1.to_bits(), b1 = in(reg32) b1.to_bits(),
            options(pure, nomem, nostack, preserves_flags));
    }
    f32::from_bits(c)
}

/// Two 32-bit words (low first) as one f64 and back.
#[inline(always)]
fn f64_of(lo: u32, hi: u32) -> f64 {
    f64::from_bits(((hi as u64) << 32) | lo as u64)
}

#[inline(always)]
fn words_of(v: f64) -> [u32; 2] {
    let b = v.to_bits();
    [b as u32, (b >> 32) as u32]
}

impl Cell for f64 {
    /// # Safety
    /// As [`Cell::ld4_global`].
    #[inline(always)]
    unsafe fn ld4_global(p: *const f64) -> [f64; 4] {
        // SAFETY: 32 readable bytes at a 16-byte aligned `p` (the caller's contract): two
        // aligned 16-byte loads.
        let (x, y) = unsafe {
            (
                ld_global_v4(p as *const u32),
                ld_global_v4(p.add(2) as *const u32),
            )
        };
        [
            f64_of(x[0], x[1]),
            f64_of(x[2], x[3]),
            f64_of(y[0], y[1]),
            f64_of(y[2], y[3]),
        ]
    }
    /// # Safety
    /// As [`Cell::ld4_global`].
    #[inline(always)]
    unsafe fn ld4_global_cg(p: *const f64) -> [f64; 4] {
        // SAFETY: as `ld4_global`: two aligned 16-byte loads of the caller's 32 bytes.
        let (x, y) = unsafe {
            (
                ld_global_cg_v4(p as *const u32),
                ld_global_cg_v4(p.add(2) as *const u32),
            )
        };
        [
            f64_of(x[0], x[1]),
            f64_of(x[2], x[3]),
            f64_of(y[0], y[1]),
            f64_of(y[2], y[3]),
        ]
    }
    /// # Safety
    /// As [`Cell::st4_global`].
    #[inline(always)]
    unsafe fn st4_global(p: *mut f64, v: [f64; 4]) {
        let (a, b, c, d) = (
            words_of(v[0]),
            words_of(v[1]),
            words_of(v[2]),
            words_of(v[3]),
        );
        // SAFETY: 32 writable bytes at a 16-byte aligned `p` (the caller's contract).
        unsafe {
            st_global::<4>(p as *mut u32, [a[0], a[1], b[0], b[1]]);
            st_global::<4>(p.add(2) as *mut u32, [c[0], c[1], d[0], d[1]]);
        }
    }
    /// # Safety
    /// As [`Cell::ld2_global`].
    #[inline(always)]
    unsafe fn ld2_global(p: *const f64) -> [f64; 2] {
        // SAFETY: 16 readable bytes at a 16-byte aligned `p` (the caller's contract).
        let x = unsafe { ld_global_v4(p as *const u32) };
        [f64_of(x[0], x[1]), f64_of(x[2], x[3])]
    }
    /// # Safety
    /// As [`Cell::st2_global`].
    #[inline(always)]
    unsafe fn st2_global(p: *mut f64, v: [f64; 2]) {
        let (a, b) = (words_of(v[0]), words_of(v[1]));
        // SAFETY: 16 writable bytes at a 16-byte aligned `p` (the caller's contract).
        unsafe { st_global::<4>(p as *mut u32, [a[0], a[1], b[0], b[1]]) }
    }
    /// # Safety
    /// As [`Cell::ld4_shared`].
    #[inline(always)]
    unsafe fn ld4_shared(addr: u32) -> [f64; 4] {
        // SAFETY: 32 bytes of shared memory at a 16-byte aligned `addr` (the caller's contract).
        let (x, y) = unsafe { (ld_shared_f64x2(addr), ld_shared_f64x2(addr + 16)) };
        [x[0], x[1], y[0], y[1]]
    }
    /// # Safety
    /// As [`Cell::ld2_shared`].
    #[inline(always)]
    unsafe fn ld2_shared(addr: u32) -> [f64; 2] {
        // SAFETY: 16 bytes of shared memory at a 16-byte aligned `addr` (the caller's contract).
        unsafe { ld_shared_f64x2(addr) }
    }
    /// # Safety
    /// As [`Cell::ld1_shared`].
    #[inline(always)]
    unsafe fn ld1_shared(addr: u32) -> f64 {
        let v: f64;
        // SAFETY: 8 bytes of shared memory at an 8-byte aligned `addr` (the caller's contract);
        // the asm only reads them into the output.
        unsafe {
            core::arch::asm!("ld.shared.f64 {v}, [{p}];", v = out(reg64) v, p = in(reg32) addr,
                options(nostack, readonly, preserves_flags));
        }
        v
    }
    /// # Safety
    /// As [`Cell::st1_shared`].
    #[inline(always)]
    unsafe fn st1_shared(addr: u32, v: f64) {
        // SAFETY: the caller's contract is `st_shared`'s with N = 2 (8-byte aligned).
        unsafe { st_shared::<2>(addr, words_of(v)) }
    }
    /// A compare and a select, not `min.f64`: sm_90 has no `DMNMX`, and ptxas lowers
    /// `min.f64` to `DSETP.MIN` + `FSEL` + `SEL` + a NaN-quieting `LOP3` + register moves
    /// (about 9 instructions per update with the add, against 4 here: `DADD`, `DSETP`, 2
    /// `SEL`). `t < c ? t : c` is also exactly the CPU reference's `if via < c` (the two differ
    /// from `min` only on NaN and on the sign of a zero).
    #[inline(always)]
    fn add_min(c: f64, a: f64, b: f64) -> f64 {
        let r: f64;
        // SAFETY: register arithmetic only. The result is its own operand, not `inout` on `c`:
        // a tied operand is a copy of `c` wherever `c` stays live, and ptxas kept those as
        // `IMAD.MOV` pairs (17 per 32 updates in the ceiling kernel's loop, session 15).
        unsafe {
            core::arch::asm!("{{ .reg .f64 t; .reg .pred p; add.rn.f64 t, {a}, {b}; setp.lt.f64 p, t, {c}; selp.f64 {r}, t, {c}, p; }}",
                r = out(reg64) r, c = in(reg64) c, a = in(reg64) a, b = in(reg64) b,
                options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    /// The compare and select of [`Cell::add_min`] for f64.
    #[inline(always)]
    fn min_first(c: f64, t: f64) -> f64 {
        let r: f64;
        // SAFETY: register arithmetic only (a separate result, as in `add_min`).
        unsafe {
            core::arch::asm!("{{ .reg .pred p; setp.lt.f64 p, {t}, {c}; selp.f64 {r}, {t}, {c}, p; }}",
                r = out(reg64) r, c = in(reg64) c, t = in(reg64) t,
                options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
}

/// Two f64 from shared memory at byte address `addr` straight into 64-bit registers
/// (`ld.shared.v2.f64`). Loaded as four 32-bit words and paired afterwards, each f64 cost
/// ptxas an `IMAD.MOV` pair in the k loops (37 per 64 updates in the f64 default's, session 15).
///
/// # Safety
/// `addr` must be the shared-window address of 16 bytes of this block's shared memory, 16-byte
/// aligned, ordered after their stores by a barrier.
#[inline(always)]
unsafe fn ld_shared_f64x2(addr: u32) -> [f64; 2] {
    let (a, b): (f64, f64);
    // SAFETY: the caller's contract; the asm only reads those 16 bytes into the outputs.
    unsafe {
        core::arch::asm!("ld.shared.v2.f64 {{{a}, {b}}}, [{p}];", a = out(reg64) a,
            b = out(reg64) b, p = in(reg32) addr, options(nostack, readonly, preserves_flags));
    }
    [a, b]
}

/// 16 bytes of global memory through L2 only (`ld.global.cg`).
///
/// # Safety
/// `p` points to 16 readable bytes of global memory, 16-byte aligned.
#[inline(always)]
unsafe fn ld_global_cg_v4(p: *const u32) -> [u32; 4] {
    let mut out = [0u32; 4];
    // SAFETY: `p` is 16 aligned readable bytes (the caller's contract).
    unsafe {
        core::arch::asm!("ld.global.cg.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) out[0],
             b = out(reg32) out[1], c = out(reg32) out[2], d = out(reg32) out[3], p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    out
}

/// Asks L2 for the 128-byte line holding `p` (`prefetch.global.L2`): the DRAM read starts now
/// and nothing waits for it.
///
/// # Safety
/// `p` points into an allocation of global memory (a prefetch reads nothing into registers,
/// but an address outside every allocation is not one PTX defines).
#[inline(always)]
pub(super) unsafe fn prefetch_l2<T>(p: *const T) {
    // SAFETY: a hint on a global address of an allocation (the caller's contract).
    unsafe {
        core::arch::asm!("prefetch.global.L2 [{p}];", p = in(reg64) p,
            options(nostack, readonly, preserves_flags));
    }
}

/// Copies 16 bytes global → shared asynchronously through L1 (`cp.async.ca`), so that the
/// blocks of an SM that read the same operand find it there.
///
/// # Safety
/// As [`crate::ptx::cp_async_16`]: both addresses 16-byte aligned, `src` readable, `dst` this
/// block's shared memory, untouched until the copy is waited for.
#[inline(always)]
pub(super) unsafe fn cp_async_ca_16(dst: u32, src: *const u32) {
    // SAFETY: the caller's contract.
    unsafe {
        core::arch::asm!("cp.async.ca.shared.global [{d}], [{s}], 16;", d = in(reg32) dst,
            s = in(reg64) src, options(nostack, preserves_flags));
    }
}

/// The number of SM identifiers (`%nsmid`): the SM count of the GPU, or a little more.
#[inline(always)]
pub(super) fn sm_count() -> u32 {
    let n: u32;
    // SAFETY: reads a special register.
    unsafe {
        core::arch::asm!("mov.u32 {n}, %nsmid;", n = out(reg32) n,
            options(pure, nomem, nostack, preserves_flags));
    }
    n
}
