//! The table against the per-family lists it is built from.
use super::*;
use crate::matmul::{RUNG_TABLES, Rung};

#[test]
fn names_are_unique_and_every_family_has_kernels() {
    for (i, k) in KERNELS.iter().enumerate() {
        assert!(
            !k.name.is_empty() && k.threads() > 0 && k.threads() <= 1024,
            "{k:?}"
        );
        assert!(
            KERNELS[i + 1..].iter().all(|o| o.name != k.name),
            "{}",
            k.name
        );
        assert_eq!(kernel(k.name), Some(k));
    }
    for f in Family::ALL {
        assert!(kernels_of(f).next().is_some(), "{f}: no kernel");
        assert_eq!(Family::from_name(f.name()), Some(f));
    }
    // Families appear in `Family::ALL` order, each in one run.
    let order: Vec<Family> = KERNELS.iter().map(|k| k.family).collect();
    assert!(order.is_sorted(), "{order:?}");
}

#[test]
fn every_table_row_is_in_the_registry_with_its_family() {
    let mut expected: Vec<(&str, Family)> = Vec::new();
    expected.extend(TILED.iter().map(|c| (c.name, Family::Tiled)));
    expected.extend(VECTORIZED.iter().map(|c| (c.name, Family::Vectorized)));
    for t in RUNG_TABLES {
        expected.extend(t.iter().map(|c| (c.name, c.rung.family())));
    }
    expected.extend(FLAGSHIP.iter().map(|c| (c.name, Family::Flagship)));
    expected.extend(FLAGSHIP_OPS.iter().map(|c| (c.name, Family::FlagshipOps)));
    expected.extend(
        FLAGSHIP_BATCHED
            .iter()
            .map(|c| (c.name, Family::FlagshipOps)),
    );
    expected.extend(FLAGSHIP_T_U.iter().map(|c| (c.name, Family::FlagshipOps)));
    expected.extend(SKINNY_ROWS.iter().map(|c| (c.name, Family::SkinnyRows)));
    expected.extend(
        SKINNY_ROWS_ASYNC
            .iter()
            .map(|c| (c.name, Family::SkinnyRows)),
    );
    expected.extend(SKINNY_COLS.iter().map(|c| (c.name, Family::SkinnyCols)));
    expected.extend(SKINNY_GEMV.iter().map(|c| (c.name, Family::SkinnyCols)));
    expected.push((SPLITK_REDUCE_KERNEL, Family::SplitKReduce));
    expected.push((SPLIT_SUM_KERNEL, Family::SplitKReduce));
    expected.push((TRANSPOSE_KERNEL, Family::Transpose));
    expected.extend(BATCHED_SMALL.iter().map(|c| (c.name, Family::BatchedSmall)));
    for c in FW_CONFIGS {
        expected.push((c.phase1, Family::FwPhase1));
        expected.push((c.phase2, Family::FwPhase2));
        expected.push((c.phase3, Family::FwPhase3));
    }
    for c in FW_MULTI {
        for name in [c.pivot, c.row, c.col, c.rest] {
            expected.push((name, Family::FwMulti));
        }
    }
    for c in FW_PATHS {
        let s = c.split;
        for name in [c.phase1, c.phase2, c.phase3, s.pivot, s.row, s.col, s.rest] {
            expected.push((name, Family::FwPaths));
        }
    }
    expected.push((PATHS_INIT_KERNEL, Family::FwPaths));
    for t in FLOAT_TYPES {
        expected.push((t.phase1, Family::FwFloat));
    }
    for c in FW_FLOAT {
        for name in [c.phase2, c.phase3] {
            expected.push((name, Family::FwFloat));
        }
    }
    for t in FLOAT_TYPES {
        expected.push((t.peak, Family::ApspPeak));
    }
    expected.push((FLOAT_NONNEG_PEAK, Family::ApspPeak));
    for c in FW_OOC {
        expected.push((c.update, Family::FwOoc));
    }
    expected.push((INIT_MATRIX_KERNEL, Family::ApspInit));
    expected.push((SCATTER_EDGES_KERNEL, Family::ApspInit));
    expected.push((PEAK_KERNEL, Family::ApspPeak));
    expected.push((STATS_TILES_KERNEL, Family::ApspStats));
    expected.push((STATS_FINISH_KERNEL, Family::ApspStats));
    expected.extend(TC.iter().map(|c| (c.name, Family::TensorCore)));
    expected.extend(MMA_PEAK.iter().map(|c| (c.name, Family::TensorCore)));
    expected.extend(FW_SMALL.iter().map(|c| (c.kernel, Family::FwSmall)));
    expected.push((SMALL_HOLD_KERNEL, Family::FwSmall));
    expected.extend(SMALL_PROBES.iter().map(|c| (c.kernel, Family::FwSmall)));
    expected.extend(BATCH_KERNELS.iter().map(|c| (c.kernel, Family::ApspBatch)));
    let c = BATCH_BLOCKED;
    expected.extend([c.phase1, c.phase2, c.phase3].map(|k| (k, Family::ApspBatch)));
    expected.extend(WGMMA.iter().map(|c| (c.name, Family::Wgmma)));
    expected.extend(WGMMA_TF32.iter().map(|c| (c.name, Family::Wgmma)));
    expected.push((SPLIT_KERNEL, Family::Wgmma));
    expected.extend(FLOAT_PRED_KERNELS.iter().map(|c| (c.1, Family::FloatPred)));
    expected.push((POTENTIAL_KERNEL, Family::FloatReweight));
    expected.push((REWEIGHT_KERNEL, Family::FloatReweight));
    assert_eq!(expected.len(), KERNELS.len());
    for (name, family) in expected {
        assert_eq!(family_of(name), Some(family), "{name}");
    }
    for r in Rung::ALL {
        assert_eq!(family_of(r.kernel()), Some(r.family()), "{r:?}");
    }
}

