//! Graph statistics on the GPU (`host apsp --stats`): the solved matrix stays on the GPU, two
//! kernels (`gpu_kernels::apsp` `apsp_stats_tiles`, `apsp_stats_finish`) read it once and
//! leave per-vertex sums, and only those (48 bytes per vertex) come back; the measures are
//! made from them on the host by `rgk_core::apsp::stats`, the same code as the CPU reference.
use std::time::Instant;

use anyhow::{Context as _, Result};
use cust::{
    event::{Event, EventFlags},
    function::GridSize,
    launch,
    memory::{CopyDestination, DeviceBuffer, DevicePointer},
};
use gpu_kernels::apsp::{
    STATS_COLUMNS, STATS_FINISH_KERNEL, STATS_FINISH_THREADS, STATS_MAX_TILE_ROWS, STATS_ROW_CHUNK,
    STATS_THREADS, STATS_TILES_KERNEL, StatsField,
};
use rgk_core::apsp::{
    format::Graph,
    stats::{Stats, VertexSums},
};
use serde::Serialize;

use super::gpu as agpu;
use crate::gpu::{Gpu, check_free_memory};

/// Blocks the tiles kernel should have at least, when the graph has that many tiles of
/// `STATS_ROW_CHUNK` rows: several per SM on the largest GPUs, so that no SM idles.
const MIN_BLOCKS: usize = 1024;

/// The statistics of one solve and what they cost.
#[derive(Clone, Debug)]
pub struct StatsRun {
    pub stats: Stats,
    pub times: StatsTimes,
}

/// Seconds spent on the statistics.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct StatsTimes {
    /// The reduction over the matrix: the two kernels on the GPU (CUDA events), or the CPU's
    /// per-vertex sums.
    pub reduce_s: f64,
    /// Copying the per-vertex sums back (GPU only).
    pub device_to_host_s: f64,
    /// The measures from the sums, on the host.
    pub finish_s: f64,
}

/// How the tiles kernel covers a graph of `v` vertices, and the partial buffers it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatsGeometry {
    pub vertices: usize,
    /// Length of each per-band array (V rounded up to 32).
    pub stride: usize,
    pub rows_per_block: usize,
    /// Grid x: tiles across the columns.
    pub col_bands: usize,
    /// Grid y: tiles down the rows.
    pub row_bands: usize,
}

impl StatsGeometry {
    /// Tiles of `STATS_COLUMNS` columns and as many rows (a multiple of `STATS_ROW_CHUNK`, at
    /// most `STATS_MAX_TILE_ROWS`) as leave at least `MIN_BLOCKS` blocks where the graph allows.
    pub fn new(vertices: usize) -> StatsGeometry {
        let v = vertices.max(1);
        let col_bands = v.div_ceil(STATS_COLUMNS as usize);
        let chunk = STATS_ROW_CHUNK as usize;
        let want_bands = MIN_BLOCKS.div_ceil(col_bands);
        let rows = v.div_ceil(want_bands).next_multiple_of(chunk);
        let rows_per_block = rows.clamp(chunk, STATS_MAX_TILE_ROWS as usize);
        StatsGeometry {
            vertices,
            stride: v.next_multiple_of(32),
            rows_per_block,
            col_bands,
            row_bands: v.div_ceil(rows_per_block),
        }
    }

    /// The tiles of [`StatsGeometry::new`] with `rows_per_block` rows instead (tests: the
    /// largest tiles, whose packed counts reach their limit, on a graph a CPU can check); `None`
    /// unless it is a multiple of `STATS_ROW_CHUNK` within `STATS_MAX_TILE_ROWS`.
    pub fn with_rows(vertices: usize, rows_per_block: usize) -> Option<StatsGeometry> {
        let legal = rows_per_block.is_multiple_of(STATS_ROW_CHUNK as usize)
            && (1..=STATS_MAX_TILE_ROWS as usize).contains(&rows_per_block);
        legal.then(|| StatsGeometry {
            rows_per_block,
            row_bands: vertices.max(1).div_ceil(rows_per_block),
            ..StatsGeometry::new(vertices)
        })
    }

    /// u64 of the partials: per column band the rows' maxima and packed count-sums, per row
    /// band the columns' packed count-sums and harmonic sums, `stride` each.
    fn partial_words(&self) -> usize {
        2 * (self.col_bands + self.row_bands) * self.stride
    }

    fn out_words(&self) -> usize {
        StatsField::COUNT as usize * self.stride
    }

    /// GPU memory the statistics need besides the matrix.
    pub fn bytes(&self) -> usize {
        8 * (self.partial_words() + self.out_words())
    }
}

/// The statistics' buffers on one GPU, allocated before the solve (so that a GPU without room
/// for them fails at once, not after the solve).
pub struct StatsPlan {
    geometry: StatsGeometry,
    partials: DeviceBuffer<u64>,
    out: DeviceBuffer<u64>,
}

