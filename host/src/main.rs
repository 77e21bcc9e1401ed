//! `host`: runs the project's Rust GPU kernels and checks them on the CPU.
mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use cli::{
    apsp::ApspGenArgs, apsp_args::ApspArgs, info::InfoArgs, matmul_args::MatmulArgs,
    matmul_cpu::MatmulCpuArgs, occupancy::OccupancyArgs,
};
use host::gpu::NoGpu;

#[derive(Parser)]
#[command(
    version,
    about = "Rust GPU kernels (SGEMM, all-pairs shortest paths): run, time and check them"
)]
struct Cli {
    /// No progress bars and no notes ("wrote …") on stderr; errors are still printed.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each GPU's properties and the kernels found in the PTX.
    Info(InfoArgs),
    /// Multiply random matrices on the GPU with the Rust kernels (and cuBLAS), check against an f64 reference.
    Matmul(MatmulArgs),
    /// The CPU matmul optimisation ladder (naive → loop order → blocking → SIMD → threads).
    MatmulCpu(MatmulCpuArgs),
    /// All-pairs shortest paths for a graph file (course format); writes the distance matrix.
    Apsp(ApspArgs),
    /// Write a random graph file in the course format.
    ApspGen(ApspGenArgs),
    /// Print the vertices of a shortest path from a path file (`apsp --paths`).
    Path(cli::apsp_paths::PathArgs),
    /// The int32 add-min throughput ceiling (fused VIADDMNMX) that `apsp` compares against.
    ApspPeak(cli::apsp_peak::ApspPeakArgs),
    /// Time the float (f32, f64) Floyd–Warshall kernels' tile shapes against their add-min ceilings.
    ApspFloat(cli::apsp_float::ApspFloatArgs),
    /// All-pairs shortest paths for many graph files in one process, one distance file each.
    ApspBatch(cli::apsp_batch::ApspBatchArgs),
    /// Time one graph's solve under each way of running the rounds (launches, CUDA graph, persistent).
    ApspSmall(cli::apsp_small::ApspSmallArgs),
    /// Theoretical occupancy of every kernel, cross-checked against the driver.
    Occupancy(OccupancyArgs),
    /// Benchmark sweeps on the GPU, one JSON record per configuration.
    Bench(cli::bench::BenchArgs),
    /// Turn benchmark records into PNG charts and markdown tables.
    Report(cli::report::ReportArgs),
    /// Tune the flagship SGEMM for this GPU: time its kernels per shape class, cache the winners.
    Tune(cli::tune::TuneArgs),
    /// The Hopper (sm_90a) BF16/FP16 GEMM against cuBLAS GemmEx, checked against f64 (H100/H200).
    Sm90(cli::sm90::Sm90Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::progress::set_quiet(cli.quiet);
    let result = match cli.command {
        Command::Info(a) => cli::info::run(&a),
        Command::Matmul(a) => cli::matmul::run(&a),
        Command::MatmulCpu(a) => cli::matmul_cpu::run(&a),
        Command::Apsp(a) => cli::apsp::run(&a),
        Command::ApspGen(a) => cli::apsp::run_gen(&a),
        Command::Path(a) => cli::apsp_paths::run_path(&a),
        Command::ApspPeak(a) => cli::apsp_peak::run(&a),
        Command::ApspFloat(a) => cli::apsp_float::run(&a),
        Command::ApspBatch(a) => cli::apsp_batch::run(&a),
        Command::ApspSmall(a) => cli::apsp_small::run(&a),
        Command::Occupancy(a) => cli::occupancy::run(&a),
        Command::Bench(a) => cli::bench::run(&a),
        Command::Report(a) => cli::report::run(&a),
        Command::Tune(a) => cli::tune::run(&a),
        Command::Sm90(a) => cli::sm90::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // 2 is clap's usage error; 3 says "no GPU here", which scripts can tell apart.
            let no_gpu = e
                .downcast_ref::<NoGpu>()
                .or(match e.downcast_ref::<host::Error>() {
                    Some(host::Error::NoGpu(n)) => Some(n),
                    _ => None,
                });
            if let Some(no_gpu) = no_gpu {
                eprintln!("error: {no_gpu}");
                return ExitCode::from(3);
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, error::ErrorKind};

    use rgk_core::matmul::cpu;

    use super::*;

    fn matmul_cpu(args: &[&str]) -> Result<MatmulCpuArgs, clap::Error> {
        let argv = ["host", "matmul-cpu"].iter().chain(args);
        match Cli::try_parse_from(argv)?.command {
            Command::MatmulCpu(a) => Ok(a),
            _ => panic!("parsed as another subcommand"),
        }
    }

    #[test]
    fn tune_classes_parse_and_unknown_ones_are_named() {
        let parse = |args: &[&str]| {
            let argv = ["host", "tune"].iter().chain(args);
            Cli::try_parse_from(argv).map(|c| match c.command {
                Command::Tune(a) => a,
                _ => panic!("parsed as another subcommand"),
            })
        };
        use rgk_core::matmul::tune::ShapeClass;
        let a = parse(&["--classes", "short-k,huge", "--json"]).unwrap();
        assert_eq!(a.classes, Some(vec![ShapeClass::ShortK, ShapeClass::Huge]));
        assert!(a.json && a.output.is_none());
        // `--cache` is kept as another name of -o/--output.
        let a = parse(&["--cache", "t.json"]).unwrap();
        assert_eq!(a.output.as_deref(), Some(std::path::Path::new("t.json")));
        assert_eq!(parse(&[]).unwrap().reps, 10);
        let err = parse(&["--classes", "tiny"]).err().expect("rejected");
        assert_eq!(err.exit_code(), 2);
        let msg = err.to_string();
        assert!(msg.contains("\"tiny\"") && msg.contains("short-k"), "{msg}");
    }

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// Every argument of every subcommand (at any depth) says what it is for in `--help`.
    #[test]
    fn every_argument_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                if !builtin && arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {}", arg.get_id()));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_about().is_none() && sub.get_name() != "help" {
                    missing.push(format!("{path} {} (the subcommand)", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut cmd = Cli::command();
        cmd.build();
        let mut missing = Vec::new();
        walk(&cmd, "host", &mut missing);
        assert!(missing.is_empty(), "arguments without help: {missing:?}");
    }

    /// `--reps 0` is refused by clap (exit status 2) wherever `--reps` exists.
    #[test]
    fn reps_zero_is_a_usage_error_everywhere() {
        let mut cmd = Cli::command();
        cmd.build();
        let mut checked = 0;
        let mut stack: Vec<(Vec<String>, &clap::Command)> = vec![(vec![], &cmd)];
        while let Some((path, c)) = stack.pop() {
            if c.get_arguments().any(|a| a.get_long() == Some("reps")) {
                let mut argv = vec!["host".to_string()];
                argv.extend(path.iter().cloned());
                argv.extend(["--reps".into(), "0".into()]);
                let err = Cli::try_parse_from(&argv).err().expect("--reps 0 accepted");
                assert_eq!(err.kind(), ErrorKind::ValueValidation, "{argv:?}: {err}");
                assert_eq!(err.exit_code(), 2);
                checked += 1;
            }
            for sub in c.get_subcommands() {
                let mut p = path.clone();
                p.push(sub.get_name().to_string());
                stack.push((p, sub));
            }
        }
        assert!(checked >= 5, "only {checked} commands take --reps");
    }

    #[test]
    fn variant_list_parses_in_order() {
        let a = matmul_cpu(&["--variant", "threaded_static,naive_ijk", "--sizes", "1000"]).unwrap();
        assert_eq!(
            a.variant,
            Some(vec![cpu::Variant::ThreadedStatic, cpu::Variant::NaiveIjk])
        );
        assert_eq!(matmul_cpu(&[]).unwrap().variant, None);
    }

    #[test]
    fn unknown_variant_is_one_error_with_exit_status_2() {
        let err = matmul_cpu(&["--variant", "blocked8"])
            .err()
            .expect("rejected");
        assert_eq!(err.kind(), ErrorKind::InvalidValue);
        assert_eq!(err.exit_code(), 2);
        let msg = err.to_string();
        let first = msg.lines().next().unwrap_or_default();
        assert!(
            first.contains("'blocked8'") && first.contains("--variant"),
            "{msg}"
        );
        assert!(
            msg.contains("threaded_rayon"),
            "lists the valid names: {msg}"
        );
    }

    #[test]
    fn inputs_only_needs_once_and_no_variant() {
        assert!(matmul_cpu(&["--once", "--inputs-only"]).is_ok());
        let err = matmul_cpu(&["--inputs-only"]).err().expect("rejected");
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
        let err = matmul_cpu(&["--once", "--inputs-only", "--variant", "blocked16"]);
        assert_eq!(
            err.err().map(|e| e.kind()),
            Some(ErrorKind::ArgumentConflict)
        );
    }
}
