//! GPU tests for the float Floyd–Warshall kernels (f32, f64) against the CPU reference
//! `rgk_core::minplus::floyd_warshall`. Without a GPU they print "SKIPPED …" and pass.
use gpu_kernels::apsp::float::{fw_float_config, fw_float_config_nonneg, fw_float_variants};
use host::{
    Error,
    apsp::{
        float::{
            GpuWeight, Plan, solve_dense, solve_dense_reweighted, solve_dense_with,
            solve_dense_with_blocks,
        },
        float_bench::{Signs, bench},
        float_peak::{addmin_peak, addmin_peak_nonneg},
        float_reweight::REWEIGHT_MIN_V,
    },
    gpu::gpu_for_test,
};
use std::ops::Neg;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::minplus::{Weight, floyd_warshall};

/// A random graph with integer weights in -3..=20 on edges `u -> v` with u < v (a DAG, so no
/// negative cycle) plus non-negative back edges, +inf elsewhere and 0 on the diagonal. Integer
/// weights make every sum exact in both types, so GPU and CPU must agree bit for bit.
fn random_matrix<W: Weight + From<i16>>(n: usize, p: f64, seed: u64) -> Vec<W> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut d = vec![W::INF; n * n];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                d[i * n + j] = W::ZERO;
            } else if rng.gen_bool(p) {
                // Back edges at least 3·n so that no cycle through them is negative.
                let w: i16 = if i < j {
                    rng.gen_range(-3..=20)
                } else {
                    rng.gen_range(0..=20) + 3 * n as i16
                };
                d[i * n + j] = W::from(w);
            }
        }
    }
    d
}

/// [`random_matrix`] with every negative weight negated: the domain of the `nonneg` kernels
/// (+0 ..= +inf), with the same edges.
fn nonneg_matrix<W: Weight + From<i16> + Neg<Output = W>>(n: usize, p: f64, seed: u64) -> Vec<W> {
    random_matrix::<W>(n, p, seed)
        .into_iter()
        .map(|w| if w < W::ZERO { -w } else { w })
        .collect()
}

fn assert_rows_equal<W: PartialEq + std::fmt::Debug>(
    got: &[W],
    want: &[W],
    n: usize,
    weight: &str,
    variant: &str,
) {
    for i in 0..n {
        assert_eq!(
            got[i * n..(i + 1) * n],
            want[i * n..(i + 1) * n],
            "{weight} {variant} n = {n}: row {i}"
        );
    }
}

fn check<W: GpuWeight + From<i16> + std::fmt::Debug>(gpu: &host::Gpu) {
    // 1 to 5 rounds of B = 64: n = 65 and 200 leave an odd number of blocks off the pivot
    // column (the two-block phase 3 repeats the last one without storing it), 300 an even one.
    for (n, p, seed) in [
        (1, 0.5, 1),
        (63, 0.1, 2),
        (64, 0.05, 3),
        (65, 0.3, 4),
        (200, 0.02, 5),
        (300, 1.0, 6),
    ] {
        let input = random_matrix::<W>(n, p, seed);
        let mut want = input.clone();
        assert!(floyd_warshall(&mut want, n).is_empty());
        // The default (what `solve_dense` runs), then every tile shape.
        let mut got = input.clone();
        let sol =
            solve_dense(gpu, &mut got, n).unwrap_or_else(|e| panic!("{} n = {n}: {e}", W::NAME));
        assert!(sol.negative_cycle.is_empty(), "{} n = {n}", W::NAME);
        assert_rows_equal(&got, &want, n, W::NAME, "default");
        let negative = input.iter().any(|&w| w < W::ZERO);
        assert!(
            !sol.nonneg || !negative,
            "{} n = {n}: {}",
            W::NAME,
            sol.variant
        );
        for cfg in fw_float_variants(W::NAME) {
            let mut got = input.clone();
            if cfg.nonneg && negative {
                // Outside the kernels' domain: refused before anything runs, `got` untouched.
                match solve_dense_with(gpu, &mut got, n, cfg) {
                    Err(Error::BadInput(m)) => assert!(m.contains("negative"), "{m}"),
                    other => panic!("{} n = {n}: {other:?}", cfg.variant),
                }
                assert!(got == input, "{} n = {n}", cfg.variant);
                continue;
            }
            let sol = solve_dense_with(gpu, &mut got, n, cfg)
                .unwrap_or_else(|e| panic!("{} {} n = {n}: {e}", W::NAME, cfg.variant));
            assert!(
                sol.negative_cycle.is_empty(),
                "{} {} n = {n}",
                W::NAME,
                cfg.variant
            );
            assert_rows_equal(&got, &want, n, W::NAME, cfg.variant);
        }
    }
}

