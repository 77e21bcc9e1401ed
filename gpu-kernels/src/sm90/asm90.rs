//! The sm_90a instructions the Hopper GEMM needs, as inline PTX: mbarriers, TMA, wgmma and its
//! shared-memory descriptors, `setmaxnreg`. NVVM emits none of them. Shared memory is addressed
//! with 32-bit shared-window addresses (`crate::ptx::shared_addr`).
use core::arch::asm;

/// Initialises the mbarrier at `bar` for `count` arrivals a phase.
///
/// # Safety
/// `bar` must be the shared address of 8 bytes, 8-byte aligned, that no thread uses until a
/// barrier after this (with [`fence_mbarrier_init`] in between).
#[inline(always)]
pub unsafe fn mbar_init(bar: u32, count: u32) {
    // SAFETY: the caller's contract: `bar` is an unused, aligned mbarrier slot.
    unsafe {
        asm!("mbarrier.init.shared::cta.b64 [{b}], {c};", b = in(reg32) bar, c = in(reg32) count,
             options(nostack, preserves_flags));
    }
}

/// Makes the mbarrier initialisations of this thread visible to the other threads and to the
/// async proxy (TMA) before the next barrier.
#[inline(always)]
pub fn fence_mbarrier_init() {
    // SAFETY: fences touch no memory of their own.
    unsafe {
        asm!(
            "fence.mbarrier_init.release.cluster;",
            "fence.proxy.async.shared::cta;",
            options(nostack, preserves_flags)
        );
    }
}

/// Orders this thread's earlier generic-proxy writes to shared memory (`st.shared`) before later
/// async-proxy accesses (wgmma's operand reads) that are ordered after it, e.g. through an
/// mbarrier arrival that the readers wait on.
#[inline(always)]
pub fn fence_proxy_async_shared() {
    // SAFETY: a fence; touches no memory of its own.
    unsafe {
        asm!(
            "fence.proxy.async.shared::cta;",
            options(nostack, preserves_flags)
        )
    }
}

/// Asks the copy engine to bring `bytes` (a multiple of 16) of global memory at `p` (16-byte
/// aligned) into L2, without waiting and without writing anything (async proxy: no fence of this
/// thread waits for it).
///
/// # Safety
/// `p .. p + bytes` must be readable global memory.
#[inline(always)]
pub unsafe fn prefetch_l2(p: *const u8, bytes: u32) {
    // SAFETY: a prefetch of readable bytes (the caller's contract); writes nothing.
    unsafe {
        asm!("cp.async.bulk.prefetch.L2.global [{p}], {n};", p = in(reg64) p, n = in(reg32) bytes,
             options(nostack, preserves_flags));
    }
}

/// Arrives on the mbarrier at `bar` and adds `bytes` to the transaction count its phase waits for.
///
/// # Safety
/// `bar` must be an initialised mbarrier of this block (see [`mbar_init`]).
#[inline(always)]
pub unsafe fn mbar_arrive_expect_tx(bar: u32, bytes: u32) {
    // SAFETY: `bar` is an initialised mbarrier (the caller's contract).
    unsafe {
        asm!("mbarrier.arrive.expect_tx.shared::cta.b64 _, [{b}], {n};", b = in(reg32) bar,
             n = in(reg32) bytes, options(nostack, preserves_flags));
    }
}

/// Arrives on the mbarrier at `bar` (release: this thread's earlier accesses are ordered before
/// the phase completes).
///
/// # Safety
/// `bar` must be an initialised mbarrier of this block.
#[inline(always)]
pub unsafe fn mbar_arrive(bar: u32) {
    // SAFETY: `bar` is an initialised mbarrier (the caller's contract).
    unsafe {
        asm!("mbarrier.arrive.shared::cta.b64 _, [{b}];", b = in(reg32) bar,
             options(nostack, preserves_flags));
    }
}

/// Waits until the phase of parity `parity` of the mbarrier at `bar` has completed (acquire: the
/// writes the phase waited for, TMA's included, are visible after it).
///
/// # Safety
/// `bar` must be an initialised mbarrier of this block.
#[inline(always)]
pub unsafe fn mbar_wait(bar: u32, parity: u32) {
    loop {
        let done: u32;
        // SAFETY: `bar` is an initialised mbarrier (the caller's contract); try_wait only reads it.
        unsafe {
            asm!("{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [{b}], {ph}; selp.u32 {d}, 1, 0, p; }}",
                 d = out(reg32) done, b = in(reg32) bar, ph = in(reg32) parity,
                 options(nostack, preserves_flags));
        }
        if done != 0 {
            return;
        }
    }
}

