//! Progress on stderr for work that takes more than a few seconds, and the notes a command
//! prints beside its results ("wrote …"). Both are silent with the global `--quiet`; bars are
//! also hidden when stderr is not a terminal (a log file gets no control characters).
use std::{
    io::IsTerminal,
    sync::atomic::{AtomicBool, Ordering},
    time::Duration,
};

use indicatif::{ProgressBar, ProgressStyle};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Set once by `main` from `--quiet`.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

fn bars_shown() -> bool {
    !quiet() && std::io::stderr().is_terminal()
}

/// A bar of `len` steps (`{pos}/{len}`, elapsed time, message), hidden when bars are off.
pub fn bar(len: u64) -> ProgressBar {
    if !bars_shown() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} [{elapsed_precise}] {msg}")
            .expect("static progress template"),
    );
    pb
}

/// A spinner with the elapsed time for work of unknown length, hidden when bars are off.
pub fn spinner(msg: &str) -> ProgressBar {
    if !bars_shown() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new_spinner();
    pb.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed_precise}]")
            .expect("static progress template"),
    );
    pb.set_message(msg.to_string());
    pb.enable_steady_tick(Duration::from_millis(120));
    pb
}

/// A note for the user on stderr (never stdout, which carries only results), unless `--quiet`.
pub fn note(msg: &str) {
    if !quiet() {
        eprintln!("{msg}");
    }
}
