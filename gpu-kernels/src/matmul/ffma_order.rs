//! The order of the FMAs of one k-step of a flagship thread tile, which decides how many FFMAs
//! ptxas leaves reading two operands from one register bank (docs/matmul.md).

/// The `l`-th FMA of a k-step: which (row, column) of the `rm x rn` thread tile it updates.
///
/// Order 0: column by column, the rows walking down and up in turn: each B value then feeds
/// `rm` consecutive FMAs (the operand reuse cache holds it), and ptxas leaves the fewest FMAs that
/// read two operands from one register bank. Measured on the H200 at 4096 (docs/matmul.md):
/// 99.0% of cuBLAS for the 128x256 tile against 94.8% row by row; other orders (row-serpentine,
/// row pairs, 4x4 blocks, interleaved groups) were in between or worse. Orders 1 and 2 are
/// candidates for `host tune`: 1 zig-zags over pairs of columns (each FMA shares one operand
/// with the one before, A and B in turn), 2 is order 0 with the columns of the two 4-column
/// groups interleaved (0, 4, 1, 5, …). Order 3 is [`ORDER_3`], for 16x8 tiles only.
pub(super) const fn ffma_order(l: usize, rm: usize, rn: usize, ord: u32) -> (usize, usize) {
    match ord {
        3 => (ORDER_3[l].0 as usize, ORDER_3[l].1 as usize),
        1 => {
            let (p, i) = (l / (2 * rm), l % (2 * rm));
            let (ri, j) = (i / 2, i % 2);
            let row = if p % 2 == 0 { ri } else { rm - 1 - ri };
            (row, 2 * p + if ri % 2 == 0 { j } else { 1 - j })
        }
        2 => {
            let (c, r) = (l / rm, l % rm);
            let col = (c % 2) * (rn / 2) + c / 2;
            (if c % 2 == 0 { r } else { rm - 1 - r }, col)
        }
        _ => {
            let (c, r) = (l / rm, l % rm);
            (if c % 2 == 0 { r } else { rm - 1 - r }, c)
        }
    }
}

/// The (row, column) of each FMA of a k-step of a 16x8 thread tile, in the order with the fewest
/// FFMAs reading two operands from one register bank that scripts/ffma-bank-search.py found
/// for the stream-K kernel (15 hill-climbs of 400 s on ptxas 13.0's sm_90 SASS of
/// `sgemm_128x256x8_s4_16x8`, seeded with order 0 and the previous table: 116 → 65 conflicted
/// FFMAs per k-slice; docs/matmul.md). Machine-found, so no pattern to read. The count depends
/// on all of the kernel's code, so a change elsewhere in the kernel calls for a new search.
const ORDER_3: [(u8, u8); 128] = [
    (1, 1),
    (8, 1),
    (2, 0),
    (4, 0),
    (1, 3),
    (5, 4),
    (14, 1),
    (11, 0),
    (7, 4),
    (5, 1),
    (13, 1),
    (7, 1),
    (15, 3),
    (4, 2),
    (6, 0),
    (1, 4),
    (11, 1),
    (3, 1),
    (12, 0),
    (7, 0),
    (10, 2),
    (15, 1),
    (5, 0),
    (0, 0),
    (0, 2),
    (1, 2),
    (6, 1),
    (14, 2),
    (13, 2),
    (8, 0),
    (11, 2),
    (9, 1),
    (9, 2),
    (10, 0),
    (3, 2),
    (7, 2),
    (6, 2),
    (12, 1),
    (8, 2),
    (2, 2),
    (3, 0),
    (14, 3),
    (5, 2),
    (4, 3),
    (15, 2),
    (3, 3),
    (9, 3),
    (2, 1),
    (0, 1),
    (8, 3),
    (12, 2),
    (7, 3),
    (6, 3),
    (5, 3),
    (14, 0),
    (2, 3),
    (9, 0),
    (10, 3),
    (11, 3),
    (12, 3),
    (1, 0),
    (0, 3),
    (0, 4),
    (10, 1),
    (13, 3),
    (2, 4),
    (15, 0),
    (3, 4),
    (9, 4),
    (8, 4),
    (4, 1),
    (6, 4),
    (13, 0),
    (4, 4),
    (10, 4),
    (11, 4),
    (12, 4),
    (13, 4),
    (14, 4),
    (15, 4),
    (15, 5),
    (11, 5),
    (13, 5),
    (12, 5),
    (14, 5),
    (10, 5),
    (9, 5),
    (8, 5),
    (7, 5),
    (6, 5),
    (5, 5),
    (3, 5),
    (2, 5),
    (4, 5),
    (1, 5),
    (0, 5),
    (0, 6),
    (1, 6),
    (2, 6),
    (3, 6),
    (4, 6),
    (5, 6),
    (6, 6),
    (7, 6),
    (8, 6),
    (9, 6),
    (10, 6),
    (11, 6),
    (12, 6),
    (13, 6),
    (14, 6),
    (15, 6),
    (15, 7),
    (14, 7),
    (13, 7),
    (8, 7),
    (9, 7),
    (10, 7),
    (11, 7),
    (12, 7),
    (7, 7),
    (6, 7),
    (5, 7),
    (4, 7),
    (3, 7),
    (2, 7),
    (1, 7),
    (0, 7),
];

/// Whether `ffma_order` visits every (row, column) of an `rm x rn` tile exactly once.
pub(super) const fn order_is_permutation(rm: usize, rn: usize, ord: u32) -> bool {
    let mut seen = [false; 256];
    let mut l = 0;
    while l < rm * rn {
        let (r, c) = ffma_order(l, rm, rn, ord);
        if r >= rm || c >= rn || seen[r * rn + c] {
            return false;
        }
        seen[r * rn + c] = true;
        l += 1;
    }
    rm * rn <= 256
}
