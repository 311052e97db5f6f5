//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::fmt::Write;

use wf_diagnostics::{Diagnostic, FileId};
use wf_syntax::{Parsed, parse};

/// The first DESIGN section 3 example ("sketch level").
pub const DESIGN_SKETCH: &str = "workflow Hello {\n  start -> greet -> done\n}\n";

/// The second DESIGN section 3 example ("production level"), verbatim.
pub const DESIGN_PRODUCTION: &str = r#"import "lib/review.wf"

/// Ship a ticket to staging, with a human approval.
workflow Release {
  goal = "Ship $ticket to staging"
  needs ticket: string
  gives url: string
  max_steps = 500

  step plan "Plan the release" {
    prompt = """
      Plan how to ship ${ticket}. List risks.
      """
    model = "claude-opus-4-6"
    reads ticket
    writes plan: string
    timeout = 15m
  }

  tool build {
    command = "cargo build --release"
    writes build.log: string
    retries = 2
    backoff = "standard"
  }

  call review = Review {          // sub-workflow; return map: parent <- child
    verdict <- decision
  }

  human approve "Ship it?" { timeout = 1h  default = "[R] Reject" }

  step deploy { reads plan, verdict  writes url: string  goal_gate = true }
  exit done
  exit rejected { writes url: string }

  start -> plan -> build
  build -> review      when outcome == success
  build -> rejected    when outcome == fail
  review -> approve
  approve -> deploy    "[A] Approve"  when verdict == "ok"
  approve -> rejected  "[R] Reject"
  deploy -> done
}
"#;

pub fn parsed(src: &str) -> Parsed {
    parse(src, FileId(0))
}

/// One diagnostic per paragraph: code, span with the source text it
/// covers, message, labels and help.
pub fn diagnostics(src: &str, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    let show = |span: wf_diagnostics::Span| {
        let text = src.get(span.range()).unwrap_or("<?>");
        let text: String = text.chars().take(40).collect();
        format!("{}..{} {:?}", span.start, span.end, text)
    };
    for d in diagnostics {
        let _ = writeln!(
            out,
            "{}[{}] {}: {}",
            d.severity.as_str(),
            d.code.code,
            show(d.primary.location.span),
            d.message
        );
        if !d.primary.message.is_empty() {
            let _ = writeln!(out, "  primary: {}", d.primary.message);
        }
        for label in &d.labels {
            let _ = writeln!(
                out,
                "  label {}: {}",
                show(label.location.span),
                label.message
            );
        }
        if let Some(help) = &d.help {
            let _ = writeln!(out, "  help: {help}");
        }
    }
    out
}

/// The tree as an S-expression followed by the diagnostics.
pub fn render(src: &str) -> String {
    render_with(src, false)
}

/// Like [`render`], with spans on every item, statement and entry.
pub fn render_with(src: &str, spans: bool) -> String {
    let parsed = parsed(src);
    check_invariants(src, &parsed);
    let mut out = wf_syntax::dump::sexpr(&parsed.file, spans);
    if !parsed.diagnostics.is_empty() {
        out.push_str("--- diagnostics\n");
        out.push_str(&diagnostics(src, &parsed.diagnostics));
    }
    out
}

/// Properties every parse result must have, whatever the input.
pub fn check_invariants(src: &str, parsed: &Parsed) {
    let len = src.len() as u32;
    assert_eq!(parsed.file.span, wf_diagnostics::Span::new(0, src.len()));
    for d in &parsed.diagnostics {
        let span = d.primary.location.span;
        assert!(
            span.start <= span.end && span.end <= len,
            "diagnostic span {span:?} out of bounds"
        );
        for label in &d.labels {
            assert!(label.location.span.end <= len);
        }
    }
    let starts: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| d.primary.location.span.start)
        .collect();
    assert!(
        starts.windows(2).all(|w| w[0] <= w[1]),
        "diagnostics not in source order"
    );
    for t in &parsed.trivia {
        assert!(t.span.start < t.span.end && t.span.end <= len);
    }
    let mut last_end = 0;
    for item in &parsed.file.items {
        let span = match item {
            wf_syntax::ast::Item::Import(i) => i.span,
            wf_syntax::ast::Item::Workflow(w) => w.span,
            wf_syntax::ast::Item::Error(s) => *s,
        };
        assert!(
            span.start >= last_end && span.end <= len,
            "item span {span:?} overlaps or is out of bounds"
        );
        last_end = span.end;
    }
}
