use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::matmul::reference::{check_with, random_matrix, reference};

/// `h` is a nearest representable value of `x` among `h`'s neighbours (decoded with `dec`,
/// independent of the encoder), and on a tie the one with the even significand.
fn is_nearest(x: f32, h: u16, dec: fn(u16) -> f32) -> bool {
    let v = f64::from(dec(h));
    let d = (v - f64::from(x)).abs();
    for nb in [h.wrapping_sub(1), h.wrapping_add(1)] {
        let w = f64::from(dec(nb));
        // Across zero or into NaN the neighbour is not on the same side; skip those.
        if !w.is_finite() || (nb & 0x7fff) == 0 || (nb & 0x8000) != (h & 0x8000) {
            continue;
        }
        let dn = (w - f64::from(x)).abs();
        if dn < d || (dn == d && h & 1 == 1) {
            return false;
        }
    }
    true
}

#[test]
fn sixteen_bit_values_round_trip() {
    for h in 0..=u16::MAX {
        let (b, f) = (bf16_to_f32(h), f16_to_f32(h));
        if b.is_nan() {
            assert!(bf16_to_f32(f32_to_bf16(b)).is_nan());
        } else {
            assert_eq!(f32_to_bf16(b), h, "bf16 {h:#06x}");
        }
        if f.is_nan() {
            assert!(f16_to_f32(f32_to_f16(f)).is_nan());
        } else {
            assert_eq!(f32_to_f16(f), h, "fp16 {h:#06x}");
        }
    }
}

#[test]
fn conversions_round_to_nearest_even() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for i in 0..200_000 {
        // Random bit patterns (every binade, subnormals included), then values near FP16's range.
        let x = if i % 2 == 0 {
            f32::from_bits(rng.r#gen::<u32>())
        } else {
            rng.gen_range(-70000.0f32..70000.0) * 2f32.powi(rng.gen_range(-30..1))
        };
        if !x.is_finite() {
            continue;
        }
        let b = f32_to_bf16(x);
        if bf16_to_f32(b).is_finite() {
            assert!(is_nearest(x, b, bf16_to_f32), "bf16 of {x:e}: {b:#06x}");
        }
        let h = f32_to_f16(x);
        if f16_to_f32(h).is_finite() {
            assert!(is_nearest(x, h, f16_to_f32), "fp16 of {x:e}: {h:#06x}");
        } else {
            // Overflow only from at least 65520 (half-way between 65504 and 2^16).
            assert!(x.abs() >= 65520.0, "{x}");
        }
    }
    // Ties: 1 + 2^-11 lies between 1 and 1 + 2^-10 (even: 1); 1 + 3·2^-11 rounds up to even.
    assert_eq!(f16_to_f32(f32_to_f16(1.0 + 2f32.powi(-11))), 1.0);
    assert_eq!(
        f16_to_f32(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11))),
        1.0 + 2.0 * 2f32.powi(-10)
    );
    assert_eq!(f16_to_f32(f32_to_f16(65519.0)), 65504.0);
    assert_eq!(f16_to_f32(f32_to_f16(65520.0)), f32::INFINITY);
    assert_eq!(f16_to_f32(f32_to_f16(2f32.powi(-25))), 0.0); // tie with 0: even
    assert_eq!(f16_to_f32(f32_to_f16(1.5 * 2f32.powi(-25))), 2f32.powi(-24));
    assert_eq!(bf16_to_f32(f32_to_bf16(1.0 + 2f32.powi(-8))), 1.0);
    assert_eq!(f32_to_bf16(f32::MAX), 0x7f80); // rounds up to infinity
    assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
    assert_eq!(f32_to_f16(-0.0), 0x8000);
}

#[test]
fn names_round_trip_and_16_bit_inputs_are_rounded_on_the_host() {
    for p in Precision::ALL {
        assert_eq!(Precision::from_name(p.name()), Some(p));
        assert_eq!(p.rounded_on_host(), p.input_bytes() == 2, "{p}");
        assert_eq!(encode_16(p, &[1.0]).is_some(), p.rounded_on_host(), "{p}");
    }
    assert_eq!(Precision::from_name("fp64"), None);
    assert_eq!(round_input(Precision::Tf32, 0.1), 0.1);
    assert_eq!(
        round_input(Precision::Bf16, 0.1),
        bf16_to_f32(f32_to_bf16(0.1))
    );
}

#[test]
fn bounds_order_the_precisions_and_grow_with_k() {
    for k in [1, 64, 4096, 16384] {
        let rel = |p: Precision| p.relative_bound(k);
        assert!(rel(Precision::Fp32) < rel(Precision::Tf32x3));
        assert!(rel(Precision::Tf32x3) < rel(Precision::Tf32));
        // 16-bit inputs are rounded on the host: accumulation error only.
        assert_eq!(rel(Precision::Bf16), rel(Precision::Fp16));
        assert!(rel(Precision::Bf16) < rel(Precision::Tf32));
        for p in Precision::ALL {
            assert!(rel(p) < p.relative_bound(4 * k), "{p}");
        }
    }
    // 3xTF32's input error is of f32's order (a few units of 2^-24), TF32's of 2^-10.
    assert!(Precision::Tf32x3.input_error() < 16.0 * U_F32);
    assert!(Precision::Tf32.input_error() > 2.0 * U_TF32);
}

/// Simulates each precision on the CPU (inputs rounded as the GPU rounds them, products summed
/// in f32) and checks the result against the f64 reference of the unrounded inputs under the
/// precision's bound; a dropped k-term fails it.
#[test]
fn simulated_products_meet_their_bounds_and_a_dropped_term_does_not() {
    let tf32 = |x: f32| {
        // Round to nearest (ties away, as cvt.rna) at 10 significand bits.
        f32::from_bits((x.to_bits() + 0x1000) & !0x1fff)
    };
    let (m, n, k) = (8, 8, 96);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let a = random_matrix(m, k, &mut rng);
    let b = random_matrix(k, n, &mut rng);
    for p in Precision::ALL {
        let (ar, br): (Vec<f32>, Vec<f32>) = (
            a.iter().map(|&x| round_input(p, x)).collect(),
            b.iter().map(|&x| round_input(p, x)).collect(),
        );
        let prod = |x: f32, y: f32| -> f32 {
            match p {
                Precision::Tf32 => tf32(x) * tf32(y),
                Precision::Tf32x3 => {
                    let (xh, yh) = (tf32(x), tf32(y));
                    let (xl, yl) = (tf32(x - xh), tf32(y - yh));
                    xl * yh + xh * yl + xh * yh
                }
                _ => x * y,
            }
        };
        let mut c = vec![0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).fold(0f32, |s, l| s + prod(ar[i * k + l], br[l * n + j]));
            }
        }
        let re = reference(&ar, &br, m, n, k, None);
        let tol = p.tolerance(k);
        let ok = check_with(&c, &re, tol);
        assert!(ok.passed(), "{p}: {ok:?}");
        let stats = error_stats(&c, &re);
        assert!(
            stats.max <= tol.rel + 1e-9 && stats.p50 <= stats.max,
            "{p}: {stats:?}"
        );
        // Drop term l = 5 from every cell.
        let bad: Vec<f32> = (0..m * n)
            .map(|x| c[x] - prod(ar[(x / n) * k + 5], br[5 * n + x % n]))
            .collect();
        assert!(check_with(&bad, &re, tol).failures > 0, "{p}");
    }
}