/// On matrices without negative values `solve_dense` runs the type's `nonneg` default (f32)
/// and every `nonneg` shape matches the CPU reference bit for bit; one -0 or one negative
/// weight sends the default back to the general kernels, still exact.
fn check_nonneg<W: GpuWeight + From<i16> + Neg<Output = W> + std::fmt::Debug>(gpu: &host::Gpu) {
    let nonneg_default = fw_float_config_nonneg(W::NAME).unwrap();
    for (n, p, seed) in [(1, 0.5, 11), (65, 0.3, 12), (200, 0.02, 13), (300, 1.0, 14)] {
        let input = nonneg_matrix::<W>(n, p, seed);
        let mut want = input.clone();
        assert!(floyd_warshall(&mut want, n).is_empty());
        let mut got = input.clone();
        let sol = solve_dense(gpu, &mut got, n).unwrap();
        assert_eq!(sol.variant, nonneg_default.variant, "{} n = {n}", W::NAME);
        assert_rows_equal(&got, &want, n, W::NAME, "default (nonneg)");
        for cfg in fw_float_variants(W::NAME).filter(|c| c.nonneg) {
            let mut got = input.clone();
            let sol = solve_dense_with(gpu, &mut got, n, cfg).unwrap();
            assert!(
                sol.nonneg && sol.negative_cycle.is_empty(),
                "{}",
                cfg.variant
            );
            assert_rows_equal(&got, &want, n, W::NAME, cfg.variant);
        }
        if n < 2 {
            continue;
        }
        // One edge of -0 (sorts below +0 as an integer pattern) and, separately, one of −1.
        for w in [-W::ZERO, -W::from(1)] {
            let mut input = input.clone();
            input[1] = w;
            let mut want = input.clone();
            assert!(floyd_warshall(&mut want, n).is_empty());
            let mut got = input.clone();
            let sol = solve_dense(gpu, &mut got, n).unwrap();
            assert_eq!(sol.variant, fw_float_config(W::NAME).unwrap().variant);
            assert!(!sol.nonneg);
            assert_rows_equal(&got, &want, n, W::NAME, "default (signed)");
        }
    }
}

#[test]
fn nonneg_kernels_run_where_no_value_is_negative() {
    let Some(gpu) = gpu_for_test("nonneg_kernels_run_where_no_value_is_negative") else {
        return;
    };
    check_nonneg::<f32>(&gpu);
    check_nonneg::<f64>(&gpu);
}

#[test]
fn float_kernels_match_the_cpu_reference() {
    let Some(gpu) = gpu_for_test("float_kernels_match_the_cpu_reference") else {
        return;
    };
    check::<f32>(&gpu);
    check::<f64>(&gpu);
}