/// Orders later tensor-map reads by TMA after the map's bytes, copied to global memory by the
/// host before the launch (the tensor-map proxy reads memory on its own path).
///
/// # Safety
/// `map` must point to a 128-byte tensor map in global memory.
#[inline(always)]
pub unsafe fn fence_tensormap(map: *const u8) {
    // SAFETY: a fence on 128 readable bytes (the caller's contract).
    unsafe {
        asm!("fence.proxy.tensormap::generic.acquire.gpu [{m}], 128;", m = in(reg64) map,
             options(nostack, preserves_flags));
    }
}

/// A TMA copy of the box at element coordinates (`x` innermost, `y`) of the tensor map `map`
/// into shared memory at `dst`, completing `bar`'s transaction count by the box's bytes.
///
/// # Safety
/// `map` must be a valid tensor map (see [`fence_tensormap`]); `dst` the shared address of a
/// box-sized, 1024-byte aligned region (128-byte swizzle) that nothing reads until `bar`'s phase
/// completes; `bar` an initialised mbarrier expecting these bytes.
#[inline(always)]
pub unsafe fn tma_load_2d(dst: u32, map: *const u8, x: u32, y: u32, bar: u32) {
    // SAFETY: the caller's contract; the copy writes only the box at `dst`.
    unsafe {
        asm!("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{x}, {y}}}], [{b}];",
             d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y,
             b = in(reg32) bar, options(nostack, preserves_flags));
    }
}

/// A wgmma shared-memory matrix descriptor with 128-byte swizzle: start address, leading and
/// stride byte offsets (each in 16-byte units, 14 bits), base offset 0 (tiles are 1024-byte
/// aligned), swizzle mode 1 (128 B) in bits 62-63.
#[inline(always)]
pub fn desc_128b(addr: u32, lbo: u32, sbo: u32) -> u64 {
    let enc = |x: u32| u64::from((x & 0x3_ffff) >> 4);
    enc(addr) | (enc(lbo) << 16) | (enc(sbo) << 32) | (1u64 << 62)
}

/// `wgmma.fence`: orders this warp group's register accesses before the next wgmma.
#[inline(always)]
pub fn wgmma_fence() {
    // SAFETY: a fence; touches no memory.
    unsafe {
        asm!(
            "wgmma.fence.sync.aligned;",
            options(nostack, preserves_flags)
        )
    }
}

/// Closes the group of wgmma issued since the last commit.
#[inline(always)]
pub fn wgmma_commit() {
    // SAFETY: bookkeeping of the asynchronous groups; touches no memory.
    unsafe {
        asm!(
            "wgmma.commit_group.sync.aligned;",
            options(nostack, preserves_flags)
        )
    }
}

/// Waits until at most `N` committed wgmma groups of this warp group are pending (the older
/// ones' shared-memory reads and accumulator writes are done).
#[inline(always)]
pub fn wgmma_wait<const N: u32>() {
    // SAFETY: waiting touches no memory.
    unsafe {
        asm!(
            "wgmma.wait_group.sync.aligned {n};",
            n = const N,
            options(nostack, preserves_flags)
        )
    }
}

/// Loads two consecutive 32-bit words from global memory (coherent path).
///
/// # Safety
/// `p` must point to 2 readable words of global memory, 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_v2(p: *const u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: `p` is 2 aligned readable words (the caller's contract).
    unsafe {
        asm!("ld.global.v2.b32 {{{a}, {b}}}, [{p}];", a = out(reg32) a, b = out(reg32) b,
             p = in(reg64) p, options(nostack, readonly, preserves_flags));
    }
    [a, b]
}

/// `gridDim.x`.
#[inline(always)]
pub fn grid_blocks() -> u32 {
    let v: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {v}, %nctaid.x;", v = out(reg32) v, options(nomem, nostack, preserves_flags))
    };
    v
}

/// Lowers this warp group's register allocation to `N` (a multiple of 8, 24..=256).
#[inline(always)]
pub fn setmaxnreg_dec<const N: u32>() {
    // SAFETY: changes the allocation only; the compiler keeps live values within it.
    unsafe {
        asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack, preserves_flags))
    }
}

/// Raises this warp group's register allocation to `N` (a multiple of 8, 24..=256).
#[inline(always)]
pub fn setmaxnreg_inc<const N: u32>() {
    // SAFETY: changes the allocation only.
    unsafe {
        asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack, preserves_flags))
    }
}

