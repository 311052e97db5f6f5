//! `wfc check`: parse, lower and check workflow files, and report.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use wf_diagnostics::{Severity, Sources};
use wf_render::{self as render, Format, RenderOptions, Summary};

use crate::inputs::{self, InputError};
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};
use wf_analysis::project::{self, ConfigError, ProjectConfig, Selection, select};

mod fix;

/// Output formats of `wfc check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Rich, annotated source snippets for people.
    Human,
    /// One line per diagnostic: `path:line:col: severity[CODE] message`.
    Concise,
    /// A versioned JSON document (see docs/json-output.md).
    Json,
    /// GitHub Actions workflow commands, one annotation per diagnostic.
    Github,
    /// A SARIF 2.1.0 log, for code scanning (see docs/output-formats.md).
    Sarif,
}

/// What `wfc check --target` also checks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    /// The wfc IR and runtime: every check, nothing more.
    Wfc,
    /// Reflex workflow JSON (`wfc build --emit reflex`): also every guard
    /// Reflex cannot express (WF0012).
    Reflex,
}

/// When to use colour in human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// Arguments of `wfc check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to check (directories are searched recursively
    /// for `.wf`, `.dot` and `.fabro` files, and `.json` files that are
    /// Reflex workflows, skipping hidden and git-ignored files); `-` reads
    /// standard input. Defaults to the project root, else `.`.
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// Exit with status 1 when there are warnings, not only errors.
    #[arg(long)]
    deny_warnings: bool,
    /// The file name to report for standard input (`-`).
    #[arg(long, value_name = "PATH")]
    stdin_filename: Option<String>,
    /// When to colour human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Write the report to this file instead of standard output (for
    /// example a SARIF file for code scanning). Input errors still go to
    /// standard error.
    #[arg(long, short = 'o', value_name = "PATH")]
    output_file: Option<PathBuf>,
    /// Human output: show at most N reports per file, then a note counting
    /// the rest (0: show every one). The summary counts them all.
    #[arg(long, value_name = "N", default_value_t = render::MAX_HUMAN_REPORTS_PER_FILE)]
    max_reports_per_file: usize,
    /// Report only these codes: codes (`WF0205`), names
    /// (`unreachable-node`) or code prefixes (`WF02`), comma-separated or
    /// repeated. Wins over `wf.toml`'s `[lints]`.
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    select: Vec<String>,
    /// Do not report these codes (same spellings as `--select`; the more
    /// specific of the two wins, `--ignore` on a tie).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    ignore: Vec<String>,
    /// The output the workflows are meant for: `reflex` also reports what
    /// `wfc build --emit reflex` would refuse, without building.
    #[arg(long, value_enum, default_value_t = Target::Wfc)]
    target: Target,
    /// Apply the machine-applicable fixes to the files checked, check
    /// again, and report what remains.
    #[arg(long)]
    fix: bool,
    /// With `--fix`, also apply the maybe-incorrect fixes (a did-you-mean
    /// among them): review the result. Implies `--fix`.
    #[arg(long)]
    unsafe_fixes: bool,
}

/// Reads `--select` and `--ignore`; an unknown code is a usage error.
fn selection(args: &CheckArgs) -> Result<Selection, String> {
    let parse = |list: &[String], flag: &str| {
        list.iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(|s| select::parse(s).map_err(|e| format!("{e} (in `{flag}`)")))
            .collect::<Result<Vec<_>, String>>()
    };
    Ok(Selection {
        select: parse(&args.select, "--select")?,
        ignore: parse(&args.ignore, "--ignore")?,
    })
}

/// One check of the inputs: the database, the diagnostics after the lint
/// levels and the selection, how many sources are inputs (the rest are
/// imported files), and the input errors.
struct Checked {
    db: wf_analysis::Database,
    diagnostics: Vec<wf_diagnostics::Diagnostic>,
    inputs: usize,
    errors: Vec<InputError>,
}

