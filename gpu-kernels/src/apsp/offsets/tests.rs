//! The kernels' offset arithmetic at pitches beyond 2^32 cells, on the host: against 128-bit
//! arithmetic, and driving a model of the blocked schedule (one GPU and a split over several) on
//! small graphs laid out with the largest pitch each block factor allows, against a plain
//! Floyd–Warshall. CI thereby covers the 64-bit paths without tens of GB of memory.
use super::*;
use crate::apsp::{BLOCK_FACTORS, PITCH_ALIGN, format::INF};

/// The largest row pitch (a multiple of `PITCH_ALIGN`) whose block rows fit [`block_row_fits`].
fn max_pitch(block: u32) -> u32 {
    let p = (MAX_BLOCK_ROW_CELLS / block as u64) as u32;
    p - p % PITCH_ALIGN as u32
}

/// The offset of cell `(i, j)` of block `(bi, bj)` as the kernels compute it.
fn kernel_offset(block: u32, pitch: u32, bi: u32, bj: u32, i: u32, j: u32) -> usize {
    block_origin(block, pitch, bi, bj) + in_block(pitch, i, j) as usize
}

#[test]
fn block_row_fits_is_the_32_bit_bound() {
    for b in BLOCK_FACTORS {
        let p = max_pitch(b) as u64;
        assert!(block_row_fits(b, p) && !block_row_fits(b, p + PITCH_ALIGN as u64));
        assert!(b as u128 * (p + PITCH_ALIGN as u64) as u128 > u32::MAX as u128);
    }
    assert!(!block_row_fits(64, u64::MAX));
}

/// Every kind of offset at the corners of the largest matrices, and at V = 70000 and 200000,
/// equals the 128-bit `(row * pitch + col)`.
#[test]
fn offsets_equal_wide_arithmetic_beyond_2_32_cells() {
    for b in BLOCK_FACTORS {
        for pitch in [max_pitch(b), 70016, 200_000u32.next_multiple_of(64)] {
            assert!(block_row_fits(b, pitch as u64));
            // As many rows as columns, padded to the block factor: the matrix the host builds.
            let padded = pitch - pitch % b;
            let nb = padded / b;
            assert!(
                padded as u128 * pitch as u128 > 1 << 32,
                "B = {b}, pitch {pitch}"
            );
            let blocks = [0, 1, nb / 2, nb - 2, nb - 1];
            let cells = [0, 1, b / 2, b - 1];
            for bi in blocks {
                for bj in blocks {
                    for i in cells {
                        for j in cells {
                            let want = (bi * b + i) as u128 * pitch as u128 + (bj * b + j) as u128;
                            let got = kernel_offset(b, pitch, bi, bj, i, j);
                            assert_eq!(got as u128, want, "B = {b}, pitch {pitch}");
                        }
                    }
                }
            }
            // Rows as the init kernels address them, to the last cell of the padded matrix.
            for row in [0, 1, padded / 2, padded - 1] {
                for col in [0, 1, pitch - 1] {
                    let want = row as u128 * pitch as u128 + col as u128;
                    assert_eq!(cell(pitch, row, col) as u128, want);
                }
            }
            // The largest in-block offset: the last cell of a block row, still 32-bit.
            let last = in_block(pitch, b - 1, pitch - 1) as u128;
            assert_eq!(last, b as u128 * pitch as u128 - 1);
        }
    }
}

/// A `rows x pitch` matrix of which only the first `cols` columns are stored: the offsets the
/// kernels compute land on the cells they mean at any pitch, and a wrong one on another cell
/// (caught by the comparison) or outside the stored columns (a panic).
struct Sparse {
    pitch: usize,
    rows: usize,
    cols: usize,
    data: Vec<i32>,
}

impl Sparse {
    fn new(rows: usize, cols: usize, pitch: u32) -> Sparse {
        let data = vec![0; rows * cols];
        let pitch = pitch as usize;
        Sparse {
            pitch,
            rows,
            cols,
            data,
        }
    }

