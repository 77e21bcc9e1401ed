//! The split matrices read back by rows ([`DeviceRows`]): each GPU copies its own rows, all at
//! once, with the same 2-D copy as one GPU (padding dropped; full speed into pinned staging).
use anyhow::{Context as _, Result};
use cust::memory::DeviceBuffer;
use cust_raw::driver_sys;
use rgk_core::apsp::paths::PathKind;

use super::MultiSolution;
use crate::{apsp::rows::DeviceRows, gpu::check_driver};

impl DeviceRows for MultiSolution<'_> {
    fn vertices(&self) -> usize {
        self.vertices
    }

    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()> {
        self.copy_split(&self.rows, first, dst)
    }
}

/// The path matrix of a [`MultiSolution`] solved with paths, read by rows like the distances.
pub struct SplitPaths<'s, 'a> {
    solution: &'s MultiSolution<'a>,
    pub kind: PathKind,
}

impl<'a> MultiSolution<'a> {
    /// The path matrix, when the solve carried one ([`super::solve_paths`]).
    pub fn paths(&self) -> Option<SplitPaths<'_, 'a>> {
        self.path_kind.map(|kind| SplitPaths {
            solution: self,
            kind,
        })
    }
}

impl DeviceRows for SplitPaths<'_, '_> {
    fn vertices(&self) -> usize {
        self.solution.vertices
    }

    fn copy_rows(&self, first: usize, dst: &mut [i32]) -> Result<()> {
        self.solution
            .copy_split(&self.solution.path_rows, first, dst)
    }
}

impl MultiSolution<'_> {
    /// [`DeviceRows::copy_rows`] from one of the split matrices (`bufs`: each GPU's rows).
    fn copy_split(
        &self,
        bufs: &[Option<DeviceBuffer<i32>>],
        first: usize,
        dst: &mut [i32],
    ) -> Result<()> {
        let v = self.vertices;
        assert!(v > 0 && dst.len().is_multiple_of(v), "dst holds whole rows");
        let want = first..first + dst.len() / v;
        assert!(want.end <= v, "rows {want:?} outside 0..{v}");
        // The parts are contiguous and in order, so each GPU's rows are the next piece of dst;
        // the GPUs copy at once, one thread each.
        let mut jobs = Vec::new();
        let mut rest = dst;
        for (g, gpu) in self.multi.gpus.iter().enumerate() {
            let (Some(d), part) = (&bufs[g], &self.parts[g]) else {
                continue;
            };
            let have = part.start * self.block..part.end * self.block;
            let (lo, hi) = (want.start.max(have.start), want.end.min(have.end));
            if lo >= hi {
                continue;
            }
            gpu.make_current()?;
            let mut ctx = std::ptr::null_mut();
            // SAFETY: `ctx` is a valid place for the handle the call writes.
            let status = unsafe { driver_sys::cuCtxGetCurrent(&mut ctx) };
            check_driver(status, "cuCtxGetCurrent")?;
            let (out, tail) = rest.split_at_mut((hi - lo) * v);
            rest = tail;
            jobs.push(CopyJob {
                ctx: RawContext(ctx),
                ordinal: gpu.ordinal(),
                src: d.as_device_ptr().as_raw() + ((lo - have.start) * self.pitch * 4) as u64,
                pitch: self.pitch,
                v,
                out,
            });
        }
        if jobs.len() == 1 {
            return jobs.pop().expect("one job").run();
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = jobs.into_iter().map(|j| s.spawn(move || j.run())).collect();
            handles
                .into_iter()
                .try_for_each(|h| h.join().expect("copy thread panicked"))
        })
    }
}

/// A context handle to make current on another thread (the driver allows that).
struct RawContext(driver_sys::CUcontext);
// SAFETY: a context handle is a plain value; the driver API lets any thread make a context
// current, and the context outlives the copy threads (`copy_rows` joins them).
unsafe impl Send for RawContext {}

/// Rows of one GPU into host memory: `out.len() / v` rows of `v` cells from `src` (row pitch
/// `pitch` cells).
struct CopyJob<'a> {
    ctx: RawContext,
    ordinal: u32,
    src: u64,
    pitch: usize,
    v: usize,
    out: &'a mut [i32],
}

impl CopyJob<'_> {
    fn run(self) -> Result<()> {
        // SAFETY: a live context (see `RawContext`), made current on this thread only.
        let status = unsafe { driver_sys::cuCtxSetCurrent(self.ctx.0) };
        check_driver(status, "cuCtxSetCurrent").with_context(|| {
            format!(
                "making GPU {}'s context current on a copy thread",
                self.ordinal
            )
        })?;
        // SAFETY: `copy_rows` built the job from rows lo..hi inside this GPU's own rows (whose
        // context is now current) and an `out` of exactly (hi - lo) x v i32.
        unsafe { crate::apsp::gpu::copy_rows_to_host(self.src, self.pitch, self.v, self.out) }
            .with_context(|| format!("copying rows to the host from GPU {}", self.ordinal))
    }
}
