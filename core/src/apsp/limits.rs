//! The largest graph each solver can hold, in one place: the solvers check their own limit
//! before they allocate, and `host apsp-gen` refuses a V that none of them can hold. Below
//! these limits memory decides (checked where the matrix is allocated: host memory for the
//! CPU, the free memory of the GPU, or of each GPU for several).

use anyhow::Result;
use gpu_kernels::apsp::offsets::block_row_fits;

use super::format::distance_pitch;

/// Block rows of the padded matrix a GPU solver launches at most: phase 3's grid has one row
/// of blocks per block row (per GPU for several), and a grid's y dimension is at most 65535.
pub const GPU_MAX_BLOCK_ROWS: usize = 65535;

/// Fails with one sentence ([`BadInput`](crate::BadInput)) when the GPU kernels of block factor
/// `block` cannot run on the padded matrix of `vertices` vertices: more block rows than a grid
/// has rows ([`GPU_MAX_BLOCK_ROWS`]), or a block row beyond the 32-bit offsets inside it
/// ([`block_row_fits`]; the offsets of the blocks themselves are 64-bit). Both lie far beyond
/// any GPU's memory (V = 1048560 at B = 16, a 4 TiB matrix): below them the GPU's free memory
/// decides.
pub fn ensure_gpu_addressable(vertices: usize, block: u32) -> Result<()> {
    let b = block as usize;
    let padded = vertices.div_ceil(b) * b;
    let (rows, pitch) = (padded / b, distance_pitch(padded));
    if rows > GPU_MAX_BLOCK_ROWS {
        return crate::bad_input(format!(
            "V = {vertices} is too large for the GPU kernels at block factor {block}: its \
             {rows} block rows exceed the {GPU_MAX_BLOCK_ROWS} rows of blocks a launch has"
        ));
    }
    if !block_row_fits(block, pitch as u64) {
        return crate::bad_input(format!(
            "V = {vertices} is too large for the GPU kernels at block factor {block}: one \
             block row of {block} x {pitch} cells exceeds the 2^32 cells their 32-bit \
             offsets inside a block row reach"
        ));
    }
    Ok(())
}

/// The largest V whose V x V int32 matrix the CPU solver can hold: one allocation is at most
/// `isize::MAX` bytes.
pub const CPU_MAX_VERTICES: usize = (isize::MAX as usize / size_of::<i32>()).isqrt();

/// The largest V that some solver of the project can hold: the CPU solver's, since the GPU
/// solvers' grids stop below it (a test below checks that for every block factor).
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
    use gpu_kernels::apsp::BLOCK_FACTORS;

    #[test]
    fn the_cpu_limit_is_the_largest_square_that_fits_one_allocation() {
        let bytes = |v: usize| (v as u128).pow(2) * 4;
        assert!(bytes(CPU_MAX_VERTICES) <= isize::MAX as u128);
        assert!(bytes(CPU_MAX_VERTICES + 1) > isize::MAX as u128);
        // The file format's int32 header can name a V beyond it.
        assert!(MAX_VERTICES < i32::MAX as usize);
    }

    /// Beyond `MAX_VERTICES` no GPU solver holds the graph either, at any block factor.
    #[test]
    fn no_gpu_solver_holds_more_than_the_cpu() {
        for b in BLOCK_FACTORS {
            assert!(
                ensure_gpu_addressable(MAX_VERTICES + 1, b).is_err(),
                "block factor {b}"
            );
        }
    }

    /// The GPU limit is the grid (the block rows' offsets would go further) and lies far beyond
    /// the 2^32 cells where the kernels once stopped: V = 70000 and 200000 pass at every block
    /// factor, and the first V past the grid is one sentence.
    #[test]
    fn the_gpu_limit_is_the_grid_far_beyond_2_32_cells() {
        for b in BLOCK_FACTORS {
            for v in [1, 65536, 70000, 200_000] {
                assert!(ensure_gpu_addressable(v, b).is_ok(), "V = {v}, B = {b}");
            }
            let largest = GPU_MAX_BLOCK_ROWS * b as usize;
            assert!(block_row_fits(b, distance_pitch(largest) as u64));
            assert!(ensure_gpu_addressable(largest, b).is_ok());
            let err = ensure_gpu_addressable(largest + 1, b).unwrap_err();
            assert!(err.is::<crate::BadInput>());
            let msg = err.to_string();
            assert!(
                msg.starts_with(&format!("V = {} is too large", largest + 1)),
                "{msg}"
            );
            assert!(
                msg.contains(&format!("{} block rows", GPU_MAX_BLOCK_ROWS + 1)),
                "{msg}"
            );
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
