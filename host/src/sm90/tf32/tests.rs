//! Unit tests of the f32 Hopper runner's options, shape checks and kernel entry points.
use super::*;

#[test]
fn variant_names_select_options() {
    let d = Tf32Options::default();
    assert_eq!(d.from_name("wgmma"), Some(d));
    assert_eq!(d.from_name("wgmma_f4").map(|o| o.flush), Some(4));
    assert!(d.from_name("wgmma_rn").unwrap().tfloat32_maps);
    assert!(!d.from_name("wgmma_rz").unwrap().tfloat32_maps);
    assert_eq!(d.row_b, RowMajorB::Split);
    let o = d.from_name("wgmma_inplace_dp").unwrap();
    assert_eq!((o.row_b, o.schedule.stream_k), (RowMajorB::InPlace, None));
    assert_eq!(o.from_name("wgmma_split").unwrap().row_b, RowMajorB::Split);
    assert_eq!(o.from_name("wgmma_load").unwrap().row_b, RowMajorB::Load);
    assert_eq!(o.from_name("wgmma_load_pre0").unwrap().prefetch, 0);
    assert_eq!(d.prefetch, DEFAULT_PREFETCH);
    assert_eq!(d.from_name("wgmma_pre17"), None);
    assert_eq!(d.from_name("wgmma_load_lg2").unwrap().load_groups, 2);
    assert_eq!(d.from_name("wgmma_lg3"), None);
    let o = d.from_name("wgmma_rz_w1_p").unwrap();
    assert!(!o.tfloat32_maps);
    assert_eq!(
        (o.schedule.depth, o.schedule.blocks),
        (1, super::super::Blocks::PerSm)
    );
    for bad in [
        "wgmma_f0",
        "wgmma_f65",
        "wgmma_fx",
        "tc_tf32",
        "wgmma_",
        "wgmma_rn_q",
    ] {
        assert_eq!(d.from_name(bad), None, "{bad}");
    }
}

#[test]
fn shapes_are_checked_in_one_sentence() {
    let g = Tf32Gemm {
        m: 300,
        n: 200,
        k: 77,
        lda: 80,
        ldb: 200,
        ldc: 200,
        alpha: 1.0,
        beta: 0.0,
        kind: Tf32Kind::Tf32x3,
        a_k_major: true,
        b_k_major: false,
    };
    assert_eq!(g.lens(), (299 * 80 + 77, 76 * 200 + 200, 299 * 200 + 200));
    g.check_buffers(usize::MAX, usize::MAX, usize::MAX).unwrap();
    let e = Tf32Gemm { lda: 78, ..g }
        .check_buffers(usize::MAX, usize::MAX, usize::MAX)
        .unwrap_err()
        .to_string();
    assert!(e.contains("multiples of 4") && !e.contains('\n'), "{e}");
    assert!(g.check_buffers(1, usize::MAX, usize::MAX).is_err());
}

#[test]
fn f32_entries_take_one_params_struct() {
    let names = gpu_kernels::sm90::tf32::WGMMA_TF32
        .iter()
        .map(|c| (c.name, size_of::<Tf32Params>()));
    for (name, size) in names.chain([(SPLIT_KERNEL, size_of::<SplitParams>())]) {
        let head = format!(".visible .entry {name}(");
        let at = gpu_kernels::PTX_SM90A
            .find(&head)
            .unwrap_or_else(|| panic!("{name} not in the sm_90a PTX"));
        let params = &gpu_kernels::PTX_SM90A[at + head.len()..];
        let params = &params[..params.find(')').unwrap()];
        assert_eq!(params.matches(".param").count(), 1, "{name}: {params}");
        assert!(
            params.trim().ends_with(&format!("[{size}]")),
            "{name}: {params}"
        );
    }
}
