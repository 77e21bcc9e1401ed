//! TMA tensor maps (`CUtensorMap`, 128 bytes) for the Hopper GEMM's operands, made by the
//! driver's `cuTensorMapEncodeTiled` (resolved from libcuda by the lazy loader, like every
//! driver entry point). Kept free of launches, so that the encoding parameters can be checked
//! without a GPU.
use anyhow::Result;
use cust_raw::driver_sys::{
    self, CUtensorMap, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use gpu_kernels::sm90::{BK, BM, BMajor, BN, EPI_BOX_COLS, EPI_BOX_ROWS, Sm90Input};

use crate::gpu::check_driver;

/// A 2-D tiled view of a row-major matrix: `rows x cols` elements (cols innermost), rows `ld`
/// elements apart, read in boxes of `box_cols x box_rows`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tiled {
    pub rows: u64,
    pub cols: u64,
    pub ld: u64,
    pub box_cols: u32,
    pub box_rows: u32,
}

/// A's view: `m x k`, boxes of `BK` k by `BM` rows (one slice of a block's tile).
pub(crate) fn a_view(m: usize, k: usize, lda: usize) -> Tiled {
    Tiled {
        rows: m as u64,
        cols: k as u64,
        ld: lda as u64,
        box_cols: BK,
        box_rows: BM,
    }
}

/// B's view: `k x n` (n innermost) in boxes of 64 columns by `BK` rows, four per slice; or its
/// transpose `n x k` in boxes of `BK` by `BN / cluster` rows (a pair's blocks load half each).
pub(crate) fn b_view(k: usize, n: usize, ldb: usize, major: BMajor, cluster: u32) -> Tiled {
    match major {
        BMajor::N => Tiled {
            rows: k as u64,
            cols: n as u64,
            ld: ldb as u64,
            box_cols: 64,
            box_rows: BK,
        },
        BMajor::K => Tiled {
            rows: n as u64,
            cols: k as u64,
            ld: ldb as u64,
            box_cols: BK,
            box_rows: BN / cluster,
        },
    }
}

/// C's view for the epilogue's TMA stores: `m x n` f32, boxes of `EPI_BOX_COLS` (128 bytes)
/// by `EPI_BOX_ROWS` rows.
fn c_view(m: usize, n: usize, ldc: usize) -> Tiled {
    Tiled {
        rows: m as u64,
        cols: n as u64,
        ld: ldc as u64,
        box_cols: EPI_BOX_COLS,
        box_rows: EPI_BOX_ROWS,
    }
}

/// The tensor map through which the epilogue stores C (`m x n` f32, rows `ldc` apart, at
/// `ptr`; [`c_view`]), or `None` where C cannot take TMA stores: `beta` not 0 (a TMA store
/// cannot read C), or its start or rows not 16-byte aligned as TMA needs.
pub(crate) fn c_map(
    ptr: u64,
    m: usize,
    n: usize,
    ldc: usize,
    beta: f32,
) -> Result<Option<CUtensorMap>> {
    if beta != 0.0 || !ptr.is_multiple_of(16) || !(ldc * 4).is_multiple_of(16) {
        return Ok(None);
    }
    let dtype = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    encode_typed(c_view(m, n, ldc), dtype, 4, ptr).map(Some)
}

fn data_type(input: Sm90Input) -> CUtensorMapDataType {
    match input {
        Sm90Input::Bf16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        Sm90Input::Fp16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
    }
}

/// The tensor map of `view` over the device memory at `ptr`, with the 128-byte swizzle the
/// kernel's wgmma descriptors expect and zero fill outside the matrix.
///
/// The caller has checked what the driver requires: `ptr` 16-byte aligned, `ld * 2` a multiple
/// of 16, every dimension at least 1 (the driver refuses anything else with an error, not UB).
pub(crate) fn encode(view: Tiled, input: Sm90Input, ptr: u64) -> Result<CUtensorMap> {
    encode_typed(view, data_type(input), input.bytes(), ptr)
}

/// [`encode`] for elements of `dtype`, `bytes` each (the f32 kernels' maps).
pub(crate) fn encode_typed(
    view: Tiled,
    dtype: CUtensorMapDataType,
    bytes: u32,
    ptr: u64,
) -> Result<CUtensorMap> {
    let mut map = CUtensorMap { opaque: [0; 16] };
    let dims = [view.cols, view.rows];
    let strides = [view.ld * u64::from(bytes)];
    let boxes = [view.box_cols, view.box_rows];
    let element_strides = [1u32, 1];
    // SAFETY: `map` is a writable 128-byte CUtensorMap; the arrays have `rank` (2) entries
    // (strides `rank - 1`) and live across the call; the driver only records `ptr`.
    let status = unsafe {
        driver_sys::cuTensorMapEncodeTiled(
            &mut map,
            dtype,
            2,
            ptr as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    check_driver(status, "cuTensorMapEncodeTiled")?;
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_are_one_swizzle_row_wide_and_fill_a_slice() {
        for input in [Sm90Input::Bf16, Sm90Input::Fp16] {
            let a = a_view(1000, 500, 512);
            assert_eq!(a.box_cols * input.bytes(), 128);
            assert_eq!((a.rows, a.cols), (1000, 500));
            for (major, cluster) in [
                (BMajor::N, 1),
                (BMajor::K, 1),
                (BMajor::N, 2),
                (BMajor::K, 2),
            ] {
                let b = b_view(500, 300, 512, major, cluster);
                assert_eq!(b.box_cols * input.bytes(), 128, "128-byte swizzle span");
                // The boxes of one slice cover BK x BN of B (a pair: both blocks' together).
                let per_slice = match major {
                    BMajor::N => BN / b.box_cols,
                    BMajor::K => cluster,
                };
                assert_eq!(per_slice * b.box_cols * b.box_rows, BK * BN, "{major:?}");
                assert!(b.box_rows <= 256 && a.box_rows <= 256, "TMA box limit");
            }
        }
        // C's store boxes: one 128-byte swizzle row of f32 by a warp group's 64 rows, and the
        // tile's 256 columns in whole boxes (the epilogue stores 8 a warp group).
        let c = c_view(1000, 300, 304);
        assert_eq!((c.rows, c.cols, c.ld), (1000, 300, 304));
        assert_eq!((c.box_cols * 4, c.box_rows), (128, BM / 2));
        assert_eq!(BN % c.box_cols, 0);
    }
}
