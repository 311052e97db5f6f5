//! `wfc graph`: draw the workflows of a file as Graphviz DOT, Mermaid or SVG.
//!
//! The picture is drawn from the shared model, so `.wf`, Attractor `.dot`
//! and Reflex `.json` files all work. A file that does not lower (a syntax
//! error) is refused with its diagnostics; other errors are reported as a
//! count on standard error and the workflows are drawn as written, since a
//! picture often helps to find them. docs/graph.md has the shape table.

mod dot;
mod mermaid;
mod scene;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clap::{Args, ValueEnum};
use wf_diagnostics::{Family, FileId, Severity, Sources};
use wf_render::{self as render, Format, RenderOptions};

use crate::check;
use crate::inputs::{self, InputError};
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// Output formats of `wfc graph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// Graphviz DOT source.
    Dot,
    /// A Mermaid flowchart (renders in GitHub and GitLab Markdown).
    Mermaid,
    /// SVG, drawn by Graphviz `dot -Tsvg` (which must be on the PATH).
    Svg,
}

/// Arguments of `wfc graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The workflow file (`.wf`, `.dot`, `.fabro` or Reflex `.json`); a
    /// directory draws every workflow file in it.
    path: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    format: GraphFormat,
    /// Draw only this workflow (and stubs for what it calls).
    #[arg(long, short = 'w', value_name = "NAME")]
    workflow: Option<String>,
    /// Write the picture to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "PATH")]
    output: Option<PathBuf>,
}

/// Runs `wfc graph` and returns the exit status.
pub fn run(args: GraphArgs) -> u8 {
    if args.path.as_os_str() == "-" {
        eprintln!("error: `wfc graph` reads a file, not standard input; give the file's path");
        return EXIT_TROUBLE;
    }
    let project = match check::load_project(Some(&args.path)) {
        Ok(project) => project,
        Err(mut err) => {
            err.path = check::relative_to_cwd(&err.path);
            eprintln!("error: {err}");
            return EXIT_TROUBLE;
        }
    };
    let mut errors: Vec<InputError> = Vec::new();
    let mut sources = Sources::new();
    let early = inputs::read_paths(std::slice::from_ref(&args.path), &mut sources, &mut errors);
    if !errors.is_empty() {
        for err in &errors {
            eprintln!("error: {}", err.0);
        }
        return EXIT_TROUBLE;
    }
    // The files given come first in the database; imports follow.
    let given = sources.len();
    let db = inputs::load_database(sources, early, project.as_ref().map(|p| p.root.as_path()));
    let diagnostics = db.diagnostics();
    let is_given = |file: FileId| (file.0 as usize) < given;

    let fatal: Vec<_> = diagnostics
        .iter()
        .filter(|d| {
            d.severity == Severity::Error
                && matches!(d.code.family, Family::Syntax | Family::Dot | Family::Reflex)
                && is_given(d.primary.location.file)
        })
        .cloned()
        .collect();
    let program = db.program();
    let incomplete = program
        .workflows
        .iter()
        .any(|w| is_given(w.file) && w.incomplete);
    if !fatal.is_empty() || incomplete {
        let sources = db.sources_for(&fatal);
        let out = render::render(
            &fatal,
            &sources,
            Format::Human,
            &RenderOptions { color: false },
        );
        eprint!("{out}");
        eprintln!(
            "error: nothing was drawn: `{}` does not parse; fix the errors above first",
            args.path.display()
        );
        return EXIT_FINDINGS;
    }

    let selected: Vec<usize> = program
        .workflows
        .iter()
        .enumerate()
        .filter(|(_, w)| is_given(w.file))
        .filter(|(_, w)| args.workflow.as_ref().is_none_or(|name| w.name == *name))
        .map(|(i, _)| i)
        .collect();
    if selected.is_empty() {
        match &args.workflow {
            Some(name) => {
                let names: Vec<&str> = program
                    .workflows
                    .iter()
                    .filter(|w| is_given(w.file))
                    .map(|w| w.name.as_str())
                    .collect();
                eprintln!(
                    "error: no workflow `{name}` in `{}`; it defines: {}",
                    args.path.display(),
                    if names.is_empty() {
                        "nothing".to_owned()
                    } else {
                        names.join(", ")
                    }
                );
            }
            None => eprintln!("error: `{}` defines no workflow", args.path.display()),
        }
        return EXIT_TROUBLE;
    }
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    if errors > 0 {
        eprintln!(
            "warning: `wfc check` reports {errors} error{} here; the graph shows the workflows as written",
            if errors == 1 { "" } else { "s" }
        );
    }

    let all_sources = db.sources();
    let path_of = |w: &wf_model::Workflow| {
        all_sources
            .try_get(w.file)
            .map_or_else(String::new, |f| f.path.clone())
    };
    let scene = scene::build(&program, &selected, &path_of);
    let text = match args.format {
        GraphFormat::Dot => dot::render(&scene),
        GraphFormat::Mermaid => mermaid::render(&scene),
        GraphFormat::Svg => match to_svg(&dot::render(&scene)) {
            Ok(svg) => svg,
            Err(message) => {
                eprintln!("{message}");
                return EXIT_TROUBLE;
            }
        },
    };
    write_output(args.output.as_deref(), &text)
}

/// Runs Graphviz `dot -Tsvg` on `source`.
fn to_svg(source: &str) -> Result<String, String> {
    let child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err("error: `--format svg` needs Graphviz's `dot` on the PATH, and it was not found\n  \
                 help: install Graphviz (Debian/Ubuntu: `apt-get install graphviz`, macOS: `brew install graphviz`),\n        \
                 or use `--format dot` and render elsewhere, or `--format mermaid`"
                .to_owned());
        }
        Err(err) => {
            return Err(format!(
                "error: cannot run `dot`: {}",
                inputs::io_reason(&err)
            ));
        }
    };
    // Write on another thread: `dot` may fill its output pipe before it has
    // read all of its input.
    let Some(mut stdin) = child.stdin.take() else {
        return Err("error: cannot write to `dot`: no input pipe".to_owned());
    };
    let input = source.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child
        .wait_with_output()
        .map_err(|err| format!("error: `dot` failed: {}", inputs::io_reason(&err)))?;
    let written = writer.join().unwrap_or(Ok(()));
    if !output.status.success() {
        return Err(format!(
            "error: `dot -Tsvg` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    if let Err(err) = written {
        return Err(format!(
            "error: cannot write to `dot`: {}",
            inputs::io_reason(&err)
        ));
    }
    String::from_utf8(output.stdout)
        .map_err(|_| "error: `dot` wrote output that is not UTF-8".to_owned())
}

/// Writes `text` to `output` (atomically) or to standard output.
fn write_output(output: Option<&Path>, text: &str) -> u8 {
    let Some(path) = output.filter(|p| p.as_os_str() != "-") else {
        return check::write_stdout(text);
    };
    match check::write_report(path, text) {
        Ok(()) => EXIT_CLEAN,
        Err(err) => {
            eprintln!(
                "error: cannot write `{}`: {}",
                path.display(),
                inputs::io_reason(&err)
            );
            EXIT_TROUBLE
        }
    }
}
