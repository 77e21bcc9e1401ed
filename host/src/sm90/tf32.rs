//! The f32 Hopper GEMM runner (TF32 and 3xTF32 on `wgmma`, kernels in
//! `gpu_kernels::sm90::tf32`): C = alpha·A·B + beta·C with f32 A and B in either layout, f32 C
//! row-major. An operand the kernel cannot read as it lies (not K-major; every operand of
//! 3xTF32, which needs hi and lo parts) is first rewritten by the split pass into scratch memory
//! that the launch owns; [`Tf32Launch::launch`] runs the passes and the GEMM, so a timing of it
//! counts them. TF32 with A and B row-major may instead run the kernel that reads B in place
//! (the transposed product, `gpu_kernels::sm90::tf32`; [`RowMajorB::InPlace`]), or the K-major
//! kernel whose producer threads load B ([`RowMajorB::Load`]): no pass.
use std::{ffi::c_void, marker::PhantomData, rc::Rc};

use anyhow::{Context as _, Result};
use cust::{
    function::{BlockSize, Function, GridSize},
    memory::{DeviceBuffer, DeviceSlice},
};
use cust_raw::driver_sys::CUtensorMapDataType;
use gpu_kernels::sm90::tf32::{
    BMajor, SPLIT_KERNEL, SPLIT_THREADS, SPLIT_TILE, SplitParams, TF32_BK, TF32_ROWS_BOX_N,
    Tf32Config, Tf32Params, tf32_config, tf32_load_config,
};
use rgk_core::bad_input;

use super::{
    check_holds,
    schedule::{MapCache, Schedule, SplitScratch},
    span,
    tensor_map::{self, Tiled, encode_typed},
};
use crate::gpu::Gpu;

pub use gpu_kernels::sm90::tf32::Tf32Kind;
/// Scratch rows are padded to this many elements (128 bytes: whole swizzle rows for TMA).
const SCRATCH_ALIGN: usize = 32;

/// One f32 product: A `m x k` row-major (K-major, rows `lda` apart) or column-major (`k x m`
/// stored, columns `lda` apart); B `k x n` row-major (rows `ldb` apart) or column-major (K-major:
/// `n x k` stored); C `m x n` f32 row-major, rows `ldc` apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tf32Gemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub lda: usize,
    pub ldb: usize,
    pub ldc: usize,
    pub alpha: f32,
    pub beta: f32,
    pub kind: Tf32Kind,
    /// A is stored row-major (k innermost).
    pub a_k_major: bool,
    /// B is stored column-major (k innermost).
    pub b_k_major: bool,
}

/// The run-time variants of the f32 Hopper GEMM (`host matmul --kernel wgmma…`), so that one
/// binary times them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tf32Options {
    /// 3xTF32: slices (of 32 k) accumulated in the tensor cores' temporaries between two
    /// round-to-nearest adds into the f32 accumulators.
    pub flush: u32,
    /// TF32: operands read in place (K-major, not split) through TMA maps of type TFLOAT32, so
    /// that the copy engine rounds them to nearest (measured: the same error as cuBLAS TF32),
    /// rather than FLOAT32, which leaves the tensor core to truncate them (2.7x the error).
    pub tfloat32_maps: bool,
    /// Wait depth, grid and tile order (3xTF32 runs at depth 0 whatever this says).
    pub schedule: Schedule,
    /// TF32 with A and B row-major: B split first, or read in place.
    pub row_b: RowMajorB,
    /// [`RowMajorB::Load`]: slices ahead of the producer's loads whose B rows are prefetched
    /// into L2 by the copy engine (0: none).
    pub prefetch: u32,
    /// [`RowMajorB::Load`]: the producer's threads in 1 or 2 groups taking turns by slice.
    pub load_groups: u32,
}

/// How TF32 reads a row-major B when A is row-major (other layouts, and 3xTF32, ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowMajorB {
    /// Rewritten K-major by the split pass (inside every launch), then the K-major kernel.
    Split,
    /// Read in place by the kernel of the transposed product (`wgmma_tf32_kn…`): no pass.
    InPlace,
    /// Loaded by the producer warp group's threads of the K-major kernel (`wgmma_tf32_kl…`),
    /// which store it K-major into shared memory: no pass, the K-major kernel's consumers.
    Load,
}