/// The 128 registers of an m64n256 f32 accumulator fragment, as positional operands 0..=127.
macro_rules! acc_regs {
    () => {
        "{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}, {64}, {65}, {66}, {67}, {68}, {69}, {70}, {71}, {72}, {73}, {74}, {75}, {76}, {77}, {78}, {79}, {80}, {81}, {82}, {83}, {84}, {85}, {86}, {87}, {88}, {89}, {90}, {91}, {92}, {93}, {94}, {95}, {96}, {97}, {98}, {99}, {100}, {101}, {102}, {103}, {104}, {105}, {106}, {107}, {108}, {109}, {110}, {111}, {112}, {113}, {114}, {115}, {116}, {117}, {118}, {119}, {120}, {121}, {122}, {123}, {124}, {125}, {126}, {127}"
    };
}

/// `acc += A·B` for one k16 step of a warp group: `wgmma.mma_async.m64n256k16.f32.$ty.$ty` with
/// A and B from shared memory (descriptors `$da`, `$db`), B transposed when `$tb` is "1"
/// (MN-major). `$acc` is a `[u32; 128]` of f32 bit patterns (b32 registers, so that no
/// conversion moves touch the accumulators while the asynchronous wgmma owns them).
///
/// `$scale_d` is a run-time `u32`: 0 ignores the accumulators' old values (a tile's first step).
///
/// Safety (the caller's): the descriptors describe tiles of this block's shared memory whose
/// writes are complete and visible (mbarrier wait), and `wgmma_fence` ran since the
/// accumulators were last touched by ordinary code.
macro_rules! wgmma_m64n256k16 {
    ($ty:literal, $tb:literal, $acc:expr, $da:expr, $db:expr, $scale_d:expr) => {
        seq_macro::seq!(I in 0..128 {
            core::arch::asm!(
                concat!("{{ .reg .pred p; setp.ne.b32 p, {130}, 0; wgmma.mma_async.sync.aligned.m64n256k16.f32.",
                        $ty, ".", $ty, " {{", acc_regs!(), "}}, {128}, {129}, p, 1, 1, 0, ", $tb, "; }}"),
                #(inout(reg32) $acc[I],)*
                in(reg64) $da, in(reg64) $db, in(reg32) $scale_d,
                options(nostack, preserves_flags)
            );
        });
    };
}
pub(crate) use {acc_regs, wgmma_m64n256k16};

/// The 64 registers of an m64n128 f32 accumulator fragment, as positional operands 0..=63.
macro_rules! acc_regs64 {
    () => {
        "{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}"
    };
}

/// `acc = A·B + (scale_d != 0 ? acc : 0)` for one k8 step of a warp group with TF32 operands:
/// `wgmma.mma_async.m64n256k8.f32.tf32.tf32`, both operands K-major from shared memory (TF32
/// has no transpose bit). `$acc` is a `[u32; 128]`; `$scale_d` a run-time `u32` (0 starts a
/// fresh sum). Safety as for [`wgmma_m64n256k16`].
macro_rules! wgmma_m64n256k8_tf32 {
    ($acc:expr, $da:expr, $db:expr, $scale_d:expr) => {
        seq_macro::seq!(I in 0..128 {
            core::arch::asm!(
                concat!("{{ .reg .pred p; setp.ne.b32 p, {130}, 0; wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {{",
                        acc_regs!(), "}}, {128}, {129}, p, 1, 1; }}"),
                #(inout(reg32) $acc[I],)*
                in(reg64) $da, in(reg64) $db, in(reg32) $scale_d,
                options(nostack, preserves_flags)
            );
        });
    };
}

