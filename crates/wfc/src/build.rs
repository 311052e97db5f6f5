//! `wfc build`: check a project like `wfc check`, then compile it.
//!
//! Diagnostics go to standard error (standard output may carry the
//! compiled program with `-o -`). Errors refuse the build with exit status
//! 1; warnings are shown and the build goes on. The output file is written
//! through a temporary file and renamed into place, so a failed or killed
//! build never leaves half a file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use wf_diagnostics::{Severity, Sources};
use wf_render::{self as render, Format, RenderOptions, Summary};

use crate::check::{self, ColorChoice, OutputFormat};
use crate::inputs::{self, InputError};
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

mod reflex;

/// What `wfc build` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The wfc IR: one JSON document for the whole project (docs/ir.md).
    Ir,
    /// Reflex workflow JSON: one `<workflow>.json` per workflow in the `-o`
    /// directory (docs/reflex.md).
    Reflex,
}

/// Arguments of `wfc build`.
#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Files or directories to compile (directories are searched
    /// recursively), with every file they import.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Where to write the result; `-` writes to standard output.
    #[arg(long, short = 'o', value_name = "PATH")]
    output: PathBuf,
    /// What to write.
    #[arg(long, value_enum, default_value_t = Emit::Ir)]
    emit: Emit,
    /// Format of the diagnostics (printed to standard error).
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// When to colour human diagnostics.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// Runs `wfc build` and returns the exit status.
pub fn run(args: BuildArgs) -> u8 {
    let project = match check::load_project(args.paths.first()) {
        Ok(project) => project,
        Err(mut err) => {
            err.path = check::relative_to_cwd(&err.path);
            eprintln!("error: {err}");
            return EXIT_TROUBLE;
        }
    };
    if args.paths.iter().any(|p| p.as_os_str() == "-") {
        eprintln!("error: `wfc build` reads files, not standard input; give the file's path");
        return EXIT_TROUBLE;
    }
    let mut errors: Vec<InputError> = Vec::new();
    let mut sources = Sources::new();
    let early = inputs::read_paths(&args.paths, &mut sources, &mut errors);
    if !errors.is_empty() {
        for err in &errors {
            eprintln!("error: {}", err.0);
        }
        eprintln!("error: nothing was built");
        return EXIT_TROUBLE;
    }

    let db = inputs::load_database(sources, early, project.as_ref().map(|p| p.root.as_path()));
    let sources = db.sources();
    let mut diagnostics = db.diagnostics();
    if let Some(project) = &project {
        wf_analysis::project::apply_lint_levels(&mut diagnostics, project);
    }
    let summary = Summary::of(&diagnostics);
    if !diagnostics.is_empty() {
        report(&args, &diagnostics, &sources, &summary);
    }
    if diagnostics.iter().any(|d| d.severity == Severity::Error) {
        // JSON and SARIF reports stay one parseable document.
        if !matches!(args.format, OutputFormat::Json | OutputFormat::Sarif) {
            eprintln!("error: nothing was built: fix the errors above first");
        }
        return EXIT_FINDINGS;
    }

    let model = db.program();
    if args.emit == Emit::Reflex {
        // Every guard Reflex cannot express, all at once, before anything
        // is written.
        let problems: Vec<_> = model
            .workflows
            .iter()
            .flat_map(wf_reflex::guard_problems)
            .collect();
        if !problems.is_empty() {
            report(&args, &problems, &sources, &Summary::of(&problems));
            if !matches!(args.format, OutputFormat::Json | OutputFormat::Sarif) {
                eprintln!(
                    "error: nothing was built: these guards cannot be written as Reflex JSON"
                );
            }
            return EXIT_FINDINGS;
        }
    }
    let (text, what) = match args.emit {
        Emit::Reflex => return reflex::write(&model, &args.output, sources.len()),
        Emit::Ir => match wf_compile::compile_with(&model, &sources) {
            Ok(program) => (
                wf_ir::to_json(&program),
                plural(program.workflows.len(), "workflow"),
            ),
            Err(err) => {
                let at = err
                    .span
                    .and_then(|at| Some((sources.try_get(at.file)?, at.span.start)))
                    .map(|(file, offset)| {
                        let lc = file.line_col(offset);
                        format!("{}:{}:{}: ", file.path, lc.line, lc.column)
                    })
                    .unwrap_or_default();
                eprintln!("error: {at}cannot compile: {err}");
                return EXIT_FINDINGS;
            }
        },
    };
    write_output(&args.output, &text, &what, sources.len())
}

/// Prints the diagnostics to standard error in the chosen format.
fn report(
    args: &BuildArgs,
    diagnostics: &[wf_diagnostics::Diagnostic],
    sources: &Sources,
    summary: &Summary,
) {
    let format = match args.format {
        OutputFormat::Human => Format::Human,
        OutputFormat::Concise => Format::Concise,
        OutputFormat::Json => Format::Json,
        OutputFormat::Github => Format::Github,
        OutputFormat::Sarif => Format::Sarif,
    };
    let options = RenderOptions {
        color: args.format == OutputFormat::Human && use_color(args.color),
    };
    let mut out = render::render(diagnostics, sources, format, &options);
    if args.format == OutputFormat::Human {
        out.push_str(&render::summary_line(sources.len(), summary));
        out.push('\n');
    }
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(out.as_bytes())
        .and_then(|()| stderr.flush());
}

/// Writes the result to `output` (atomically) or to standard output.
fn write_output(output: &Path, text: &str, what: &str, files: usize) -> u8 {
    if output.as_os_str() == "-" {
        return check::write_stdout(text);
    }
    if let Err(err) = check::write_report(output, text) {
        eprintln!(
            "error: cannot write `{}`: {}",
            output.display(),
            inputs::io_reason(&err)
        );
        return EXIT_TROUBLE;
    }
    eprintln!(
        "built {what} from {} into `{}`",
        plural(files, "file"),
        output.display()
    );
    EXIT_CLEAN
}

/// `1 file`, `2 files`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Colour for human diagnostics on standard error.
fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stderr().is_terminal()
        }
    }
}
