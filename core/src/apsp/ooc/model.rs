//! The out-of-core schedule on the CPU: every [`Op`] of every round executed on host vectors
//! that stand for the device buffers, with the same (min, +) arithmetic as the kernels, and the
//! check that no launch reads a block that another block of the same launch writes (which on
//! the GPU would be a race). Also what each round costs: bytes over PCIe against add-mins.
use std::collections::HashMap;

use anyhow::{Result, bail};

use super::{Buf, LANES, Op, Plan, Rect, Update};

/// Host vectors for the device buffers of a plan.
struct Buffers {
    row: Vec<i32>,
    col: Vec<i32>,
    tiles: Vec<Vec<i32>>,
}

impl Buffers {
    fn get<'a>(&'a mut self, host: &'a mut [i32], buf: Buf) -> &'a mut [i32] {
        match buf {
            Buf::Host => host,
            Buf::Row => &mut self.row,
            Buf::Col => &mut self.col,
            Buf::Tile(l) => &mut self.tiles[l],
        }
    }
}

/// Runs the out-of-core schedule of `plan` on `host`, the padded matrix (`padded x pitch`,
/// INF off the diagonal where there is no edge), in place. Fails when an operation would read
/// or write outside its buffer, or when a launch's blocks race.
pub fn run_on_cpu(plan: &Plan, host: &mut [i32]) -> Result<()> {
    if host.len() != plan.len_of(Buf::Host) {
        bail!(
            "the host matrix has {} cells, not {}",
            host.len(),
            plan.len_of(Buf::Host)
        );
    }
    // Device memory starts as garbage: a schedule that reads a cell before writing it shows.
    let garbage = |buf| vec![i32::MIN / 2; plan.len_of(buf)];
    let mut bufs = Buffers {
        row: garbage(Buf::Row),
        col: garbage(Buf::Col),
        tiles: (0..LANES).map(|l| garbage(Buf::Tile(l))).collect(),
    };
    for k in 0..plan.count() {
        for op in plan.round_ops(k) {
            match op {
                Op::Copy {
                    from,
                    to,
                    rows,
                    cols,
                    ..
                } => {
                    let src = window(plan, from, rows, cols, &mut bufs, host)?;
                    let dst = bufs.get(host, to.buf);
                    put(plan, to, rows, cols, &src, dst)?;
                }
                Op::Pivot { at } => {
                    let mut blk = window(plan, at, plan.block, plan.block, &mut bufs, host)?;
                    close_block(&mut blk, plan.block);
                    put(
                        plan,
                        at,
                        plan.block,
                        plan.block,
                        &blk,
                        bufs.get(host, at.buf),
                    )?;
                }
                Op::Update(u) => update(plan, &u, &mut bufs, host)?,
                Op::Join => {}
            }
        }
    }
    Ok(())
}

/// A copy of the `rows x cols` cells at `at`.
fn window(
    plan: &Plan,
    at: Rect,
    rows: usize,
    cols: usize,
    bufs: &mut Buffers,
    host: &mut [i32],
) -> Result<Vec<i32>> {
    let pitch = plan.pitch_of(at.buf);
    let src = bufs.get(host, at.buf);
    check(plan, at, rows, cols, src.len())?;
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let o = (at.row + r) * pitch + at.col;
        out.extend_from_slice(&src[o..o + cols]);
    }
    Ok(out)
}

/// Stores `rows x cols` cells at `at`.
fn put(
    plan: &Plan,
    at: Rect,
    rows: usize,
    cols: usize,
    src: &[i32],
    dst: &mut [i32],
) -> Result<()> {
    let pitch = plan.pitch_of(at.buf);
    check(plan, at, rows, cols, dst.len())?;
    for r in 0..rows {
        let o = (at.row + r) * pitch + at.col;
        dst[o..o + cols].copy_from_slice(&src[r * cols..(r + 1) * cols]);
    }
    Ok(())
}

fn check(plan: &Plan, at: Rect, rows: usize, cols: usize, len: usize) -> Result<()> {
    let pitch = plan.pitch_of(at.buf);
    if rows == 0 || cols == 0 {
        bail!("an empty operation at {at:?}");
    }
    if at.col + cols > pitch || (at.row + rows - 1) * pitch + at.col + cols > len {
        bail!(
            "{rows} x {cols} cells at {at:?} lie outside the buffer ({len} cells, pitch {pitch})"
        );
    }
    Ok(())
}

/// Phase 1 on one B x B block (row-major, B apart): Floyd–Warshall inside it.
fn close_block(d: &mut [i32], b: usize) {
    for k in 0..b {
        for i in 0..b {
            for j in 0..b {
                d[i * b + j] = d[i * b + j].min(d[i * b + k].wrapping_add(d[k * b + j]));
            }
        }
    }
}