/// Every persistent phase 3 on grids of 1, 2 and 3 blocks, so that each block walks several
/// work items across block rows (on a full grid, these sizes give each block one item at most).
fn check_persistent<W: GpuWeight + From<i16> + std::fmt::Debug>(gpu: &host::Gpu) {
    // 2 to 5 rounds; 130 and 200 leave an odd number of blocks off the pivot column.
    for (n, p, seed) in [
        (100, 0.2, 7),
        (130, 0.1, 8),
        (200, 0.02, 9),
        (300, 0.05, 10),
    ] {
        let input = random_matrix::<W>(n, p, seed);
        let mut want = input.clone();
        assert!(floyd_warshall(&mut want, n).is_empty());
        for cfg in fw_float_variants(W::NAME).filter(|c| c.persistent) {
            for blocks in [1, 2, 3] {
                let mut got = input.clone();
                let sol =
                    solve_dense_with_blocks(gpu, &mut got, n, cfg, blocks).unwrap_or_else(|e| {
                        panic!("{} {} n = {n}, {blocks} blocks: {e}", W::NAME, cfg.variant)
                    });
                assert!(sol.negative_cycle.is_empty(), "{} {}", W::NAME, cfg.variant);
                let what = format!("{} ({blocks} blocks)", cfg.variant);
                assert_rows_equal(&got, &want, n, W::NAME, &what);
            }
        }
    }
}

#[test]
fn persistent_phase_3_walks_several_items_per_block() {
    let Some(gpu) = gpu_for_test("persistent_phase_3_walks_several_items_per_block") else {
        return;
    };
    check_persistent::<f32>(&gpu);
    check_persistent::<f64>(&gpu);
}

/// No edge but a cycle 10 -> 70 -> 130 -> 10 of weight -1 across three blocks of 64 (`n` > 130).
fn negative_cycle_matrix<W: Weight + From<i16>>(n: usize) -> Vec<W> {
    let mut d = vec![W::INF; n * n];
    for i in 0..n {
        d[i * n + i] = W::ZERO;
    }
    d[10 * n + 70] = W::from(1);
    d[70 * n + 130] = W::from(-3);
    d[130 * n + 10] = W::from(1);
    d
}

#[test]
fn a_negative_cycle_makes_a_negative_diagonal() {
    let Some(gpu) = gpu_for_test("a_negative_cycle_makes_a_negative_diagonal") else {
        return;
    };
    let (n, mut d) = (150, negative_cycle_matrix::<f64>(150));
    let sol = solve_dense(&gpu, &mut d, n).unwrap();
    for v in [10, 70, 130] {
        assert!(sol.negative_cycle.contains(&v), "{:?}", sol.negative_cycle);
    }
}

#[test]
fn float_peaks_run() {
    let Some(gpu) = gpu_for_test("float_peaks_run") else {
        return;
    };
    for p in [
        addmin_peak::<f32>(&gpu, 256, 2).unwrap(),
        addmin_peak::<f64>(&gpu, 256, 2).unwrap(),
        addmin_peak_nonneg::<f32>(&gpu, 256, 2).unwrap(),
    ] {
        assert!(
            p.updates_per_s > 0.0 && p.updates_per_s.is_finite(),
            "{p:?}"
        );
    }
}

/// `float_bench::bench` with the sustained ceiling: one ceiling launch per timed repetition,
/// each as long as the slowest first solve, at a rate near the short ceiling's (the same kernel
/// and grid; only the launch length and the clock under load differ), and every variant's
/// percentage of it consistent with its own rate.
#[test]
fn sustained_ceiling_is_timed_once_per_repetition() {
    let Some(gpu) = gpu_for_test("sustained_ceiling_is_timed_once_per_repetition") else {
        return;
    };
    let variants: Vec<_> = fw_float_variants("f32")
        .take(1)
        .map(Plan::Kernels)
        .collect();
    let reps = 3;
    let r = bench::<f32>(&gpu, 2000, &variants, Signs::Positive, None, reps, true).unwrap();
    let s = r.sustained_ceiling.expect("asked for");
    assert_eq!(s.runs_s.len(), reps, "{s:?}");
    assert!(
        s.iterations >= r.ceiling.iterations,
        "{s:?} {:?}",
        r.ceiling
    );
    let ratio = s.updates_per_s / r.ceiling.updates_per_s;
    assert!(
        (0.5..1.5).contains(&ratio),
        "sustained / short ceiling {ratio}: {s:?}"
    );
    for t in &r.variants {
        let p = t.percent_of_sustained_ceiling.expect("asked for");
        assert!(
            (p - 100.0 * t.updates_per_s / s.updates_per_s).abs() < 1e-9,
            "{t:?}"
        );
    }
    let plain = bench::<f32>(&gpu, 200, &variants, Signs::Positive, None, 1, false).unwrap();
    assert!(plain.sustained_ceiling.is_none());
    assert!(
        plain
            .variants
            .iter()
            .all(|t| t.percent_of_sustained_ceiling.is_none())
    );
}

