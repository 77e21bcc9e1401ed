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

/// Bytes of device memory free on the GPU of the current context.
pub fn free_memory() -> Result<usize> {
    let (free, _total) =
        cust::memory::mem_get_info().context("asking the driver for the free GPU memory")?;
    Ok(free)
}

/// Fails with one sentence when `bytes` of device memory are not free on the GPU of the current
/// context; `what` names what needs them ("the problem", "V = 30000's distance matrix").
pub fn check_free_memory(bytes: usize, what: impl fmt::Display) -> Result<()> {
    let free = free_memory()?;
    if bytes > free {
        bail!(
            "{what} needs {:.2} GiB of GPU memory but only {:.2} GiB is free",
            gib(bytes),
            gib(free)
        );
    }
    Ok(())
}

/// One GPU's part of a problem split over several: its ordinal, the device bytes its part
/// needs, and the bytes free on it ([`free_memory`] with its context current).
#[derive(Clone, Copy, Debug)]
pub struct Share {
    pub ordinal: u32,
    pub needs: usize,
    pub free: usize,
}

/// Fails with one sentence when some GPU's share does not fit in its free memory: the memory
/// the whole problem (`what`) needs and the GPUs have free, in all and on the first GPU short.
pub fn check_shares_fit(shares: &[Share], what: impl fmt::Display) -> Result<()> {
    let Some(short) = shares.iter().find(|s| s.needs > s.free) else {
        return Ok(());
    };
    let needs: usize = shares.iter().map(|s| s.needs).sum();
    let free: usize = shares.iter().map(|s| s.free).sum();
    bail!(
        "{what} needs {:.2} GiB of GPU memory ({:.2} GiB on GPU {}) but the {} GPU(s) have \
         {:.2} GiB free ({:.2} GiB on GPU {})",
        gib(needs),
        gib(short.needs),
        short.ordinal,
        shares.len(),
        gib(free),
        gib(short.free),
        short.ordinal
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_that_does_not_fit_is_one_sentence_with_the_sums() {
        let gib = 1usize << 30;
        let share = |ordinal, needs, free| Share {
            ordinal,
            needs: needs * gib,
            free: free * gib,
        };
        assert!(check_shares_fit(&[share(0, 10, 10), share(1, 9, 20)], "x").is_ok());
        let e = check_shares_fit(&[share(0, 10, 20), share(1, 12, 11)], "V = 9").unwrap_err();
        assert_eq!(
            e.to_string(),
            "V = 9 needs 22.00 GiB of GPU memory (12.00 GiB on GPU 1) but the 2 GPU(s) have \
             31.00 GiB free (11.00 GiB on GPU 1)"
        );
    }

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