/// Default slices per 3xTF32 flush: on the H200 2 was within 1% of the fastest (4) and the
/// most accurate (docs/sm90.md, "TF32 and 3xTF32 on wgmma").
pub const DEFAULT_FLUSH: u32 = 2;

/// Default L2 prefetch distance of [`RowMajorB::Load`] (slices): none, since on the H200 every
/// distance tried (3, 6) made it slower (docs/sm90.md, "Session 9").
pub const DEFAULT_PREFETCH: u32 = 0;
/// Default producer groups of [`RowMajorB::Load`]: two (the faster of the two measured).
pub const DEFAULT_LOAD_GROUPS: u32 = 2;

impl Default for Tf32Options {
    fn default() -> Self {
        Tf32Options {
            flush: DEFAULT_FLUSH,
            tfloat32_maps: true,
            schedule: Schedule::CLASSIC,
            row_b: RowMajorB::Split,
            prefetch: DEFAULT_PREFETCH,
            load_groups: DEFAULT_LOAD_GROUPS,
        }
    }
}

impl Tf32Options {
    /// The options a `--kernel` name selects: `wgmma` (`self`), then `_`-separated tokens:
    /// `f<N>` (3xTF32: flush every N slices, N in 1..=64), `rn` (TFLOAT32 maps), `rz` (FLOAT32
    /// maps: in-place operands truncated), `split` / `inplace` / `load` ([`RowMajorB`]),
    /// `pre<N>` (`load`'s L2 prefetch distance, N in 0..=16), `lg<N>` (`load`'s producer
    /// groups, 1 or 2), and the
    /// schedule's ([`Schedule::apply`]: `w0`, `w1`, `p`, `np`, `p<N>`, `g<N>`); `None` for any
    /// other name.
    pub fn from_name(self, name: &str) -> Option<Tf32Options> {
        let mut o = self;
        let schedule = Schedule::parse_name(name, self.schedule, |token| match token {
            "rn" => {
                o.tfloat32_maps = true;
                true
            }
            "rz" => {
                o.tfloat32_maps = false;
                true
            }
            "split" => {
                o.row_b = RowMajorB::Split;
                true
            }
            "inplace" => {
                o.row_b = RowMajorB::InPlace;
                true
            }
            "load" => {
                o.row_b = RowMajorB::Load;
                true
            }
            t => {
                if let Some(d) = t.strip_prefix("pre").and_then(|n| n.parse::<u32>().ok()) {
                    o.prefetch = d;
                    return d <= 16;
                }
                if let Some(g) = t.strip_prefix("lg").and_then(|n| n.parse::<u32>().ok()) {
                    o.load_groups = g;
                    return (1..=2).contains(&g);
                }
                match t.strip_prefix('f').and_then(|n| n.parse::<u32>().ok()) {
                    Some(flush) if (1..=64).contains(&flush) => {
                        o.flush = flush;
                        true
                    }
                    _ => false,
                }
            }
        })?;
        Some(Tf32Options { schedule, ..o })
    }
}

impl Tf32Gemm {
    /// Elements each buffer must hold.
    pub fn lens(&self) -> (usize, usize, usize) {
        let (al, aw) = if self.a_k_major {
            (self.m, self.k)
        } else {
            (self.k, self.m)
        };
        let (bl, bw) = if self.b_k_major {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        };
        (
            span(al, aw, self.lda),
            span(bl, bw, self.ldb),
            span(self.m, self.n, self.ldc),
        )
    }

    /// Fails with one sentence unless the kernel takes the shape and the buffers: dimensions in
    /// 1..2^31, leading dimensions at least the line width and, for A and B, multiples of 4
    /// (16 bytes, TMA's and the split pass's rule), buffers large enough.
    pub fn check_buffers(&self, a: usize, b: usize, c: usize) -> Result<()> {
        let fits = |v: usize| (1..=i32::MAX as usize).contains(&v);
        if ![self.m, self.n, self.k, self.lda, self.ldb, self.ldc]
            .into_iter()
            .all(fits)
        {
            return bad_input(format!(
                "the f32 Hopper GEMM needs every dimension and leading dimension in 1..=2^31-1, got {self:?}"
            ));
        }
        if !self.lda.is_multiple_of(4) || !self.ldb.is_multiple_of(4) {
            return bad_input(format!(
                "the f32 Hopper GEMM reads A and B in 16-byte pieces: lda ({}) and ldb ({}) must be multiples of 4",
                self.lda, self.ldb
            ));
        }
        check_holds([a, b, c], self.lens())
    }

