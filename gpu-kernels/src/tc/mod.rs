//! Tensor-core GEMM, the portable path (sm_80 and newer, issue #21): `mma.sync` on BF16, FP16,
//! TF32 and 3xTF32 (f32 split in two TF32 parts), f32 accumulation and output. This is the
//! host-visible half: the argument struct, the config type and the kernel list; the kernels are
//! in `kernel.rs`, their inline PTX in `mma.rs`. Design and measurements: docs/tensor-cores.md.
//!
//! Operands come in either layout: A row-major (`m x k`, rows `lda` apart) or column-major
//! (columns `lda` apart), B likewise (`k x n`); C is row-major. A kernel is compiled for one
//! pair of layouts (kernels cannot be generic), named `_rr`, `_rc`, `_cr`, `_cc` (A's, then B's).

/// What the kernel's tensor-core instruction multiplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcKind {
    /// BF16 inputs (`mma.m16n8k16 .bf16`).
    Bf16,
    /// FP16 inputs (`mma.m16n8k16 .f16`).
    Fp16,
    /// f32 inputs rounded to TF32 (`cvt.rna.tf32.f32`, `mma.m16n8k8 .tf32`).
    Tf32,
    /// f32 inputs split in `hi = tf32(x)` and `lo = tf32(x - hi)`; three products
    /// `a_lo·b_hi + a_hi·b_lo + a_hi·b_hi` accumulated in f32.
    Tf32x3,
}

impl TcKind {
    /// Bytes of one input element in memory.
    pub const fn element_bytes(self) -> u32 {
        match self {
            TcKind::Bf16 | TcKind::Fp16 => 2,
            TcKind::Tf32 | TcKind::Tf32x3 => 4,
        }
    }
    /// The register cap (`.maxnreg`) the kind's kernels are compiled under: 16-bit kernels fit
    /// 128 (256 threads x 128 registers: two blocks per SM) with no spills; the TF32 ones keep
    /// each fragment value as f32 and TF32 (3xTF32: hi and lo), which spills under 128, so they
    /// run uncapped (one block per SM).
    pub const fn max_registers(self) -> Option<u32> {
        match self {
            TcKind::Bf16 | TcKind::Fp16 => Some(TC_MAX_REGISTERS),
            TcKind::Tf32 | TcKind::Tf32x3 => None,
        }
    }
    /// Elements per 16-byte `cp.async` piece: leading dimensions must be multiples of it.
    pub const fn elements_per_copy(self) -> u32 {
        16 / self.element_bytes()
    }
}

/// The tensor-core kernels' only argument, by value (one definition for the kernel and host).
///
/// `a` and `b` point to elements of [`TcKind::element_bytes`] bytes; A is `m x k` and B `k x n`
/// in the kernel's layouts with leading dimensions `lda`, `ldb` (each a multiple of
/// [`TcKind::elements_per_copy`], the pointers 16-byte aligned); C is `m x n` f32, row-major,
/// rows `ldc` apart. When `beta == 0` C is only written.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TcParams {
    pub a: *const u8,
    pub b: *const u8,
    pub c: *mut f32,
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub lda: u32,
    pub ldb: u32,
    pub ldc: u32,
    pub alpha: f32,
    pub beta: f32,
    /// Block rasterization: consecutive blocks walk down `group` tile rows before moving one
    /// tile column right (at least 1).
    pub group: u32,
}

/// One tensor-core kernel: `bm x bn` tiles of C, `bk`-deep k-slices in a `stages`-deep
/// `cp.async` pipeline, `warps[0] x warps[1]` warps (each `bm / warps[0]` x `bn / warps[1]` of
/// C). `a_rows`/`b_rows`: A / B row-major. `swizzle`: shared memory XOR-swizzled for `ldmatrix`
/// (16-bit kinds; TF32 uses padded rows). `prefetch`: the next k-step's fragments are loaded
/// into a second set of registers while the current step's `mma` run, across slices too (the
/// barrier moves before the slice's last k-step). `lean`: each thread's copy
/// sources and destinations and its `ldmatrix` addresses are computed once before the k-loop,
/// and tiles wholly inside C with full k-slices copy with no bounds arithmetic (without
/// `prefetch`: the same in the plain loop). `library`: the kernel `gemm_tc` runs for
/// its kind and layouts (one per pair).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcConfig {
    pub name: &'static str,
    pub kind: TcKind,
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub warps: [u32; 2],
    pub stages: u32,
    pub a_rows: bool,
    pub b_rows: bool,
    pub swizzle: bool,
    pub prefetch: bool,
    pub lean: bool,
    pub library: bool,
    /// Where a `prefetch` + `lean` main loop issues a slice's copies ([`TcOrder`]).
    pub order: TcOrder,
}

