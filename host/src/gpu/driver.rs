//! Raw driver calls: their status turned into an error naming the call, and the free-memory check
//! every runner makes before it allocates.
use std::fmt;

use anyhow::{Context as _, Result, bail};
use cust_raw::driver_sys::{CUresult, cudaError_enum};

/// A driver call that failed: which call, and the status it returned.
#[derive(Clone, Debug)]
pub struct DriverError {
    pub call: String,
    pub status: CUresult,
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The status's name (CUDA_ERROR_…), which cust's `CudaError` loses for codes it does not
        // list, and its number, which the CUDA documentation indexes.
        write!(
            f,
            "{} failed with {:?} (CUDA error {})",
            self.call, self.status, self.status as i32
        )
    }
}

impl std::error::Error for DriverError {}

/// `Ok` when a raw driver call (`call`, named in the error) returned `CUDA_SUCCESS`.
pub fn check(status: CUresult, call: &str) -> Result<(), DriverError> {
    if status == cudaError_enum::CUDA_SUCCESS {
        return Ok(());
    }
    Err(DriverError {
        call: call.to_string(),
        status,
    })
}

/// Bytes as GiB, for messages.
fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Fails with one sentence when `bytes` of device memory are not free on the GPU of the current
/// context; `what` names what needs them ("the problem", "V = 30000's distance matrix").
pub fn check_free_memory(bytes: usize, what: impl fmt::Display) -> Result<()> {
    let (free, _total) =
        cust::memory::mem_get_info().context("asking the driver for the free GPU memory")?;
    if bytes > free {
        bail!(
            "{what} needs {:.2} GiB of GPU memory but only {:.2} GiB is free",
            gib(bytes),
            gib(free)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_call_is_named_with_its_status() {
        assert!(check(cudaError_enum::CUDA_SUCCESS, "cuInit").is_ok());
        let e = check(cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY, "cuMemcpy2D").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cuMemcpy2D failed with CUDA_ERROR_OUT_OF_MEMORY (CUDA error 2)"
        );
    }
}
