//! Memory accesses written as inline PTX.
//!
//! Why: rust-cuda turns a `&mut` to a shared static into a generic pointer, and plain stores
//! through it can come out as generic `st` (upstream issue #402); a 16-byte struct copy comes out
//! as byte loads and `prmt` shuffles. Inline PTX pins the state space and the width. Shared
//! memory is addressed with 32-bit shared-window addresses, as nvcc does.
use core::arch::asm;

/// The 32-bit shared-window address of a shared-memory static.
#[inline(always)]
pub fn shared_addr<T>(p: *const T) -> u32 {
    let window: u64;
    // SAFETY: address arithmetic only; `p` must point into shared memory for the result to mean anything.
    unsafe {
        asm!("cvta.to.shared.u64 {w}, {p};", w = out(reg64) window, p = in(reg64) p as u64,
             options(pure, nomem, nostack));
    }
    window as u32
}

/// Loads `N` (1, 2 or 4) consecutive 32-bit words from shared memory at byte address `addr`
/// (aligned to `4 * N`).
///
/// # Safety
/// `addr` must be the shared-window address (see [`shared_addr`]) of `N` words inside one of
/// this block's shared allocations, aligned to `4 * N` bytes, and `N` must be 1, 2 or 4.
/// Another thread's stores to those words must be ordered before the load by a barrier.
#[inline(always)]
pub unsafe fn ld_shared<const N: usize>(addr: u32) -> [u32; N] {
    let mut out = [0u32; N];
    // SAFETY: `addr` is N aligned words of this block's shared memory, ordered after their stores
    // (the caller's contract); the asm only reads them into the outputs.
    unsafe {
        match N {
            1 => asm!("ld.shared.b32 {a}, [{p}];", a = out(reg32) out[0], p = in(reg32) addr,
                      options(nostack, readonly, preserves_flags)),
            2 => asm!("ld.shared.v2.b32 {{{a}, {b}}}, [{p}];", a = out(reg32) out[0],
                      b = out(reg32) out[1], p = in(reg32) addr,
                      options(nostack, readonly, preserves_flags)),
            4 => asm!("ld.shared.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) out[0],
                      b = out(reg32) out[1], c = out(reg32) out[2], d = out(reg32) out[3],
                      p = in(reg32) addr, options(nostack, readonly, preserves_flags)),
            _ => panic!(),
        }
    }
    out
}

/// Stores `N` (1, 2 or 4) consecutive 32-bit words to shared memory at byte address `addr`.
///
/// # Safety
/// `addr` must be the shared-window address (see [`shared_addr`]) of `N` words inside one of
/// this block's shared allocations, aligned to `4 * N` bytes, and `N` must be 1, 2 or 4.
/// No other thread may read or write those words between the same two barriers.
#[inline(always)]
pub unsafe fn st_shared<const N: usize>(addr: u32, v: [u32; N]) {
    // SAFETY: `addr` is N aligned words of this block's shared memory that no other thread uses
    // until the next barrier (the caller's contract); the asm writes only them.
    unsafe {
        match N {
            1 => asm!("st.shared.b32 [{p}], {a};", p = in(reg32) addr, a = in(reg32) v[0],
                      options(nostack, preserves_flags)),
            2 => asm!("st.shared.v2.b32 [{p}], {{{a}, {b}}};", p = in(reg32) addr,
                      a = in(reg32) v[0], b = in(reg32) v[1], options(nostack, preserves_flags)),
            4 => asm!("st.shared.v4.b32 [{p}], {{{a}, {b}, {c}, {d}}};", p = in(reg32) addr,
                      a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
                      options(nostack, preserves_flags)),
            _ => panic!(),
        }
    }
}

/// Loads `N` (1, 2 or 4) consecutive 32-bit words from global memory through the read-only
/// (non-coherent) path; only for data no thread of the launch writes.
///
/// # Safety
/// `p` must point to `N` readable words of global memory, aligned to `4 * N` bytes (`N` 1, 2 or
/// 4), that no thread writes during the launch (the non-coherent path may serve stale data).
#[inline(always)]
pub unsafe fn ld_global_nc<const N: usize>(p: *const u32) -> [u32; N] {
    let mut out = [0u32; N];
    // SAFETY: `p` is N aligned readable words that the launch does not write (the caller's
    // contract), so the non-coherent path reads current data.
    unsafe {
        match N {
            1 => asm!("ld.global.nc.b32 {a}, [{p}];", a = out(reg32) out[0], p = in(reg64) p,
                      options(nostack, readonly, preserves_flags)),
            2 => asm!("ld.global.nc.v2.b32 {{{a}, {b}}}, [{p}];", a = out(reg32) out[0],
                      b = out(reg32) out[1], p = in(reg64) p,
                      options(nostack, readonly, preserves_flags)),
            4 => asm!("ld.global.nc.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) out[0],
                      b = out(reg32) out[1], c = out(reg32) out[2], d = out(reg32) out[3],
                      p = in(reg64) p, options(nostack, readonly, preserves_flags)),
            _ => panic!(),
        }
    }
    out
}