/// As [`wgmma_m64n256k8_tf32`] at n128: `$acc` is a `[u32; 64]`.
macro_rules! wgmma_m64n128k8_tf32 {
    ($acc:expr, $da:expr, $db:expr, $scale_d:expr) => {
        seq_macro::seq!(I in 0..64 {
            core::arch::asm!(
                concat!("{{ .reg .pred p; setp.ne.b32 p, {66}, 0; wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{",
                        acc_regs64!(), "}}, {64}, {65}, p, 1, 1; }}"),
                #(inout(reg32) $acc[I],)*
                in(reg64) $da, in(reg64) $db, in(reg32) $scale_d,
                options(nostack, preserves_flags)
            );
        });
    };
}
/// As [`wgmma_m64n256k8_tf32`] with A from registers: `$a` is a `[u32; 4]` of TF32 bit
/// patterns, this thread's part of the warp group's m64 x k8 A (warp `w`, lane `l`: rows
/// `16w + l/4` and `16w + l/4 + 8`, columns `l%4` and `l%4 + 4`, in the order (row, col) =
/// (r, c), (r + 8, c), (r, c + 4), (r + 8, c + 4); CUTLASS's `ALayout_64x8`). wgmma reads the
/// registers asynchronously: they must not change until `wgmma_wait` retired it, and
/// `wgmma_fence` must separate their writes from it.
macro_rules! wgmma_m64n256k8_tf32_rs {
    ($acc:expr, $a:expr, $db:expr, $scale_d:expr) => {
        seq_macro::seq!(I in 0..128 {
            core::arch::asm!(
                concat!("{{ .reg .pred p; setp.ne.b32 p, {133}, 0; wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {{",
                        acc_regs!(), "}}, {{{128}, {129}, {130}, {131}}}, {132}, p, 1, 1; }}"),
                #(inout(reg32) $acc[I],)*
                in(reg32) $a[0], in(reg32) $a[1], in(reg32) $a[2], in(reg32) $a[3],
                in(reg64) $db, in(reg32) $scale_d,
                options(nostack, preserves_flags)
            );
        });
    };
}
pub(crate) use {acc_regs64, wgmma_m64n128k8_tf32, wgmma_m64n256k8_tf32, wgmma_m64n256k8_tf32_rs};

/// `x` rounded to TF32 (nearest, ties away from zero: `cvt.rna`), as f32 bits with the low 13
/// bits zero. (The portable kernels' copy is in `tc`, which the compute_90a module leaves out.)
#[inline(always)]
pub fn tf32_rna(x: f32) -> f32 {
    let r: u32;
    // SAFETY: a register conversion; touches no memory.
    unsafe {
        asm!("cvt.rna.tf32.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x.to_bits(),
             options(pure, nomem, nostack, preserves_flags));
    }
    f32::from_bits(r)
}

/// `bar.sync id, count`: waits until `count` threads (a multiple of 32) of the block arrived at
/// named barrier `id` (1..=15; 0 is `__syncthreads`'). Orders this thread's memory accesses
/// before it against the other arrivals' after it (CTA scope).
///
/// `bar.sync` is `barrier.sync.aligned`: every thread of a warp must execute the same barrier
/// instruction. With one thread's wait in a branch right before it, ptxas may tail-duplicate
/// the barrier into both paths (two `BAR.SYNC` at different addresses in one warp: the
/// TMA-store epilogue hung so in session 16, which is why it takes [`warp_group_barrier`]).
/// Stream-K's partial sums have that shape (the lead's flag acquire, then this barrier); their
/// SASS has one `BAR.SYNC` after the warp reconverges (`WARPSYNC.ALL`, session 17), and moving
/// them to the non-aligned form made ptxas spill in the transposed TF32 kernel, so they stay.
#[inline(always)]
pub fn named_barrier(id: u32, count: u32) {
    // SAFETY: a barrier; touches no memory of its own.
    unsafe {
        asm!("bar.sync {i}, {c};", i = in(reg32) id, c = in(reg32) count,
             options(nostack, preserves_flags));
    }
}

/// `barrier.sync id, 128`: a warp group's barrier in the non-`.aligned` form, which stays right
/// where ptxas duplicates it into divergent paths (see [`named_barrier`]).
#[inline(always)]
pub fn warp_group_barrier(id: u32) {
    // SAFETY: a barrier; touches no memory of its own.
    unsafe {
        asm!("barrier.sync {i}, 128;", i = in(reg32) id, options(nostack, preserves_flags));
    }
}

/// Sets the flag at `flag` to 1, releasing at GPU scope every write this thread observed first
/// (its own, and those of the threads of a [`named_barrier`] it passed): `fence.acq_rel.gpu`,
/// then a relaxed store.
///
/// # Safety
/// `flag` must be an aligned word of global memory that only flag operations touch.
#[inline(always)]
pub unsafe fn flag_release(flag: *mut u32) {
    // SAFETY: `flag` is an aligned global word (the caller's contract).
    unsafe {
        asm!("fence.acq_rel.gpu;", "st.relaxed.gpu.global.b32 [{p}], 1;", p = in(reg64) flag,
             options(nostack, preserves_flags));
    }
}

