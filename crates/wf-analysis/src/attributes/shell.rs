//! WF0511–WF0513: a `$key` interpolation in a tool's `command` at a place
//! `wfc run` cannot pass a value into.
//!
//! The runtime passes each value in an environment variable and writes a
//! reference to it where the interpolation was ([`wf_shell`]);
//! this check runs the same classification on the command's source text, so
//! every command the runtime would refuse is reported before the run. It
//! reads the syntax tree (the model keeps strings decoded, where an
//! interpolation and an escaped `\$key` look alike) and is linear in the
//! size of the commands.

use wf_diagnostics::codes::{self, Code};
use wf_diagnostics::{Diagnostic, FileId};
use wf_shell::{self as shell, Piece, Refusal, Slot};
use wf_syntax::ast;
use wf_syntax::template::{TemplatePart, template};

/// The diagnostics for every `tool` node's `command` in `tree`, whose source
/// text is `text`.
pub fn check_file(tree: &ast::File, file: FileId, text: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for item in &tree.items {
        let ast::Item::Workflow(workflow) = item else {
            continue;
        };
        for statement in &workflow.body {
            let ast::Statement::Node(node) = statement else {
                continue;
            };
            if node.kind != ast::NodeKind::Tool {
                continue;
            }
            for item in node.body.iter().flat_map(|b| &b.items) {
                if let ast::BodyItem::Attribute(a) = item
                    && a.key.text == "command"
                    && let ast::Value::String(literal) = &a.value
                    && !literal.interpolations.is_empty()
                {
                    command(literal, file, text, &mut out);
                }
            }
        }
    }
    out
}

/// One command literal.
fn command(literal: &ast::StrLit, file: FileId, text: &str, out: &mut Vec<Diagnostic>) {
    let Some(raw) = text.get(literal.span.range()) else {
        return;
    };
    let parts = template(raw);
    let pieces = parts.iter().map(|p| match p {
        TemplatePart::Text(t) => Piece::Text(t),
        TemplatePart::Key(_) => Piece::Key,
    });
    // The template's keys and the literal's interpolations are the same
    // markers, in the same order.
    for (slot, at) in shell::slots(pieces)
        .into_iter()
        .zip(&literal.interpolations)
    {
        let Slot::Refused(why) = slot else {
            continue;
        };
        let key = &at.key.text;
        out.push(
            Diagnostic::new(
                refusal_code(why),
                format!(
                    "`{key}` cannot be passed to the command here: it is {}",
                    why.place()
                ),
                at.span.in_file(file),
            )
            .with_primary_label("no reference to the value can be written here")
            .with_note(
                "wfc run passes each value to `sh` in an environment variable and writes a \
                 reference to it in place of the interpolation, so a value never becomes code",
            )
            .with_help(why.help(key)),
        );
    }
}

/// The registered code of a refusal. `wf-shell` names it by its code,
/// since it does not link the registry; a name it could not find would be
/// a bug that `every_refusal_has_a_registered_code` catches.
fn refusal_code(why: Refusal) -> &'static Code {
    codes::lookup(why.code()).unwrap_or(&codes::UNTRACKED_INTERPOLATION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_has_a_registered_code() {
        for why in Refusal::ALL {
            let code = codes::lookup(why.code());
            assert!(
                code.is_some_and(|c| c.name.ends_with("-interpolation")),
                "{why:?} names {}, not an interpolation code",
                why.code()
            );
        }
        assert_eq!(
            refusal_code(Refusal::Comment).name,
            "unexpanded-interpolation"
        );
        assert_eq!(
            refusal_code(Refusal::Evaluated).name,
            "evaluated-interpolation"
        );
        assert_eq!(
            refusal_code(Refusal::Backquote).name,
            "untracked-interpolation"
        );
    }

    /// `(code, source text at the span)` of each diagnostic for `source`.
    fn found(source: &str) -> Vec<(&'static str, String)> {
        let parsed = wf_syntax::parse(source, FileId(0));
        check_file(&parsed.file, FileId(0), source)
            .iter()
            .map(|d| {
                let span = d.primary.location.span;
                (d.code.code, source[span.range()].to_string())
            })
            .collect()
    }

    #[test]
    fn refused_interpolations_are_reported_at_their_marker() {
        let source = r#"workflow W {
  needs v: string
  tool a { command = "echo `echo ${v}` $v # $v" }
  tool b {
    command = """
      cat <<'EOT'
      ${v}
      EOT
      echo $(( $v )) "${v}" '${v}' \${v} # \$v
      """
  }
  step c { command = "echo `${v}`" }
  start -> a -> b -> c -> done
}
"#;
        assert_eq!(
            found(source),
            [
                ("WF0512", "${v}".to_string()),
                ("WF0511", "$v".to_string()),
                ("WF0511", "${v}".to_string()),
                ("WF0513", "$v".to_string()),
            ]
        );
    }
}
