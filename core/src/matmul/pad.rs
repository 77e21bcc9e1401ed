//! Zero padding of row-major matrices up to tile multiples, and the way back.

/// Smallest multiple of `multiple` that is `>= x`.
pub fn round_up(x: usize, multiple: usize) -> usize {
    assert!(multiple > 0, "round_up: multiple must be > 0");
    x.div_ceil(multiple) * multiple
}

/// Copies a `rows x cols` matrix into the top-left of a zeroed `padded_rows x padded_cols` one.
pub fn pad(
    src: &[f32],
    rows: usize,
    cols: usize,
    padded_rows: usize,
    padded_cols: usize,
) -> Vec<f32> {
    assert_eq!(src.len(), rows * cols, "pad: src is not {rows} x {cols}");
    assert!(
        padded_rows >= rows && padded_cols >= cols,
        "pad: {padded_rows} x {padded_cols} is smaller than {rows} x {cols}"
    );
    let mut out = vec![0.0; padded_rows * padded_cols];
    if cols > 0 {
        for (dst, row) in out
            .chunks_exact_mut(padded_cols)
            .zip(src.chunks_exact(cols))
        {
            dst[..cols].copy_from_slice(row);
        }
    }
    out
}

/// Takes the top-left `rows x cols` block out of a `padded_rows x padded_cols` matrix.
pub fn unpad(
    src: &[f32],
    padded_rows: usize,
    padded_cols: usize,
    rows: usize,
    cols: usize,
) -> Vec<f32> {
    assert_eq!(
        src.len(),
        padded_rows * padded_cols,
        "unpad: src is not {padded_rows} x {padded_cols}"
    );
    assert!(
        padded_rows >= rows && padded_cols >= cols,
        "unpad: {padded_rows} x {padded_cols} is smaller than {rows} x {cols}"
    );
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        out.extend_from_slice(&src[r * padded_cols..r * padded_cols + cols]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_up_is_smallest_multiple_not_below() {
        for multiple in [1, 2, 7, 16, 64] {
            for x in 0..200 {
                let r = round_up(x, multiple);
                assert_eq!(r % multiple, 0);
                assert!(
                    r >= x && r < x + multiple,
                    "round_up({x}, {multiple}) = {r}"
                );
            }
        }
    }

    #[test]
    fn pad_puts_zeros_outside_and_values_inside() {
        let src: Vec<f32> = (1..=6).map(|v| v as f32).collect(); // 2 x 3
        let p = pad(&src, 2, 3, 3, 5);
        for r in 0..3 {
            for c in 0..5 {
                let want = if r < 2 && c < 3 { src[r * 3 + c] } else { 0.0 };
                assert_eq!(p[r * 5 + c], want, "cell ({r}, {c})");
            }
        }
    }

    #[test]
    #[should_panic(expected = "smaller")]
    fn pad_rejects_smaller_target() {
        pad(&[1.0; 6], 2, 3, 2, 2);
    }

    #[test]
    #[should_panic(expected = "smaller")]
    fn unpad_rejects_larger_target() {
        unpad(&[1.0; 6], 2, 3, 3, 3);
    }
}
