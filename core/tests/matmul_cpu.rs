//! CPU SGEMM ladder, padding and f64 reference: every variant against the reference on awkward
//! shapes, plus the reference's own checks (naive f64 loop, missing k-term, NaN/Inf rules).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::cpu::{self, Variant};
use rgk_core::matmul::pad::{pad, round_up, unpad};
use rgk_core::matmul::reference::{
    Check, Reference, check, random_matrix, reference, sample_rows, scaled_error,
};

/// A (m x k) and B (k x n), uniform in [-1, 1).
fn problem(m: usize, n: usize, k: usize, seed: u64) -> (Vec<f32>, Vec<f32>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let a = random_matrix(m, k, &mut rng);
    let b = random_matrix(k, n, &mut rng);
    (a, b)
}

fn naive_f64(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += f64::from(a[i * k + p]) * f64::from(b[p * n + j]);
            }
        }
    }
    c
}

/// Runs every variant on C pre-filled with garbage and checks it against the full reference.
fn all_variants_pass(m: usize, n: usize, k: usize, seed: u64) {
    let (a, b) = problem(m, n, k, seed);
    let want = reference(&a, &b, m, n, k, None);
    for v in Variant::ALL {
        let mut c = vec![12345.0f32; m * n];
        (v.run())(&a, &b, &mut c, m, n, k);
        let r = check(&c, &want);
        assert_eq!(r.checked, m * n, "{v}");
        assert!(
            r.passed(),
            "{v} on m={m} n={n} k={k}: {} failures, max scaled error {}, worst {:?}",
            r.failures,
            r.max_scaled_error,
            r.worst
        );
    }
}

// ---- pad / unpad ----

#[test]
fn pad_unpad_round_trip_when_padded_equals_actual() {
    let (a, _) = problem(5, 1, 7, 1); // a is 5 x 7
    let p = pad(&a, 5, 7, 5, 7);
    assert_eq!(p, a);
    assert_eq!(unpad(&p, 5, 7, 5, 7), a);
}

#[test]
fn pad_unpad_round_trip_random_odd_shapes() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..50 {
        let rows = rng.gen_range(1..40usize) | 1;
        let cols = rng.gen_range(1..40usize) | 1;
        let tile = [1usize, 8, 16, 32, 64][rng.gen_range(0..5)];
        let (pr, pc) = (round_up(rows, tile), round_up(cols, tile));
        let src = random_matrix(rows, cols, &mut rng);
        let p = pad(&src, rows, cols, pr, pc);
        assert_eq!(p.len(), pr * pc);
        for r in 0..pr {
            for c in 0..pc {
                if r >= rows || c >= cols {
                    assert_eq!(p[r * pc + c], 0.0, "padding at ({r}, {c})");
                }
            }
        }
        assert_eq!(
            unpad(&p, pr, pc, rows, cols),
            src,
            "{rows} x {cols} -> {pr} x {pc}"
        );
    }
}

#[test]
fn padded_product_equals_unpadded_product() {
    // Zero padding in k adds nothing, padding in m and n only adds rows and columns.
    let (m, n, k) = (13, 7, 9);
    let (a, b) = problem(m, n, k, 3);
    let (pm, pn, pk) = (round_up(m, 8), round_up(n, 8), round_up(k, 8));
    let ap = pad(&a, m, k, pm, pk);
    let bp = pad(&b, k, n, pk, pn);
    let mut cp = vec![0.0; pm * pn];
    cpu::reorder_ikj(&ap, &bp, &mut cp, pm, pn, pk);
    let c = unpad(&cp, pm, pn, m, n);
    let r = check(&c, &reference(&a, &b, m, n, k, None));
    assert!(r.passed(), "{r:?}");
}

// ---- reference ----

