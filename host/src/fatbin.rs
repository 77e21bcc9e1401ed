//! The kernels as the host embeds them: one fatbinary per [`ModuleGroup`], holding machine code
//! (SASS) for each of [`SASS_ARCHS`] and the group's PTX, which the driver JIT-compiles only on
//! a GPU that none of the SASS fits.
//!
//! The build script (host/build/sass.rs) includes this file with `#[path]`, so that the build
//! and the run-time agree on the architectures, on how the PTX is cut into groups and on the
//! register caps; it uses only `std` and `gpu_kernels` for that reason.
use gpu_kernels::ModuleGroup;

/// The GPU architectures whose SASS the host carries (`ptxas -arch=sm_<X>`): Ampere (A100,
/// sm_80; RTX 30xx and A10/A40, sm_86), Ada (sm_89) and Hopper (sm_90). An `a` suffix
/// (`"90a"`) builds arch-specific code, for kernels that need it. Every other GPU of compute
/// capability 8.0 or newer JIT-compiles the PTX (the driver also runs sm_86 SASS on sm_87).
pub const SASS_ARCHS: &[&str] = &["80", "86", "89", "90"];

/// The SASS of the Hopper group (`ModuleGroup::Hopper`, from `gpu_kernels::PTX_SM90A`): sm_90a
/// alone, which runs on compute capability 9.0 only (see [`ModuleGroup::only_on`]).
pub const HOPPER_SASS_ARCHS: &[&str] = &["90a"];

/// The architectures whose SASS the fatbinary of `group` carries.
pub fn sass_archs(group: ModuleGroup) -> &'static [&'static str] {
    match group.only_on() {
        Some(_) => HOPPER_SASS_ARCHS,
        None => SASS_ARCHS,
    }
}

/// The PTX of `group`'s kernels, cut from the module they are built in
/// ([`ModuleGroup::source_ptx`]).
pub fn own_group_ptx(group: ModuleGroup) -> String {
    group_ptx(group.source_ptx(), group)
}

/// The PTX of one group's kernels: every line outside an entry (header, declarations,
/// comments) in order, and the entries of `group` as they are (with the `.maxnreg` register
/// caps that `cargo xtask build-ptx` wrote into them from `gpu_kernels::registry`).
pub fn group_ptx(ptx: &str, group: ModuleGroup) -> String {
    module_ptx(ptx, |name| ModuleGroup::of(name) == Some(group))
}

/// Entries of `ptx` that belong to no [`ModuleGroup`] (and so would be in no module).
pub fn ungrouped_entries(ptx: &str) -> Vec<String> {
    let mut names = Vec::new();
    module_ptx(ptx, |name| {
        if ModuleGroup::of(name).is_none() {
            names.push(name.to_string());
        }
        false
    });
    names
}

/// `ptx` with only the entries that `keep` accepts. Lines outside entries are kept: module-level
/// declarations must stay before the entries that use them.
pub fn module_ptx(ptx: &str, mut keep: impl FnMut(&str) -> bool) -> String {
    let mut out = String::with_capacity(ptx.len() / 2);
    // Inside an entry: whether it is kept, the brace depth and whether the body has opened.
    let mut entry: Option<(bool, i64, bool)> = None;
    for line in ptx.lines() {
        if entry.is_none()
            && let Some(name) = entry_name(line)
        {
            entry = Some((keep(name), 0, false));
        }
        let Some((kept, depth, opened)) = entry.as_mut() else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let code = line.split("//").next().unwrap_or_default();
        if *kept {
            out.push_str(line);
            out.push('\n');
        }
        for c in code.chars() {
            match c {
                '{' => {
                    *depth += 1;
                    *opened = true;
                }
                '}' => *depth -= 1,
                _ => {}
            }
        }
        if *opened && *depth <= 0 {
            entry = None;
        }
    }
    out
}

