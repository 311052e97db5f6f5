use wf_diagnostics::Diagnostic;

use crate::test_support::{check, text_at};

/// The WF05xx diagnostics of `src` (other families are tested elsewhere).
fn attrs(src: &str) -> Vec<Diagnostic> {
    check(src)
        .into_iter()
        .filter(|d| d.code.code.starts_with("WF05"))
        .collect()
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<&'static str> {
    diagnostics.iter().map(|d| d.code.code).collect()
}

/// The single fix's replacement text.
fn fix(d: &Diagnostic) -> &str {
    &d.fix.as_ref().expect("a fix").edits[0].replacement
}

#[test]
fn well_typed_attributes_are_clean() {
    let src = r#"
workflow W {
  goal = "g"  label = "l"  max_steps = 5  max_visits = 3  max_depth = 4
  wall_clock = 1h  default_timeout = 5m  default_retries = 0  default_fidelity = compact
  retry_target = a  fallback_retry_target = "b"  model_stylesheet = "* { llm_model: x; }"
  step a { timeout = 1m  retries = 2  backoff = standard  goal_gate = true  fidelity = "summary:low"
           class = ["fast", "cheap"]  reasoning_effort = high  allow_partial = false }
  tool b { command = "make"  backoff = { initial_delay: 1s, factor: 1.5, max_delay: 1m, jitter: true } }
  parallel p { join_policy = wait_all  error_policy = "fail_fast"  max_parallel = 2 }
  join j { join_policy = "first_success"  merge = collect }
  human h { default = "[Y] Yes" }
  start -> a -> b -> p
  p -> x -> j
  p -> y -> j
  j -> h
  h -> done "[Y] Yes" { weight = 3  loop_restart = false  fidelity = full }
  h -> other
}
"#;
    assert_eq!(codes(&attrs(src)), Vec::<&str>::new());
}

#[test]
fn unknown_attributes_are_opaque() {
    let src = r#"workflow W { temperature = "hot"  step a { timeout_ms = "x"  env = 3 }  start -> a { colour = 1 } }"#;
    assert!(attrs(src).is_empty());
}

#[test]
fn quoted_values_get_fixes() {
    let src = r#"workflow W { step a { timeout = "15m"  retries = "2"  goal_gate = "true"  model = opus } start -> a }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0501"; 4]);
    let fixes: Vec<&str> = d.iter().map(fix).collect();
    assert_eq!(fixes, ["15m", "2", "true", "\"opus\""]);
    assert_eq!(text_at(src, d[0].primary.location), "\"15m\"");
    assert!(
        d[0].message
            .contains("`timeout` expects a duration, found the string \"15m\"")
    );
}

#[test]
fn durations() {
    let src = r#"workflow W {
      step a { timeout = "1h30m" }  step b { timeout = 0s }  step c { timeout = "-5m" }
      step d { timeout = 900 }  step e { timeout = "soon" }
      start -> a -> b -> c -> d -> e }"#;
    let d = attrs(src);
    assert_eq!(
        codes(&d),
        ["WF0502", "WF0502", "WF0502", "WF0501", "WF0501"]
    );
    assert_eq!(fix(&d[0]), "90m");
    assert!(d[1].message.contains("longer than zero"));
    assert!(d[2].primary.message.contains("negative"));
    assert!(d[3].fix.is_none() && d[3].help.as_ref().unwrap().contains("`900s`"));
}

#[test]
fn ranges() {
    let src = r#"workflow W { max_steps = 0  step a { retries = "-1" }  parallel p { max_parallel = 0 }
      step b { backoff = { factor: 0.5 } }  start -> a -> p -> b }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0503"; 4]);
    assert!(
        d[0].message
            .contains("`max_steps` must be at least 1, found `0`")
    );
    assert!(d[1].notes[0].contains("string"));
    assert!(d[3].message.contains("`backoff.factor`"));
}