#[test]
fn reference_matches_naive_f64_loop() {
    let (m, n, k) = (23, 19, 31);
    let (a, b) = problem(m, n, k, 4);
    let want = naive_f64(&a, &b, m, n, k);
    let got = reference(&a, &b, m, n, k, None);
    assert_eq!(got.rows, (0..m).collect::<Vec<_>>());
    assert_eq!(got.n, n);
    for i in 0..m {
        for j in 0..n {
            let (g, w) = (got.c[i * n + j], want[i * n + j]);
            let bound: f64 = (0..k)
                .map(|p| f64::from(a[i * k + p]).abs() * f64::from(b[p * n + j]).abs())
                .sum();
            assert!((g - w).abs() <= 1e-9 * bound, "c ({i}, {j}): {g} vs {w}");
            let gb = got.bound[i * n + j];
            assert!(
                (gb - bound).abs() <= 1e-9 * bound,
                "bound ({i}, {j}): {gb} vs {bound}"
            );
        }
    }
}

#[test]
fn reference_row_subset_equals_full_rows() {
    let (m, n, k) = (40, 9, 11);
    let (a, b) = problem(m, n, k, 5);
    let full = reference(&a, &b, m, n, k, None);
    let rows = sample_rows(m, 7, 99);
    let sub = reference(&a, &b, m, n, k, Some(&rows));
    assert_eq!(sub.rows, rows);
    for (ri, &i) in rows.iter().enumerate() {
        for j in 0..n {
            assert!((sub.c[ri * n + j] - full.c[i * n + j]).abs() < 1e-12);
            assert!((sub.bound[ri * n + j] - full.bound[i * n + j]).abs() < 1e-12);
        }
    }
    // A result correct on the sampled rows passes the sampled check even if other rows are junk.
    let mut c: Vec<f32> = full.c.iter().map(|&x| x as f32).collect();
    let unsampled = (0..m).find(|i| !rows.contains(i)).unwrap();
    c[unsampled * n] = 1e6;
    assert!(check(&c, &sub).passed());
    assert!(!check(&c, &full).passed());
}

#[test]
fn missing_k_term_fails_check() {
    let (m, n, k) = (64, 64, 64);
    let (a, b) = problem(m, n, k, 6);
    let want = reference(&a, &b, m, n, k, None);
    let exact: Vec<f32> = want.c.iter().map(|&x| x as f32).collect();
    assert!(
        check(&exact, &want).passed(),
        "the rounded exact product must pass"
    );

    let dropped = 17;
    let mut missing = naive_f64(&a, &b, m, n, k);
    for i in 0..m {
        for j in 0..n {
            missing[i * n + j] -= f64::from(a[i * k + dropped]) * f64::from(b[dropped * n + j]);
        }
    }
    let missing: Vec<f32> = missing.iter().map(|&x| x as f32).collect();
    let r = check(&missing, &want);
    assert!(!r.passed());
    // Only cells where a_ik * b_kj is tiny (about 0.2% of them) can hide the missing term.
    assert!(
        r.failures * 10 >= r.checked * 9,
        "{} of {} cells fail",
        r.failures,
        r.checked
    );
    assert!(r.max_scaled_error > 100.0, "{}", r.max_scaled_error);
}

#[test]
fn nan_in_a_propagates_to_its_row() {
    let (m, n, k) = (9, 21, 13);
    let (mut a, b) = problem(m, n, k, 7);
    let bad_row = 4;
    a[bad_row * k + 5] = f32::NAN;
    let want = reference(&a, &b, m, n, k, None);
    for j in 0..n {
        assert!(want.c[bad_row * n + j].is_nan());
    }
    for v in Variant::ALL {
        let mut c = vec![0.0; m * n];
        (v.run())(&a, &b, &mut c, m, n, k);
        for i in 0..m {
            for j in 0..n {
                assert_eq!(c[i * n + j].is_nan(), i == bad_row, "{v} ({i}, {j})");
            }
        }
        let r = check(&c, &want);
        assert!(r.passed(), "{v}: {r:?}");
    }
    // A NaN-free value where the reference is NaN fails.
    let mut c: Vec<f32> = want.c.iter().map(|&x| x as f32).collect();
    c[bad_row * n + 3] = 0.0;
    assert_eq!(check(&c, &want).failures, 1);
}

