//! Cell offsets into the distance matrix, the one place the Floyd–Warshall kernels compute them.
//! Compiled for the kernels and the host alike, so that host tests check the very arithmetic the
//! kernels run, at sizes no test machine could allocate.
//!
//! A padded matrix may exceed 2^32 cells (V = 70000 at B = 64: 70016 x 70016 = 4.9e9 cells), so
//! the offset of a block's top-left cell, and of a row, is 64-bit ([`block_origin`], [`cell`]):
//! one wide multiply per block a thread touches. Offsets inside one block row stay 32-bit
//! ([`in_block`]): the inner loops add them to the block's pointer, as cheap as before. That is
//! exact as long as one block row, `B x pitch` cells, is fewer than 2^32 cells
//! ([`block_row_fits`], checked by the host before it launches anything): at B = 64 a pitch up to
//! 67108832, a 16 PiB matrix, far beyond any GPU's memory, which is what limits V in practice.

/// The most cells one block row (`B x pitch`) may hold: offsets inside it are 32-bit.
pub const MAX_BLOCK_ROW_CELLS: u64 = u32::MAX as u64;

/// Whether the kernels of block factor `block` address a matrix of row pitch `pitch` (cells)
/// correctly: one block row must be at most [`MAX_BLOCK_ROW_CELLS`] cells, so that every
/// [`in_block`] offset fits in 32 bits (and `pitch` itself, a kernel argument, does).
pub const fn block_row_fits(block: u32, pitch: u64) -> bool {
    match (block as u64).checked_mul(pitch) {
        Some(cells) => cells <= MAX_BLOCK_ROW_CELLS,
        None => false,
    }
}

/// Offset (cells) of the top-left cell of block `(bi, bj)` of a matrix (or of one GPU's slice of
/// block rows) with row pitch `pitch` and block factor `block`: 64-bit, whatever the number of
/// block rows. Needs [`block_row_fits`]`(block, pitch)` and `bj * block < pitch`.
#[inline(always)]
pub const fn block_origin(block: u32, pitch: u32, bi: u32, bj: u32) -> usize {
    bi as usize * (block * pitch) as usize + (bj * block) as usize
}

/// Offset (cells) of cell `(i, j)` from the top-left cell of its block: 32-bit. Needs `i < B`
/// and `bj * B + j < pitch` for the block's `bj` (so the offset stays inside the block row,
/// below `B x pitch` ≤ 2^32 cells by [`block_row_fits`]).
#[inline(always)]
pub const fn in_block(pitch: u32, i: u32, j: u32) -> u32 {
    i * pitch + j
}

/// Offset (cells) of cell `(row, col)` of a matrix of row pitch `pitch`: 64-bit (the init
/// kernels, which address whole rows).
#[inline(always)]
pub const fn cell(pitch: u32, row: u32, col: u32) -> usize {
    row as usize * pitch as usize + col as usize
}

/// Top-left cell of block `(bi, bj)` of a matrix, or of one GPU's slice of block rows, of any
/// size (a 64-bit offset, [`block_origin`]); the cells of the block are then 32-bit offsets from
/// it ([`in_block`]).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) fn block_at<const B: u32>(d: *mut i32, pitch: u32, bi: u32, bj: u32) -> *mut u32 {
    // SAFETY: not checked here: every caller passes a block `(bi, bj)` of the matrix (or slice of
    // block rows) that `d` points to (its launch grid, and `round` < rounds), and
    // `block_origin` computes that block's first cell in 64 bits, so the result stays inside that
    // allocation whatever its size.
    unsafe { (d as *mut u32).add(block_origin(B, pitch, bi, bj)) }
}

#[cfg(test)]
mod tests;
