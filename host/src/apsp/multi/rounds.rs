//! The round loop of the multi-GPU Floyd–Warshall (see the parent module): per GPU its kernels,
//! streams and events (`Lane`), and the order of launches, broadcasts and waits (`Rounds`).
//! The same loop runs the GPUs of one process (`--gpus N`, NCCL's group calls over them) and
//! one rank of several processes (`--distributed`, one GPU, its rank's communicator): what
//! differs is only who else takes part in a broadcast (`Collective`).
use std::ops::Range;

use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    function::{BlockSize, Function, GridSize},
    launch,
    memory::{DeviceBuffer, DevicePointer},
    stream::{Stream, StreamFlags, StreamWaitEventFlags},
};
use cust_raw::driver_sys;
use gpu_kernels::apsp::{FwMultiConfig, FwMultiPathNames};
use rgk_core::apsp::split::{PIVOT_BUFFERS, owner};

use crate::{
    apsp::{
        nccl::{BroadcastPart, Nccl, RankComm},
        phases::prefer_shared_memory,
    },
    gpu::{Gpu, check_driver},
};

/// One GPU's kernels and launch geometry: the distance kernels of `multi.rs`, or with a path
/// matrix those of `multi_paths.rs` (same roles and grids, the path pointers and `mode` added).
pub(crate) struct Kernels<'a> {
    pivot: Function<'a>,
    row: Function<'a>,
    col: Function<'a>,
    rest: Function<'a>,
    pivot_threads: BlockSize,
    tile_threads: BlockSize,
    /// The path kernels' `mode` (kind and flags) when they carry a path matrix.
    paths: Option<u32>,
}

impl<'a> Kernels<'a> {
    pub(crate) fn new(
        gpu: &'a Gpu,
        cfg: FwMultiConfig,
        paths: Option<PathKernels>,
    ) -> Result<Kernels<'a>> {
        let get = |name: &str| gpu.function(name);
        let names = match &paths {
            Some(p) => [p.names.pivot, p.names.row, p.names.col, p.names.rest],
            None => [cfg.pivot, cfg.row, cfg.col, cfg.rest],
        };
        let k = Kernels {
            pivot: get(names[0])?,
            row: get(names[1])?,
            col: get(names[2])?,
            rest: get(names[3])?,
            pivot_threads: BlockSize::xy(cfg.pivot_threads, cfg.pivot_threads),
            tile_threads: BlockSize::xy(cfg.tile_threads, cfg.tile_threads),
            paths: paths.map(|p| p.mode),
        };
        for f in [&k.row, &k.col, &k.rest] {
            prefer_shared_memory(f)?;
        }
        Ok(k)
    }
}

/// The path kernels of the split and the `mode` they run with.
#[derive(Clone, Copy)]
pub(crate) struct PathKernels {
    pub(super) names: FwMultiPathNames,
    pub(super) mode: u32,
}

/// A block row (or a GPU's block rows) of the distances and, with paths, of the path matrix at
/// the same offset.
#[derive(Clone, Copy)]
struct Mats {
    d: DevicePointer<i32>,
    p: Option<DevicePointer<i32>>,
}

impl Mats {
    fn offset(self, cells: usize) -> Mats {
        Mats {
            d: offset(self.d, cells),
            p: self.p.map(|p| offset(p, cells)),
        }
    }

    /// The path pointer, where the kernels carry paths (`Kernels::paths` is set exactly when
    /// every `Mats` has one: `solve` allocates both or neither).
    fn p(self) -> DevicePointer<i32> {
        self.p.expect("path kernels run with a path matrix")
    }
}

/// The highest priority a stream can have in the current context (cuda.h: lower is higher).
fn greatest_priority() -> Result<i32> {
    let (mut least, mut greatest) = (0, 0);
    // SAFETY: two valid places for the ints the call writes.
    let status = unsafe { driver_sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) };
    check_driver(status, "cuCtxGetStreamPriorityRange")?;
    Ok(greatest)
}

