//! The BLAS-interface variants of the flagship SGEMM (issue #20), host-visible half: row-major
//! `C = alpha·op(A)·op(B) + beta·C` with `op` ∈ {N, T} and strided batches. Their argument
//! struct, config type and kernel list; the kernels are in `flagship_ops.rs`.
//!
//! Why a second kernel list beside `for_each_flagship!`: the N,N kernels there equal cuBLAS
//! after their register allocation was tuned by the exact shape of their code
//! (docs/stream-k.md); the variants here load differently (and offset by the batch), so they
//! are their own kernels and leave that code, and its PTX, byte for byte as it was.
use super::SgemmParams;

/// One operand's operation: `N` uses the matrix as stored, `T` its transpose (BLAS `transa` /
/// `transb`). Row-major storage: with `T`, `op(A)` (`m x k`) is stored as a `k x m` matrix whose
/// rows are `lda` floats apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Op {
    #[default]
    N,
    T,
}

impl Op {
    pub const ALL: [Op; 2] = [Op::N, Op::T];

    /// The letter BLAS uses (`"N"`, `"T"`), in kernel names (lower case), the CLI and JSON.
    pub const fn letter(self) -> char {
        match self {
            Op::N => 'N',
            Op::T => 'T',
        }
    }

    pub const fn is_t(self) -> bool {
        matches!(self, Op::T)
    }
}

/// The variants' only argument, passed by value: the flagship's parameters for one problem of
/// the batch (`g.a`, `g.b`, `g.c` point at problem 0; `g.lda`/`g.ldb` are the stored rows'
/// pitches, so `lda >= m` for `op(A) = T`), and the distance in floats from one problem's
/// operand to the next. Problem `blockIdx.y` of the launch is computed; `gridDim.y` is the batch.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SgemmOpsParams {
    pub g: SgemmParams,
    pub stride_a: u64,
    pub stride_b: u64,
    pub stride_c: u64,
}

/// One variant: a flagship tile (as [`super::FlagshipConfig`]) with operations `ops`. `vec`:
/// the operands copied row by row without transposing (A with `op(A) = T`, B with `op(B) = N`)
/// go in 16-byte pieces, which needs their leading dimensions and batch strides multiples of 4
/// and their buffers 16-byte aligned; the transposed copies are 4-byte ones in every variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlagshipOpsConfig {
    pub name: &'static str,
    pub ops: [Op; 2],
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub warps: [u32; 2],
    pub thread_tile: [u32; 2],
    pub stages: u32,
    pub vec: bool,
    /// With `vec` false: A stored `k x m` (`op(A) = T`, copied straight) still goes in
    /// 16-byte pieces, B in 4-byte ones (the `_ub_fl` kernels: B's rows unaligned, A's not).
    pub vec_a: bool,
    /// The tuned N,N flagship's body (`flagship.rs`, `FLAGSHIP_BATCHED`) with a batch index,
    /// not a variant of `flagship_ops.rs`: N,N only, B in 16-byte pieces (`vec`).
    pub tuned: bool,
}

impl FlagshipOpsConfig {
    pub const fn threads(&self) -> u32 {
        32 * self.warps[0] * self.warps[1]
    }
    /// Row pitch of the shared B slice: `bn + 4` when B is stored transposed into it (4-byte
    /// writes of 8 k-rows then hit 32 distinct banks), else `bn`.
    pub const fn b_pitch(&self) -> u32 {
        if self.ops[1].is_t() {
            self.bn + 4
        } else {
            self.bn
        }
    }
    /// Dynamic shared memory per block: per stage the A slice (`bk` rows of `bm + 4`) and the
    /// B slice (`bk` rows of [`Self::b_pitch`]), then one word per thread (the stream-K stash).
    pub const fn shared_bytes(&self) -> u32 {
        self.stages * 4 * self.bk * (self.bm + 4 + self.b_pitch()) + 4 * self.threads()
    }
    pub const fn tiles(&self, m: u32, n: u32) -> u32 {
        m.div_ceil(self.bm) * n.div_ceil(self.bn)
    }
    pub const fn ktiles(&self, k: u32) -> u32 {
        k.div_ceil(self.bk)
    }
}

