use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use proptest::prelude::*;
use serde_json::Value;
use wf_ir::StrId;

use super::*;
use crate::agent::{Status, ToolRunner};
use crate::tools::ProcessToolRunner;
use crate::tools::fixture::{self, Board};

struct View(HashMap<String, Value>);
impl BlackboardView for View {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }
    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
    fn local(&self) -> Vec<(&str, &Value)> {
        Vec::new()
    }
}

/// A program whose strings are `texts`, and the template that alternates
/// them with the keys `k0`, `k1`, … at each `@` of `script`.
fn template_of(script: &str) -> (IrProgram, Template) {
    let mut strings = Vec::new();
    let mut template = Vec::new();
    for (i, text) in script.split('@').enumerate() {
        if i > 0 {
            template.push(Part::Key(StrId(strings.len() as u32)));
            strings.push(format!("k{}", i - 1));
        }
        if !text.is_empty() {
            template.push(Part::Text(StrId(strings.len() as u32)));
            strings.push(text.to_string());
        }
    }
    let program = IrProgram {
        format: wf_ir::FORMAT.into(),
        version: wf_ir::VERSION,
        strings,
        workflows: Vec::new(),
    };
    (program, template)
}

fn view(values: &[&str]) -> View {
    View(
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("k{i}"), Value::from(*v)))
            .collect(),
    )
}

#[test]
fn text_rendering_inserts_values_and_json() {
    let (program, t) = template_of("echo @ and @ and @");
    let mut v = view(&["it's"]);
    v.0.insert("k1".into(), Value::from(3));
    assert_eq!(render(&program, &t, &v), "echo it's and 3 and ");
}