/// Device pointer `cells` i32 past `base`.
fn offset(base: DevicePointer<i32>, cells: usize) -> DevicePointer<i32> {
    DevicePointer::from_raw(base.as_raw() + 4 * cells as u64)
}

/// Per-GPU state during the solve.
pub(crate) struct Lane<'a> {
    pub(super) gpu: &'a Gpu,
    pub(super) kernels: Kernels<'a>,
    /// The broadcasts' stream (the distributed solver waits for it too).
    pub(crate) comm: Stream,
    pub(super) rows: Option<DevicePointer<i32>>,
    /// This GPU's rows of the path matrix (with paths only).
    pub(super) path_rows: Option<DevicePointer<i32>>,
    pub(super) blocks: Range<usize>,
    pub(super) pivots: Vec<DeviceBuffer<i32>>,
    /// Pivot buffers of the path matrix (with paths on several GPUs only).
    pub(super) path_pivots: Vec<DeviceBuffer<i32>>,
    /// Per round: compute start (after the wait for the pivot row) and end.
    pub(super) start: Vec<Event>,
    pub(super) end: Vec<Event>,
    /// Per round: the broadcast of its pivot row done on this GPU (several GPUs only).
    pub(super) recv: Vec<Event>,
    /// Per round this GPU owns: (round, its pivot row ready to send).
    pub(super) ready: Vec<(usize, Event)>,
    /// Recorded before the first round.
    pub(super) begin: Event,
}

impl<'a> Lane<'a> {
    /// GPU `gpu`'s lane for a solve of `nb` rounds, holding block rows `blocks` (at `rows`, and
    /// the path matrix's at `path_rows`), with `pivots` buffers of one block row (`b x pitch`
    /// i32) for received pivot rows, as many for the path matrix when it has `path_rows`, and
    /// a high-priority comm stream for the broadcasts. Its context must be current.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        gpu: &'a Gpu,
        kernels: Kernels<'a>,
        rows: Option<DevicePointer<i32>>,
        path_rows: Option<DevicePointer<i32>>,
        blocks: Range<usize>,
        pivots: usize,
        nb: usize,
        row_cells: usize,
    ) -> Result<Lane<'a>> {
        let buffers = |count: usize| -> Result<Vec<DeviceBuffer<i32>>> {
            (0..count)
                // SAFETY: a pivot buffer is read only after a broadcast has filled it.
                .map(|_| unsafe { DeviceBuffer::<i32>::uninitialized(row_cells) })
                .collect::<Result<Vec<_>, _>>()
                .map_err(Into::into)
        };
        let path_pivots = if kernels.paths.is_some() { pivots } else { 0 };
        Ok(Lane {
            gpu,
            kernels,
            comm: Stream::new(StreamFlags::NON_BLOCKING, Some(greatest_priority()?))?,
            rows,
            path_rows,
            blocks,
            pivots: buffers(pivots)?,
            path_pivots: buffers(path_pivots)?,
            start: Vec::with_capacity(nb),
            end: Vec::with_capacity(nb),
            recv: Vec::with_capacity(nb),
            ready: Vec::new(),
            begin: Event::new(EventFlags::DEFAULT)?,
        })
    }
}

/// Who takes part in a pivot row's broadcast besides this process's lanes.
#[derive(Clone, Copy)]
pub(crate) enum Collective<'a> {
    /// One GPU: no broadcast at all.
    Alone,
    /// Every GPU of the solve is a lane of this process: one communicator each, in a group
    /// call; lane g is rank g.
    Group(&'a Nccl),
    /// This process is rank `first` of a communicator of `world` ranks, with one lane.
    Rank {
        comm: &'a RankComm,
        first: usize,
        world: usize,
    },
}

