//! The largest graph each solver can hold, in one place: the solvers check their own limit
//! before they allocate, and `host apsp-gen` refuses a V that none of them can hold. Below
//! these limits memory decides (checked where the matrix is allocated, on the host or the GPU).

use anyhow::Result;

/// Cells one GPU kernel launch can address: the one-GPU Floyd–Warshall kernels compute cell
/// offsets of the whole padded matrix in 32 bits, the multi-GPU kernels those of one block row.
pub const GPU_MAX_CELLS: u64 = u32::MAX as u64;

/// The largest V whose V x V int32 matrix the CPU solver can hold: one allocation is at most
/// `isize::MAX` bytes.
pub const CPU_MAX_VERTICES: usize = (isize::MAX as usize / size_of::<i32>()).isqrt();

/// The largest V that some solver of the project can hold: the CPU solver's, since the GPU
/// solvers' 32-bit offsets stop below it (a test below checks that for every block factor).
pub const MAX_VERTICES: usize = CPU_MAX_VERTICES;

/// Fails with one sentence ([`BadInput`](crate::BadInput)) when no solver of the project can
/// hold a graph of `vertices` vertices.
pub fn ensure_some_solver_holds(vertices: usize) -> Result<()> {
    if vertices <= MAX_VERTICES {
        return Ok(());
    }
    crate::bad_input(format!(
        "V = {vertices} is more than any solver of this project can hold: the largest is \
         V = {MAX_VERTICES}, where the CPU solver's V x V int32 matrix fills the largest \
         allocation there can be (the GPU solvers stop earlier)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apsp::format::distance_pitch;
    use gpu_kernels::apsp::BLOCK_FACTORS;

    #[test]
    fn the_cpu_limit_is_the_largest_square_that_fits_one_allocation() {
        let bytes = |v: usize| (v as u128).pow(2) * 4;
        assert!(bytes(CPU_MAX_VERTICES) <= isize::MAX as u128);
        assert!(bytes(CPU_MAX_VERTICES + 1) > isize::MAX as u128);
        // The file format's int32 header can name a V beyond it.
        assert!(MAX_VERTICES < i32::MAX as usize);
    }

    /// Beyond `MAX_VERTICES` even one block row of the padded matrix exceeds what a GPU kernel
    /// addresses, at every block factor: no GPU solver holds what the CPU solver cannot.
    #[test]
    fn no_gpu_solver_holds_more_than_the_cpu() {
        let v = MAX_VERTICES + 1;
        for b in BLOCK_FACTORS.map(|b| b as usize) {
            let pitch = distance_pitch(v.div_ceil(b) * b) as u64;
            assert!(b as u64 * pitch > GPU_MAX_CELLS, "block factor {b}");
        }
    }

    #[test]
    fn a_v_no_solver_holds_is_one_sentence_with_the_limit() {
        assert!(ensure_some_solver_holds(1).is_ok());
        assert!(ensure_some_solver_holds(MAX_VERTICES).is_ok());
        let err = ensure_some_solver_holds(2_000_000_000).unwrap_err();
        assert!(err.is::<crate::BadInput>());
        let msg = err.to_string();
        assert!(
            msg.starts_with("V = 2000000000 ") && msg.contains(&format!("V = {MAX_VERTICES},")),
            "{msg}"
        );
    }
}