impl StatsPlan {
    pub fn new(gpu: &Gpu, vertices: usize) -> Result<StatsPlan> {
        StatsPlan::with_geometry(gpu, StatsGeometry::new(vertices))
    }

    /// [`StatsPlan::new`] with the tiles given.
    pub fn with_geometry(gpu: &Gpu, geometry: StatsGeometry) -> Result<StatsPlan> {
        let vertices = geometry.vertices;
        // Both kernels are loaded now: a stale PTX fails before the solve.
        gpu.function(STATS_TILES_KERNEL)?;
        gpu.function(STATS_FINISH_KERNEL)?;
        check_free_memory(
            geometry.bytes(),
            format_args!("the statistics of V = {vertices}"),
        )?;
        // SAFETY: every cell the finish kernel reads is written by the tiles kernel first
        // (each band's array over 0..V), and the host reads only cells 0..V of `out`, which the
        // finish kernel writes.
        let (partials, out) = unsafe {
            (
                DeviceBuffer::<u64>::uninitialized(geometry.partial_words()),
                DeviceBuffer::<u64>::uninitialized(geometry.out_words()),
            )
        };
        Ok(StatsPlan {
            geometry,
            partials: partials.context("allocating the statistics' partial sums on the GPU")?,
            out: out.context("allocating the statistics on the GPU")?,
        })
    }

    /// Runs the two kernels on the solved `dist` (the plan's V, row pitch `pitch`, at least V
    /// rows and columns) and makes the statistics.
    ///
    /// # Safety
    /// `dist` must be a solved distance matrix on `gpu` of at least V rows of `pitch` i32, with
    /// V ≤ `pitch` and `pitch` a multiple of 4, that stays allocated until this returns.
    pub unsafe fn run(
        &self,
        gpu: &Gpu,
        dist: DevicePointer<i32>,
        pitch: usize,
    ) -> Result<StatsRun> {
        let g = self.geometry;
        let (tiles, finish) = (
            gpu.function(STATS_TILES_KERNEL)?,
            gpu.function(STATS_FINISH_KERNEL)?,
        );
        let stream = &gpu.stream;
        let base = self.partials.as_device_ptr();
        // Row maxima and packed row sums per column band, then packed column sums and
        // harmonic sums per row band (`partial_words`).
        let (cb, rb) = (g.col_bands * g.stride, g.row_bands * g.stride);
        let row_max = base.wrapping_add(0);
        let row_packed = base.wrapping_add(cb);
        let col_packed = base.wrapping_add(2 * cb);
        let col_harm = base.wrapping_add(2 * cb + rb);
        let (v, stride) = (g.vertices as u32, g.stride as u32);
        let (start, stop) = (
            Event::new(EventFlags::DEFAULT)?,
            Event::new(EventFlags::DEFAULT)?,
        );
        start.record(stream)?;
        let grid = GridSize::xy(g.col_bands as u32, g.row_bands as u32);
        // SAFETY: the kernel reads rows 0..V, columns 0..V (16-byte quads, inside `pitch`) of
        // `dist` (see `# Safety`) and writes band x < col_bands of the row partials and band
        // y < row_bands of the column partials, cells 0..V < stride: all inside `partials`.
        unsafe {
            launch!(tiles<<<grid, STATS_THREADS, 0, stream>>>(
                dist,
                pitch as u32,
                v,
                g.rows_per_block as u32,
                stride,
                row_max,
                row_packed,
                col_packed,
                col_harm
            ))
            .context("launching the statistics' tiles kernel")?;
        }
        let blocks = v.div_ceil(STATS_FINISH_THREADS);
        let out = self.out.as_device_ptr();
        // SAFETY: reads the bands the tiles kernel wrote (cells 0..V) and writes cells 0..V of
        // the StatsField::COUNT arrays of `out`.
        unsafe {
            launch!(finish<<<blocks, STATS_FINISH_THREADS, 0, stream>>>(
                v,
                stride,
                g.col_bands as u32,
                g.row_bands as u32,
                row_max,
                row_packed,
                col_packed,
                col_harm,
                out
            ))
            .context("launching the statistics' finish kernel")?;
        }
        stop.record(stream)?;
        stop.synchronize()
            .context("the statistics kernels failed")?;
        let mut times = StatsTimes {
            reduce_s: stop.elapsed_time_f32(&start)? as f64 / 1e3,
            ..Default::default()
        };
        let t = Instant::now();
        let mut words = vec![0u64; g.out_words()];
        self.out
            .copy_to(&mut words[..])
            .context("copying the statistics back")?;
        times.device_to_host_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let sums = decode(&words, g.vertices, g.stride);
        let stats = Stats::from_sums(&sums);
        times.finish_s = t.elapsed().as_secs_f64();
        Ok(StatsRun { stats, times })
    }
}