impl Collective<'_> {
    /// The rank of this process's first lane (lane g is rank `first + g`).
    fn first(self) -> usize {
        match self {
            Collective::Rank { first, .. } => first,
            _ => 0,
        }
    }

    /// One broadcast of `count` i32 from `root`, one part per lane of this process.
    ///
    /// # Safety
    /// As [`Nccl::broadcast_i32`]: each part's buffers hold `count` i32 on its lane's GPU and
    /// outlive the work enqueued on its stream.
    unsafe fn broadcast(self, parts: &[BroadcastPart], count: usize, root: usize) -> Result<()> {
        match self {
            Collective::Alone => Ok(()),
            // SAFETY: the caller's contract, one part per communicator.
            Collective::Group(nccl) => unsafe { nccl.broadcast_i32(parts, count, root) },
            Collective::Rank { comm, .. } => {
                let [p] = parts else {
                    anyhow::bail!("a rank drives one GPU, not {}", parts.len());
                };
                // SAFETY: the caller's contract for this rank's one part.
                unsafe { comm.broadcast_i32(p.send, p.recv, count, root, p.stream) }
            }
        }
    }

    /// How many ranks broadcast (this process's lanes for a group).
    fn ranks(self, lanes: usize) -> usize {
        match self {
            Collective::Alone => 1,
            Collective::Group(_) => lanes,
            Collective::Rank { world, .. } => world,
        }
    }
}

/// One broadcast of `count` i32 from every rank, into the pivot buffers, before the clock
/// starts: NCCL sets up its connections at the first collective that needs them (about 30 ms
/// here, measured; 0.14 s in a 2-process run whose rounds paid for it), which is set-up, not
/// Floyd–Warshall.
pub(crate) fn warm_up(collective: Collective, lanes: &[Lane], count: usize) -> Result<()> {
    if let Collective::Alone = collective {
        return Ok(());
    }
    for root in 0..collective.ranks(lanes.len()) {
        let parts: Vec<_> = lanes
            .iter()
            .map(|l| {
                let buf = l.pivots[0].as_device_ptr().as_raw();
                BroadcastPart {
                    send: buf,
                    recv: buf,
                    stream: l.comm.as_inner() as *mut std::ffi::c_void,
                }
            })
            .collect();
        // SAFETY: every lane's first pivot buffer holds a block row (B x pitch i32, allocated
        // by the solver), of which `count` is at most one; the comm streams belong to the
        // lanes' GPUs; the buffers outlive the lanes, which wait for the comm streams below.
        unsafe { collective.broadcast(&parts, count, root) }.context("warming up NCCL")?;
    }
    for lane in lanes {
        lane.gpu.make_current()?;
        lane.comm.synchronize().context("warming up NCCL")?;
    }
    Ok(())
}

/// The round loop over every GPU (see the module documentation).
pub(crate) struct Rounds<'l, 'a> {
    pub(crate) lanes: &'l mut [Lane<'a>],
    pub(crate) collective: Collective<'a>,
    /// Block rows per rank (every rank's, not only this process's lanes').
    pub(crate) parts: Vec<Range<usize>>,
    pub(crate) nb: usize,
    pub(crate) b: usize,
    pub(crate) pitch: usize,
}

impl Rounds<'_, '_> {
    /// The lane of this process that owns block row `r`, if one does.
    fn owner(&self, r: usize) -> Option<usize> {
        owner(&self.parts, r)
            .checked_sub(self.collective.first())
            .filter(|&g| g < self.lanes.len())
    }

    /// The owner's copy of block row `r` in its rows (both matrices).
    fn row_ptr(&self, g: usize, r: usize) -> Mats {
        let lane = &self.lanes[g];
        let rows = Mats {
            d: lane.rows.expect("the owner of a row has rows"),
            p: lane.path_rows,
        };
        rows.offset((r - lane.blocks.start) * self.b * self.pitch)
    }

    /// Where GPU `g` reads pivot row `r`: its own rows on the owner (broadcast in place), else
    /// the buffers the broadcast fills.
    fn pivot_ptr(&self, g: usize, r: usize) -> Mats {
        if self.owner(r) == Some(g) {
            self.row_ptr(g, r)
        } else {
            let lane = &self.lanes[g];
            let i = r % PIVOT_BUFFERS;
            Mats {
                d: lane.pivots[i].as_device_ptr(),
                p: lane.path_pivots.get(i).map(|b| b.as_device_ptr()),
            }
        }
    }

