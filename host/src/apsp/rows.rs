//! The seam between computing distances and writing them: a solved matrix that still lives on
//! one GPU or several, copied out a block of rows at a time. The file writer streams through
//! bounded buffers with it instead of holding the whole V x V result in host memory, and the
//! single-GPU and multi-GPU solvers both provide it.
use anyhow::Result;

/// A solved V x V distance matrix, readable by rows.
pub trait DeviceRows {
    /// Vertices: rows and columns of the result (padding excluded).
    fn vertices(&self) -> usize;

    /// Copies `dst.len() / V` whole rows starting at row `first` into `dst`, row-major with V
    /// columns per row (the device's padding dropped). `dst.len()` is a multiple of V and the
    /// rows lie inside `0..V`. Blocking: the rows are in `dst` when it returns. `dst` may be
    /// pinned host memory, which is what makes the copy run at full PCIe speed.
    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()>;
}