/// The kernel name of a line that starts an entry (`.visible .entry name(`), if it does.
fn entry_name(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    for linkage in [".visible ", ".weak "] {
        rest = rest.strip_prefix(linkage).unwrap_or(rest).trim_start();
    }
    let rest = rest.strip_prefix(".entry ")?;
    let name = rest.split(['(', ' ', '\t']).next()?.trim();
    (!name.is_empty()).then_some(name)
}

/// One image in a fatbinary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Image<'a> {
    pub kind: ImageKind,
    /// The architecture number (`80` for sm_80 or compute_80).
    pub sm: u32,
    /// Arch-specific code (`sm_90a`).
    pub arch_specific: bool,
    /// Compressed by `fatbinary` (its default for PTX).
    pub compressed: bool,
    pub payload: &'a [u8],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    Ptx,
    Elf,
}

/// The images of a fatbinary as `fatbinary --create` writes it: a 16-byte header (magic
/// 0xBA55ED50, version, header size, size of what follows) and entries, each a header (kind,
/// its own size, the payload's size, the architecture at byte 28, flags at byte 40) and the
/// payload. The layout is NVIDIA's, undocumented; these are the fields every reader of it uses.
pub fn images(fatbin: &[u8]) -> Result<Vec<Image<'_>>, String> {
    let u16_at = |b: &[u8], at: usize| b.get(at..at + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
    let u32_at = |b: &[u8], at: usize| {
        b.get(at..at + 4)
            .map(|s| u32::from_le_bytes(s.try_into().unwrap()))
    };
    let u64_at = |b: &[u8], at: usize| {
        b.get(at..at + 8)
            .map(|s| u64::from_le_bytes(s.try_into().unwrap()))
    };
    if u32_at(fatbin, 0) != Some(0xBA55_ED50) {
        return Err("not a fatbinary (no 0xBA55ED50 magic)".into());
    }
    let header = u16_at(fatbin, 6).ok_or("truncated header")? as usize;
    let size = u64_at(fatbin, 8).ok_or("truncated header")? as usize;
    let end = header
        .checked_add(size)
        .filter(|&e| e <= fatbin.len())
        .ok_or("the header's size runs past the end")?;
    let mut at = header;
    let mut out = Vec::new();
    while at < end {
        let e = &fatbin[at..end];
        let kind = match u16_at(e, 0).ok_or("truncated entry")? {
            1 => ImageKind::Ptx,
            2 => ImageKind::Elf,
            k => return Err(format!("entry at byte {at} has unknown kind {k}")),
        };
        let head = u32_at(e, 4).ok_or("truncated entry")? as usize;
        let len = u64_at(e, 8).ok_or("truncated entry")? as usize;
        let sm = u32_at(e, 28).ok_or("truncated entry")?;
        let flags = u64_at(e, 40).ok_or("truncated entry")?;
        let payload = head
            .checked_add(len)
            .and_then(|stop| e.get(head..stop))
            .ok_or_else(|| format!("entry at byte {at} runs past the end"))?;
        out.push(Image {
            kind,
            sm,
            arch_specific: flags & 0x10_0000 != 0,
            compressed: flags & 0x2000 != 0 || flags & 0x8000 != 0,
            payload,
        });
        at += head + len;
    }
    Ok(out)
}

