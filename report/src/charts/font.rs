//! The chart font: `plotters`' `ab_glyph` backend ships none, so a TrueType file is found on the
//! system (or named by `REPORT_FONT`) and registered as "sans-serif" once per process. This
//! avoids font-kit and its fontconfig dependency.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Result, anyhow};
use plotters::style::FontStyle;

use super::FONT;

const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/google-noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSans.ttf",
    "/usr/share/fonts/gnu-free/FreeSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

/// Registers the chart font once; later calls return the first outcome.
pub(super) fn ensure_font() -> Result<()> {
    static FONT_STATE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match FONT_STATE.get_or_init(load_font) {
        Ok(_) => Ok(()),
        Err(e) => Err(anyhow!("{e}")),
    }
}

fn load_font() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("REPORT_FONT").map(PathBuf::from) {
        return std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(register)
            .map(|()| path.clone())
            .map_err(|e| {
                format!(
                    "REPORT_FONT={}: {e} (point it at a .ttf file, or unset it to use a system \
                     font such as Debian's fonts-dejavu-core)",
                    path.display()
                )
            });
    }
    let mut problems = Vec::new();
    for candidate in FONT_CANDIDATES {
        let path = Path::new(candidate);
        if let Ok(bytes) = std::fs::read(path) {
            match register(bytes) {
                Ok(()) => return Ok(path.to_path_buf()),
                Err(e) => problems.push(format!("{candidate}: {e}")),
            }
        }
    }
    let mut msg = format!(
        "no TrueType font found for chart text (looked for {}); install one (Debian/Ubuntu: \
         apt-get install fonts-dejavu-core) or set REPORT_FONT to a .ttf file",
        FONT_CANDIDATES.join(", ")
    );
    if !problems.is_empty() {
        let _ = write!(msg, "; unusable: {}", problems.join("; "));
    }
    Err(msg)
}

fn register(bytes: Vec<u8>) -> Result<(), String> {
    // plotters keeps &'static font data; this happens once per process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font(FONT, FontStyle::Normal, bytes)
        .map_err(|_| "not a valid TrueType/OpenType font".to_string())
}