/// The per-vertex sums from the finish kernel's arrays (`StatsField` order, `stride` apart).
fn decode(words: &[u64], v: usize, stride: usize) -> Vec<VertexSums> {
    let field = |f: StatsField| &words[f as usize * stride..f as usize * stride + v];
    let (out_max, out_count, out_sum) = (
        field(StatsField::OutMax),
        field(StatsField::OutCount),
        field(StatsField::OutSum),
    );
    let (in_count, in_sum, harm) = (
        field(StatsField::InCount),
        field(StatsField::InSum),
        field(StatsField::InHarmonic),
    );
    (0..v)
        .map(|u| VertexSums {
            out_max: out_max[u] as u32,
            out_count: out_count[u] as u32,
            out_sum: out_sum[u],
            in_count: in_count[u] as u32,
            in_sum: in_sum[u],
            in_harmonic: f64::from_bits(harm[u]),
        })
        .collect()
}

/// Solves `graph` on the GPU with block factor `block` and returns its statistics; the
/// distance matrix is freed on the GPU without ever being copied back.
pub fn solve_stats(gpu: &Gpu, graph: &Graph, block: u32) -> Result<StatsRun> {
    solve_stats_with(gpu, graph, block, StatsGeometry::new(graph.vertices))
}

/// [`solve_stats`] with the statistics' tiles given (`geometry` must be for `graph`).
pub fn solve_stats_with(
    gpu: &Gpu,
    graph: &Graph,
    block: u32,
    geometry: StatsGeometry,
) -> Result<StatsRun> {
    anyhow::ensure!(
        geometry.vertices == graph.vertices,
        "internal error: statistics tiles for V = {}, not {}",
        geometry.vertices,
        graph.vertices
    );
    let plan = StatsPlan::with_geometry(gpu, geometry)?;
    let sol = agpu::start_on_device(gpu, graph, block)?.finish()?;
    // SAFETY: `sol` is the solved padded x pitch matrix of `graph` on `gpu` (pitch ≥ V, a
    // multiple of 4), alive until after the call.
    unsafe { plan.run(gpu, sol.dist.as_device_ptr(), sol.pitch) }
}

/// The statistics on the CPU from a V x V matrix with row pitch `pitch` (`host apsp --cpu
/// --stats`).
pub fn stats_cpu(dist: &[i32], v: usize, pitch: usize) -> StatsRun {
    let t = Instant::now();
    let sums = rgk_core::apsp::stats::sums_cpu(dist, v, pitch);
    let reduce_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let stats = Stats::from_sums(&sums);
    StatsRun {
        stats,
        times: StatsTimes {
            reduce_s,
            device_to_host_s: 0.0,
            finish_s: t.elapsed().as_secs_f64(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_covers_the_graph_in_legal_tiles() {
        for v in [1, 31, 32, 33, 100, 1000, 1025, 5000, 30000, 60000, 100_000] {
            let g = StatsGeometry::new(v);
            let r = g.rows_per_block;
            assert!(r.is_multiple_of(STATS_ROW_CHUNK as usize), "{g:?}");
            assert!((STATS_ROW_CHUNK as usize..=STATS_MAX_TILE_ROWS as usize).contains(&r));
            assert!(g.row_bands * r >= v && (g.row_bands - 1) * r < v, "{g:?}");
            assert!(g.col_bands * STATS_COLUMNS as usize >= v, "{g:?}");
            assert!(g.stride >= v && g.stride.is_multiple_of(32));
            // Enough blocks where the graph has enough row chunks for them.
            let blocks = g.col_bands * g.row_bands;
            assert!(blocks >= MIN_BLOCKS.min(v.div_ceil(32)), "{g:?}");
        }
        let g = StatsGeometry::with_rows(2100, 1024).unwrap();
        assert_eq!((g.row_bands, g.col_bands, g.stride), (3, 3, 2112));
        assert_eq!(StatsGeometry::with_rows(2100, 1056), None);
        assert_eq!(StatsGeometry::with_rows(2100, 48), None);
        let big = StatsGeometry::new(60000);
        assert_eq!(big.rows_per_block, 1024);
        // The partials are a few hundredths of the 14.4 GB matrix.
        assert!(big.bytes() < 150 << 20, "{}", big.bytes());
    }

    #[test]
    fn decode_reads_each_field_at_its_offset() {
        let (v, stride) = (3, 32);
        let mut words = vec![0u64; StatsField::COUNT as usize * stride];
        for f in 0..StatsField::COUNT as usize {
            for u in 0..v {
                words[f * stride + u] = (10 * f + u) as u64;
            }
        }
        words[StatsField::InHarmonic as usize * stride + 2] = 0.25f64.to_bits();
        let s = decode(&words, v, stride);
        assert_eq!((s[1].out_max, s[1].out_count, s[1].out_sum), (1, 11, 21));
        assert_eq!((s[1].in_count, s[1].in_sum), (31, 41));
        assert_eq!(s[2].in_harmonic, 0.25);
    }
}
