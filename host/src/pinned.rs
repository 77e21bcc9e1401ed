//! Page-locked host memory that every context treats as pinned. cust's `LockedBuffer` comes from
//! `cuMemAllocHost`, which is pinned only for the context that allocated it: a copy from another
//! GPU's context into it runs at pageable speed. The staging buffers of the multi-GPU writer are
//! filled by every GPU, so they are allocated `CU_MEMHOSTALLOC_PORTABLE`.
use std::ops::{Deref, DerefMut};

use anyhow::{Context as _, Result, bail};
use cust_raw::driver_sys;

use crate::gpu::check_driver;

/// `len` i32 of portable pinned host memory, zeroed.
pub struct PortablePinned {
    ptr: *mut i32,
    len: usize,
}

// SAFETY: the buffer is plain memory owned by this value; the driver allows freeing it from any
// thread.
unsafe impl Send for PortablePinned {}

impl PortablePinned {
    /// Needs a current context (any GPU's).
    pub fn new(len: usize) -> Result<PortablePinned> {
        let mut ptr = std::ptr::null_mut();
        let bytes = len.max(1) * 4;
        // SAFETY: `ptr` receives a fresh allocation of `bytes` bytes.
        let status = unsafe {
            driver_sys::cuMemHostAlloc(&mut ptr, bytes, driver_sys::CU_MEMHOSTALLOC_PORTABLE)
        };
        check_driver(status, "cuMemHostAlloc")
            .with_context(|| format!("allocating {bytes} bytes of pinned host memory"))?;
        if ptr.is_null() {
            bail!("allocating {bytes} bytes of pinned host memory returned a null pointer");
        }
        let ptr = ptr.cast::<i32>();
        // SAFETY: `bytes` bytes are allocated at `ptr`, which is page-aligned.
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        Ok(PortablePinned { ptr, len })
    }
}

impl Deref for PortablePinned {
    type Target = [i32];
    fn deref(&self) -> &[i32] {
        // SAFETY: `len` initialised i32 at `ptr`, owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for PortablePinned {
    fn deref_mut(&mut self) -> &mut [i32] {
        // SAFETY: as in `deref`, and `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for PortablePinned {
    fn drop(&mut self) {
        // SAFETY: allocated by cuMemHostAlloc and freed once. An error cannot be reported here.
        let _ = unsafe { driver_sys::cuMemFreeHost(self.ptr.cast()) };
    }
}