/// Spins until the flag at `flag` reads 1 (acquire at GPU scope: the writes released before it
/// are visible to this thread afterwards), then sets it back to 0 for the next launch.
///
/// # Safety
/// `flag` as [`flag_release`]'s, waited on by this thread alone; another block must release it.
#[inline(always)]
pub unsafe fn flag_acquire_reset(flag: *mut u32) {
    loop {
        let v: u32;
        // SAFETY: `flag` is an aligned global word (the caller's contract); the loop ends once
        // the releasing block (resident: the launch's grid fits the GPU) has stored 1.
        unsafe {
            asm!("ld.acquire.gpu.global.b32 {v}, [{p}];", v = out(reg32) v, p = in(reg64) flag,
                 options(nostack, preserves_flags));
        }
        if v == 1 {
            break;
        }
    }
    // SAFETY: as above; this thread alone waits on the flag, so nobody reads the reset.
    unsafe {
        asm!("st.relaxed.gpu.global.b32 [{p}], 0;", p = in(reg64) flag,
             options(nostack, preserves_flags));
    }
}

/// Loads four consecutive words from global memory through L2 only (`ld.global.cg`: another
/// block wrote them in this launch, so no L1 line may answer).
///
/// # Safety
/// `p` must point to 16 readable bytes of global memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_global_cg_v4(p: *const u32) -> [u32; 4] {
    let mut o = [0u32; 4];
    // SAFETY: `p` is 16 aligned readable bytes (the caller's contract).
    unsafe {
        asm!("ld.global.cg.v4.b32 {{{a}, {b}, {c}, {d}}}, [{p}];", a = out(reg32) o[0],
             b = out(reg32) o[1], c = out(reg32) o[2], d = out(reg32) o[3], p = in(reg64) p,
             options(nostack, readonly, preserves_flags));
    }
    o
}

/// This block's rank in its thread-block cluster (`%cluster_ctarank`).
#[inline(always)]
pub fn cluster_rank() -> u32 {
    let v: u32;
    // SAFETY: reads a special register.
    unsafe {
        asm!("mov.u32 {v}, %cluster_ctarank;", v = out(reg32) v,
             options(nomem, nostack, preserves_flags))
    }
    v
}

/// A barrier of every thread of every block of the cluster: release of this thread's earlier
/// accesses (shared memory and mbarrier initialisations included), acquire of the others'.
/// Every thread of the block must execute it; not `.aligned`, so that the threads of a warp
/// need not be converged (the producer warp's one busy thread joins late).
#[inline(always)]
pub fn cluster_sync() {
    // SAFETY: a barrier touches no memory of its own.
    unsafe {
        asm!(
            "barrier.cluster.arrive.release;",
            "barrier.cluster.wait.acquire;",
            options(nostack, preserves_flags)
        );
    }
}

/// Arrives on the mbarrier at `bar` (a shared address of this block) in the shared memory of
/// block `rank` of the cluster (`.release` at the default `.cta` scope, as CUTLASS's
/// `ClusterBarrier::arrive`). With `.release.cluster` every arrival waited for a cluster-scope
/// fence: ncu of the pair kernel (session 15) showed `membar` and `warpgroup_arrive` stalls
/// absent from the one-block kernel and the tensor pipe 54 % active against 80 %. The consumer
/// arrives after `wgmma.wait_group` has retired its reads of the slot, so no wider release is
/// needed before the other block's multicast overwrites it.
///
/// # Safety
/// `bar` must be an initialised mbarrier at the same offset in every block of the cluster, and
/// block `rank` must not have exited (a cluster barrier before it exits).
#[inline(always)]
pub unsafe fn mbar_arrive_cluster(bar: u32, rank: u32) {
    // SAFETY: the caller's contract; mapa only translates the address.
    unsafe {
        asm!("{{ .reg .b32 ra; mapa.shared::cluster.u32 ra, {b}, {r}; mbarrier.arrive.shared::cluster.b64 _, [ra]; }}",
             b = in(reg32) bar, r = in(reg32) rank, options(nostack, preserves_flags));
    }
}

/// [`tma_load_2d`] multicast: the box lands at `dst` and completes `bar`'s transaction count
/// (the same offsets) in every block of the cluster whose bit is set in `mask`.
///
/// # Safety
/// As [`tma_load_2d`], in every block of `mask`: each has initialised `bar` and expects these
/// bytes on it, and reads `dst` only after `bar`'s phase completes.
#[inline(always)]
pub unsafe fn tma_load_2d_multicast(dst: u32, map: *const u8, x: u32, y: u32, bar: u32, mask: u16) {
    // SAFETY: the caller's contract; the copy writes only the box at `dst` in each block.
    unsafe {
        asm!("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{d}], [{m}, {{{x}, {y}}}], [{b}], {k};",
             d = in(reg32) dst, m = in(reg64) map, x = in(reg32) x, y = in(reg32) y,
             b = in(reg32) bar, k = in(reg16) mask, options(nostack, preserves_flags));
    }
}