fn check_inputs(
    args: &CheckArgs,
    paths: &[PathBuf],
    project: Option<&ProjectConfig>,
    selection: &Selection,
    read_stdin: bool,
) -> Checked {
    let mut errors: Vec<InputError> = Vec::new();
    let mut sources = Sources::new();
    let file_paths: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    let early = inputs::read_paths(&file_paths, &mut sources, &mut errors);
    if read_stdin {
        let name = args.stdin_filename.as_deref().unwrap_or("<stdin>");
        inputs::read_stdin(name, &mut sources, &mut errors);
    }
    let inputs = sources.len();
    let ir_findings = inputs::verify_ir_files(&sources);
    // The database loads imported files from disk; render from its sources,
    // which include them.
    let db = inputs::load_database(sources, early, project.map(|p| p.root.as_path()));
    let mut diagnostics = db.diagnostics();
    let mut extra = ir_findings;
    if args.target == Target::Reflex {
        for workflow in &db.program().workflows {
            extra.extend(wf_reflex::guard_problems(workflow));
        }
    }
    if !extra.is_empty() {
        diagnostics.extend(extra);
        wf_analysis::sort_diagnostics(&mut diagnostics);
    }
    project::apply_lints(&mut diagnostics, project, selection);
    Checked {
        db,
        diagnostics,
        inputs,
        errors,
    }
}

/// Runs `wfc check` and returns the exit status.
pub fn run(args: CheckArgs) -> u8 {
    let project = match load_project(args.paths.iter().find(|p| p.as_os_str() != "-")) {
        Ok(project) => project,
        Err(mut err) => {
            err.path = relative_to_cwd(&err.path);
            eprintln!("error: {err}");
            return EXIT_TROUBLE;
        }
    };
    let paths = if args.paths.is_empty() {
        // No paths: the project found from the current directory.
        vec![
            project
                .as_ref()
                .map_or_else(|| PathBuf::from("."), |p| relative_to_cwd(&p.root)),
        ]
    } else {
        args.paths.clone()
    };

    let stdin_count = paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        eprintln!("error: `-` (standard input) can be given only once");
        return EXIT_TROUBLE;
    }
    if stdin_count == 0 && args.stdin_filename.is_some() {
        eprintln!("error: `--stdin-filename` needs `-` among the paths");
        return EXIT_TROUBLE;
    }
    let fixing = args.fix || args.unsafe_fixes;
    if fixing && stdin_count == 1 {
        eprintln!(
            "error: `--fix` rewrites files in place and cannot fix standard input; give the file's path"
        );
        return EXIT_TROUBLE;
    }
    let selection = match selection(&args) {
        Ok(selection) => selection,
        Err(message) => {
            eprintln!("error: {message}");
            return EXIT_TROUBLE;
        }
    };
    let mut checked = check_inputs(
        &args,
        &paths,
        project.as_ref(),
        &selection,
        stdin_count == 1,
    );
    let mut fix_lines = Vec::new();
    if fixing && checked.errors.is_empty() {
        let allowed = if args.unsafe_fixes {
            fix::Allowed::Unsafe
        } else {
            fix::Allowed::Safe
        };
        let mut report = fix::Report::default();
        for round in 0.. {
            if round == fix::MAX_ROUNDS {
                report.unfinished = true;
                break;
            }
            let sources = checked.db.sources();
            let applied = match fix::round(
                &sources,
                checked.inputs,
                &checked.diagnostics,
                allowed,
                &mut report,
            ) {
                Ok(applied) => applied,
                Err(reason) => {
                    eprintln!("error: cannot write a fixed file: {reason}");
                    return EXIT_TROUBLE;
                }
            };
            if applied == 0 {
                break;
            }
            checked = check_inputs(&args, &paths, project.as_ref(), &selection, false);
            if fix::revert_worse(&checked.db.sources(), &checked.diagnostics, &mut report) {
                checked = check_inputs(&args, &paths, project.as_ref(), &selection, false);
                break;
            }
        }
        let unsafe_left = if args.unsafe_fixes {
            0
        } else {
            fix::unsafe_available(&checked.diagnostics, checked.inputs)
        };
        fix_lines = fix::summary(&report, unsafe_left);
    }
    let Checked {
        mut db,
        diagnostics,
        errors,
        ..
    } = checked;
    // The texts move out of the database, which is not used again.
    let sources = db.take_sources_for(&diagnostics);
    let summary = Summary::of(&diagnostics);
    let options = RenderOptions {
        color: use_color(args.color, args.format)
            && (args.output_file.is_none() || args.color == ColorChoice::Always),
    };
    let format = match args.format {
        OutputFormat::Human => Format::Human,
        OutputFormat::Concise => Format::Concise,
        OutputFormat::Json => Format::Json,
        OutputFormat::Github => Format::Github,
        OutputFormat::Sarif => Format::Sarif,
    };
    // "checked 0 files" next to an I/O error would only mislead.
    let summary_line = (args.format == OutputFormat::Human
        && (!sources.is_empty() || errors.is_empty()))
    .then(|| format!("{}\n", render::summary_line(sources.len(), &summary)));
    // The report is written as it is rendered, never built whole in memory.
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        let per_file = match args.max_reports_per_file {
            0 => usize::MAX,
            n => n,
        };
        render::render_to_limited(&diagnostics, &sources, format, &options, per_file, out)?;
        if let Some(line) = &summary_line {
            out.write_all(line.as_bytes())?;
        }
        out.flush()
    };
    if let Some(path) = &args.output_file {
        if let Err(err) = write_report_with(path, write) {
            eprintln!(
                "error: cannot write the report to `{}`: {}",
                path.display(),
                inputs::io_reason(&err)
            );
            return EXIT_TROUBLE;
        }
    } else {
        // A closed pipe (`wfc check | head`) is not an error worth a panic.
        let _ = write(&mut std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        ));
    }
    // The process ends soon: leave the database, the syntax trees and the
    // texts to the operating system instead of freeing them one by one
    // (which was 4% of a check of a large project).
    std::mem::forget(db);
    std::mem::forget(sources);

    for line in &fix_lines {
        eprintln!("{line}");
    }
    for err in &errors {
        eprintln!("error: {}", err.0);
    }
    if !errors.is_empty() {
        return EXIT_TROUBLE;
    }
    let failing = diagnostics.iter().any(|d| {
        d.severity == Severity::Error || (args.deny_warnings && d.severity == Severity::Warning)
    });
    if failing { EXIT_FINDINGS } else { EXIT_CLEAN }
}