    /// Floating-point operations of the product (2·m·n·k).
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

/// How the kernel reads one operand: in place, or split into scratch first.
struct Source {
    /// Device address and leading dimension (elements) of the K-major hi part, then the lo part.
    hi: (u64, usize),
    lo: (u64, usize),
    /// The split pass that writes them, if any.
    split: Option<SplitParams>,
    dtype: CUtensorMapDataType,
}

/// A launch ready to go: scratch, tensor maps and parameters over buffers borrowed for `'a`.
pub struct Tf32Launch<'a> {
    gpu: &'a Gpu,
    func: Function<'a>,
    split_func: Function<'a>,
    cfg: &'static Tf32Config,
    params: Tf32Params,
    splits: Vec<SplitParams>,
    grid: u32,
    /// The four tensor maps (A hi, B hi, A lo, B lo), read by the kernel (shared with the
    /// GPU's cache of maps).
    _maps: Rc<DeviceBuffer<u8>>,
    /// The stream-K workspace (TF32 with `sk`), shared with the GPU's other launches.
    _work: Option<Rc<DeviceBuffer<u32>>>,
    /// The split operands' parts, written by the split pass and read by the kernel (the GPU's
    /// [`SplitScratch`], shared with later launches on its one stream).
    _scratch: Vec<Rc<DeviceBuffer<f32>>>,
    _buffers: PhantomData<&'a DeviceSlice<f32>>,
}