    pub(crate) fn all(mut self) -> Result<()> {
        let pitch = self.pitch as u32;
        let nb = self.nb as u32;
        for lane in self.lanes.iter() {
            lane.gpu.make_current()?;
            lane.begin.record(&lane.gpu.stream)?;
        }
        // Row 0: phases 1 and 2-row on its owner, then its broadcast.
        if let Some(o) = self.owner(0) {
            self.lanes[o].gpu.make_current()?;
            let ready = self.pivot_row(o, 0)?;
            self.lanes[o].ready.push((0, ready));
        }
        self.broadcast(0)?;
        for r in 0..self.nb {
            let own_r = self.owner(r);
            let next_owner = if r + 1 < self.nb {
                self.owner(r + 1)
            } else {
                None
            };
            for g in 0..self.lanes.len() {
                let lane = &self.lanes[g];
                lane.gpu.make_current()?;
                let stream = &lane.gpu.stream;
                if let Some(received) = lane.recv.get(r) {
                    stream.wait_event(received, StreamWaitEventFlags::DEFAULT)?;
                }
                let start = Event::new(EventFlags::DEFAULT)?;
                start.record(stream)?;
                let mut ready = None;
                if let Some(rows) = lane.rows {
                    let k = &lane.kernels;
                    let local = lane.blocks.len() as u32;
                    let skip = if own_r == Some(g) {
                        (r - lane.blocks.start) as u32
                    } else {
                        u32::MAX
                    };
                    let rows = Mats {
                        d: rows,
                        p: lane.path_rows,
                    };
                    let piv = self.pivot_ptr(g, r);
                    let (col, rest, tt) = (&k.col, &k.rest, k.tile_threads);
                    let round = r as u32;
                    // SAFETY: the kernels' signatures (gpu_kernels::apsp, multi-GPU kernels and
                    // their path variants) take these arguments; `rows` holds this GPU's `local`
                    // block rows and `piv` one block row of each matrix, each B x pitch i32, and
                    // the grids stay inside them (one block per B x B tile of `local` rows by nb
                    // columns, `first + count <= local`); all outlive the solve, which waits for
                    // the streams.
                    unsafe {
                        match k.paths {
                            None => launch!(col<<<GridSize::x(local), tt, 0, stream>>>(
                                rows.d, piv.d, pitch, round, skip
                            ))?,
                            Some(mode) => launch!(col<<<GridSize::x(local), tt, 0, stream>>>(
                                rows.d, rows.p(), piv.d, piv.p(), pitch, round, skip, mode
                            ))?,
                        }
                    }
                    let launch_rest = |first: u32, count: u32| -> Result<()> {
                        if count > 0 {
                            let grid = GridSize::xy(nb, count);
                            // SAFETY: as for `col` above.
                            unsafe {
                                match k.paths {
                                    None => launch!(rest<<<grid, tt, 0, stream>>>(
                                        rows.d, piv.d, pitch, round, first, skip
                                    ))?,
                                    Some(mode) => launch!(rest<<<grid, tt, 0, stream>>>(
                                        rows.d, rows.p(), piv.d, piv.p(), pitch, round, first,
                                        skip, mode
                                    ))?,
                                }
                            }
                        }
                        Ok(())
                    };
                    if next_owner == Some(g) {
                        // Look-ahead: row r + 1 first, its phases 1 and 2-row, then the rest.
                        let l = (r + 1 - lane.blocks.start) as u32;
                        launch_rest(l, 1)?;
                        ready = Some(self.pivot_row(g, r + 1)?);
                        launch_rest(0, l)?;
                        launch_rest(l + 1, local - l - 1)?;
                    } else {
                        launch_rest(0, local)?;
                    }
                }
                let end = Event::new(EventFlags::DEFAULT)?;
                end.record(stream)?;
                let lane = &mut self.lanes[g];
                lane.start.push(start);
                lane.end.push(end);
                if let Some(ready) = ready {
                    lane.ready.push((r + 1, ready));
                }
            }
            if r + 1 < self.nb {
                self.broadcast(r + 1)?;
            }
        }
        Ok(())
    }