/// Invokes `$m!` with every variant: the fields of [`FlagshipOpsConfig`] and the literals the
/// kernel unrolls with (`thread_tile` = `groups` of 4x4; `a_copies`, `b_copies` per thread per
/// k-slice: a transposed copy of an operand of `R` rows (`bm` for A, `bn` for B) takes
/// `R/4 · bk/8 / warps`, a straight one `bk · R/w / threads` with `w` = 4 (vec) or 1). Checked
/// against the fields at compile time. Every tile of the N,N default choice
/// (`choose_kernel`) in each operation pair; N,T has no straight copy, so only `_u`.
macro_rules! for_each_flagship_ops {
    ($m:ident) => {
        $m! {
            (sgemm_nn_128x256x8_s4_8x16 { ops: N x N, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 2 }),
            (sgemm_nn_128x256x8_s4_8x16_u { ops: N x N, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: false, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 8 }),
            (sgemm_tn_128x256x8_s4_8x16 { ops: T x N, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 1, b_copies: 2 }),
            (sgemm_tn_128x256x8_s4_8x16_u { ops: T x N, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: false, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 8 }),
            (sgemm_nt_128x256x8_s4_8x16_u { ops: N x T, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: false, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 8 }),
            (sgemm_tt_128x256x8_s4_8x16 { ops: T x T, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: true, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 1, b_copies: 8 }),
            (sgemm_tt_128x256x8_s4_8x16_u { ops: T x T, tile: 128 x 256 x 8, warps: 2 x 4, lanes: 8 x 4,
                stages: 4, vec: false, thread_tile: 8 x 16, groups: 2 x 4, a_copies: 4, b_copies: 8 }),

            (sgemm_nn_128x128x8_s4_16x8 { ops: N x N, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 2 }),
            (sgemm_nn_128x128x8_s4_16x8_u { ops: N x N, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 8 }),
            (sgemm_tn_128x128x8_s4_16x8 { ops: T x N, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 2, b_copies: 2 }),
            (sgemm_tn_128x128x8_s4_16x8_u { ops: T x N, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 8 }),
            (sgemm_nt_128x128x8_s4_16x8_u { ops: N x T, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 8 }),
            (sgemm_tt_128x128x8_s4_16x8 { ops: T x T, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: true, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 2, b_copies: 8 }),
            (sgemm_tt_128x128x8_s4_16x8_u { ops: T x T, tile: 128 x 128 x 8, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 16 x 8, groups: 4 x 2, a_copies: 8, b_copies: 8 }),

            (sgemm_nn_64x128x16_s3_8x8 { ops: N x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 4 }),
            (sgemm_nn_64x128x16_s3_8x8_u { ops: N x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16 }),
            (sgemm_tn_64x128x16_s3_8x8 { ops: T x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 2, b_copies: 4 }),
            (sgemm_tn_64x128x16_s3_8x8_u { ops: T x N, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16 }),
            (sgemm_nt_64x128x16_s3_8x8_u { ops: N x T, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16 }),
            (sgemm_tt_64x128x16_s3_8x8 { ops: T x T, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: true, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 2, b_copies: 16 }),
            (sgemm_tt_64x128x16_s3_8x8_u { ops: T x T, tile: 64 x 128 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 3, vec: false, thread_tile: 8 x 8, groups: 2 x 2, a_copies: 8, b_copies: 16 }),

            (sgemm_nn_64x64x16_s4_8x4 { ops: N x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 2 }),
            (sgemm_nn_64x64x16_s4_8x4_u { ops: N x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8 }),
            (sgemm_tn_64x64x16_s4_8x4 { ops: T x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 2, b_copies: 2 }),
            (sgemm_tn_64x64x16_s4_8x4_u { ops: T x N, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8 }),
            (sgemm_nt_64x64x16_s4_8x4_u { ops: N x T, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8 }),
            (sgemm_tt_64x64x16_s4_8x4 { ops: T x T, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: true, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 2, b_copies: 8 }),
            (sgemm_tt_64x64x16_s4_8x4_u { ops: T x T, tile: 64 x 64 x 16, warps: 2 x 2, lanes: 4 x 8,
                stages: 4, vec: false, thread_tile: 8 x 4, groups: 2 x 1, a_copies: 8, b_copies: 8 }),
        }
    };
}

/// [`for_each_flagship_ops!`] into [`FLAGSHIP_OPS`].
macro_rules! flagship_ops_table {
    ($(($name:ident { ops: $oa:ident x $ob:ident, tile: $bm:tt x $bn:tt x $bk:tt,
        warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt, stages: $st:tt, vec: $vec:tt,
        thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt, a_copies: $al:tt,
        b_copies: $bl:tt })),* $(,)?) => {
        /// Every variant of the flagship for transposed operands and batches.
        pub const FLAGSHIP_OPS: &[FlagshipOpsConfig] = &[$(FlagshipOpsConfig {
            name: stringify!($name), ops: [Op::$oa, Op::$ob], bm: $bm, bn: $bn, bk: $bk,
            warps: [$wm, $wn], thread_tile: [$rm, $rn], stages: $st, vec: $vec, vec_a: false, tuned: false,
        }),*];
    };
}
for_each_flagship_ops!(flagship_ops_table);

