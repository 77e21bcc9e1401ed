//! Numbers for tables and axis ticks: about three significant digits, thousands separators, SI
//! prefixes for rates.

/// About three significant digits; thousands separators from 1000 up.
pub(super) fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let a = x.abs();
    if a >= 1000.0 {
        // `{:.0}` prints every digit of the integer part, however large (no saturating cast).
        let digits = format!("{a:.0}");
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        return if x < 0.0 {
            format!("-{grouped}")
        } else {
            grouped
        };
    }
    if a == 0.0 {
        return "0".into();
    }
    let mag = a.log10().floor() as i32;
    let decimals = (2 - mag).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// `fmt_num` without trailing zeros, for axis ticks.
pub(super) fn fmt_tick(x: f64) -> String {
    let s = fmt_num(x);
    if s.contains('.') && !s.contains(',') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Like `fmt_si`, for axis ticks.
pub(super) fn fmt_si_tick(x: f64) -> String {
    match fmt_si(x).split_once(' ') {
        Some((num, prefix)) => format!(
            "{} {prefix}",
            fmt_tick(num.replace(',', "").parse().unwrap_or(x))
        ),
        None => fmt_tick(x),
    }
}

/// SI prefix with about three significant digits: 1.23e11 -> "123 G".
pub(super) fn fmt_si(x: f64) -> String {
    const PREFIXES: [(f64, &str); 5] =
        [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    if !x.is_finite() || x == 0.0 {
        return fmt_num(x);
    }
    for (scale, p) in PREFIXES {
        if x.abs() >= scale {
            return format!("{} {p}", fmt_num(x / scale));
        }
    }
    fmt_num(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_num(18234.6), "18,235");
        assert_eq!(fmt_num(-1234.0), "-1,234");
        assert_eq!(fmt_num(123.4), "123");
        assert_eq!(fmt_num(1.234), "1.23");
        assert_eq!(fmt_num(0.01234), "0.0123");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_si(2.5e11), "250 G");
        assert_eq!(fmt_si(1.5e6), "1.50 M");
        assert_eq!(fmt_tick(2.50), "2.5");
        assert_eq!(fmt_si_tick(2.5e12), "2.5 T");
    }

    #[test]
    fn large_numbers_keep_their_digits() {
        // Past u128::MAX a saturating cast would print 340,282,366,...
        let s = fmt_num(1e40);
        assert_eq!(s.len(), 41 + 13, "{s}");
        assert!(s.starts_with("10,000,000,000,000,000,"), "{s}");
    }
}