/// Loads one 32-bit word from global memory (coherent path: the data may be written by this launch).
///
/// # Safety
/// `p` must point to a readable, 4-byte aligned word of global memory.
#[inline(always)]
pub unsafe fn ld_global(p: *const u32) -> u32 {
    let v: u32;
    // SAFETY: `p` is an aligned readable word (the caller's contract).
    unsafe {
        asm!("ld.global.b32 {a}, [{p}];", a = out(reg32) v, p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    v
}

/// Stores `N` (1, 2 or 4) consecutive 32-bit words to global memory.
///
/// # Safety
/// `p` must point to `N` writable words of global memory, aligned to `4 * N` bytes (`N` 1, 2 or
/// 4), that no other thread accesses without synchronization.
#[inline(always)]
pub unsafe fn st_global<const N: usize>(p: *mut u32, v: [u32; N]) {
    // SAFETY: `p` is N aligned words the caller may write (the caller's contract).
    unsafe {
        match N {
            1 => asm!("st.global.b32 [{p}], {a};", p = in(reg64) p, a = in(reg32) v[0],
                      options(nostack, preserves_flags)),
            2 => asm!("st.global.v2.b32 [{p}], {{{a}, {b}}};", p = in(reg64) p, a = in(reg32) v[0],
                      b = in(reg32) v[1], options(nostack, preserves_flags)),
            4 => asm!("st.global.v4.b32 [{p}], {{{a}, {b}, {c}, {d}}};", p = in(reg64) p,
                      a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
                      options(nostack, preserves_flags)),
            _ => panic!(),
        }
    }
}

/// Loads 4 consecutive 32-bit words (16-byte aligned) from global memory, coherent path.
///
/// # Safety
/// `p` must point to 4 readable words of global memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v4(p: *const u32) -> [u32; 4] {
    let mut out = [0u32; 4];
    // SAFETY: `p` is 16 aligned readable bytes (the caller's contract).
    unsafe {
        asm!("ld.global.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) out[0],
             b = out(reg32) out[1], c = out(reg32) out[2], d = out(reg32) out[3], p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    out
}

/// `min(c, a + b)` on i32 (the add wraps, as PTX `add.s32` does) as one inline-PTX block, so that
/// the add sits right before its min. NVVM otherwise emits a tile's adds all before its mins,
/// and ptxas then fuses only the last few pairs into `VIADDMNMX`; adjacent, every pair fuses.
#[inline(always)]
pub fn add_min(c: i32, a: i32, b: i32) -> i32 {
    let mut c = c;
    // SAFETY: register arithmetic only.
    unsafe {
        asm!("{{ .reg .s32 t; add.s32 t, {a}, {b}; min.s32 {c}, {c}, t; }}", c = inout(reg32) c,
             a = in(reg32) a, b = in(reg32) b, options(pure, nomem, nostack, preserves_flags));
    }
    c
}

/// Starts an asynchronous 16-byte copy from global memory at `src` (16-byte aligned) to shared
/// memory at byte address `dst` (16-byte aligned), through L2 only (`.cg`); no register holds the
/// data. Complete with `cp_async_wait_all` and then a barrier before any thread reads `dst`.
///
/// # Safety
/// `src` must point to 16 readable bytes of global memory and `dst` be the shared-window address
/// of 16 bytes of this block's shared memory, both 16-byte aligned; no thread may access `dst`
/// until the copy is complete (`cp_async_wait_all`, then a barrier for the other threads).
#[inline(always)]
pub unsafe fn cp_async_16(dst: u32, src: *const u32) {
    // SAFETY: both addresses are 16 aligned bytes in their spaces, and `dst` is untouched until
    // the copy completes (the caller's contract).
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16;", d = in(reg32) dst, s = in(reg64) src,
             options(nostack, preserves_flags));
    }
}

/// Copies 4 bytes global → shared asynchronously; `bytes` (0 or 4) of them are read, the rest
/// zero-filled. 4-byte copies must go through L1 (`.ca`).
///
/// # Safety
/// `dst` must be the 4-byte aligned shared-window address of a word of this block's shared
/// memory; when `bytes` is 4, `src` must point to a readable word of global memory (when it is
/// 0 nothing is read). No thread may access `dst` before the copy's group is waited for.
#[inline(always)]
pub unsafe fn cp_async_ca4(dst: u32, src: *const f32, bytes: u32) {
    // SAFETY: `dst` is a shared word and `src` readable when `bytes` is 4 (the caller's contract);
    // the hardware zero-fills what it does not read.
    unsafe {
        asm!("cp.async.ca.shared.global [{d}], [{s}], 4, {n};", d = in(reg32) dst,
             s = in(reg64) src, n = in(reg32) bytes, options(nostack, preserves_flags));
    }
}

/// Copies 16 bytes global → shared asynchronously, bypassing L1; `bytes` (0..=16) of them are
/// read, the rest zero-filled. Both addresses must be 16-byte aligned.
///
/// # Safety
/// As [`cp_async_16`]: `dst` 16 bytes of this block's shared memory, `src` at least `bytes`
/// readable bytes of global memory, both 16-byte aligned, `bytes` at most 16; no thread may
/// access `dst` before the copy's group is waited for.
#[inline(always)]
pub unsafe fn cp_async_cg16(dst: u32, src: *const f32, bytes: u32) {
    // SAFETY: `dst` is 16 shared bytes and `src` at least `bytes` readable bytes, both aligned
    // (the caller's contract).
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};", d = in(reg32) dst,
             s = in(reg64) src, n = in(reg32) bytes, options(nostack, preserves_flags));
    }
}

