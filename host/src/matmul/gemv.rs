//! The matrix–vector kernels' host half (`sgemv_strips_u*`, M = 1, `SkinnyKind::VecMat`): their
//! per-strip counters and the fixed split count of timing runs. `skinny::SkinnyLaunch` launches
//! them (one launch: the kernel sums its K splits itself, the last block of a strip adding them
//! in split order).
use std::{cell::RefCell, rc::Rc};

use anyhow::{Context as _, Result};
use cust::memory::DeviceBuffer;
use gpu_kernels::matmul::skinny::{KSplit, MAX_SPLITS, SKINNY_GEMV, SkinnyConfig};

use crate::gpu::Gpu;

/// The matrix–vector kernel the library runs for M = 1: 4 rows per warp step (44 registers, 5
/// blocks of 256 threads per SM) rather than 8 (64 registers, 4 blocks): H200, session 10 call 1,
/// three processes, % of cuBLAS u4 / u8: 1 x 4096 x 4096 107–113 / 112–114, 1 x 6000 x 3000
/// 112–118 / 98–105, 1 x 3000 x 5000 108–116 / 116–120, 1 x 8192 x 8192 105–108 / 95–97 (its 576
/// blocks are one wave only at 5 per SM), 1 x 2048 x 2048 119–133 / 123–133.
pub const LIBRARY_KERNEL: &str = "sgemv_strips_u4";

/// [`LIBRARY_KERNEL`]'s configuration.
pub fn library_kernel() -> &'static SkinnyConfig {
    SKINNY_GEMV
        .iter()
        .find(|c| c.name == LIBRARY_KERNEL)
        .unwrap_or(&SKINNY_GEMV[0])
}

/// The counters of a GPU's matrix–vector launches, shared by them: every launch leaves each
/// counter it used at zero, and they run on the GPU's stream only, in order.
type CounterCell = RefCell<Option<Rc<DeviceBuffer<u32>>>>;

/// At least `words` zeroed counters for a matrix–vector launch (one per strip of C), reusing the
/// GPU's when large enough.
pub(super) fn counters(gpu: &Gpu, words: usize) -> Result<Rc<DeviceBuffer<u32>>> {
    let cell = gpu.runner_state::<CounterCell>();
    let mut cell = cell.borrow_mut();
    if let Some(c) = cell.as_ref()
        && c.len() >= words
    {
        return Ok(c.clone());
    }
    let old = cell.as_ref().map_or(0, |c| c.len());
    let buf = DeviceBuffer::zeroed(words.max(old).max(1))
        .context("allocating the matrix-vector counters")?;
    // The zeroing must be done before a kernel counts on it.
    cust::context::CurrentContext::synchronize().context("zeroing the matrix-vector counters")?;
    let c = Rc::new(buf);
    *cell = Some(c.clone());
    Ok(c)
}

/// The K split of `cfg` at depth `k` into about `want` ranges (clamped to 1..=`MAX_SPLITS`):
/// the chunk rounded up to whole granules and the count recomputed, so that no split is empty.
pub(super) fn fixed_splits(cfg: &SkinnyConfig, k: u32, want: u32) -> KSplit {
    let g = cfg.k_granule();
    let s = want.clamp(1, MAX_SPLITS).min(k.div_ceil(g));
    let chunk = k.div_ceil(s).div_ceil(g) * g;
    KSplit {
        splits: k.div_ceil(chunk),
        k_chunk: chunk,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_library_kernel_exists() {
        assert_eq!(library_kernel().name, LIBRARY_KERNEL);
    }

    #[test]
    fn fixed_splits_cover_k_with_no_empty_split() {
        for k in [1, 63, 64, 65, 777, 4096, 5000, 8192] {
            for want in [1, 2, 7, 16, 32, 100] {
                let s = fixed_splits(&SKINNY_GEMV[0], k, want);
                assert!(s.splits >= 1 && s.splits <= want.min(MAX_SPLITS), "{s:?}");
                assert!(s.k_chunk * s.splits >= k, "{s:?} k {k}");
                assert!(s.k_chunk * (s.splits - 1) < k, "{s:?} k {k}: empty split");
            }
        }
        assert_eq!(fixed_splits(&SKINNY_GEMV[0], 4096, 32).splits, 32);
    }
}