#[test]
fn values_become_variables_referenced_for_their_context() {
    let (mut program, mut t) = template_of("a @ \"@\" '@' ");
    // The same key three times: one variable.
    for part in &mut t {
        if let Part::Key(id) = part {
            *id = StrId(program.strings.len() as u32);
        }
    }
    program.strings.push("env".into());
    let v = View(HashMap::from([("env".into(), Value::from("$'x\""))]));
    let command = shell_command(&program, &t, &v).unwrap();
    assert_eq!(
        command.script,
        r#"a "${WFC_VALUE_1}" "${WFC_VALUE_1}" ''"${WFC_VALUE_1}"'' "#
    );
    assert_eq!(command.vars, [("WFC_VALUE_1".into(), "$'x\"".into())]);

    let (program, t) = template_of("cmp @ @");
    let mut v = view(&["a", "b"]);
    v.0.insert("k1".into(), Value::from(vec![1, 2]));
    let command = shell_command(&program, &t, &v).unwrap();
    assert_eq!(command.script, r#"cmp "${WFC_VALUE_1}" "${WFC_VALUE_2}""#);
    assert_eq!(
        command.vars,
        [
            ("WFC_VALUE_1".into(), "a".into()),
            ("WFC_VALUE_2".into(), "[1,2]".into())
        ]
    );
}

#[test]
fn commands_that_cannot_be_built_say_why() {
    let (program, t) = template_of("echo @");
    assert_eq!(
        shell_command(&program, &t, &view(&[])),
        Err(CommandError::Missing("k0".into()))
    );
    assert_eq!(
        shell_command(&program, &t, &view(&["a\0b"])),
        Err(CommandError::Nul("k0".into()))
    );
    let (program, t) = template_of("echo `echo @`");
    let err = shell_command(&program, &t, &view(&["x"])).unwrap_err();
    assert_eq!(
        err,
        CommandError::Refused("k0".into(), wf_shell::Refusal::Backquote)
    );
    assert_eq!(
        err.to_string(),
        "the command interpolates `k0` inside backquotes (`` `…` ``), whose quoting wfc does \
         not track (error[WF0512]); wfc passes values to commands as variables and cannot \
         refer to one there: use `$(…)` for command substitution instead of backquotes"
    );
}

/// A fresh, empty directory for one command.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "wfc-injection-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `command` in `dir` with the process tool runner; returns stdout
/// and whether it succeeded.
fn run_in(dir: &PathBuf, command: &ShellCommand) -> (String, bool) {
    let program = fixture::program();
    let board = Board(Vec::new());
    let valid = fixture::all_edges(&program, 0);
    let cx = fixture::context(&program, 0, &board, &valid);
    let mut runner = ProcessToolRunner::new(dir);
    let o = runner.run(&cx, command, Duration::from_secs(20));
    let out = o
        .writes
        .iter()
        .find(|w| w.key == "run.stdout")
        .and_then(|w| w.value.as_str())
        .unwrap_or_default()
        .to_string();
    (out, o.status == Status::Success)
}

/// The issue's three constructs: a here-document body, an apostrophe in a
/// comment, single quotes nested in `"$(…)"`. Each used to run the value.
#[test]
fn the_reported_injections_stay_text() {
    let value = "$(touch PWNED)`touch PWNED`'; touch PWNED; '\"; touch PWNED; \"";
    for (script, expected) in [
        ("cat <<EOT\n@\nEOT\n", format!("{value}\n")),
        ("# don't\nprintf '%s' @", value.to_string()),
        ("printf '%s' \"$(printf '%s' @)\"", value.to_string()),
    ] {
        let (program, t) = template_of(script);
        let command = shell_command(&program, &t, &view(&[value])).unwrap();
        let dir = scratch();
        let (out, ok) = run_in(&dir, &command);
        assert!(!dir.join("PWNED").exists(), "{script:?} ran the value");
        assert!(ok, "{script:?}");
        assert_eq!(out, expected, "{script:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A shell context with one or more `@` holes (each filled with the same
/// value), and what it prints for a value (`None`: the context is refused).
struct Context {
    script: &'static str,
    prints: Option<fn(&str) -> String>,
}

fn bracketed(v: &str) -> String {
    format!("[{v}]\n")
}
/// `$(…)` drops the trailing newlines of its output.
fn substituted(v: &str) -> String {
    format!("[{}]\n", v.trim_end_matches('\n'))
}
fn line(v: &str) -> String {
    format!("{v}\n")
}

const CONTEXTS: &[Context] = &[
    Context {
        script: "printf '[%s]\\n' @",
        prints: Some(bracketed),
    },
    Context {
        script: "x=@; printf '[%s]\\n' \"$x\"",
        prints: Some(bracketed),
    },
    Context {
        script: "printf '[%s]\\n' \"@\"",
        prints: Some(bracketed),
    },
    Context {
        script: "printf '[%s]\\n' '@'",
        prints: Some(bracketed),
    },
    Context {
        script: "printf '[%s]\\n' \"$(printf '%s' @)\"",
        prints: Some(substituted),
    },
    Context {
        script: "printf '[%s]\\n' \"$(printf \"%s\" \"@\")\"",
        prints: Some(substituted),
    },
    Context {
        script: "cat <<EOT\n@\nEOT",
        prints: Some(line),
    },
    Context {
        script: "cat <<-EOT\n\t@\n\tEOT",
        prints: Some(line),
    },
    Context {
        script: "# don't\nprintf '[%s]\\n' @",
        prints: Some(bracketed),
    },
    Context {
        script: "case @ in *) printf '[%s]\\n' @;; esac",
        prints: Some(bracketed),
    },
    Context {
        script: "printf '[%s]\\n' \"$(case @ in (*) printf '%s' @;; esac)\"",
        prints: Some(substituted),
    },
    Context {
        script: "printf '%s\\n' @ | cat",
        prints: Some(line),
    },
    Context {
        script: "echo `echo @`",
        prints: None,
    },
    Context {
        script: "cat <<'EOT'\n@\nEOT",
        prints: None,
    },
    Context {
        script: "cat <<\"EOT\"\n@\nEOT",
        prints: None,
    },
    Context {
        script: "true # it's @",
        prints: None,
    },
    Context {
        script: "echo $((@ + 1))",
        prints: None,
    },
    Context {
        script: "[[ @ -gt 1 ]]",
        prints: None,
    },
    Context {
        script: "echo ${x:-@}",
        prints: None,
    },
];

/// Pieces of hostile values: command substitution, quotes of both kinds,
/// newlines, backslashes, a here-document delimiter line, globs, comment
/// and `case` syntax, an arithmetic payload for bash.
const HOSTILE: &[&str] = &[
    "$(touch PWNED)",
    "`touch PWNED`",
    "'; touch PWNED; '",
    "\"; touch PWNED; \"",
    "\n",
    "\nEOT\n",
    "EOT",
    "\\",
    "\\\n",
    "'",
    "\"",
    "$",
    "${x}",
    "$((1+1))",
    "a[$(touch PWNED)]",
    "*",
    " ",
    "\t",
    "#",
    ")",
    ";;",
    "esac",
    "plain",
    "é",
];

fn hostile_value() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(HOSTILE), 0..6).prop_map(|parts| parts.concat())
}

/// The script of the contexts `picks` (each hole filled with its value),
/// the values of its holes, and what it prints.
fn compose<'a>(picks: &[(usize, &'a String)]) -> (String, Vec<&'a str>, String) {
    let mut script = String::new();
    let mut holes = Vec::new();
    let mut expected = String::new();
    for &(pick, value) in picks {
        let context = &CONTEXTS[pick];
        holes.extend(context.script.matches('@').map(|_| value.as_str()));
        script.push_str(context.script);
        script.push('\n');
        if let Some(prints) = context.prints {
            expected.push_str(&prints(value));
        }
    }
    (script, holes, expected)
}

