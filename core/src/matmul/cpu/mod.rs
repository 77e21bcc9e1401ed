//! The CPU SGEMM ladder: each step is `fn(a, b, c, m, n, k)` computing C = A·B (A is m x k,
//! B is k x n, C is m x n, all row-major) and overwriting C. Every step handles any shape.
//!
//! - `scalar`: the steps before SIMD (naive, loop order, cache blocking) and nalgebra.
//! - `packed`: the packed, register-blocked micro-kernel, on one thread or scheduled over several.
//! - `ladder`: timing every step against the f64 reference, or running one step once for a
//!   profiler.

mod ladder;
mod packed;
mod scalar;

use std::{fmt, str::FromStr};

pub use ladder::{
    LadderProgress, LadderRow, NAIVE_MAX_SIZE, OnceRow, WrongResult, plan, run_ladder, run_once,
};
pub use packed::{simd, simd_backend, threaded_rayon, threaded_static};
pub use scalar::{blocked, blocked16, blocked32, blocked64, naive_ijk, nalgebra_f32, reorder_ikj};

/// The signature every ladder step shares.
pub type MatmulFn = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

fn check_dims(a: &[f32], b: &[f32], c: &[f32], m: usize, n: usize, k: usize) {
    assert_eq!(a.len(), m * k, "A is not {m} x {k}");
    assert_eq!(b.len(), k * n, "B is not {k} x {n}");
    assert_eq!(c.len(), m * n, "C is not {m} x {n}");
}

/// One ladder step. Its name ([`Variant::name`]) is what the CLI, the JSON records and the docs
/// call it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    NaiveIjk,
    ReorderIkj,
    Blocked16,
    Blocked32,
    Blocked64,
    SimdAvx2,
    /// The packed kernel over threads, each given one contiguous range of row blocks up front.
    ThreadedStatic,
    /// The packed kernel over rayon's pool: row blocks are stolen by whichever thread is idle.
    ThreadedRayon,
    Nalgebra,
}

impl Variant {
    /// The whole ladder, in order.
    pub const ALL: [Variant; 9] = [
        Variant::NaiveIjk,
        Variant::ReorderIkj,
        Variant::Blocked16,
        Variant::Blocked32,
        Variant::Blocked64,
        Variant::SimdAvx2,
        Variant::ThreadedStatic,
        Variant::ThreadedRayon,
        Variant::Nalgebra,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::NaiveIjk => "naive_ijk",
            Variant::ReorderIkj => "reorder_ikj",
            Variant::Blocked16 => "blocked16",
            Variant::Blocked32 => "blocked32",
            Variant::Blocked64 => "blocked64",
            Variant::SimdAvx2 => "simd_avx2",
            Variant::ThreadedStatic => "threaded_static",
            Variant::ThreadedRayon => "threaded_rayon",
            Variant::Nalgebra => "nalgebra",
        }
    }

    pub fn run(self) -> MatmulFn {
        match self {
            Variant::NaiveIjk => naive_ijk,
            Variant::ReorderIkj => reorder_ikj,
            Variant::Blocked16 => blocked16,
            Variant::Blocked32 => blocked32,
            Variant::Blocked64 => blocked64,
            Variant::SimdAvx2 => simd,
            Variant::ThreadedStatic => threaded_static,
            Variant::ThreadedRayon => threaded_rayon,
            Variant::Nalgebra => nalgebra_f32,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A name that is not one of [`Variant::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        write!(
            f,
            "unknown CPU matmul variant `{}` (expected one of: {})",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for v in Variant::ALL {
            assert_eq!(v.name().parse::<Variant>(), Ok(v));
            assert_eq!(v.to_string(), v.name());
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{v}\""));
        }
        let mut names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Variant::ALL.len());
    }

    #[test]
    fn unknown_name_is_one_sentence_naming_it() {
        for bad in ["threaded", "Naive_IJK", "", "blocked8"] {
            let err = bad.parse::<Variant>().unwrap_err();
            let msg = err.to_string();
            assert!(msg.contains(&format!("`{bad}`")), "{msg}");
            assert!(
                !msg.contains('\n') && msg.matches(". ").count() == 0,
                "{msg}"
            );
            // It lists what would have been accepted.
            for v in Variant::ALL {
                assert!(msg.contains(v.name()), "{msg} lacks {v}");
            }
        }
    }
}