    fn at(&mut self, offset: usize) -> &mut i32 {
        let (r, c) = (offset / self.pitch, offset % self.pitch);
        assert!(
            r < self.rows && c < self.cols,
            "offset {offset} is cell ({r}, {c}), outside the {} x {} stored",
            self.rows,
            self.cols
        );
        &mut self.data[r * self.cols + c]
    }

    /// Block `(bi, bj)` (B x B, row-major), read through the kernels' offsets.
    fn block(&mut self, b: u32, bi: u32, bj: u32) -> Vec<i32> {
        let pitch = self.pitch as u32;
        let mut out = Vec::with_capacity((b * b) as usize);
        for i in 0..b {
            for j in 0..b {
                out.push(*self.at(kernel_offset(b, pitch, bi, bj, i, j)));
            }
        }
        out
    }

    fn store(&mut self, b: u32, bi: u32, bj: u32, cells: &[i32]) {
        let pitch = self.pitch as u32;
        for i in 0..b {
            for j in 0..b {
                *self.at(kernel_offset(b, pitch, bi, bj, i, j)) = cells[(i * b + j) as usize];
            }
        }
    }

    /// The init kernels on rows `row0..row0 + rows` of the whole matrix: INF, a zero diagonal,
    /// then the smallest weight of each edge leaving those rows.
    fn init(&mut self, row0: usize, edges: &[(usize, usize, i32)]) {
        let pitch = self.pitch as u32;
        for r in 0..self.rows {
            for c in 0..self.cols {
                let v = if row0 + r == c { 0 } else { INF };
                *self.at(cell(pitch, r as u32, c as u32)) = v;
            }
        }
        for &(s, d, w) in edges {
            if (row0..row0 + self.rows).contains(&s) {
                let x = self.at(cell(pitch, (s - row0) as u32, d as u32));
                *x = (*x).min(w);
            }
        }
    }
}

/// Phase 1 on a B x B block: the in-place k loop.
fn close(b: usize, p: &mut [i32]) {
    for k in 0..b {
        for i in 0..b {
            for j in 0..b {
                p[i * b + j] = p[i * b + j].min(p[i * b + k] + p[k * b + j]);
            }
        }
    }
}

/// `own = min(own, a ⊗ b)` on B x B blocks (phases 2 and 3 of the tile kernels).
fn update(b: usize, own: &mut [i32], a: &[i32], bb: &[i32]) {
    for i in 0..b {
        for k in 0..b {
            for j in 0..b {
                own[i * b + j] = own[i * b + j].min(a[i * b + k] + bb[k * b + j]);
            }
        }
    }
}