/// A graph whose weights are integers `w0` in 10..=30 shifted by integer potentials `p` in
/// 0..=30, `w0 + p(u) − p(v)`: signed, without a negative cycle (a cycle keeps its `w0` weight),
/// every sum exact in f32. A path from the virtual source beats its 0 edge only with fewer than
/// 3 edges (each costs ≥ 10, the potentials differ by ≤ 30), so Bellman–Ford converges within
/// 4 launches.
fn shifted_matrix(n: usize, p: f64, seed: u64) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let pot: Vec<i32> = (0..n).map(|_| rng.gen_range(0..=30)).collect();
    let mut d = vec![f32::INFINITY; n * n];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                d[i * n + j] = 0.0;
            } else if rng.gen_bool(p) {
                d[i * n + j] = (rng.gen_range(10..=30) + pot[i] - pot[j]) as f32;
            }
        }
    }
    d
}

/// Johnson's reweighting (`solve_dense_reweighted`): on signed integer matrices the potentials
/// and the reweighted weights are integers, exact in f32, so the `nonneg` kernels' distances
/// reweighted back equal the CPU reference bit for bit. Where the potentials do not converge
/// within the launch cap (long chains of negative edges in `random_matrix`'s DAG), the general
/// kernels run on the matrix as given, exact as well.
#[test]
fn reweighted_solves_match_the_cpu_reference() {
    let Some(gpu) = gpu_for_test("reweighted_solves_match_the_cpu_reference") else {
        return;
    };
    for (n, p, seed) in [
        (1, 0.5, 21),
        (63, 0.1, 22),
        (65, 0.3, 23),
        (200, 0.05, 24),
        (300, 0.2, 25),
    ] {
        for (kind, input) in [
            ("shifted", shifted_matrix(n, p, seed)),
            ("dag", random_matrix::<f32>(n, p, seed)),
        ] {
            let mut want = input.clone();
            assert!(floyd_warshall(&mut want, n).is_empty());
            let mut got = input.clone();
            let sol = solve_dense_reweighted(&gpu, &mut got, n)
                .unwrap_or_else(|e| panic!("{kind} n = {n}: {e}"));
            let r = sol.reweight.expect("potentials searched for");
            assert!(sol.negative_cycle.is_empty(), "{kind} n = {n}");
            assert_eq!(sol.nonneg, r.converged, "{kind} n = {n}: {r:?}");
            if kind == "shifted" {
                assert!(r.converged && r.iterations <= 4, "{kind} n = {n}: {r:?}");
            }
            assert_rows_equal(&got, &want, n, "f32", &format!("{kind} reweighted {r:?}"));
        }
    }
}

/// Real-valued signed weights: the reweighted route rounds differently from the CPU's f32
/// sums, so the two agree within f32 rounding (a missed reweighting back is off by the
/// potentials, ~1).
#[test]
fn reweighted_solves_round_like_f32() {
    let Some(gpu) = gpu_for_test("reweighted_solves_round_like_f32") else {
        return;
    };
    let n = 257;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let pot: Vec<f32> = (0..n).map(|_| rng.gen_range(0.0..2.0)).collect();
    let mut input = vec![f32::INFINITY; n * n];
    for i in 0..n {
        input[i * n + i] = 0.0;
        for j in 0..n {
            if i != j && rng.gen_bool(0.1) {
                input[i * n + j] = rng.gen_range(0.0f32..1.0) + pot[i] - pot[j];
            }
        }
    }
    assert!(input.iter().filter(|&&w| w < 0.0).count() > n);
    let mut want = input.clone();
    assert!(floyd_warshall(&mut want, n).is_empty());
    let mut got = input.clone();
    let sol = solve_dense_reweighted(&gpu, &mut got, n).unwrap();
    assert!(
        sol.nonneg && sol.reweight.is_some_and(|r| r.converged),
        "{sol:?}"
    );
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let ok = if w.is_finite() {
            (g - w).abs() <= 1e-5 * (4.0 + w.abs())
        } else {
            g == w
        };
        assert!(ok, "cell ({}, {}): {g} against {w}", k / n, k % n);
    }
}