/// The `wf.toml` found by walking up from the first path given (its
/// directory, for a file), else from the current directory.
pub(crate) fn load_project(
    first_path: Option<&PathBuf>,
) -> Result<Option<ProjectConfig>, ConfigError> {
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(None);
    };
    let start = match first_path {
        Some(path) if path.is_dir() => cwd.join(path),
        Some(path) => cwd.join(path.parent().unwrap_or(std::path::Path::new(""))),
        None => cwd,
    };
    let start = start.canonicalize().unwrap_or(start);
    inputs::find_project(&start)
}

/// `root` relative to the current directory (with `..` where needed), so
/// reported paths stay short and do not depend on where the checkout is.
pub(crate) fn relative_to_cwd(root: &std::path::Path) -> PathBuf {
    let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|cwd| cwd.canonicalize().ok())
    else {
        return root.to_path_buf();
    };
    let common = cwd
        .components()
        .zip(root.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut relative = PathBuf::new();
    for _ in cwd.components().skip(common) {
        relative.push("..");
    }
    for part in root.components().skip(common) {
        relative.push(part);
    }
    if relative.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        relative
    }
}

/// Writes `text` to standard output: `EXIT_CLEAN` when written or when the
/// reader closed the pipe (`wfc build … -o - | head` is the reader's
/// choice), else `EXIT_TROUBLE` with the reason on standard error.
pub(crate) fn write_stdout(text: &str) -> u8 {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => EXIT_CLEAN,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => EXIT_CLEAN,
        Err(err) => {
            eprintln!(
                "error: cannot write to standard output: {}",
                inputs::io_reason(&err)
            );
            EXIT_TROUBLE
        }
    }
}

/// Writes the report through a temporary file in the same directory and
/// renames it into place, so a reader (or a killed run) never sees half a
/// report.
pub(crate) fn write_report(path: &std::path::Path, report: &str) -> std::io::Result<()> {
    write_report_with(path, |out| out.write_all(report.as_bytes()))
}

/// [`write_report`] for a report `write` writes as it goes.
fn write_report_with(
    path: &std::path::Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => std::path::Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "report".into(), |n| n.to_string_lossy().into_owned());
    let temporary = dir.join(format!(".{name}.wfc-tmp-{}", std::process::id()));
    let written = std::fs::File::create(&temporary).and_then(|file| {
        let mut out = std::io::BufWriter::new(file);
        write(&mut out)?;
        out.into_inner().map(drop).map_err(|e| e.into_error())
    });
    if let Err(err) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(err);
    }
    std::fs::rename(&temporary, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

/// `NO_COLOR` (any non-empty value) and non-terminal output turn colour off
/// unless the user forces it.
fn use_color(choice: ColorChoice, format: OutputFormat) -> bool {
    if format != OutputFormat::Human {
        return false;
    }
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}