    /// Phases 1 and 2-row of round `r` on its owner `g`'s compute stream (its context
    /// current); returns the event the broadcast of row `r` waits for.
    fn pivot_row(&self, g: usize, r: usize) -> Result<Event> {
        let row = self.row_ptr(g, r);
        let lane = &self.lanes[g];
        let (pitch, round, nb) = (self.pitch as u32, r as u32, self.nb as u32);
        let stream = &lane.gpu.stream;
        let k = &lane.kernels;
        let (p, w, pt, tt) = (&k.pivot, &k.row, k.pivot_threads, k.tile_threads);
        // SAFETY: the kernels take (row, pitch, round), or (row, path row, pitch, round, mode)
        // with paths; `row` is block row `r` inside the owner's rows (B x pitch i32 of each
        // matrix), and the grids touch only it (one pivot block, nb tiles along it); the rows
        // outlive the solve, which waits for the streams.
        unsafe {
            match k.paths {
                None => {
                    launch!(p<<<GridSize::x(1), pt, 0, stream>>>(row.d, pitch, round))?;
                    launch!(w<<<GridSize::x(nb), tt, 0, stream>>>(row.d, pitch, round))?;
                }
                Some(mode) => {
                    let (d, q) = (row.d, row.p());
                    launch!(p<<<GridSize::x(1), pt, 0, stream>>>(d, q, pitch, round, mode))?;
                    launch!(w<<<GridSize::x(nb), tt, 0, stream>>>(d, q, pitch, round, mode))?;
                }
            }
        }
        let ready = Event::new(EventFlags::DEFAULT)?;
        ready.record(stream)?;
        Ok(ready)
    }

    /// Enqueues the broadcast of pivot row `r` from its owner on every GPU's comm stream, after
    /// the row is ready (on the owner) and after round `r - 2`, the last reader of the buffer
    /// it fills, is done (elsewhere). Nothing to do on one GPU.
    fn broadcast(&mut self, r: usize) -> Result<()> {
        if let Collective::Alone = self.collective {
            return Ok(());
        }
        let root = owner(&self.parts, r);
        let mine = self.owner(r);
        let mut parts = Vec::with_capacity(self.lanes.len());
        for (g, lane) in self.lanes.iter().enumerate() {
            lane.gpu.make_current()?;
            let after = if mine == Some(g) {
                lane.ready.iter().find(|(i, _)| *i == r).map(|(_, e)| e)
            } else {
                r.checked_sub(PIVOT_BUFFERS).map(|i| &lane.end[i])
            };
            if let Some(e) = after {
                lane.comm.wait_event(e, StreamWaitEventFlags::DEFAULT)?;
            }
            parts.push(self.pivot_ptr(g, r));
        }
        let count = self.b * self.pitch;
        let streams: Vec<_> = self.lanes.iter().map(|l| l.comm.as_inner()).collect();
        let part = |m: &Mats, p: bool, stream: cust_raw::driver_sys::CUstream| {
            let buf = if p { m.p() } else { m.d }.as_raw();
            BroadcastPart {
                send: buf,
                recv: buf,
                stream: stream as *mut std::ffi::c_void,
            }
        };
        let paths = self.lanes[0].kernels.paths.is_some();
        for p in [false, true].into_iter().filter(|&p| !p || paths) {
            let bufs: Vec<_> = parts
                .iter()
                .zip(&streams)
                .map(|(m, &s)| part(m, p, s))
                .collect();
            // SAFETY: each part is one block row (B x pitch i32) of the distances or of the
            // path matrix: the owner's own row r (inside its rows) or a pivot buffer of that
            // size; the comm streams belong to the lanes' GPUs; the rows and buffers outlive
            // the solve, which waits for every stream.
            unsafe { self.collective.broadcast(&bufs, count, root) }
                .with_context(|| format!("broadcasting pivot row {r}"))?;
        }
        for lane in self.lanes.iter_mut() {
            lane.gpu.make_current()?;
            let done = Event::new(EventFlags::DEFAULT)?;
            done.record(&lane.comm)?;
            lane.recv.push(done);
        }
        Ok(())
    }
}