/// Closes this thread's current group of `cp.async` copies (waited for by [`cp_async_wait`]).
///
/// # Safety
/// Nothing of its own: it touches no memory; the copies it groups carry their own contracts.
#[inline(always)]
pub unsafe fn cp_async_commit() {
    // SAFETY: closes this thread's group of copies; no memory access of its own.
    unsafe { asm!("cp.async.commit_group;", options(nostack, preserves_flags)) }
}

/// Waits until at most `N` of this thread's committed copy groups are pending.
///
/// # Safety
/// Nothing of its own: it only waits. Reading the copied data afterwards still needs a barrier
/// when other threads issued the copies.
#[inline(always)]
pub unsafe fn cp_async_wait<const N: u32>() {
    // The count is an immediate in PTX; a match on the constant folds to one instruction.
    // SAFETY: waits only; the immediate is a literal in every arm.
    unsafe {
        match N {
            0 => asm!("cp.async.wait_group 0;", options(nostack, preserves_flags)),
            1 => asm!("cp.async.wait_group 1;", options(nostack, preserves_flags)),
            2 => asm!("cp.async.wait_group 2;", options(nostack, preserves_flags)),
            3 => asm!("cp.async.wait_group 3;", options(nostack, preserves_flags)),
            _ => asm!("cp.async.wait_all;", options(nostack, preserves_flags)),
        }
    }
}

/// Waits until every `cp_async_16` this thread started has landed in shared memory.
#[inline(always)]
pub fn cp_async_wait_all() {
    // SAFETY: waits only.
    unsafe { asm!("cp.async.wait_all;", options(nostack, preserves_flags)) };
}

/// `*p = min(*p, v)` on i32 in global memory, atomically, without returning the old value.
///
/// # Safety
/// `p` must point to a 4-byte aligned, writable i32 of global memory; other threads may update
/// it concurrently only atomically.
#[inline(always)]
pub unsafe fn red_min_global(p: *mut i32, v: i32) {
    // SAFETY: `p` is an aligned i32 that others update only atomically (the caller's contract);
    // `red` is itself atomic.
    unsafe {
        asm!("red.global.min.s32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v,
             options(nostack, preserves_flags));
    }
}

/// Stores a word to global memory through L2 only (`.cg`), for data another block reads.
///
/// # Safety
/// `p` must point to a 4-byte aligned, writable word of global memory that no other thread
/// accesses without synchronization.
#[inline(always)]
pub unsafe fn st_global_cg(p: *mut u32, v: u32) {
    // SAFETY: `p` is an aligned word nobody else accesses unsynchronized (the caller's contract).
    unsafe {
        asm!("st.global.cg.b32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v,
             options(nostack, preserves_flags));
    }
}