/// The architecture a CUDA ELF (cubin) was built for, from its header: `e_machine` must be
/// EM_CUDA (190); the SM number is bits 8–15 of `e_flags` from ELF ABI version 8 (CUDA 12.8
/// and newer), bits 0–7 before.
pub fn elf_sm(elf: &[u8]) -> Option<u32> {
    if elf.get(..4)? != b"\x7fELF" || *elf.get(4)? != 2 {
        return None;
    }
    let machine = u16::from_le_bytes(elf.get(18..20)?.try_into().ok()?);
    let flags = u32::from_le_bytes(elf.get(48..52)?.try_into().ok()?);
    let abi = *elf.get(8)?;
    (machine == 190).then_some(if abi >= 8 {
        (flags >> 8) & 0xff
    } else {
        flags & 0xff
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = ".version 9.0\n.target sm_80\n.address_size 64\n\n\
        .extern .shared .align 16 .b8 dyn[16];\n\
        // .globl fw_phase1_b16\n\
        .visible .entry fw_phase1_b16(\n.param .u32 p\n)\n{\n{\nret;\n}\n}\n\
        .visible .entry fw_phase3_b64(\n)\n{\nret; // {\n}\n\
        .visible .entry matmul_naive_b32(\n)\n{\nret;\n}\n\
        .visible .entry sgemm_128x256x8_s4_8x16(\n)\n{\nret;\n}\n";

    #[test]
    fn groups_take_their_entries_and_every_declaration() {
        let apsp = group_ptx(PTX, ModuleGroup::Apsp);
        assert!(
            apsp.contains("fw_phase1_b16(") && apsp.contains("fw_phase3_b64("),
            "{apsp}"
        );
        assert!(
            !apsp.contains("matmul_naive_b32") && !apsp.contains("sgemm_128x256x8_s4_8x16"),
            "{apsp}"
        );
        for g in ModuleGroup::ALL {
            let text = group_ptx(PTX, g);
            assert!(text.starts_with(".version 9.0\n.target sm_80\n"), "{text}");
            assert!(text.contains(".extern .shared .align 16 .b8 dyn[16];"));
        }
        assert!(group_ptx(PTX, ModuleGroup::Ladder).contains("matmul_naive_b32("));
        assert!(group_ptx(PTX, ModuleGroup::Flagship).contains("sgemm_128x256x8_s4_8x16("));
    }

    #[test]
    fn groups_keep_the_register_caps_of_the_ptx() {
        // The caps are in the committed PTX (written by build-ptx from the registry); cutting it
        // into groups keeps each one, on its own entry, and adds none.
        let caps = |t: &str| t.matches(".maxnreg ").count();
        let total = caps(gpu_kernels::PTX) + caps(gpu_kernels::PTX_SM90A);
        assert!(total > 0, "the committed PTX carries no register cap");
        let grouped: usize = ModuleGroup::ALL
            .iter()
            .map(|&g| caps(&own_group_ptx(g)))
            .sum();
        assert_eq!(grouped, total);
    }

    #[test]
    fn every_kernel_lands_in_exactly_one_group() {
        assert!(ungrouped_entries(PTX).is_empty());
        assert_eq!(
            ungrouped_entries(".visible .entry other(\n)\n{\nret;\n}\n"),
            vec!["other"]
        );
        let names = |t: &str| {
            t.lines()
                .filter_map(entry_name)
                .map(String::from)
                .collect::<Vec<_>>()
        };
        let mut all: Vec<String> = ModuleGroup::ALL
            .iter()
            .flat_map(|&g| names(&own_group_ptx(g)))
            .collect();
        all.sort();
        let mut want = names(gpu_kernels::PTX);
        want.extend(names(gpu_kernels::PTX_SM90A));
        want.sort();
        assert_eq!(all, want);
        assert!(ungrouped_entries(gpu_kernels::PTX).is_empty());
        assert!(ungrouped_entries(gpu_kernels::PTX_SM90A).is_empty());
        // The compute_90a module holds the Hopper kernels and nothing else; the portable
        // module holds none of them.
        for n in names(gpu_kernels::PTX_SM90A) {
            assert_eq!(ModuleGroup::of(&n), Some(ModuleGroup::Hopper), "{n}");
        }
        for n in names(gpu_kernels::PTX) {
            assert_ne!(ModuleGroup::of(&n), Some(ModuleGroup::Hopper), "{n}");
        }
    }

    #[test]
    fn fatbin_parser_rejects_garbage() {
        assert!(images(b"not a fatbin").is_err());
        let mut truncated = 0xBA55_ED50u32.to_le_bytes().to_vec();
        truncated.extend([1, 0, 16, 0]);
        truncated.extend(1000u64.to_le_bytes());
        assert!(images(&truncated).is_err());
    }
}
