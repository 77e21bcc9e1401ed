//! Which class of shape a problem is ([`ShapeKind`]: matrix–vector, tiny or thin N or M, deep
//! K, general) and which kind of kernel runs it ([`Choice`]). A leaf, CUDA-free: `select`
//! routes each class and `host matmul` prints it.
use std::fmt;

use gpu_kernels::matmul::{FlagshipConfig, skinny::SkinnyConfig};

/// N or M at most this is tiny: the skinny kernels' widest group (`sgemm_rows_n16`,
/// `sgemm_cols_m16`), where a 64-row or 128-column tile would be mostly padding and the product
/// is bound by reading the large operand.
pub const TINY: usize = 16;
/// M or N at most this (and above [`TINY`]) is thin: one tile wide, so few tiles.
pub const THIN: usize = 128;
/// K at least this many times the larger of M and N is deep: the output has few tiles for the
/// work, which only a split of K spreads over the GPU.
pub const DEEP_FACTOR: usize = 4;

/// The class of an `m x n x k` problem, in the order [`ShapeKind::of`] tests them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShapeKind {
    /// N = 1: y = A·x (M = N = 1 included).
    MatVec,
    /// M = 1: y = xᵀ·B.
    VecMat,
    /// N ≤ 16, N ≤ M.
    TinyN,
    /// M ≤ 16.
    TinyM,
    /// M or N ≤ 128.
    Thin,
    /// K ≥ 4·max(M, N).
    DeepK,
    /// Anything else.
    General,
}

impl ShapeKind {
    pub const ALL: [ShapeKind; 7] = [
        ShapeKind::MatVec,
        ShapeKind::VecMat,
        ShapeKind::TinyN,
        ShapeKind::TinyM,
        ShapeKind::Thin,
        ShapeKind::DeepK,
        ShapeKind::General,
    ];

    /// The class of an `m x n x k` problem.
    pub fn of(m: usize, n: usize, k: usize) -> ShapeKind {
        if n == 1 {
            ShapeKind::MatVec
        } else if m == 1 {
            ShapeKind::VecMat
        } else if n <= TINY && n <= m {
            ShapeKind::TinyN
        } else if m <= TINY {
            ShapeKind::TinyM
        } else if m.min(n) <= THIN {
            ShapeKind::Thin
        } else if k >= DEEP_FACTOR.saturating_mul(m.max(n)) {
            ShapeKind::DeepK
        } else {
            ShapeKind::General
        }
    }

    /// The name `host matmul` prints and JSON records carry.
    pub const fn name(self) -> &'static str {
        match self {
            ShapeKind::MatVec => "matrix-vector",
            ShapeKind::VecMat => "vector-matrix",
            ShapeKind::TinyN => "tiny-n",
            ShapeKind::TinyM => "tiny-m",
            ShapeKind::Thin => "thin",
            ShapeKind::DeepK => "deep-k",
            ShapeKind::General => "general",
        }
    }
}

impl fmt::Display for ShapeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kernel a problem runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A flagship tile kernel (data-parallel or stream-K, `stream_k::plan_balanced`).
    Flagship(&'static FlagshipConfig),
    /// A skinny kernel (small N or M, `matmul/skinny.rs`), K split as `skinny::splits` says.
    Skinny(&'static SkinnyConfig),
}

impl Choice {
    pub const fn name(&self) -> &'static str {
        match self {
            Choice::Flagship(c) => c.name,
            Choice::Skinny(c) => c.name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_fall_in_their_classes() {
        use ShapeKind::*;
        for (m, n, k, want) in [
            (8192, 1, 8192, MatVec),
            (1, 1, 1, MatVec),
            (1, 1, 16384, MatVec),
            (1, 8192, 8192, VecMat),
            (1, 2, 3, VecMat),
            (5000, 7, 5000, TinyN),
            (4096, 16, 4096, TinyN),
            (16, 16, 16, TinyN),
            (7, 5000, 5000, TinyM),
            (16, 4096, 4096, TinyM),
            (12288, 128, 12288, Thin),
            (128, 12288, 12288, Thin),
            (17, 33, 5, Thin),
            (4097, 17, 4097, Thin),
            (256, 256, 16384, DeepK),
            (1024, 1024, 16384, DeepK),
            (4096, 4096, 4096, General),
            (1000, 777, 129, General),
            (16384, 16384, 16384, General),
        ] {
            assert_eq!(ShapeKind::of(m, n, k), want, "{m}x{n}x{k}");
        }
        let names: Vec<_> = ShapeKind::ALL.iter().map(|s| s.to_string()).collect();
        assert!(
            names
                .iter()
                .enumerate()
                .all(|(i, a)| !names[i + 1..].contains(a))
        );
    }
}