#[test]
fn enums_suggest_members() {
    let src = r#"workflow W { step a { fidelity = "summary:hihg"  backoff = exponential  reasoning_effort = Hgh } start -> a }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0504"; 3]);
    assert_eq!(fix(&d[0]), "\"summary:high\"");
    assert_eq!(fix(&d[1]), "standard");
    assert_eq!(fix(&d[2]), "high");
}

#[test]
fn retry_targets() {
    let src = r#"workflow W { retry_target = nowhere  step build  step deploy { retry_target = "biuld" } start -> build -> deploy }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0505", "WF0505"]);
    assert!(d[0].fix.is_none());
    assert_eq!(fix(&d[1]), "\"build\"");
}

#[test]
fn human_defaults() {
    let src = r#"workflow W {
      human a { default = "[R] Rejcet" }  human b { default = "R" }  human c { default = ship }  human d { default = "x" }
      start -> a
      a -> b "[A] Approve"
      a -> c "[R] Reject"
      b -> c "[R] Reject"
      b -> d "[A] Again"
      c -> ship
      d -> e "[Q] Quit"
    }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0506", "WF0506", "WF0506"]);
    assert_eq!(fix(&d[0]), "\"[R] Reject\"");
    assert_eq!(fix(&d[1]), "\"[R] Reject\"");
    assert!(d[2].fix.is_none());
    assert_eq!(d[2].labels.len(), 1);
}

#[test]
fn tool_commands() {
    let src = r#"workflow W { tool a  tool b { tool_command = "make" }  tool c { command = "  " } start -> a -> b -> c }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0507"; 3]);
    assert!(d[0].fix.is_none());
    assert_eq!(fix(&d[1]), "command");
    assert!(d[2].message.contains("empty"));
}

#[test]
fn misplaced_and_aliases() {
    let src = r#"workflow W { step a { command = "make"  retries = 1  max_retries = 2 } join j { max_parallel = 2 }
      start -> a -> j -> b -> c { condition = "outcome=success" } }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0508", "WF0509", "WF0508", "WF0508"]);
    assert_eq!(text_at(src, d[1].primary.location), "max_retries");
}

#[test]
fn chain_attributes_are_checked_once() {
    let src = r#"workflow W { start -> a -> b -> c { weight = "2" } }"#;
    assert_eq!(codes(&attrs(src)), ["WF0501"]);
}

#[test]
fn entry_of_the_wrong_type() {
    let src = r#"workflow W { entry = 3  start -> a }"#;
    let d = attrs(src);
    assert_eq!(codes(&d), ["WF0501"]);
    assert!(d[0].message.contains("`entry` expects a node name"));
}

#[test]
fn schema_keys_are_unique_and_documented() {
    use super::schema::SCHEMA;
    let docs = include_str!("../../../../docs/attributes.md");
    for (i, spec) in SCHEMA.iter().enumerate() {
        assert!(
            !SCHEMA[..i]
                .iter()
                .any(|s| s.key == spec.key && s.place == spec.place),
            "`{}` twice",
            spec.key
        );
        assert!(
            docs.contains(&format!("| `{}` |", spec.key)),
            "`{}` is not in docs/attributes.md",
            spec.key
        );
        if let Some(main) = spec.alias_of {
            assert!(super::schema::lookup(spec.place, main).is_some());
        }
    }
}

/// Many nodes with attributes, retry targets and human defaults: the check
/// stays linear (this would take minutes if any part were quadratic).
#[test]
fn large_workflows_are_checked_in_linear_time() {
    let n = 20_000;
    let mut src = String::from("workflow Big {\n");
    for i in 0..n {
        let target = if i == 0 { 0 } else { i - 1 };
        src.push_str(&format!(
            "  step s{i} {{ timeout = 1m  retries = 1  retry_target = s{target} }}\n"
        ));
    }
    src.push_str("  human h { default = \"[A] Again\" }\n  start -> s0\n");
    for i in 1..n {
        src.push_str(&format!("  s{} -> s{i}\n", i - 1));
    }
    src.push_str(&format!(
        "  s{} -> h\n  h -> done \"[A] Again\"\n}}\n",
        n - 1
    ));
    assert!(attrs(&src).is_empty());
}
