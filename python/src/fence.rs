//! Ordering between a caller's CUDA stream (a raw handle from PyTorch, CuPy, DLPack or
//! `__cuda_array_interface__`) and the library's own stream, without the host waiting: an event
//! recorded on one stream that the other waits for. cust builds a `Stream` only from streams it
//! creates, so the caller's handle is used through the driver API here.
use cust_raw::driver_sys::{self, CUevent, CUstream};
use host::{Error, gpu::check_driver};

/// `CU_EVENT_DISABLE_TIMING`: the fastest kind of event to record and wait for.
const CU_EVENT_DISABLE_TIMING: u32 = 0x2;

/// One event (timing disabled) that orders streams; destroyed on drop (the driver keeps it
/// until the work waiting for it no longer needs it).
pub(crate) struct Fence(CUevent);

impl Fence {
    pub(crate) fn new() -> host::Result<Fence> {
        let mut ev: CUevent = std::ptr::null_mut();
        // SAFETY: `ev` is a valid place for the driver to write the new event's handle; the
        // caller made the library's context current (`crate::gpu`).
        let status = unsafe { driver_sys::cuEventCreate(&mut ev, CU_EVENT_DISABLE_TIMING) };
        check_driver(status, "cuEventCreate").map_err(|e| Error::Gpu(e.into()))?;
        Ok(Fence(ev))
    }

    /// Work queued on `to` from now on starts after the work queued on `from` so far. Either
    /// handle may be a stream of the current context or 0 / 1 / 2 (the default streams).
    pub(crate) fn order(&self, from: CUstream, to: CUstream) -> host::Result<()> {
        // SAFETY: `self.0` is a live event of the current context; `from` is a stream handle of
        // that context or a default stream (the contract of `_native.gemm`: the Python side
        // passes the tensors' stream). Recording enqueues a marker; it does not wait.
        let status = unsafe { driver_sys::cuEventRecord(self.0, from) };
        check_driver(status, "cuEventRecord(on the stream to wait for)")
            .map_err(|e| Error::Gpu(e.into()))?;
        // SAFETY: as above for `to`; the wait refers to the record just made, and the event
        // outlives the call (the driver defers its destruction past pending waits).
        let status = unsafe { driver_sys::cuStreamWaitEvent(to, self.0, 0) };
        check_driver(status, "cuStreamWaitEvent").map_err(|e| Error::Gpu(e.into()))
    }
}

impl Drop for Fence {
    fn drop(&mut self) {
        // A failure here leaves nothing to undo (the context is going away or the handle was
        // already destroyed by it).
        // SAFETY: `self.0` was created by `cuEventCreate` and is destroyed once; waits already
        // enqueued on it stay valid (the driver releases it when they have passed).
        unsafe {
            let _ = driver_sys::cuEventDestroy(self.0);
        }
    }
}
