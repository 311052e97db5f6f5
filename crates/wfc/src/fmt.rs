//! `wfc fmt`: format `.wf` and DOT (`.dot`, `.gv`, `.fabro`) files in
//! place, check that they are formatted, or show the diff.
//!
//! Exit status (as Ruff's `ruff format`): 0 when everything is formatted
//! (or was reformatted); 1 with `--check` or `--diff` when some file would
//! change; 2 when a file could not be formatted (syntax errors without
//! `--force`, unreadable input, a failed write) or on a usage error. A
//! file that cannot be formatted is left untouched and does not stop the
//! others.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use wf_diagnostics::{Diagnostic, Sources};
use wf_fmt::{FormatError, Options, SourceKind};
use wf_render::{self as render, Format, RenderOptions};

use crate::inputs::{self, InputError};
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// Arguments of `wfc fmt`.
#[derive(Debug, Args)]
pub struct FmtArgs {
    /// Files or directories to format (directories are searched recursively
    /// for `.wf`, `.dot` and `.fabro` files, skipping hidden and git-ignored
    /// files); `-` formats standard input to standard output. Defaults to
    /// `.`.
    paths: Vec<PathBuf>,
    /// Write nothing; list the files that would change and exit with
    /// status 1 if there are any.
    #[arg(long)]
    check: bool,
    /// Write nothing; print a unified diff of what would change and exit
    /// with status 1 if anything would.
    #[arg(long)]
    diff: bool,
    /// Format files with syntax errors too: what parsed is formatted, and
    /// every statement (or item) containing an error is kept as written.
    #[arg(long)]
    force: bool,
    /// The file name to show for standard input (`-`); its extension
    /// picks the language (`.dot`, `.gv` or `.fabro` for DOT, `.wf`
    /// otherwise).
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<String>,
}

/// What became of one input.
enum Outcome {
    /// Already formatted.
    Unchanged,
    /// Formatting changes it; the new text.
    Changed(String),
    /// Not formatted; the message is already printed.
    Failed,
}

/// Runs `wfc fmt` and returns the exit status.
pub fn run(args: FmtArgs) -> u8 {
    let mut errors: Vec<InputError> = Vec::new();
    let mut sources = Sources::new();
    let stdin = args.paths.iter().any(|p| p.as_os_str() == "-");
    if stdin && args.paths.len() > 1 {
        eprintln!("error: `-` (standard input) cannot be combined with other paths");
        return EXIT_TROUBLE;
    }
    if stdin {
        let name = args.stdin_filename.as_deref().unwrap_or("<stdin>");
        inputs::read_stdin(name, &mut sources, &mut errors);
    } else {
        let paths = if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths.clone()
        };
        let files: Vec<PathBuf> = inputs::collect_paths(&paths, &mut errors)
            .into_iter()
            .filter(|p| {
                // Directory walks also find Reflex JSON, which has no
                // formatter; a file named explicitly is formatted as given.
                let reflex = wf_model::SourceFormat::of_path(p)
                    == Some(wf_model::SourceFormat::ReflexJson)
                    && !args.paths.iter().any(|given| given == p);
                if reflex {
                    eprintln!(
                        "note: skipping `{}`: Reflex JSON is not formatted",
                        p.display()
                    );
                }
                !reflex
            })
            .collect();
        inputs::read_files(&files, &mut sources, &mut errors);
    }
    for err in &errors {
        eprintln!("error: {}", err.0);
    }
    let mut tally = Tally::default();
    let mut out = std::io::stdout().lock();
    for (id, file) in sources.iter() {
        // A file's extension picks the language (standard input's comes
        // from `--stdin-filename`); anything else is read as `.wf`.
        let kind = SourceKind::from_path(Path::new(&file.path)).unwrap_or(SourceKind::Wf);
        let outcome = format_one(&file.path, &file.text, kind, args.force, &sources, id);
        match outcome {
            Outcome::Failed => tally.failed += 1,
            Outcome::Unchanged => {
                tally.unchanged += 1;
                if stdin && !args.check && !args.diff {
                    let _ = out.write_all(file.text.as_bytes());
                }
            }
            Outcome::Changed(new) => {
                tally.changed += 1;
                if args.diff {
                    let diff = similar::TextDiff::from_lines(&file.text, &new);
                    let _ = write!(
                        out,
                        "{}",
                        diff.unified_diff()
                            .context_radius(3)
                            .header(&file.path, &file.path)
                    );
                } else if args.check {
                    let _ = writeln!(out, "would reformat: {}", file.path);
                } else if stdin {
                    let _ = out.write_all(new.as_bytes());
                } else if let Err(err) = write_atomically(Path::new(&file.path), &new) {
                    eprintln!("error: cannot write `{}`: {err}", file.path);
                    tally.failed += 1;
                    tally.changed -= 1;
                }
            }
        }
    }
    let _ = out.flush();
    if !stdin && tally.changed + tally.unchanged + tally.failed > 0 {
        eprintln!("{}", tally.summary(args.check || args.diff));
    }
    if !errors.is_empty() || tally.failed > 0 {
        EXIT_TROUBLE
    } else if (args.check || args.diff) && tally.changed > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    }
}

