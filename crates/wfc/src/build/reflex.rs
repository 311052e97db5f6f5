//! `wfc build --emit reflex`: one Reflex workflow JSON file per workflow.
//!
//! Every workflow is converted before anything is written, so a workflow
//! Reflex cannot express (a guard beyond its four built-ins, all of which
//! `build.rs` reports first as WF0012) refuses the whole build and leaves
//! the output directory as it was. Each file is
//! named after the workflow id (`<id>.json`: the layout in which a Reflex
//! file finds the workflows it invokes) and written atomically.

use std::path::Path;

use wf_model::Program;

use super::plural;
use crate::inputs;
use crate::{EXIT_CLEAN, EXIT_FINDINGS, EXIT_TROUBLE};

/// Writes the program's workflows into the directory `output` (created
/// when missing); `-` prints the single workflow of a one-workflow program.
pub fn write(program: &Program, output: &Path, files: usize) -> u8 {
    let mut documents = Vec::new();
    let mut refused = false;
    for workflow in &program.workflows {
        match wf_reflex::emit(workflow) {
            Ok(doc) => documents.push((workflow.name.as_str(), doc.to_pretty_string())),
            Err(err) => {
                eprintln!("error: {err}");
                refused = true;
            }
        }
    }
    if refused {
        eprintln!(
            "error: nothing was built: Reflex guards are `exists`, `not-exists`, `equals` and `not-equals` on blackboard keys (see docs/reflex.md)"
        );
        return EXIT_FINDINGS;
    }
    if output.as_os_str() == "-" {
        return match documents.as_slice() {
            [(_, text)] => super::write_output(output, text, "1 workflow", files),
            _ => {
                eprintln!(
                    "error: `--emit reflex` writes one file per workflow, and there are {}: give a directory with `-o`",
                    documents.len()
                );
                EXIT_TROUBLE
            }
        };
    }
    if let Some((name, _)) = documents.iter().find(|(name, _)| !is_file_name(name)) {
        eprintln!(
            "error: workflow `{name}` cannot be written as `{name}.json`: its id is not a file name"
        );
        return EXIT_FINDINGS;
    }
    if let Err(err) = std::fs::create_dir_all(output) {
        eprintln!(
            "error: cannot create the directory `{}`: {}",
            output.display(),
            inputs::io_reason(&err)
        );
        return EXIT_TROUBLE;
    }
    for (name, text) in &documents {
        let path = output.join(format!("{name}.json"));
        if let Err(err) = crate::check::write_report(&path, text) {
            eprintln!(
                "error: cannot write `{}`: {}",
                path.display(),
                inputs::io_reason(&err)
            );
            return EXIT_TROUBLE;
        }
    }
    eprintln!(
        "built {} as Reflex JSON from {} into `{}`",
        plural(documents.len(), "workflow"),
        plural(files, "file"),
        output.display()
    );
    EXIT_CLEAN
}

/// Whether a workflow id can be a file name on every platform.
fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', ':', '*', '?', '"', '<', '>', '|', '\0'])
}
