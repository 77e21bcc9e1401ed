//! `host apsp` out of core: when the padded matrix does not fit in the device memory the
//! solver may use (`--device-memory-limit`, or what the GPU has free), it is solved in pinned
//! host memory a super-block at a time (`host::apsp::ooc`).
use anyhow::Result;
use host::{
    apsp::{
        input::GraphFile,
        ooc::{self, solve_graph_ooc},
        peak::{PEAK_ITERATIONS, addmin_peak},
    },
    gpu::{Gpu, free_memory},
};
use rgk_core::{
    apsp::ooc::{Mode, Plan},
    envelope::Device,
    memory::human_bytes,
};

use super::{
    apsp_args::{ApspArgs, io_options, solving_spinner},
    apsp_report::{Report, print_report},
    output::OutputFile,
};

/// The plan and the device memory budget when `input` runs out of core on `gpu`; `None` in
/// core.
pub fn out_of_core(args: &ApspArgs, gpu: &Gpu, input: &GraphFile) -> Result<Option<(Plan, u64)>> {
    gpu.make_current()?;
    match ooc::choose(&input.graph, args.block, args.device_memory_limit)? {
        Mode::InCore => Ok(None),
        Mode::OutOfCore(plan) => {
            let free = free_memory()? as u64;
            let budget = args.device_memory_limit.map_or(free, |l| l.min(free));
            Ok(Some((plan, budget)))
        }
    }
}

/// Solves out of core and prints the report as `host apsp` does, with the plan's line.
pub fn run(
    args: &ApspArgs,
    gpu: &Gpu,
    device: Device,
    input: GraphFile,
    out: Option<OutputFile>,
    stats: bool,
    (plan, budget): (Plan, u64),
) -> Result<()> {
    let Some(out) = out.filter(|_| !stats) else {
        return rgk_core::bad_input(format!(
            "--stats needs the whole matrix on the GPU, and V = {} runs out of core under {}: \
             leave out --stats or raise --device-memory-limit",
            input.graph.vertices,
            human_bytes(budget as u128)
        ));
    };
    let peak = match args.no_peak {
        false => Some(addmin_peak(gpu, PEAK_ITERATIONS, 5)?),
        true => None,
    };
    let pb = solving_spinner(args.verify);
    let solved = solve_graph_ooc(
        gpu,
        input,
        out.path(),
        plan,
        budget,
        args.verify,
        io_options(args),
    );
    pb.finish_and_clear();
    let (rep, ooc) = solved?;
    let report = Report {
        out: Some(&out),
        stats: None,
        device,
        peak: peak.as_ref(),
        multi: None,
        ooc: Some(&ooc),
    };
    print_report(args, &rep, report)
}