/// The order of a prefetching `lean` main loop (session 20, docs/tensor-cores.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcOrder {
    /// A slice's copies first, then its `mma` (sessions 6–8; every kernel without `lean` and
    /// `prefetch` too).
    CopiesFirst,
    /// CUTLASS's sm_80 multistage order: the copies after the slice's first k-step's `mma`,
    /// the fragments in two fixed register sets by k-step parity, each warp tile's `mma` in
    /// serpentine order. (A loop of its own for the slices whose copies are whole, with no
    /// branch around them, so that ptxas spread them among the `mma`, measured 10–20 % slower:
    /// session 20, call 3.)
    Interleaved,
}

/// Bytes between stored rows of an operand's slice of `cols` elements per row: 16-bit rows are
/// unpadded (XOR-swizzled instead); f32 rows are padded so that the 32 lanes of a TF32 fragment
/// load hit 32 banks: by 4 words when the row runs along k (lanes read 8 rows x 4 columns; pitch
/// ≡ 4 words mod 32), by 8 words when it runs along M or N (4 rows x 8 columns; pitch ≡ 8).
pub const fn row_pitch(kind: TcKind, cols: u32, along_k: bool) -> u32 {
    let e = kind.element_bytes();
    cols * e
        + match (e, along_k) {
            (2, _) => 0,
            (_, true) => 16,
            (_, false) => 32,
        }
}

impl TcConfig {
    pub const fn threads(&self) -> u32 {
        32 * self.warps[0] * self.warps[1]
    }
    /// A's slice as stored: row-major A keeps `bm` rows of `bk`, column-major `bk` rows of `bm`.
    pub const fn a_bytes(&self) -> u32 {
        if self.a_rows {
            self.bm * row_pitch(self.kind, self.bk, true)
        } else {
            self.bk * row_pitch(self.kind, self.bm, false)
        }
    }
    /// B's slice: row-major B keeps `bk` rows of `bn`, column-major `bn` rows of `bk`.
    pub const fn b_bytes(&self) -> u32 {
        if self.b_rows {
            self.bk * row_pitch(self.kind, self.bn, false)
        } else {
            self.bn * row_pitch(self.kind, self.bk, true)
        }
    }
    /// Dynamic shared memory per block: every stage's A and B slices.
    pub const fn shared_bytes(&self) -> u32 {
        self.stages * (self.a_bytes() + self.b_bytes())
    }
    pub const fn tiles(&self, m: u32, n: u32) -> u32 {
        m.div_ceil(self.bm) * n.div_ceil(self.bn)
    }
    /// Columns of C per warp: 32 (4 x 4 accumulator tiles of 16 x 8) or 64 (4 x 8).
    pub const fn warp_n(&self) -> u32 {
        self.bn / self.warps[1]
    }
    /// The register cap (`.maxnreg`): the kind's for 64 x 32 warp tiles; none for 64 x 64
    /// ones, whose 128 accumulators and two fragment sets need up to 255 registers (one block
    /// of 8 warps per SM, as CUTLASS's 128 x 256 sm_80 tiles).
    pub const fn max_registers(&self) -> Option<u32> {
        if self.warp_n() == 32 {
            self.kind.max_registers()
        } else {
            None
        }
    }
}

/// The register cap of the 16-bit tensor-core kernels ([`TcKind::max_registers`]).
pub const TC_MAX_REGISTERS: u32 = 128;