/// Where potentials cannot be found the general kernels run on the matrix as given: a negative
/// cycle (found as before), and a chain of 299 negative edges (more launches than the cap).
#[test]
fn reweighting_falls_back_to_the_general_kernels() {
    let Some(gpu) = gpu_for_test("reweighting_falls_back_to_the_general_kernels") else {
        return;
    };
    let (n, mut d) = (150, negative_cycle_matrix::<f32>(150));
    let sol = solve_dense_reweighted(&gpu, &mut d, n).unwrap();
    assert!(
        !sol.nonneg && sol.reweight.is_some_and(|r| !r.converged),
        "{sol:?}"
    );
    for v in [10, 70, 130] {
        assert!(sol.negative_cycle.contains(&v), "{:?}", sol.negative_cycle);
    }

    let n = 300;
    let mut input = vec![f32::INFINITY; n * n];
    for i in 0..n {
        input[i * n + i] = 0.0;
        if i + 1 < n {
            input[i * n + i + 1] = -1.0;
        }
    }
    let mut want = input.clone();
    assert!(floyd_warshall(&mut want, n).is_empty());
    let mut got = input.clone();
    let sol = solve_dense_reweighted(&gpu, &mut got, n).unwrap();
    let r = sol.reweight.unwrap();
    assert!(!r.converged && !sol.nonneg && r.iterations >= 16, "{r:?}");
    assert_rows_equal(&got, &want, n, "f32", "chain");
}

#[test]
fn only_f32_matrices_without_nan_are_reweighted() {
    let Some(gpu) = gpu_for_test("only_f32_matrices_without_nan_are_reweighted") else {
        return;
    };
    let mut d64 = vec![0.0f64, -1.0, 1.0, 0.0];
    match solve_dense_reweighted(&gpu, &mut d64, 2) {
        Err(Error::BadInput(m)) => assert!(m.contains("f32"), "{m}"),
        other => panic!("{other:?}"),
    }
    for bad in [f32::NAN, f32::NEG_INFINITY] {
        let mut d = vec![0.0f32, bad, -1.0, 0.0];
        match solve_dense_reweighted(&gpu, &mut d, 2) {
            Err(Error::BadInput(m)) => assert!(m.contains("NaN"), "{m}"),
            other => panic!("{bad}: {other:?}"),
        }
        assert!(d[2] == -1.0, "untouched");
    }
}

/// `solve_dense` itself reweights a signed f32 matrix from `REWEIGHT_MIN_V` on: on an integer
/// one both routes are exact, so its distances equal the general kernels' bit for bit.
#[test]
fn solve_dense_reweights_large_signed_matrices() {
    let Some(gpu) = gpu_for_test("solve_dense_reweights_large_signed_matrices") else {
        return;
    };
    let n = REWEIGHT_MIN_V;
    let input = shifted_matrix(n, 16.0 / n as f64, 41);
    assert!(input.iter().filter(|&&w| w < 0.0).count() > n);
    let mut got = input.clone();
    let sol = solve_dense(&gpu, &mut got, n).unwrap();
    assert!(
        sol.nonneg && sol.reweight.is_some_and(|r| r.converged),
        "{sol:?}"
    );
    let mut want = input;
    let general = fw_float_config("f32").unwrap();
    let plain = solve_dense_with(&gpu, &mut want, n, general).unwrap();
    assert!(plain.reweight.is_none() && sol.negative_cycle.is_empty());
    assert_rows_equal(&got, &want, n, "f32", "solve_dense at REWEIGHT_MIN_V");
}
