//! NCCL, loaded at run time: the few entry points the multi-GPU Floyd–Warshall needs (one
//! communicator per GPU of this process, grouped broadcasts).
//!
//! Resolved once per process into a table of function pointers (`crate::dynlib`), hand-written
//! over `libloading` rather than cudarc's `nccl::sys` (0.19): cudarc's loader
//! looks for `libnccl.so`, `libnccl.so.13`, `.12`, … but not `libnccl.so.2`, the only name the
//! NCCL runtime package installs (`libnccl.so` comes with the development package), and it
//! panics instead of returning an error when the library is missing. Seven C functions with
//! plain integer and pointer arguments are little to restate; the ABI is NCCL's stable `nccl.h`
//! (2.x). Like cuBLAS (`reference::cublas`), nothing links NCCL, so the binary starts without it.
use std::{
    ffi::{CStr, c_char, c_int, c_void},
    fmt,
    sync::OnceLock,
};

use anyhow::{Result, anyhow};

use crate::dynlib::{self, LoadError, Loaded};

type Comm = *mut c_void;
type NcclResult = c_int;
/// `ncclInt32` in nccl.h's `ncclDataType_t`.
const NCCL_INT32: c_int = 2;

type Broadcast = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    Comm,
    *mut c_void,
) -> NcclResult;

/// NCCL's entry points this module calls (nccl.h), resolved once per process.
struct Api {
    get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    comm_init_all: unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(Comm) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
    broadcast: Broadcast,
    // One rank per process (`host apsp --distributed`, `dist`).
    get_unique_id: unsafe extern "C" fn(*mut UniqueId) -> NcclResult,
    comm_init_rank: unsafe extern "C" fn(*mut Comm, c_int, UniqueId, c_int) -> NcclResult,
    comm_get_async_error: unsafe extern "C" fn(Comm, *mut NcclResult) -> NcclResult,
    comm_abort: unsafe extern "C" fn(Comm) -> NcclResult,
    /// Keeps the pointers above valid: never unloaded.
    lib: Loaded,
}

/// Where NCCL is looked for: `NCCL_LIBRARY` if set, then the runtime package's name.
fn candidates() -> Vec<String> {
    let mut c = Vec::new();
    if let Ok(p) = std::env::var("NCCL_LIBRARY") {
        c.push(p);
    }
    c.extend(["libnccl.so.2", "libnccl.so"].map(String::from));
    c
}

impl Api {
    /// The table, loaded on first use; the same error every time when NCCL is missing.
    fn get() -> Result<&'static Api, LoadError> {
        static API: OnceLock<Result<Api, LoadError>> = OnceLock::new();
        API.get_or_init(|| {
            let lib = dynlib::open_first(
                "the NCCL library (libnccl.so.2, or set NCCL_LIBRARY to its path)",
                &candidates(),
            )?;
            // SAFETY: each type is the entry point's declaration in nccl.h (2.x: `ncclResult_t`
            // and `ncclDataType_t` are C ints, communicators and streams pointers); `lib` is kept
            // in the table, which lives for the rest of the process.
            unsafe {
                Ok(Api {
                    get_version: lib.symbol("ncclGetVersion")?,
                    get_error_string: lib.symbol("ncclGetErrorString")?,
                    comm_init_all: lib.symbol("ncclCommInitAll")?,
                    comm_destroy: lib.symbol("ncclCommDestroy")?,
                    group_start: lib.symbol("ncclGroupStart")?,
                    group_end: lib.symbol("ncclGroupEnd")?,
                    broadcast: lib.symbol("ncclBroadcast")?,
                    get_unique_id: lib.symbol("ncclGetUniqueId")?,
                    comm_init_rank: lib.symbol("ncclCommInitRank")?,
                    comm_get_async_error: lib.symbol("ncclCommGetAsyncError")?,
                    comm_abort: lib.symbol("ncclCommAbort")?,
                    lib,
                })
            }
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// `Ok` for `ncclSuccess`, else an [`NcclError`] naming `call` and NCCL's description.
    fn check(&self, call: &'static str, code: NcclResult) -> Result<(), NcclError> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: ncclGetErrorString takes any result code and returns null or a pointer to a
        // static NUL-terminated string.
        let text = unsafe {
            let p = (self.get_error_string)(code);
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        Err(NcclError {
            call,
            code,
            text: text.unwrap_or_default(),
        })
    }
}

/// An NCCL call that failed.
#[derive(Clone, Debug)]
pub struct NcclError {
    pub call: &'static str,
    pub code: NcclResult,
    /// `ncclGetErrorString`'s description.
    pub text: String,
}

impl fmt::Display for NcclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} failed with NCCL error {} ({})",
            self.call, self.code, self.text
        )
    }
}