/// Loads a word from global memory through L2 only (`.cg`): data another block wrote in this
/// launch, which this SM's L1 must not serve stale.
///
/// # Safety
/// `p` must point to a 4-byte aligned, readable word of global memory.
#[inline(always)]
pub unsafe fn ld_global_cg(p: *const u32) -> u32 {
    let v: u32;
    // SAFETY: `p` is an aligned readable word (the caller's contract).
    unsafe {
        asm!("ld.global.cg.b32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    v
}

/// A GPU-scope acquire-release fence: this thread's writes before it are visible GPU-wide to a
/// thread that synchronizes with a later release, and its reads after it see what an earlier
/// acquire made visible.
#[inline(always)]
pub fn fence_acq_rel_gpu() {
    // SAFETY: a fence only.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack, preserves_flags)) };
}

/// `*p += v` at GPU scope with acquire-release semantics; returns the old value.
///
/// # Safety
/// `p` must point to a 4-byte aligned, writable u32 of global memory that other threads access
/// only atomically.
#[inline(always)]
pub unsafe fn atom_add_acq_rel_gpu(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: `p` is an aligned u32 accessed only atomically (the caller's contract); the `atom`
    // is itself atomic.
    unsafe {
        asm!("atom.acq_rel.gpu.global.add.u32 {o}, [{p}], {v};", o = out(reg32) old,
             p = in(reg64) p, v = in(reg32) v, options(nostack, preserves_flags));
    }
    old
}

/// `*p += v` at GPU scope, relaxed (no ordering of this thread's other accesses): for a
/// counter that hands out numbers and publishes no data; returns the old value.
///
/// # Safety
/// `p` must point to a 4-byte aligned, writable u32 of global memory that other threads access
/// only atomically.
#[inline(always)]
pub unsafe fn atom_add_relaxed_gpu(p: *mut u32, v: u32) -> u32 {
    let old: u32;
    // SAFETY: `p` is an aligned u32 accessed only atomically (the caller's contract); the `atom`
    // is itself atomic.
    unsafe {
        asm!("atom.relaxed.gpu.global.add.u32 {o}, [{p}], {v};", o = out(reg32) old,
             p = in(reg64) p, v = in(reg32) v, options(nostack, preserves_flags));
    }
    old
}

/// Stores a word at GPU scope (relaxed).
///
/// # Safety
/// `p` must point to a 4-byte aligned, writable word of global memory; concurrent accesses by
/// other threads must be atomic (relaxed or stronger) too.
#[inline(always)]
pub unsafe fn st_relaxed_gpu(p: *mut u32, v: u32) {
    // SAFETY: `p` is an aligned word whose other accesses are atomic too (the caller's contract).
    unsafe {
        asm!("st.relaxed.gpu.global.u32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v,
             options(nostack, preserves_flags));
    }
}

/// `threadIdx.x`, read anew at each call: the compiler may neither merge two reads nor hoist
/// one out of a loop, so values derived from it need not stay in registers in between.
#[inline(always)]
pub fn fresh_tid_x() -> u32 {
    let v: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {v}, %tid.x;", v = out(reg32) v, options(nomem, nostack, preserves_flags))
    };
    v
}

/// `blockIdx.x`, read anew at each call (as [`fresh_tid_x`]).
#[inline(always)]
pub fn fresh_ctaid_x() -> u32 {
    let v: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {v}, %ctaid.x;", v = out(reg32) v, options(nomem, nostack, preserves_flags))
    };
    v
}

/// `blockIdx.y`, read anew at each call (as [`fresh_tid_x`]).
#[inline(always)]
pub fn fresh_ctaid_y() -> u32 {
    let v: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {v}, %ctaid.y;", v = out(reg32) v, options(nomem, nostack, preserves_flags))
    };
    v
}

/// `v` of the lane whose index is this lane's xor `mask`, all 32 lanes taking part (a warp
/// butterfly step; every lane of the warp must call it).
#[inline(always)]
pub fn shfl_bfly(v: u32, mask: u32) -> u32 {
    let out: u32;
    // SAFETY: register exchange within the warp; every caller runs it on all 32 lanes.
    unsafe {
        asm!("shfl.sync.bfly.b32 {o}, {v}, {m}, 0x1f, 0xffffffff;", o = out(reg32) out,
             v = in(reg32) v, m = in(reg32) mask, options(nomem, nostack, preserves_flags));
    }
    out
}

/// `v` of lane `lane` (each lane names its own source), all 32 lanes taking part (every lane of
/// the warp must call it).
#[inline(always)]
pub fn shfl_idx(v: u32, lane: u32) -> u32 {
    let out: u32;
    // SAFETY: register exchange within the warp; every caller runs it on all 32 lanes.
    unsafe {
        asm!("shfl.sync.idx.b32 {o}, {v}, {l}, 0x1f, 0xffffffff;", o = out(reg32) out,
             v = in(reg32) v, l = in(reg32) lane, options(nomem, nostack, preserves_flags));
    }
    out
}

/// `1 / x` rounded to the nearest f64 (IEEE `rcp.rn`), not the approximate reciprocal.
#[inline(always)]
pub fn rcp_rn_f64(x: f64) -> f64 {
    let out: f64;
    // SAFETY: register arithmetic only.
    unsafe {
        asm!("rcp.rn.f64 {o}, {x};", o = out(reg64) out, x = in(reg64) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    out
}

/// The id of the SM this thread runs on (`%smid`).
#[inline(always)]
pub fn sm_id() -> u32 {
    let v: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {v}, %smid;", v = out(reg32) v, options(nostack, nomem)) };
    v
}