#[test]
fn inf_in_a_gives_signed_inf_in_its_row() {
    let (m, n, k) = (8, 18, 10);
    let (mut a, mut b) = problem(m, n, k, 8);
    let (bad_row, p) = (3, 6);
    a[bad_row * k + p] = f32::INFINITY;
    // Keep B's row p away from zero so that no Inf * 0 = NaN appears.
    for x in &mut b[p * n..(p + 1) * n] {
        if x.abs() < 0.1 {
            *x = 0.5;
        }
    }
    let want = reference(&a, &b, m, n, k, None);
    for j in 0..n {
        let w = want.c[bad_row * n + j];
        assert!(w.is_infinite() && w.signum() == f64::from(b[p * n + j]).signum());
    }
    for v in Variant::ALL {
        let mut c = vec![0.0; m * n];
        (v.run())(&a, &b, &mut c, m, n, k);
        let r = check(&c, &want);
        assert!(r.passed(), "{v}: {r:?}");
    }
    // Wrong sign, a finite value, or NaN where the reference is Inf: each fails.
    let good: Vec<f32> = want.c.iter().map(|&x| x as f32).collect();
    for bad in [-good[bad_row * n], f32::MAX, f32::NAN] {
        let mut c = good.clone();
        c[bad_row * n] = bad;
        let r = check(&c, &want);
        assert_eq!(r.failures, 1, "{bad}");
        assert_eq!(r.max_scaled_error, f64::INFINITY);
        assert_eq!(r.worst.map(|w| (w.0, w.1)), Some((bad_row, 0)));
    }
    // Inf or NaN where the reference is finite fails too.
    for bad in [f32::INFINITY, f32::NAN] {
        let mut c = good.clone();
        c[0] = bad;
        assert_eq!(check(&c, &want).failures, 1, "{bad}");
    }
}

#[test]
fn check_on_hand_built_reference() {
    let reference = Reference {
        rows: vec![0, 2],
        n: 2,
        c: vec![1.0, f64::NAN, f64::NEG_INFINITY, 0.0],
        bound: vec![10.0, f64::NAN, f64::INFINITY, 0.0],
    };
    let c = [1.00005, f32::NAN, 7.0, 7.0, f32::NEG_INFINITY, 2e-6];
    let r: Check = check(&c, &reference);
    assert_eq!(r.checked, 4);
    assert_eq!(r.failures, 1);
    assert_eq!(r.worst, Some((2, 1, 2e-6, 0.0)));
    assert!((r.max_scaled_error - scaled_error(2e-6, 0.0, 0.0)).abs() < 1e-9);
    assert!(r.max_scaled_error > 1.0 && r.max_scaled_error < 3.0);
}