/// Formats one text, reporting why when it cannot.
fn format_one(
    path: &str,
    text: &str,
    kind: SourceKind,
    force: bool,
    sources: &Sources,
    id: wf_diagnostics::FileId,
) -> Outcome {
    let options = Options::default();
    let result = match wf_fmt::format_source(text, kind, &options) {
        Err(FormatError::Syntax(_)) if force => {
            eprintln!(
                "warning: `{path}` has syntax errors: formatting the parts that parse, keeping the rest as written"
            );
            wf_fmt::format_source_forced(text, kind, &options)
        }
        result => result,
    };
    match result {
        Ok(new) if new == text => Outcome::Unchanged,
        Ok(new) => Outcome::Changed(new),
        Err(FormatError::Syntax(errors)) => {
            report_syntax_errors(path, &errors, sources, id);
            Outcome::Failed
        }
        Err(err @ FormatError::Unsafe(_)) => {
            eprintln!("error: `{path}` was not formatted: {err}");
            eprintln!(
                "note: this is a bug in wfc; the file is unchanged; please report it with the file"
            );
            Outcome::Failed
        }
    }
}

/// `path:line:col: error[CODE] message` for the first syntax error, and
/// the way out.
fn report_syntax_errors(
    path: &str,
    errors: &[Diagnostic],
    sources: &Sources,
    id: wf_diagnostics::FileId,
) {
    let Some(first) = errors.first() else {
        return;
    };
    let mut first = first.clone();
    first.primary.location.file = id;
    let line = render::render(
        &[first],
        sources,
        Format::Concise,
        &RenderOptions { color: false },
    );
    eprint!("error: cannot format `{path}`: it has syntax errors\n  {line}");
    let more = errors.len() - 1;
    if more > 0 {
        eprintln!("  … and {more} more (`wfc check {path}` lists them all)");
    }
    eprintln!("note: fix them first, or pass `--force` to format the parts that parse");
}

/// Writes `text` to `path` through a temporary file in the same directory
/// renamed over it, so an interrupted run never leaves a half-written
/// file. The file's permissions are kept, and a symbolic link is written
/// through (the file it points to changes; the link stays a link).
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let real = std::fs::canonicalize(path).map_err(|e| inputs::io_reason(&e))?;
    let path = real.as_path();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".wfc-fmt-")
        .tempfile_in(dir)
        .map_err(|e| inputs::io_reason(&e))?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| inputs::io_reason(&e))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path).map_err(|e| inputs::io_reason(&e.error))?;
    Ok(())
}

/// Counts for the closing summary.
#[derive(Default)]
struct Tally {
    changed: usize,
    unchanged: usize,
    failed: usize,
}

impl Tally {
    /// `2 files reformatted, 1 file left unchanged` (or, when checking,
    /// `would be reformatted` / `already formatted`).
    fn summary(&self, checking: bool) -> String {
        let files = |n: usize| format!("{n} file{}", if n == 1 { "" } else { "s" });
        let mut parts = Vec::new();
        if self.changed > 0 {
            let verb = if checking {
                "would be reformatted"
            } else {
                "reformatted"
            };
            parts.push(format!("{} {verb}", files(self.changed)));
        }
        if self.unchanged > 0 || (self.changed == 0 && self.failed == 0) {
            let verb = if checking {
                "already formatted"
            } else {
                "left unchanged"
            };
            parts.push(format!("{} {verb}", files(self.unchanged)));
        }
        if self.failed > 0 {
            parts.push(format!("{} could not be formatted", files(self.failed)));
        }
        parts.join(", ")
    }
}
