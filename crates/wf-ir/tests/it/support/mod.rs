//! Helpers shared by the wf-ir integration tests.

#![allow(dead_code)] // each test module uses its own subset

use wf_diagnostics::Severity;
use wf_ir::IrProgram;
use wf_model::Program;

/// Checks one `.wf` source as a project of its own, asserting it has no
/// errors, and returns its model.
pub fn model(src: &str) -> Program {
    let mut sources = wf_diagnostics::Sources::new();
    sources.add("test.wf".to_string(), src.to_string());
    let analysis = wf_analysis::analyze_sources(&sources);
    let errors: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code.code, d.message))
        .collect();
    assert!(errors.is_empty(), "the source has errors: {errors:#?}");
    analysis.program
}

/// Compiles one `.wf` source.
pub fn compile(src: &str) -> IrProgram {
    let mut sources = wf_diagnostics::Sources::new();
    sources.add("test.wf".to_string(), src.to_string());
    wf_compile::compile_with(&model(src), &sources).expect("compiles")
}

/// A small program with a guard, a call and every kind of index.
pub const SAMPLE: &str = r#"
workflow Main {
  needs ticket: string
  step plan { reads ticket writes plan: string, score: int retry_target = plan2 }
  step plan2 { writes plan: string, score: int }
  call sub = Sub { verdict <- decision }
  branch route
  exit done
  exit other
  start -> plan -> sub -> route
  route -> done when score > 3 && verdict matches "^ok"
  route -> other when !(score > 3 && verdict matches "^ok")
  start -> plan2 -> sub
}

workflow Sub {
  gives decision: string
  step decide { writes decision: string }
  start -> decide -> done
}
"#;