impl std::error::Error for NcclError {}

/// The loaded library and one communicator per GPU (rank i = the i-th device given).
pub struct Nccl {
    api: &'static Api,
    comms: Vec<Comm>,
    /// Which file was loaded.
    pub path: String,
    /// `major.minor.patch` as `ncclGetVersion` reports it.
    pub version: String,
}

/// One rank's part of a grouped broadcast: the device buffers (the root's `send` is read, every
/// rank's `recv` written; equal on the root for an in-place broadcast) and the CUDA stream.
pub struct BroadcastPart {
    pub send: u64,
    pub recv: u64,
    pub stream: *mut c_void,
}

impl Nccl {
    /// Loads NCCL (once per process) and creates one communicator per device ordinal in
    /// `devices` (`ncclCommInitAll`: all in this process). Fails with one sentence naming the
    /// library when it is not installed.
    pub fn init_all(devices: &[c_int]) -> Result<Nccl> {
        let api = Api::get().map_err(|e| anyhow!("several GPUs need NCCL: {e}"))?;
        let mut v: c_int = 0;
        // SAFETY: `v` is a valid place for the one int the call writes.
        api.check("ncclGetVersion", unsafe { (api.get_version)(&mut v) })?;
        let mut comms = vec![std::ptr::null_mut(); devices.len()];
        // SAFETY: `comms` has room for one communicator per device, and `devices` holds that
        // many ordinals.
        let code = unsafe {
            (api.comm_init_all)(comms.as_mut_ptr(), devices.len() as c_int, devices.as_ptr())
        };
        api.check("ncclCommInitAll", code)?;
        Ok(Nccl {
            api,
            comms,
            path: api.lib.path.clone(),
            // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
            version: format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100),
        })
    }

    /// Ranks (GPUs).
    pub fn ranks(&self) -> usize {
        self.comms.len()
    }

    /// Enqueues a broadcast of `count` i32 from rank `root` on every rank's stream, as one NCCL
    /// group (one thread drives all GPUs, so the per-rank calls must be grouped). `parts[i]` is
    /// rank i's.
    ///
    /// # Safety
    /// Each part's `recv` (and the root's `send`) must be device memory of its rank's GPU
    /// holding `count` i32, and its `stream` a live stream of that GPU; they must stay allocated
    /// until the streams have run the broadcast.
    pub unsafe fn broadcast_i32(
        &self,
        parts: &[BroadcastPart],
        count: usize,
        root: usize,
    ) -> Result<()> {
        assert_eq!(parts.len(), self.comms.len(), "one part per rank");
        let api = self.api;
        // SAFETY: opens a group, closed below on every path.
        api.check("ncclGroupStart", unsafe { (api.group_start)() })?;
        for (p, &comm) in parts.iter().zip(&self.comms) {
            // SAFETY: the caller's contract covers the buffers and the stream; `comm` is a live
            // communicator of this rank; NCCL_INT32 matches `count` i32.
            let code = unsafe {
                (api.broadcast)(
                    p.send as *const c_void,
                    p.recv as *mut c_void,
                    count,
                    NCCL_INT32,
                    root as c_int,
                    comm,
                    p.stream,
                )
            };
            if code != 0 {
                // SAFETY: closes the group opened above.
                let _ = unsafe { (api.group_end)() };
                return Ok(api.check("ncclBroadcast", code)?);
            }
        }
        // SAFETY: closes the group opened above.
        Ok(api.check("ncclGroupEnd", unsafe { (api.group_end)() })?)
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        for &c in &self.comms {
            // SAFETY: each communicator was created by ncclCommInitAll and is destroyed once.
            let _ = unsafe { (self.api.comm_destroy)(c) };
        }
    }
}

/// Bytes of NCCL's unique id (`NCCL_UNIQUE_ID_BYTES`), which rank 0 sends to the others.
pub const UNIQUE_ID_BYTES: usize = 128;