#[test]
fn geometry_comes_from_the_tables() {
    for c in FLAGSHIP {
        let k = kernel(c.name).unwrap();
        assert_eq!(k.dynamic_shared_bytes, c.shared_bytes(), "{}", c.name);
        assert_eq!(
            (k.threads(), k.tile),
            (c.threads(), Some((c.bm, c.bn, c.bk)))
        );
    }
    for c in FW_CONFIGS {
        let t = |name| kernel(name).unwrap().block.0;
        assert_eq!(t(c.phase1), c.threads);
        assert_eq!(t(c.phase2), c.phase2_threads());
        assert_eq!(t(c.phase3), c.phase3_threads);
    }
    for c in WGMMA {
        let k = kernel(c.name).unwrap();
        assert_eq!(k.dynamic_shared_bytes, c.shared_bytes(), "{}", c.name);
        assert_eq!(k.max_registers, Some(c.entry_registers()), "{}", c.name);
    }
    for c in WGMMA_TF32 {
        let k = kernel(c.name).unwrap();
        assert_eq!(k.dynamic_shared_bytes, c.shared_bytes(), "{}", c.name);
        assert_eq!(k.max_registers, Some(c.entry_registers()), "{}", c.name);
    }
    for c in FLAGSHIP_OPS
        .iter()
        .chain(FLAGSHIP_BATCHED)
        .chain(FLAGSHIP_T_U)
    {
        let k = kernel(c.name).unwrap();
        assert_eq!(k.dynamic_shared_bytes, c.shared_bytes(), "{}", c.name);
    }
    for c in SKINNY_ROWS_ASYNC {
        let k = kernel(c.name).unwrap();
        assert!(k.dynamic_shared_bytes > 0);
        assert_eq!(
            k.dynamic_shared_bytes,
            c.dynamic_shared_bytes(),
            "{}",
            c.name
        );
    }
    let pipelined = |name: &str| SKINNY_ROWS_ASYNC.iter().any(|c| c.name == name);
    assert!(KERNELS.iter().all(|k| matches!(
        k.family,
        Family::Flagship | Family::FlagshipOps | Family::TensorCore | Family::Wgmma
    ) || pipelined(k.name)
        || k.dynamic_shared_bytes == 0));
}

#[test]
fn only_the_capped_floyd_warshall_and_tensor_core_kernels_have_a_register_cap() {
    for k in KERNELS.iter().filter(|k| k.family != Family::Wgmma) {
        let fw = FW_CONFIGS
            .iter()
            .find(|c| [c.phase1, c.phase2, c.phase3].contains(&k.name));
        // Float phases 2-3 carry their tile shape's cap; phase 1 none.
        let fw_float = FW_FLOAT
            .iter()
            .find(|c| [c.phase2, c.phase3].contains(&k.name))
            .and_then(|c| c.max_registers);
        let tc = TC
            .iter()
            .find(|c| c.name == k.name)
            .and_then(|c| c.max_registers());
        assert_eq!(
            k.max_registers,
            fw.and_then(|c| c.max_registers).or(fw_float).or(tc),
            "{}",
            k.name
        );
        assert_eq!(max_registers(k.name), k.max_registers);
    }
    assert_eq!(
        max_registers("fw_phase3_b16"),
        Some(crate::apsp::FW_MAX_REGISTERS)
    );
    assert_eq!(max_registers("fw_phase3_b64"), None);
    assert_eq!(max_registers("no_such_kernel"), None);
    assert!(Family::Flagship.is_sgemm() && !Family::FwPhase1.is_sgemm());
}
