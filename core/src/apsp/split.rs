//! How `host apsp --gpus N` splits the distance matrix: contiguous block rows per GPU, and the
//! device memory that takes.
use std::ops::Range;

/// Splits `blocks` block rows into `parts` contiguous ranges, in order, as evenly as possible
/// (the first `blocks % parts` get one more). A part may be empty when `blocks < parts`.
pub fn block_rows(blocks: usize, parts: usize) -> Vec<Range<usize>> {
    assert!(parts > 0, "at least one part");
    let (base, extra) = (blocks / parts, blocks % parts);
    let mut start = 0;
    (0..parts)
        .map(|p| {
            let len = base + usize::from(p < extra);
            let r = start..start + len;
            start += len;
            r
        })
        .collect()
}

/// The part holding block row `block` (the owner of that round's pivot row).
pub fn owner(parts: &[Range<usize>], block: usize) -> usize {
    parts
        .iter()
        .position(|r| r.contains(&block))
        .unwrap_or_else(|| panic!("block row {block} is in no part"))
}

/// Device bytes one GPU needs: its `blocks` block rows of `block x pitch` i32 and two
/// pivot-row buffers of one block row each (the round's row and the next, which the look-ahead
/// receives while the current one is still read).
pub fn bytes_per_gpu(blocks: usize, block: usize, pitch: usize) -> usize {
    (blocks + PIVOT_BUFFERS) * block * pitch * 4
}

/// Pivot-row buffers per GPU: double-buffered for the look-ahead.
pub const PIVOT_BUFFERS: usize = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_contiguous_balanced_and_cover_everything() {
        for blocks in 0..40 {
            for parts in 1..9 {
                let p = block_rows(blocks, parts);
                assert_eq!(p.len(), parts);
                assert_eq!(p[0].start, 0);
                assert_eq!(p[parts - 1].end, blocks);
                for w in p.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                    assert!(w[0].len() >= w[1].len() && w[0].len() - w[1].len() <= 1);
                }
                for b in 0..blocks {
                    assert!(p[owner(&p, b)].contains(&b));
                }
            }
        }
        assert_eq!(block_rows(3, 4), vec![0..1, 1..2, 2..3, 3..3]);
        assert_eq!(block_rows(625, 2), vec![0..313, 313..625]);
    }

    #[test]
    fn memory_counts_two_pivot_rows() {
        assert_eq!(bytes_per_gpu(10, 64, 640), 12 * 64 * 640 * 4);
    }
}