/// `ncclUniqueId`: passed by value to `ncclCommInitRank`, as nccl.h declares it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UniqueId {
    pub internal: [u8; UNIQUE_ID_BYTES],
}

/// A new unique id (rank 0 of a multi-process job, before the others need it).
pub fn unique_id() -> Result<UniqueId> {
    let api = Api::get().map_err(|e| anyhow!("several ranks need NCCL: {e}"))?;
    let mut id = UniqueId {
        internal: [0; UNIQUE_ID_BYTES],
    };
    // SAFETY: `id` is a valid place for the 128-byte id the call writes.
    api.check("ncclGetUniqueId", unsafe { (api.get_unique_id)(&mut id) })?;
    Ok(id)
}

/// This process's rank of a communicator spanning processes (and hosts): one GPU, the one
/// current when it was made.
pub struct RankComm {
    api: &'static Api,
    comm: Comm,
    pub path: String,
}

/// Aborts a [`RankComm`] from another thread (a watchdog): NCCL's kernels then return and the
/// calls waiting on them fail. The process must exit afterwards without destroying the
/// communicator.
#[derive(Clone, Copy)]
pub struct AbortHandle {
    api: &'static Api,
    comm: usize,
}

impl AbortHandle {
    pub fn abort(self) {
        // SAFETY: a communicator made by ncclCommInitRank and not destroyed: its owner exits
        // after an abort instead of dropping it (see the type's comment).
        let _ = unsafe { (self.api.comm_abort)(self.comm as Comm) };
    }
}

impl RankComm {
    /// Joins the communicator of `world` ranks named by `id` as `rank`, on the current GPU
    /// (blocks until every rank has joined).
    pub fn init(id: &UniqueId, world: usize, rank: usize) -> Result<RankComm> {
        let api = Api::get().map_err(|e| anyhow!("several ranks need NCCL: {e}"))?;
        let mut comm = std::ptr::null_mut();
        // SAFETY: `comm` receives the communicator; the id is passed by value as declared.
        let code = unsafe { (api.comm_init_rank)(&mut comm, world as c_int, *id, rank as c_int) };
        api.check("ncclCommInitRank", code)?;
        Ok(RankComm {
            api,
            comm,
            path: api.lib.path.clone(),
        })
    }

    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle {
            api: self.api,
            comm: self.comm as usize,
        }
    }

    /// An error NCCL met in the background (a peer gone, a network failure), if any.
    pub fn async_error(&self) -> Result<(), NcclError> {
        let mut code: NcclResult = 0;
        // SAFETY: a live communicator and a valid place for the result.
        let status = unsafe { (self.api.comm_get_async_error)(self.comm, &mut code) };
        self.api.check("ncclCommGetAsyncError", status)?;
        self.api.check("an NCCL operation", code)
    }

    /// Enqueues this rank's part of a broadcast of `count` i32 from rank `root`.
    ///
    /// # Safety
    /// `recv` (and `send` on the root; equal for in place) must be device memory of this
    /// rank's GPU holding `count` i32, and `stream` a live stream of that GPU; they must stay
    /// allocated until the stream has run the broadcast.
    pub unsafe fn broadcast_i32(
        &self,
        send: u64,
        recv: u64,
        count: usize,
        root: usize,
        stream: *mut c_void,
    ) -> Result<()> {
        // SAFETY: the caller's contract covers the buffers and the stream.
        let code = unsafe {
            (self.api.broadcast)(
                send as *const c_void,
                recv as *mut c_void,
                count,
                NCCL_INT32,
                root as c_int,
                self.comm,
                stream,
            )
        };
        Ok(self.api.check("ncclBroadcast", code)?)
    }
}

impl Drop for RankComm {
    fn drop(&mut self) {
        // SAFETY: made by ncclCommInitRank and destroyed once (never after an abort: the
        // process exits then).
        let _ = unsafe { (self.api.comm_destroy)(self.comm) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_library_is_one_sentence_naming_it() {
        let test = "missing_library_is_one_sentence_naming_it";
        if Api::get().is_ok() {
            return rgk_core::testdata::skip(test, "NCCL is installed here");
        }
        let err = Nccl::init_all(&[0, 1]).err().expect("no NCCL").to_string();
        assert!(err.contains("libnccl.so.2") && !err.contains('\n'), "{err}");
    }
}