/// One launch of the update kernel: per block, the operands are read whole before the block
/// is stored (as the kernel reads them into shared memory first).
fn update(plan: &Plan, u: &Update, bufs: &mut Buffers, host: &mut [i32]) -> Result<()> {
    let bs = plan.block;
    let shift = |r: Rect, i: usize, j: usize| Rect {
        row: r.row + i * bs,
        col: r.col + j * bs,
        ..r
    };
    let grid: Vec<(usize, usize)> = (0..u.rows)
        .flat_map(|i| (0..u.cols).map(move |j| (i, j)))
        .filter(|&(i, j)| u.skip_row != Some(i) && u.skip_col != Some(j))
        .collect();
    // Which grid block writes each own block: no other block may read it.
    let writers: HashMap<Rect, (usize, usize)> = grid
        .iter()
        .map(|&(i, j)| (shift(u.own, i, j), (i, j)))
        .collect();
    for &(i, j) in &grid {
        for k in 0..u.kblocks {
            for read in [shift(u.a, i, k), shift(u.b, k, j)] {
                if let Some(&w) = writers.get(&read)
                    && w != (i, j)
                {
                    bail!(
                        "a race: block {:?} of a launch reads {read:?}, which block {w:?} writes",
                        (i, j)
                    );
                }
            }
            if u.kblocks > 1
                && (shift(u.a, i, k) == shift(u.own, i, j)
                    || shift(u.b, k, j) == shift(u.own, i, j))
            {
                bail!(
                    "block {:?} reads its own block while looping over {} k blocks",
                    (i, j),
                    u.kblocks
                );
            }
        }
    }
    let cell_updates = |own: &mut [i32], a: &[i32], b: &[i32]| {
        for r in 0..bs {
            for c in 0..bs {
                let mut m = own[r * bs + c];
                for k in 0..bs {
                    m = m.min(a[r * bs + k].wrapping_add(b[k * bs + c]));
                }
                own[r * bs + c] = m;
            }
        }
    };
    for &(i, j) in &grid {
        let own_at = shift(u.own, i, j);
        let mut own = window(plan, own_at, bs, bs, bufs, host)?;
        for k in 0..u.kblocks {
            let a = window(plan, shift(u.a, i, k), bs, bs, bufs, host)?;
            let b = window(plan, shift(u.b, k, j), bs, bs, bufs, host)?;
            cell_updates(&mut own, &a, &b);
        }
        put(plan, own_at, bs, bs, &own, bufs.get(host, own_at.buf))?;
    }
    Ok(())
}

/// What one pivot super-block moves and computes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundCost {
    /// Bytes host to device and back of the resident cross (not overlapped with compute).
    pub cross_in: u64,
    pub cross_out: u64,
    /// Bytes of the streamed tiles, each way (overlapped with the tiles' compute).
    pub tiles_in: u64,
    pub tiles_out: u64,
    /// Add-mins on the cross (phases 1–3 of the rounds of the pivot) and on the tiles.
    pub cross_updates: f64,
    pub tile_updates: f64,
}

/// Link and kernel speeds to turn a [`RoundCost`] into seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Bytes per second of a pinned copy, each direction (both run at once).
    pub link_bytes_per_s: f64,
    /// Add-mins per second of the update kernel.
    pub updates_per_s: f64,
}

impl CostModel {
    /// Seconds of one round: the cross's copies and compute one after the other, then the
    /// tiles with copies in both directions overlapped with compute (the slowest of the
    /// three decides).
    pub fn round_seconds(&self, c: &RoundCost) -> f64 {
        let (bw, peak) = (self.link_bytes_per_s, self.updates_per_s);
        let cross = (c.cross_in as f64 + c.cross_out as f64) / bw + c.cross_updates / peak;
        let tiles = (c.tiles_in as f64 / bw)
            .max(c.tiles_out as f64 / bw)
            .max(c.tile_updates / peak);
        cross + tiles
    }
}

impl Plan {
    /// What round `k` moves and computes, from its operations.
    pub fn round_cost(&self, k: usize) -> RoundCost {
        let mut c = RoundCost::default();
        let b3 = (self.block as f64).powi(3);
        for op in self.round_ops(k) {
            match op {
                Op::Copy {
                    from,
                    to,
                    rows,
                    cols,
                    ..
                } => {
                    let bytes = (rows * cols * 4) as u64;
                    match (from.buf, to.buf) {
                        (Buf::Host, Buf::Tile(_)) => c.tiles_in += bytes,
                        (Buf::Tile(_), Buf::Host) => c.tiles_out += bytes,
                        (Buf::Host, _) => c.cross_in += bytes,
                        _ => c.cross_out += bytes,
                    }
                }
                Op::Pivot { .. } => c.cross_updates += b3,
                Op::Update(u) => {
                    let blocks = (u.rows - usize::from(u.skip_row.is_some_and(|r| r < u.rows)))
                        * (u.cols - usize::from(u.skip_col.is_some_and(|r| r < u.cols)));
                    let n = (blocks * u.kblocks) as f64 * b3;
                    match u.own.buf {
                        Buf::Tile(_) => c.tile_updates += n,
                        _ => c.cross_updates += n,
                    }
                }
                Op::Join => {}
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_whose_blocks_read_each_others_output_is_refused() {
        let plan = Plan::new(64, 8, 2);
        let mut host = vec![0; plan.len_of(Buf::Host)];
        let mut bufs = Buffers {
            row: vec![0; plan.len_of(Buf::Row)],
            col: vec![0; plan.len_of(Buf::Col)],
            tiles: vec![vec![0; plan.len_of(Buf::Tile(0))]; LANES],
        };
        let origin = Rect {
            buf: Buf::Row,
            row: 0,
            col: 0,
        };
        let racy = Update {
            own: origin,
            a: origin,
            b: origin,
            rows: 1,
            cols: 2,
            kblocks: 1,
            skip_row: None,
            skip_col: None,
            lane: 0,
        };
        let err = update(&plan, &racy, &mut bufs, &mut host)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("a race: block (0, 1)"), "{err}");
        let fine = Update {
            skip_col: Some(0),
            ..racy
        };
        update(&plan, &fine, &mut bufs, &mut host).unwrap();
    }
}
