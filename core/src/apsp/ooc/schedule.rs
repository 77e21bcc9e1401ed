//! The operations of one pivot super-block, in the order they run: copies between the host
//! matrix and the device buffers, phase 1 on one block, and the one (min, +) block update of
//! the out-of-core kernel (`gpu_kernels::apsp::FwOocConfig`). Lane `l` is the GPU runner's
//! stream `l`: operations of one lane run in order, lanes only meet at [`Op::Join`].
use std::ops::Range;

use super::Plan;

/// Streams (and tile buffers): one tile's copies overlap the other's compute.
pub const LANES: usize = 2;

/// Where cells live: the host matrix or one of the device buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buf {
    Host,
    /// The pivot super-row: S block rows, every column.
    Row,
    /// The pivot super-column: every block row (those of the pivot super-row unused), S block
    /// columns.
    Col,
    /// One super-block streaming through lane `l`.
    Tile(usize),
}

/// The cell at `(row, col)` of a buffer: the top-left corner of what an operation touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rect {
    pub buf: Buf,
    pub row: usize,
    pub col: usize,
}

/// `own(i, j) = min(own(i, j), ⊗_{k < kblocks} a(i, k) ⊗ b(k, j))` for the `rows x cols`
/// blocks of a grid, block `(i, j)` of `own` at `own + (i B, j B)` (likewise `a` and `b`),
/// except block row `skip_row` and block column `skip_col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    pub own: Rect,
    pub a: Rect,
    pub b: Rect,
    pub rows: usize,
    pub cols: usize,
    pub kblocks: usize,
    pub skip_row: Option<usize>,
    pub skip_col: Option<usize>,
    pub lane: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `rows x cols` cells from `from` to `to` (one of them the host) on `lane`.
    Copy {
        from: Rect,
        to: Rect,
        rows: usize,
        cols: usize,
        lane: usize,
    },
    /// Phase 1: closes the block at `at` (lane 0).
    Pivot {
        at: Rect,
    },
    Update(Update),
    /// Every lane waits for what the others have queued so far.
    Join,
}

impl Plan {
    /// The operations of pivot super-block `k`, in order.
    pub fn round_ops(&self, k: usize) -> Vec<Op> {
        let mut ops = Vec::new();
        let b = self.block;
        let ks = self.blocks_of(k);
        let sk = ks.len();
        let at = |buf, row, col| Rect { buf, row, col };
        let (host, row, col) = (Buf::Host, Buf::Row, Buf::Col);
        // Block rows outside the pivot super-row: the rows of `Col` that are used.
        let outside: Vec<Range<usize>> = [0..ks.start, ks.end..self.blocks]
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect();
        let copy = |from, to, rows, cols, lane| Op::Copy {
            from,
            to,
            rows,
            cols,
            lane,
        };
        // 1. The cross to the GPU.
        ops.push(copy(
            at(host, ks.start * b, 0),
            at(row, 0, 0),
            sk * b,
            self.padded,
            0,
        ));
        for r in &outside {
            let (from, to) = (at(host, r.start * b, ks.start * b), at(col, r.start * b, 0));
            ops.push(copy(from, to, r.len() * b, sk * b, 0));
        }
        // 2. The rounds of k on the cross, as in core.
        let update = |own, a, b, rows, cols, skip_row, skip_col| {
            Op::Update(Update {
                own,
                a,
                b,
                rows,
                cols,
                kblocks: 1,
                skip_row,
                skip_col,
                lane: 0,
            })
        };
        for (kb, r) in ks.clone().enumerate() {
            let pivot = at(row, kb * b, r * b);
            ops.push(Op::Pivot { at: pivot });
            // Phase 2, pivot row: own = min(own, P ⊗ own).
            let prow = at(row, kb * b, 0);
            ops.push(update(prow, pivot, prow, 1, self.blocks, None, Some(r)));
            // Phase 2, pivot column: own = min(own, own ⊗ P), in `Row` and in `Col`.
            let pcol = at(row, 0, r * b);
            ops.push(update(pcol, pcol, pivot, sk, 1, Some(kb), None));
            for rs in &outside {
                let c = at(col, rs.start * b, kb * b);
                ops.push(update(c, c, pivot, rs.len(), 1, None, None));
            }
            // Phase 3 on the rest of the cross: own = min(own, C ⊗ R).
            ops.push(update(
                at(row, 0, 0),
                pcol,
                prow,
                sk,
                self.blocks,
                Some(kb),
                Some(r),
            ));
            for rs in &outside {
                let (own, c) = (at(col, rs.start * b, 0), at(col, rs.start * b, kb * b));
                let prow_k = at(row, kb * b, ks.start * b);
                ops.push(update(own, c, prow_k, rs.len(), sk, None, Some(kb)));
            }
        }
        ops.push(Op::Join);
        // 3. The cross back to the host, on lane 0 while lane 1 streams the first tile in.
        ops.push(copy(
            at(row, 0, 0),
            at(host, ks.start * b, 0),
            sk * b,
            self.padded,
            0,
        ));
        for r in &outside {
            let (from, to) = (at(col, r.start * b, 0), at(host, r.start * b, ks.start * b));
            ops.push(copy(from, to, r.len() * b, sk * b, 0));
        }
        // 4. Every other super-block through the tiles: D(I, J) = min(D(I, J), D(I, K) ⊗ D(K, J)).
        let mut t = 0;
        for i in (0..self.count()).filter(|&i| i != k) {
            for j in (0..self.count()).filter(|&j| j != k) {
                let lane = (t + 1) % LANES;
                t += 1;
                let (is, js) = (self.blocks_of(i), self.blocks_of(j));
                let (h, tile) = (
                    at(host, is.start * b, js.start * b),
                    at(Buf::Tile(lane), 0, 0),
                );
                ops.push(copy(h, tile, is.len() * b, js.len() * b, lane));
                ops.push(Op::Update(Update {
                    own: tile,
                    a: at(col, is.start * b, 0),
                    b: at(row, 0, js.start * b),
                    rows: is.len(),
                    cols: js.len(),
                    kblocks: sk,
                    skip_row: None,
                    skip_col: None,
                    lane,
                }));
                ops.push(copy(tile, h, is.len() * b, js.len() * b, lane));
            }
        }
        // The next pivot's cross overwrites what the tiles read.
        ops.push(Op::Join);
        ops
    }
}
