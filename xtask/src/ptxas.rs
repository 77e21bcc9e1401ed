//! Reading `ptxas -v` reports and the PTX itself.

#[derive(Debug, Default, Clone, PartialEq)]
pub struct KernelReport {
    pub name: String,
    pub registers: u32,
    pub smem_bytes: u32,
    pub stack_bytes: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

fn number_before(text: &str, unit: &str) -> Option<u32> {
    let pos = text.find(unit)?;
    text[..pos].split_whitespace().last()?.parse().ok()
}

/// Parses the per-entry blocks of `ptxas -v` output.
pub fn parse_report(text: &str) -> Vec<KernelReport> {
    let mut out: Vec<KernelReport> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default().to_string();
            out.push(KernelReport {
                name,
                ..Default::default()
            });
            continue;
        }
        let Some(k) = out.last_mut() else { continue };
        if line.contains("bytes stack frame") {
            k.stack_bytes = number_before(line, "bytes stack frame").unwrap_or(0);
            k.spill_stores = number_before(line, "bytes spill stores").unwrap_or(0);
            k.spill_loads = number_before(line, "bytes spill loads").unwrap_or(0);
        } else if line.contains("Used") && line.contains("registers") {
            k.registers = number_before(line, "registers").unwrap_or(0);
            k.smem_bytes = number_before(line, "bytes smem").unwrap_or(0);
        }
    }
    out
}

/// Loads and stores with no state space (generic addressing) in each function of the PTX.
/// Shared-memory traffic must use `ld.shared`/`st.shared`; a generic access means the codegen
/// lost the address space (upstream issue #402), which costs an address conversion per access.
pub fn generic_accesses(ptx: &str) -> Vec<(String, String)> {
    const SPACES: [&str; 5] = ["global", "shared", "local", "param", "const"];
    let mut current = String::new();
    let mut found = Vec::new();
    for line in ptx.lines() {
        let t = line.trim();
        if let Some(rest) = t
            .strip_prefix(".visible .entry ")
            .or_else(|| t.strip_prefix(".entry "))
        {
            current = rest
                .split('(')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            continue;
        }
        let mut tokens = t.split_whitespace();
        let mut op = tokens.next().unwrap_or_default();
        if op.starts_with('@') {
            // predicated instruction: `@%p1 st.global.f32 ...`
            op = tokens.next().unwrap_or_default();
        }
        if !(op.starts_with("ld.") || op.starts_with("st.")) {
            continue;
        }
        let qualified = op
            .split('.')
            .any(|part| SPACES.iter().any(|s| part.starts_with(s)));
        if !qualified {
            found.push((current.clone(), t.to_string()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ptxas_blocks() {
        let text = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'k1' for 'sm_90'\n\
ptxas info    : Function properties for k1\n\
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 40 registers, used 1 barriers, 8448 bytes smem, 400 bytes cmem[0]\n\
ptxas info    : Compiling entry function 'k2' for 'sm_90'\n\
ptxas info    : Function properties for k2\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 12 registers, used 0 barriers, 400 bytes cmem[0]\n";
        let r = parse_report(text);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            KernelReport {
                name: "k1".into(),
                registers: 40,
                smem_bytes: 8448,
                stack_bytes: 8,
                spill_stores: 4,
                spill_loads: 4
            }
        );
        assert_eq!(r[1].registers, 12);
        assert_eq!(r[1].smem_bytes, 0);
    }

    #[test]
    fn flags_generic_loads_and_stores_only() {
        let ptx = ".visible .entry k(\n.param .u64 p)\n{\n\
ld.param.u64 %rd1, [p];\n ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];\n\
st.shared.f32 [%r1], %f1;\n st.f32 [%rd2], %f2;\n ld.volatile.shared.u32 %r2, [%r3];\n}\n";
        let g = generic_accesses(ptx);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].0, "k");
        assert!(g[0].1.starts_with("st.f32"));
    }
}