#[test]
fn sample_rows_properties() {
    for m in [2usize, 3, 10, 1000] {
        for count in [0usize, 1, 2, 5, 10, 2000] {
            let rows = sample_rows(m, count, 42);
            assert_eq!(rows.len(), count.clamp(2, m), "m={m} count={count}");
            assert!(rows.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
            assert!(rows.iter().all(|&r| r < m));
            assert_eq!(rows[0], 0);
            assert_eq!(*rows.last().unwrap(), m - 1);
            assert_eq!(rows, sample_rows(m, count, 42), "deterministic");
        }
    }
    assert_ne!(sample_rows(1000, 10, 1), sample_rows(1000, 10, 2));
    assert_eq!(sample_rows(1, 5, 0), vec![0]);
    assert!(sample_rows(0, 5, 0).is_empty());
}

// ---- CPU variants; shapes are written m x n x k (A is m x k, B is k x n) ----

#[test]
fn variants_1x1x1() {
    all_variants_pass(1, 1, 1, 10);
}

#[test]
fn variants_m17_n33_k5() {
    all_variants_pass(17, 33, 5, 11);
}

#[test]
fn variants_64x64x64() {
    all_variants_pass(64, 64, 64, 12);
}

/// Also the "f32 rounding stays inside the bound" test: naive_ijk sums k = 511 terms in order.
#[test]
fn variants_m257_n129_k511() {
    all_variants_pass(257, 129, 511, 13);
}

#[test]
fn variants_thin_and_empty_shapes() {
    for (m, n, k) in [
        (1, 40, 3),
        (40, 1, 3),
        (3, 5, 1),
        (7, 3, 0),
        (0, 4, 4),
        (4, 0, 4),
    ] {
        all_variants_pass(m, n, k, 14);
    }
}

#[test]
fn variant_names_are_the_ladder() {
    // These names are the CLI's `--variant` values and the JSON records' `variant` field.
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    assert_eq!(
        names,
        [
            "naive_ijk",
            "reorder_ikj",
            "blocked16",
            "blocked32",
            "blocked64",
            "simd_avx2",
            "threaded_static",
            "threaded_rayon",
            "nalgebra"
        ]
    );
}

/// The static split on shapes whose row-block count is not a multiple of the thread count
/// (one thread gets a block more, or none), each checked in full.
#[test]
fn threaded_static_on_uneven_row_blocks() {
    for (m, n, k) in [(73, 19, 7), (145, 40, 257), (433, 17, 33)] {
        let (a, b) = problem(m, n, k, 15);
        let want = reference(&a, &b, m, n, k, None);
        let mut c = vec![f32::NAN; m * n];
        cpu::threaded_static(&a, &b, &mut c, m, n, k);
        let r = check(&c, &want);
        assert!(r.passed(), "{m}x{n}x{k}: {r:?}");
    }
}

#[test]
fn unknown_variant_name_is_rejected() {
    let err = "threaded".parse::<Variant>().unwrap_err().to_string();
    assert!(err.contains("`threaded`"), "{err}");
    assert!("threaded_static".parse::<Variant>().is_ok());
}

#[test]
fn run_ladder_small() {
    let rows = cpu::run_ladder(None, &[24, 37], 2, 5, &mut |_| {}).unwrap();
    assert_eq!(rows.len(), 2 * Variant::ALL.len());
    for r in &rows {
        assert!(r.median_s > 0.0 && r.gflops > 0.0, "{r:?}");
        assert!(r.max_scaled_error <= 1.0, "{r:?}");
        let want = 2.0 * (r.size as f64).powi(3) / r.median_s / 1e9;
        assert!((r.gflops - want).abs() <= 1e-9 * want);
    }
    let json = serde_json::to_string(&rows).unwrap();
    assert!(json.contains("\"variant\":\"threaded_static\""));
}

#[test]
fn run_ladder_and_run_once_take_only_the_selected_variants() {
    let only = [Variant::ThreadedRayon, Variant::Blocked32];
    let rows = cpu::run_ladder(Some(&only), &[20, 9], 1, 3, &mut |_| {}).unwrap();
    let got: Vec<(Variant, usize)> = rows.iter().map(|r| (r.variant, r.size)).collect();
    assert_eq!(
        got,
        [
            (Variant::ThreadedRayon, 20),
            (Variant::Blocked32, 20),
            (Variant::ThreadedRayon, 9),
            (Variant::Blocked32, 9)
        ]
    );
    let once = cpu::run_once(Some(&only[1..]), &[30], 3);
    assert_eq!(once.len(), 1);
    assert_eq!((once[0].variant, once[0].size), (Variant::Blocked32, 30));
    assert!(once[0].seconds > 0.0);
    assert!(cpu::run_once(Some(&[]), &[30], 3).is_empty());
}
