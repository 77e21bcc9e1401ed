//! NCCL, loaded at run time: the few entry points the multi-GPU Floyd–Warshall needs (one
//! communicator per GPU of this process, grouped broadcasts).
//!
//! Hand-written over `libloading` rather than cudarc's `nccl::sys` (0.19): cudarc's loader
//! looks for `libnccl.so`, `libnccl.so.13`, `.12`, … but not `libnccl.so.2`, the only name the
//! NCCL runtime package installs (`libnccl.so` comes with the development package), and it
//! panics instead of returning an error when the library is missing. Seven C functions with
//! plain integer and pointer arguments are little to restate; the ABI is NCCL's stable `nccl.h`
//! (2.x). Like cuBLAS (`matmul::cublas`), nothing links NCCL, so the binary starts without it.
use std::ffi::{CStr, c_char, c_int, c_void};

use anyhow::{Result, bail};
use libloading::Library;

type Comm = *mut c_void;
type NcclResult = c_int;
/// `ncclInt32` in nccl.h's `ncclDataType_t`.
const NCCL_INT32: c_int = 2;

/// Where NCCL is looked for: `NCCL_LIBRARY` if set, then the runtime package's name.
fn candidates() -> Vec<String> {
    let mut c = Vec::new();
    if let Ok(p) = std::env::var("NCCL_LIBRARY") {
        c.push(p);
    }
    c.extend(["libnccl.so.2", "libnccl.so"].map(String::from));
    c
}

/// The loaded library and one communicator per GPU (rank i = the i-th device given).
pub struct Nccl {
    lib: Library,
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
    /// Loads NCCL and creates one communicator per device ordinal in `devices`
    /// (`ncclCommInitAll`: all in this process). Fails with one sentence naming the library
    /// when it is not installed.
    pub fn init_all(devices: &[c_int]) -> Result<Nccl> {
        let mut tried = Vec::new();
        let (lib, path) = candidates()
            .into_iter()
            .find_map(|p| match unsafe { Library::new(&p) } {
                Ok(lib) => Some((lib, p)),
                Err(e) => {
                    tried.push(format!("{p}: {e}"));
                    None
                }
            })
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "several GPUs need the NCCL library (libnccl.so.2, or set NCCL_LIBRARY), \
                     which could not be loaded ({})",
                    tried.join("; ")
                )
            })?;
        let mut nccl = Nccl {
            lib,
            comms: Vec::new(),
            path,
            version: String::new(),
        };
        let mut v: c_int = 0;
        unsafe {
            let get_version: libloading::Symbol<unsafe extern "C" fn(*mut c_int) -> NcclResult> =
                nccl.lib.get(b"ncclGetVersion")?;
            nccl.check("ncclGetVersion", get_version(&mut v))?;
        }
        // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9.
        nccl.version = format!("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
        let mut comms = vec![std::ptr::null_mut(); devices.len()];
        unsafe {
            let init: libloading::Symbol<
                unsafe extern "C" fn(*mut Comm, c_int, *const c_int) -> NcclResult,
            > = nccl.lib.get(b"ncclCommInitAll")?;
            let code = init(comms.as_mut_ptr(), devices.len() as c_int, devices.as_ptr());
            nccl.check("ncclCommInitAll", code)?;
        }
        nccl.comms = comms;
        Ok(nccl)
    }

    fn check(&self, what: &str, code: NcclResult) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        let text = unsafe {
            self.lib
                .get::<unsafe extern "C" fn(NcclResult) -> *const c_char>(b"ncclGetErrorString")
                .ok()
                .map(|f| f(code))
                .filter(|p| !p.is_null())
                .map(|p| CStr::from_ptr(p).to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        bail!("{what} failed with NCCL error {code} ({text})")
    }

    /// Ranks (GPUs).
    pub fn ranks(&self) -> usize {
        self.comms.len()
    }

    /// Enqueues a broadcast of `count` i32 from rank `root` on every rank's stream, as one NCCL
    /// group (one thread drives all GPUs, so the per-rank calls must be grouped). `parts[i]` is
    /// rank i's.
    pub fn broadcast_i32(&self, parts: &[BroadcastPart], count: usize, root: usize) -> Result<()> {
        assert_eq!(parts.len(), self.comms.len(), "one part per rank");
        type Broadcast = unsafe extern "C" fn(
            *const c_void,
            *mut c_void,
            usize,
            c_int,
            c_int,
            Comm,
            *mut c_void,
        ) -> NcclResult;
        unsafe {
            let group_start: libloading::Symbol<unsafe extern "C" fn() -> NcclResult> =
                self.lib.get(b"ncclGroupStart")?;
            let group_end: libloading::Symbol<unsafe extern "C" fn() -> NcclResult> =
                self.lib.get(b"ncclGroupEnd")?;
            let bcast: libloading::Symbol<Broadcast> = self.lib.get(b"ncclBroadcast")?;
            self.check("ncclGroupStart", group_start())?;
            for (p, &comm) in parts.iter().zip(&self.comms) {
                let code = bcast(
                    p.send as *const c_void,
                    p.recv as *mut c_void,
                    count,
                    NCCL_INT32,
                    root as c_int,
                    comm,
                    p.stream,
                );
                if code != 0 {
                    let _ = group_end();
                    return self.check("ncclBroadcast", code);
                }
            }
            self.check("ncclGroupEnd", group_end())
        }
    }
}

impl Drop for Nccl {
    fn drop(&mut self) {
        if let Ok(destroy) = unsafe {
            self.lib
                .get::<unsafe extern "C" fn(Comm) -> NcclResult>(b"ncclCommDestroy")
        } {
            for &c in &self.comms {
                unsafe { destroy(c) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_library_is_one_sentence_naming_it() {
        let test = "missing_library_is_one_sentence_naming_it";
        if candidates()
            .iter()
            .any(|p| unsafe { Library::new(p) }.is_ok())
        {
            return rgk_core::testdata::skip(test, "NCCL is installed here");
        }
        let err = Nccl::init_all(&[0, 1]).err().expect("no NCCL").to_string();
        assert!(err.contains("libnccl.so.2") && !err.contains('\n'), "{err}");
    }
}