/// Blocked Floyd–Warshall on block rows split into `parts` (one "GPU" each, its own `Sparse`
/// of its rows, block row 0 = its first), with the pivot block row broadcast into a separate
/// one-block-row buffer per round, as `multi.rs` does; one part is the one-GPU schedule of
/// `fw.rs` (the pivot row read in place). Returns the V x V result.
fn blocked(
    b: u32,
    pitch: u32,
    v: usize,
    edges: &[(usize, usize, i32)],
    parts: &[std::ops::Range<u32>],
) -> Vec<i32> {
    let nb = v.div_ceil(b as usize) as u32;
    let padded = (nb * b) as usize;
    let bu = b as usize;
    let mut slices: Vec<Sparse> = parts
        .iter()
        .map(|p| {
            let rows = (p.len() * bu).max(1);
            let mut s = Sparse::new(rows, padded, pitch);
            if !p.is_empty() {
                s.init(p.start as usize * bu, edges);
            }
            s
        })
        .collect();
    for r in 0..nb {
        let g = parts.iter().position(|p| p.contains(&r)).unwrap();
        let lr = r - parts[g].start;
        // Owner: phase 1, then phase 2 along the pivot row.
        let s = &mut slices[g];
        let mut pivot = s.block(b, lr, r);
        close(bu, &mut pivot);
        s.store(b, lr, r, &pivot);
        for x in (0..nb).filter(|&x| x != r) {
            let mut own = s.block(b, lr, x);
            let old = own.clone();
            update(bu, &mut own, &pivot, &old);
            s.store(b, lr, x, &own);
        }
        // The broadcast: a one-block-row buffer, the pivot row at block row 0.
        let mut row = Sparse::new(bu, padded, pitch);
        for x in 0..nb {
            let blk = slices[g].block(b, lr, x);
            row.store(b, 0, x, &blk);
        }
        // Every part: phase 2 down its pivot column, then phase 3, reading the pivot row in
        // its own rows on the owner (as one GPU does) and from the buffer elsewhere.
        for (h, s) in slices.iter_mut().enumerate() {
            let owner = h == g;
            let pivot_row = |s: &mut Sparse, row: &mut Sparse, bj: u32| {
                if owner {
                    s.block(b, lr, bj)
                } else {
                    row.block(b, 0, bj)
                }
            };
            for li in (0..parts[h].len() as u32).filter(|&li| !(owner && li == lr)) {
                let mut own = s.block(b, li, r);
                let (old, p) = (own.clone(), pivot_row(s, &mut row, r));
                update(bu, &mut own, &old, &p);
                s.store(b, li, r, &own);
                for bj in (0..nb).filter(|&bj| bj != r) {
                    let mut own = s.block(b, li, bj);
                    let (c, p) = (s.block(b, li, r), pivot_row(s, &mut row, bj));
                    update(bu, &mut own, &c, &p);
                    s.store(b, li, bj, &own);
                }
            }
        }
    }
    let mut out = vec![0; v * v];
    for (p, s) in parts.iter().zip(&mut slices) {
        for li in 0..p.len() * bu {
            let i = p.start as usize * bu + li;
            if i < v {
                for j in 0..v {
                    out[i * v + j] = *s.at(cell(pitch, li as u32, j as u32));
                }
            }
        }
    }
    out
}

/// Plain Floyd–Warshall on the dense V x V matrix, the reference.
fn reference(v: usize, edges: &[(usize, usize, i32)]) -> Vec<i32> {
    let mut d: Vec<i32> = (0..v * v)
        .map(|c| if c / v == c % v { 0 } else { INF })
        .collect();
    for &(s, t, w) in edges {
        d[s * v + t] = d[s * v + t].min(w);
    }
    for k in 0..v {
        for i in 0..v {
            for j in 0..v {
                d[i * v + j] = d[i * v + j].min(d[i * v + k] + d[k * v + j]);
            }
        }
    }
    d
}

/// A reproducible random graph: `e` edges, no self-loops, weights 0..=1000, some repeated.
fn graph(v: usize, e: usize, seed: u64) -> Vec<(usize, usize, i32)> {
    let mut x = seed;
    let mut next = move |n: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) as usize) % n
    };
    (0..e)
        .map(|_| {
            let s = next(v);
            let t = (s + 1 + next(v - 1)) % v;
            (s, t, next(1001) as i32)
        })
        .collect()
}

/// Small graphs (three block rows, V not a multiple of B) laid out with the largest pitch of
/// each block factor, so that their offsets pass 2^32 cells: the one-GPU schedule and splits
/// over 2 and 3 "GPUs" (whose slices also pass 2^32 cells) equal plain Floyd–Warshall.
#[test]
fn blocked_schedule_through_the_kernel_offsets_at_the_largest_pitch() {
    for b in BLOCK_FACTORS {
        let v = 3 * b as usize - 5;
        let pitch = max_pitch(b);
        // The last row's offsets, in the one-GPU matrix and in the 2-way split's second slice
        // (starting at block row 1), pass 2^32.
        assert!(cell(pitch, (v - 1) as u32, 0) > u32::MAX as usize);
        assert!(cell(pitch, (v - 1 - b as usize) as u32, 0) > u32::MAX as usize);
        let edges = graph(v, 4 * v, b as u64);
        let want = reference(v, &edges);
        // Block rows split at these boundaries: one part (one GPU), two, three.
        for bounds in [&[0, 3][..], &[0, 1, 3], &[0, 1, 2, 3]] {
            let parts: Vec<_> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
            let got = blocked(b, pitch, v, &edges, &parts);
            assert!(got == want, "B = {b}, pitch {pitch}, parts {parts:?}");
        }
    }
}