/// [`for_each_flagship_batched!`] into [`FLAGSHIP_BATCHED`].
macro_rules! flagship_batched_table {
    ($(($name:ident { ops: $oa:ident x $ob:ident, tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
        stages: $st:tt, vec_b: $vec:tt, thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt,
        a_copies: $al:tt, b_copies: $bl:tt, ffma_order: $ord:ident })),* $(,)?) => {
        /// The tuned flagship's body with a batch index (`blockIdx.y`) in every operation
        /// pair, launched as the variants are (same parameters, grid and shared memory): for
        /// batches with the straight-copied operands aligned, and split-K.
        pub const FLAGSHIP_BATCHED: &[FlagshipOpsConfig] = &[$(FlagshipOpsConfig {
            name: stringify!($name), ops: [Op::$oa, Op::$ob], bm: $bm, bn: $bn, bk: $bk,
            warps: [$wm, $wn], thread_tile: [$rm, $rn], stages: $st, vec: $vec, vec_a: false, tuned: true,
        }),*];
    };
}
for_each_flagship_batched!(flagship_batched_table);

/// [`for_each_flagship_t_u!`] into [`FLAGSHIP_T_U`].
macro_rules! flagship_t_u_table {
    ($(($name:ident { ops: $oa:ident x $ob:ident, tile: $bm:tt x $bn:tt x $bk:tt, warps: $wm:tt x $wn:tt, lanes: $ly:tt x $lx:tt,
        stages: $st:tt, vec_b: $vec:tt, thread_tile: $rm:tt x $rn:tt, groups: $ga:tt x $gb:tt,
        a_copies: $al:tt, b_copies: $bl:tt, ffma_order: $ord:ident $(, vec_a: $va:tt)? })),* $(,)?) => {
        /// The tuned flagship's T,N body with 4-byte copies of both straight-copied operands
        /// (one problem, or a batch, whose A or B rows are not 16-byte aligned), or of B alone
        /// (`vec_a`: A's rows aligned, B's not).
        pub const FLAGSHIP_T_U: &[FlagshipOpsConfig] = &[$(FlagshipOpsConfig {
            name: stringify!($name), ops: [Op::$oa, Op::$ob], bm: $bm, bn: $bn, bk: $bk,
            warps: [$wm, $wn], thread_tile: [$rm, $rn], stages: $st, vec: $vec,
            vec_a: false $(|| $va)?, tuned: true,
        }),*];
    };
}
for_each_flagship_t_u!(flagship_t_u_table);

#[cfg(test)]
mod tests {
    use super::super::FLAGSHIP;
    use super::*;

    #[test]
    fn names_say_the_operations_the_tile_and_the_copies() {
        for c in FLAGSHIP_OPS {
            let ops: String = c
                .ops
                .iter()
                .map(|o| o.letter().to_ascii_lowercase())
                .collect();
            let tile = format!("_{}x{}x{}_s{}_", c.bm, c.bn, c.bk, c.stages);
            assert!(c.name.starts_with(&format!("sgemm_{ops}_")), "{}", c.name);
            assert!(c.name.contains(&tile), "{}", c.name);
            assert_eq!(c.name.ends_with("_u"), !c.vec, "{}", c.name);
            // N,T copies nothing straight: no 16-byte variant.
            assert!(!(c.vec && c.ops == [Op::N, Op::T]), "{}", c.name);
            assert!(c.shared_bytes() <= 227 * 1024, "{}", c.name);
        }
        for c in FLAGSHIP_BATCHED {
            let ops: String = c
                .ops
                .iter()
                .map(|o| o.letter().to_ascii_lowercase())
                .collect();
            let flagship = FLAGSHIP
                .iter()
                .find(|f| c.name == format!("sgemm_{ops}_{}_fl", &f.name[6..]))
                .unwrap_or_else(|| panic!("{}: no flagship kernel of that tile", c.name));
            assert!(c.tuned && c.vec && flagship.vec_b);
            assert_eq!(
                (c.bm, c.bn, c.bk, c.stages),
                (flagship.bm, flagship.bn, flagship.bk, flagship.stages)
            );
            // The B slice's pitch is the only difference in shared memory.
            let b_pad = if c.ops[1].is_t() {
                16 * c.bk * c.stages
            } else {
                0
            };
            assert_eq!(
                (c.threads(), c.shared_bytes()),
                (flagship.threads(), flagship.shared_bytes() + b_pad)
            );
            // Each tile in every operation pair.
            for o in [
                [Op::N, Op::N],
                [Op::T, Op::N],
                [Op::N, Op::T],
                [Op::T, Op::T],
            ] {
                let same = |d: &&FlagshipOpsConfig| d.ops == o && d.bm == c.bm && d.bn == c.bn;
                assert_eq!(
                    FLAGSHIP_BATCHED.iter().filter(same).count(),
                    1,
                    "{}",
                    c.name
                );
            }
        }
        assert!(FLAGSHIP_OPS.iter().all(|c| !c.tuned));
        // Every operation pair has every tile, in both copy widths where there are two.
        for ops in [
            [Op::N, Op::N],
            [Op::T, Op::N],
            [Op::N, Op::T],
            [Op::T, Op::T],
        ] {
            let n = FLAGSHIP_OPS.iter().filter(|c| c.ops == ops).count();
            assert_eq!(n, if ops == [Op::N, Op::T] { 4 } else { 8 }, "{ops:?}");
        }
    }
}