/// Invokes `$m!` with every tensor-core kernel: `(name { kind, a_rows, b_rows, stages,
/// swizzle, tile: [bm, bn, bk], warps: [rows, columns], prefetch, lean, library, order })`.
/// The `_s2` / `_s2_lin` BF16 rows are rungs of the ladder in docs/tensor-cores.md (two stages;
/// linear, unswizzled shared memory); the `_w64` rows (128 x 256 tiles, 8 warps of 64 x 64)
/// and the BF16 variants after them are session 6's steps toward the `mma.sync` ceiling.
/// (Rows are long: one kernel per line keeps the list readable.)
#[rustfmt::skip]
macro_rules! for_each_tc {
    ($m:ident) => {
        $m! {
            (tc_bf16_rr_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_bf16_rc_s4 { kind: Bf16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_bf16_cr_s4 { kind: Bf16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_bf16_cc_s4 { kind: Bf16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_fp16_rr_s4 { kind: Fp16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_fp16_rc_s4 { kind: Fp16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_fp16_cr_s4 { kind: Fp16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_fp16_cc_s4 { kind: Fp16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32_rr_s3 { kind: Tf32, a_rows: true, b_rows: true, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32_rc_s3 { kind: Tf32, a_rows: true, b_rows: false, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32_cr_s3 { kind: Tf32, a_rows: false, b_rows: true, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32_cc_s3 { kind: Tf32, a_rows: false, b_rows: false, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32x3_rr_s3 { kind: Tf32x3, a_rows: true, b_rows: true, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32x3_rc_s3 { kind: Tf32x3, a_rows: true, b_rows: false, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32x3_cr_s3 { kind: Tf32x3, a_rows: false, b_rows: true, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_tf32x3_cc_s3 { kind: Tf32x3, a_rows: false, b_rows: false, stages: 3, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: true, order: CopiesFirst }),
            (tc_bf16_rr_s2 { kind: Bf16, a_rows: true, b_rows: true, stages: 2, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_rr_s2_lin { kind: Bf16, a_rows: true, b_rows: true, stages: 2, swizzle: false, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: false, library: false, order: CopiesFirst }),
            // Session 6: 64 x 64 warp tiles with fragment prefetch (docs/tensor-cores.md).
            (tc_bf16_rr_w64_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_rc_w64_s4 { kind: Bf16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_cr_w64_s4 { kind: Bf16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_cc_w64_s4 { kind: Bf16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_fp16_rr_w64_s4 { kind: Fp16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_fp16_rc_w64_s4 { kind: Fp16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_fp16_cr_w64_s4 { kind: Fp16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_fp16_cc_w64_s4 { kind: Fp16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_rr_w64_s4_np { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: false, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_rr_t256_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [256, 128, 32], warps: [4, 2], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            (tc_bf16_rr_t128w64_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 2], prefetch: true, lean: false, library: false, order: CopiesFirst }),
            // Session 7: the same loops with every copy and fragment address computed once per
            // thread (`lean`): interior tiles copy with no bounds arithmetic (docs/tensor-cores.md).
            (tc_bf16_rr_w64l_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rc_w64l_s4 { kind: Bf16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_cr_w64l_s4 { kind: Bf16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_cc_w64l_s4 { kind: Bf16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_rr_w64l_s4 { kind: Fp16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_rc_w64l_s4 { kind: Fp16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_cr_w64l_s4 { kind: Fp16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_cc_w64l_s4 { kind: Fp16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            // Session 20: the `lean` prefetching loop in CUTLASS's order (`order`, `TcOrder`).
            (tc_bf16_rr_w64i_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_bf16_rc_w64i_s4 { kind: Bf16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_bf16_cr_w64i_s4 { kind: Bf16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_bf16_cc_w64i_s4 { kind: Bf16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_fp16_rr_w64i_s4 { kind: Fp16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_fp16_rc_w64i_s4 { kind: Fp16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_fp16_cr_w64i_s4 { kind: Fp16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_fp16_cc_w64i_s4 { kind: Fp16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 4], prefetch: true, lean: true, library: false, order: Interleaved }),
            (tc_bf16_rr_t256l_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [256, 128, 32], warps: [4, 2], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rr_t128l_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 2], prefetch: true, lean: true, library: false, order: CopiesFirst }),
            // Session 8: lean addressing with 64 x 32 warp tiles under 128 registers, no prefetch:
            // 4 warps per scheduler (`_l`: 128 x 128, two blocks of 8 warps per SM; `_w32l`: 128 x 256,
            // one block of 16 warps), and 64-deep slices (`_k64_s3`).
            (tc_bf16_rr_l_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rr_w32l_s4 { kind: Bf16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rc_l_s4 { kind: Bf16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rc_w32l_s4 { kind: Bf16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_cr_l_s4 { kind: Bf16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_cr_w32l_s4 { kind: Bf16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_cc_l_s4 { kind: Bf16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_cc_w32l_s4 { kind: Bf16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_rr_l_s4 { kind: Fp16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_rr_w32l_s4 { kind: Fp16, a_rows: true, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_rc_l_s4 { kind: Fp16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_rc_w32l_s4 { kind: Fp16, a_rows: true, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_cr_l_s4 { kind: Fp16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_cr_w32l_s4 { kind: Fp16, a_rows: false, b_rows: true, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_cc_l_s4 { kind: Fp16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 128, 32], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_fp16_cc_w32l_s4 { kind: Fp16, a_rows: false, b_rows: false, stages: 4, swizzle: true, tile: [128, 256, 32], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rr_l_k64_s3 { kind: Bf16, a_rows: true, b_rows: true, stages: 3, swizzle: true, tile: [128, 128, 64], warps: [2, 4], prefetch: false, lean: true, library: false, order: CopiesFirst }),
            (tc_bf16_rr_w32l_k64_s3 { kind: Bf16, a_rows: true, b_rows: true, stages: 3, swizzle: true, tile: [128, 256, 64], warps: [2, 8], prefetch: false, lean: true, library: false, order: CopiesFirst }),
        }
    };
}

macro_rules! tc_table {
    ($(($name:ident { kind: $kind:ident, a_rows: $ar:tt, b_rows: $br:tt, stages: $st:tt,
        swizzle: $sw:tt, tile: [$bm:tt, $bn:tt, $bk:tt], warps: [$wm:tt, $wn:tt],
        prefetch: $pf:tt, lean: $ln:tt, library: $lib:tt, order: $ord:ident })),* $(,)?) => {
        /// Every tensor-core kernel.
        pub const TC: &[TcConfig] = &[$(TcConfig {
            name: stringify!($name), kind: TcKind::$kind, bm: $bm, bn: $bn, bk: $bk,
            warps: [$wm, $wn], stages: $st, a_rows: $ar, b_rows: $br, swizzle: $sw,
            prefetch: $pf, lean: $ln, library: $lib, order: TcOrder::$ord,
        }),*];
    };
}
for_each_tc!(tc_table);

/// One `mma.sync` ceiling microbenchmark (`peak.rs`, `host matmul N --precision P --kernel
/// peak`): `tc_mma_peak_*(out: *mut f32, iters: u32)`, each warp issuing `iters` x
/// [`MMA_PEAK_CHAINS`] independent instructions of `kind` on registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaPeak {
    pub name: &'static str,
    pub kind: TcKind,
}

impl MmaPeak {
    /// Floating-point operations of one instruction: `m16n8k16` (16-bit) 2·16·8·16, `m16n8k8`
    /// (TF32) half of that.
    pub const fn flops_per_mma(&self) -> u64 {
        match self.kind {
            TcKind::Bf16 | TcKind::Fp16 => 4096,
            TcKind::Tf32 | TcKind::Tf32x3 => 2048,
        }
    }
}

/// Every ceiling kernel (one per instruction; 3xTF32 issues TF32's).
pub const MMA_PEAK: &[MmaPeak] = &[
    MmaPeak {
        name: "tc_mma_peak_bf16",
        kind: TcKind::Bf16,
    },
    MmaPeak {
        name: "tc_mma_peak_fp16",
        kind: TcKind::Fp16,
    },
    MmaPeak {
        name: "tc_mma_peak_tf32",
        kind: TcKind::Tf32,
    },
];
/// Independent accumulators per warp in the ceiling kernels (latency cover), and their block.
pub const MMA_PEAK_CHAINS: u32 = 16;
pub const MMA_PEAK_THREADS: u32 = 256;

#[cfg(target_arch = "nvptx64")]
mod kernel;
#[cfg(target_arch = "nvptx64")]
mod mma;
#[cfg(target_arch = "nvptx64")]
mod peak;
#[cfg(target_arch = "nvptx64")]
mod tile;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_and_layout_has_one_library_kernel_that_fits() {
        for kind in [TcKind::Bf16, TcKind::Fp16, TcKind::Tf32, TcKind::Tf32x3] {
            for (ar, br) in [(true, true), (true, false), (false, true), (false, false)] {
                let lib: Vec<_> = TC
                    .iter()
                    .filter(|c| c.kind == kind && c.a_rows == ar && c.b_rows == br)
                    .filter(|c| c.library)
                    .collect();
                assert_eq!(lib.len(), 1, "{kind:?} {ar} {br}");
                assert!(lib[0].stages >= 3, "{}", lib[0].name);
            }
        }
        for c in TC {
            // Capped kernels of 8 warps run two blocks per SM, the others one (227 KB usable).
            let limit = match c.max_registers() {
                Some(r) if 2 * r * c.threads() <= 65536 => 113,
                _ => 227,
            };
            assert!(c.shared_bytes() <= limit * 1024, "{}", c.name);
            assert_eq!(
                c.swizzle,
                c.kind.element_bytes() == 2 && !c.name.ends_with("_lin")
            );
            let lay = format!(
                "_{}{}_",
                if c.a_rows { 'r' } else { 'c' },
                if c.b_rows { 'r' } else { 'c' }
            );
            assert!(c.name.contains(&lay), "{}", c.name);
            // What the kernels' loops cover: warp tiles 64 rows high, 32 or 64 wide; 16-bit
            // kinds alone take other shapes or prefetch; whole 16-byte copies per thread.
            assert_eq!(c.bm / c.warps[0], 64, "{}", c.name);
            assert!(matches!(c.warp_n(), 32 | 64), "{}", c.name);
            if c.kind.element_bytes() == 4 {
                assert!(c.warp_n() == 32 && c.bk == 32 && !c.prefetch, "{}", c.name);
            }
            // Lean kernels without prefetch have 64 x 32 warp tiles (under the 128 cap).
            assert!(!c.lean || c.prefetch || c.warp_n() == 32, "{}", c.name);
            let per = c.kind.elements_per_copy() * c.threads();
            assert!(
                c.bm * c.bk % per == 0 && c.bn * c.bk % per == 0,
                "{}",
                c.name
            );
            assert!(
                c.bm * c.bk / per <= 8 && c.bn * c.bk / per <= 8,
                "{}",
                c.name
            );
        }
    }
}