impl<'a> Tf32Launch<'a> {
    /// Prepares `g` on the caller's buffers: allocates the scratch of the operands to split and
    /// makes the tensor maps. Fails with [`rgk_core::BadInput`] for a shape or buffer the
    /// kernel does not take.
    pub fn new(
        gpu: &'a Gpu,
        g: &Tf32Gemm,
        a: &'a DeviceSlice<f32>,
        b: &'a DeviceSlice<f32>,
        c: &'a DeviceSlice<f32>,
        opts: Tf32Options,
    ) -> Result<Tf32Launch<'a>> {
        g.check_buffers(a.len(), b.len(), c.len())?;
        let (pa, pb) = (a.as_device_ptr().as_raw(), b.as_device_ptr().as_raw());
        if pa % 16 != 0 || pb % 16 != 0 {
            return bad_input("the f32 Hopper GEMM needs A and B 16-byte aligned (TMA)");
        }
        // TF32 with A and B row-major: the transposed product reads B in place, or the
        // producer's threads load it (no pass either way).
        let rows = g.kind == Tf32Kind::Tf32 && g.a_k_major && !g.b_k_major;
        let in_place_rows = rows && opts.row_b == RowMajorB::InPlace;
        let loaded_rows = rows && opts.row_b == RowMajorB::Load;
        let major = if in_place_rows { BMajor::N } else { BMajor::K };
        let cfg = if loaded_rows {
            tf32_load_config(opts.load_groups).expect("load_groups is 1 or 2 (from_name)")
        } else {
            tf32_config(g.kind, major, opts.schedule.depth)
                .expect("every kind has a K-major kernel, TF32 also a row-major-B one")
        };
        let func = gpu.function_with_shared(cfg.name, cfg.shared_bytes())?;
        let split_func = gpu.function(SPLIT_KERNEL)?;
        let view = |rows: usize, ld: usize, box_rows: u32| Tiled {
            rows: rows as u64,
            cols: g.k as u64,
            ld: ld as u64,
            box_cols: TF32_BK,
            box_rows,
        };
        let in_place_type = if opts.tfloat32_maps {
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
        } else {
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32
        };
        let mut bytes = Vec::with_capacity(512);
        let mut scratch = Vec::new();
        let mut splits = Vec::new();
        if in_place_rows {
            // Map 0: B as stored (`k x n`, n innermost), raw f32 (the kernel rounds it as the
            // split pass would); map 1: A (`m x k`), as the K-major kernel reads it in place.
            let b_view = Tiled {
                rows: g.k as u64,
                cols: g.n as u64,
                ld: g.ldb as u64,
                box_cols: TF32_ROWS_BOX_N,
                box_rows: TF32_BK,
            };
            let raw = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
            let mb = encode_typed(b_view, raw, 4, pb)?;
            let ma = encode_typed(view(g.m, g.lda, cfg.bm), in_place_type, 4, pa)?;
            for map in [&mb, &ma, &mb, &ma] {
                bytes.extend(map.opaque.iter().flat_map(|w| w.to_le_bytes()));
            }
        } else if loaded_rows {
            // Map 0: A (`m x k`) as the K-major kernel reads it in place; B goes by pointer.
            let ma = encode_typed(view(g.m, g.lda, cfg.bm), in_place_type, 4, pa)?;
            for map in [&ma, &ma, &ma, &ma] {
                bytes.extend(map.opaque.iter().flat_map(|w| w.to_le_bytes()));
            }
        } else {
            let kp = g.k.next_multiple_of(SCRATCH_ALIGN);
            let three = g.kind == Tf32Kind::Tf32x3;
            // `which`: 0 for A, 1 for B (the scratch parts A hi, B hi, A lo, B lo).
            let mut source =
                |ptr: u64, ld: usize, rows: usize, k_major: bool, which: usize| -> Result<Source> {
                    if k_major && !three {
                        return Ok(Source {
                            hi: (ptr, ld),
                            lo: (ptr, ld),
                            split: None,
                            dtype: in_place_type,
                        });
                    }
                    // The split pass writes every element the kernel reads (the `rows x k` part;
                    // TMA reads nothing past k), so reused scratch needs no clearing.
                    let mut part = |slot: usize| -> Result<u64> {
                        let buf = SplitScratch::get(gpu, slot, rows * kp)?;
                        let p = buf.as_device_ptr().as_raw();
                        scratch.push(buf);
                        Ok(p)
                    };
                    let hi = part(which)?;
                    let lo = if three { part(2 + which)? } else { 0 };
                    Ok(Source {
                        hi: (hi, kp),
                        lo: (if three { lo } else { hi }, kp),
                        split: Some(SplitParams {
                            src: ptr as *const f32,
                            hi: hi as *mut f32,
                            lo: lo as *mut f32,
                            rows: rows as u32,
                            cols: g.k as u32,
                            ld_src: ld as u32,
                            ld_out: kp as u32,
                            transpose: u32::from(!k_major),
                        }),
                        dtype: CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                    })
                };
            let sa = source(pa, g.lda, g.m, g.a_k_major, 0)?;
            let sb = source(pb, g.ldb, g.n, g.b_k_major, 1)?;
            for (s, rows, box_rows, (ptr, ld)) in [
                (&sa, g.m, cfg.bm, sa.hi),
                (&sb, g.n, cfg.bn, sb.hi),
                (&sa, g.m, cfg.bm, sa.lo),
                (&sb, g.n, cfg.bn, sb.lo),
            ] {
                let map = encode_typed(view(rows, ld, box_rows), s.dtype, 4, ptr)?;
                bytes.extend(map.opaque.iter().flat_map(|w| w.to_le_bytes()));
            }
            splits.extend([sa.split, sb.split].into_iter().flatten());
        }
        // C through TMA stores where the kernel can take them (the TMA-fed TF32 kernels, C
        // only written, its rows 16-byte aligned as TMA needs): a fifth map, after the four.
        let tma_c = g.kind == Tf32Kind::Tf32
            && !in_place_rows
            && !loaded_rows
            && !opts.schedule.direct_store;
        let map_c = if tma_c {
            tensor_map::c_map(c.as_device_ptr().as_raw(), g.m, g.n, g.ldc, g.beta)?
        } else {
            None
        };
        if let Some(map) = map_c {
            bytes.extend(map.opaque.iter().flat_map(|w| w.to_le_bytes()));
        }
        // cuMemAlloc returns 256-byte aligned memory: every map is 128-byte aligned.
        let maps = MapCache::get(gpu, &bytes)?;
        let tiles = (g.m as u32).div_ceil(cfg.bm) * (g.n as u32).div_ceil(cfg.bn);
        let schedule = opts
            .schedule
            .resolve(tiles, opts.schedule.grid(gpu, tiles)?);
        let grid = schedule.grid(gpu, tiles)?;
        // 3xTF32 takes no stream-K (its kernel ignores it; no workspace either).
        let (sk_tiles, work) = match g.kind {
            Tf32Kind::Tf32 => {
                super::stream_k_plan(gpu, &schedule, tiles, grid, (g.k as u32).div_ceil(TF32_BK))?
            }
            Tf32Kind::Tf32x3 => (0, None),
        };
        let params = Tf32Params {
            tmaps: maps.as_device_ptr().as_raw() as *const u8,
            c: c.as_device_ptr().as_raw() as *mut f32,
            m: g.m as u32,
            n: g.n as u32,
            k: g.k as u32,
            ldc: g.ldc as u32,
            alpha: g.alpha,
            beta: g.beta,
            group: opts.schedule.group,
            flush: opts.flush.max(1),
            work: super::work_ptr(&work),
            sk_tiles,
            sk_last: u32::from(schedule.sk_last),
            b: if loaded_rows {
                pb as *const f32
            } else {
                std::ptr::null()
            },
            ldb: if loaded_rows { g.ldb as u32 } else { 0 },
            prefetch: opts.prefetch,
            tmap_c: if map_c.is_some() {
                (maps.as_device_ptr().as_raw() + 4 * 128) as *const u8
            } else {
                std::ptr::null()
            },
        };
        Ok(Tf32Launch {
            gpu,
            func,
            split_func,
            cfg,
            params,
            splits,
            grid,
            _maps: maps,
            _work: work,
            _scratch: scratch,
            _buffers: PhantomData,
        })
    }

    /// The GEMM kernel this launch runs.
    pub fn kernel(&self) -> &'static str {
        self.cfg.name
    }

    /// Split passes each launch runs before the GEMM (0 where every operand is read in place).
    pub fn passes(&self) -> usize {
        self.splits.len()
    }

    /// Launches the split passes and the GEMM on the GPU's stream, without waiting.
    pub fn launch(&self) -> Result<()> {
        for s in &self.splits {
            let args = [s as *const SplitParams as *mut c_void];
            let tiles = s.rows.div_ceil(SPLIT_TILE) * s.cols.div_ceil(SPLIT_TILE);
            // SAFETY: the argument is the kernel's one `SplitParams` (checked against the PTX
            // by a test below); `new` made it over the borrowed source (its shape checked
            // against the buffer) and scratch this launch owns (`rows x ld_out`, ld_out ≥ k);
            // one block of SPLIT_THREADS per SPLIT_TILE² tile; scratch rows are SCRATCH_ALIGN
            // words apart and the buffers 256-byte aligned (the kernel's 16-byte accesses).
            unsafe {
                self.gpu.stream.launch(
                    &self.split_func,
                    GridSize::x(tiles),
                    BlockSize::x(SPLIT_THREADS),
                    0,
                    &args,
                )
            }
            .context("launching the TF32 split pass")?;
        }
        let args = [&self.params as *const Tf32Params as *mut c_void];
        let (grid, block) = (GridSize::x(self.grid), BlockSize::x(self.cfg.threads()));
        // SAFETY: the argument is the kernel's one `Tf32Params`; the tensor maps cover exactly
        // the operands (the caller's, checked against the shape, or this launch's scratch,
        // written by the split passes earlier on the same stream) and are held by `self`, as
        // are the buffers (borrowed); the epilogue stores only inside C; any grid is valid
        // (block b walks tiles b, b + grid, …); block and shared memory are the config's; with
        // stream-K the workspace is held by `self`, sized for this grid, and the grid is at most
        // one block per SM (`Schedule::grid`), so every block is resident.
        unsafe {
            self.gpu
                .stream
                .launch(&self.func, grid, block, self.cfg.shared_bytes(), &args)
        }
        .with_context(|| format!("launching {}", self.cfg.name))
    }
}

#[cfg(test)]
mod tests;