/// Checks one generated command: it is refused exactly when one of its
/// contexts is; what remains without those contexts runs without creating
/// the marker file and prints each value verbatim.
fn check_generated(picks: &[usize], values: &[String]) -> Result<(), TestCaseError> {
    let picked: Vec<(usize, &String)> = picks.iter().copied().zip(values).collect();
    let (script, holes, _) = compose(&picked);
    let (program, t) = template_of(&script);
    let built = shell_command(&program, &t, &view(&holes));
    let refused = picks.iter().any(|&p| CONTEXTS[p].prints.is_none());
    prop_assert_eq!(
        matches!(built, Err(CommandError::Refused(..))),
        refused,
        "{:?}: {:?}",
        script,
        built
    );
    let kept: Vec<(usize, &String)> = picked
        .into_iter()
        .filter(|&(p, _)| CONTEXTS[p].prints.is_some())
        .collect();
    if kept.is_empty() {
        return Ok(());
    }
    let (script, holes, expected) = compose(&kept);
    let (program, t) = template_of(&script);
    let command = shell_command(&program, &t, &view(&holes))
        .map_err(|e| TestCaseError::fail(format!("{script:?}: {e}")))?;
    let dir = scratch();
    let (out, ok) = run_in(&dir, &command);
    let pwned = dir.join("PWNED").exists();
    let _ = std::fs::remove_dir_all(&dir);
    prop_assert!(!pwned, "{:?} with {:?} ran a value as code", script, holes);
    prop_assert!(ok, "{:?} with {:?} failed", script, holes);
    prop_assert_eq!(out, expected.clone(), "{:?} with {:?}", script, holes);
    // Where `sh` is bash (macOS), it must hold there too.
    if let Some((out, pwned)) = run_in_bash(&command) {
        prop_assert!(
            !pwned,
            "bash: {:?} with {:?} ran a value as code",
            script,
            holes
        );
        prop_assert_eq!(out, expected, "bash: {:?} with {:?}", script, holes);
    }
    Ok(())
}

/// Runs `command` with `bash --posix` in a fresh directory, when bash is
/// installed: its stdout and whether the marker file appeared.
fn run_in_bash(command: &ShellCommand) -> Option<(String, bool)> {
    let dir = scratch();
    let out = std::process::Command::new("bash")
        .args(["--posix", "-c", &command.script])
        .envs(command.vars.iter().map(|(k, v)| (k, v)))
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    let pwned = dir.join("PWNED").exists();
    let _ = std::fs::remove_dir_all(&dir);
    Some((String::from_utf8_lossy(&out.stdout).into_owned(), pwned))
}

proptest! {
    // 256 cases by default; more with PROPTEST_CASES=10000.
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn no_value_ever_runs_as_shell_code(
        picks in prop::collection::vec(0..CONTEXTS.len(), 1..5),
        values in prop::collection::vec(hostile_value(), 5),
    ) {
        check_generated(&picks, &values)?;
    }
}
