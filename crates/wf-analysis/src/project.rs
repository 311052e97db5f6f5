//! The project file, `wf.toml`.
//!
//! A project is the directory holding `wf.toml`; it is the root that imports
//! may not leave, and its file sets per-code severity overrides:
//!
//! ```toml
//! [project]
//! root = "."          # optional; relative to wf.toml's directory
//!
//! [lints]
//! WF0205 = "allow"    # by code…
//! duplicate-accelerator = "deny"   # …or by name; allow | warn | deny
//! WF08 = "warn"       # …or by code prefix (the more specific key wins)
//! ```
//!
//! Parsing is pure (text in, config out) so the language server can reuse
//! it; discovery walks up the file system from a starting directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use wf_diagnostics::{Code, Diagnostic, Severity};

pub mod select;

pub use select::{Selection, Selector};

/// The file name of a project file.
pub const PROJECT_FILE: &str = "wf.toml";

/// What a `[lints]` entry does to a code's diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LintLevel {
    /// Drop them.
    Allow,
    /// Report them as warnings.
    Warn,
    /// Report them as errors.
    Deny,
}

/// A loaded `wf.toml`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProjectConfig {
    /// The project root (absolute when loaded from disk).
    pub root: PathBuf,
    /// Severity overrides by code, one per code (a prefix key is expanded
    /// to its codes; a more specific key wins).
    pub lints: Vec<(&'static Code, LintLevel)>,
    /// `[llm.models]`: models known per provider beyond the catalog.
    pub models: BTreeMap<String, Vec<String>>,
}

impl ProjectConfig {
    /// The level `[lints]` gives `code`, if any.
    pub fn level(&self, code: &Code) -> Option<LintLevel> {
        self.lints
            .iter()
            .find(|(c, _)| c.code == code.code)
            .map(|(_, level)| *level)
    }
}

/// A `wf.toml` that cannot be used: where and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The project file.
    pub path: PathBuf,
    /// 1-based line and column of the problem, when known.
    pub position: Option<(usize, usize)>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.position {
            Some((line, column)) => write!(
                f,
                "{}:{line}:{column}: {}",
                self.path.display(),
                self.message
            ),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    project: RawProject,
    #[serde(default)]
    lints: BTreeMap<String, toml::Spanned<String>>,
    /// `wfc run --agent llm`'s table, checked by `wf_llm::config::parse`.
    #[serde(default)]
    llm: Option<toml::Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawProject {
    root: Option<String>,
}

/// Finds the nearest `wf.toml` in `start` or one of its ancestors.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(PROJECT_FILE))
        .find(|candidate| candidate.is_file())
}

/// Reads and parses a project file from disk; the root is made absolute.
pub fn load(path: &Path) -> Result<ProjectConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|err| ConfigError {
        path: path.to_path_buf(),
        position: None,
        message: format!("cannot read the project file: {err}"),
    })?;
    let mut config = parse(path, &text)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let root = dir.join(&config.root);
    config.root = root.canonicalize().map_err(|err| ConfigError {
        path: path.to_path_buf(),
        position: None,
        message: format!(
            "the project root `{}` cannot be used: {err}",
            root.display()
        ),
    })?;
    Ok(config)
}

/// Parses the text of a project file. `root` in the result is relative to
/// the file's directory (`.` when not set).
pub fn parse(path: &Path, text: &str) -> Result<ProjectConfig, ConfigError> {
    let error_at = |offset: Option<usize>, message: String| ConfigError {
        path: path.to_path_buf(),
        position: offset.map(|o| line_col(text, o)),
        message,
    };
    let raw: RawConfig = toml::from_str(text).map_err(|err| {
        error_at(
            err.span().map(|s| s.start),
            err.message().trim().to_string(),
        )
    })?;
    let mut models = BTreeMap::new();
    if raw.llm.is_some() {
        let llm = wf_llm::config::parse(text).map_err(|(line, column, message)| ConfigError {
            path: path.to_path_buf(),
            position: Some((line, column)),
            message,
        })?;
        models = llm.models;
    }
    // Per code: the specificity of the key that set it, and the level.
    let mut levels: BTreeMap<&'static str, (u8, &'static Code, LintLevel)> = BTreeMap::new();
    for (key, level) in &raw.lints {
        let selector = select::parse(key)
            .map_err(|message| error_at(find_key(text, key), format!("{message} (in [lints])")))?;
        let parsed = match level.get_ref().as_str() {
            "allow" => LintLevel::Allow,
            "warn" => LintLevel::Warn,
            "deny" => LintLevel::Deny,
            other => {
                return Err(error_at(
                    Some(level.span().start),
                    format!("unknown lint level `{other}`; expected `allow`, `warn` or `deny`"),
                ));
            }
        };
        if let [code] = selector.codes[..]
            && !selector.is_prefix()
            && parsed != LintLevel::Deny
            && select::compile_blocking(code)
        {
            return Err(error_at(
                find_key(text, key),
                format!(
                    "{} ({}) cannot be overridden: `wfc build` and `wfc run` cannot compile a workflow with this error; fix it instead",
                    code.code, code.name
                ),
            ));
        }
        if let [code] = selector.codes[..]
            && !selector.is_prefix()
            && select::is_syntax_error(code)
        {
            return Err(error_at(
                find_key(text, key),
                format!(
                    "{} ({}) is a syntax error and cannot be overridden: the file cannot be understood without fixing it",
                    code.code, code.name
                ),
            ));
        }
        // A prefix leaves the syntax errors it covers as they are.
        for code in selector.codes.iter().filter(|c| select::overridable(c)) {
            let entry = levels.entry(code.code).or_insert((0, code, parsed));
            if selector.specificity >= entry.0 {
                *entry = (selector.specificity, code, parsed);
            }
        }
    }
    let lints = levels
        .into_values()
        .map(|(_, code, level)| (code, level))
        .collect();
    Ok(ProjectConfig {
        root: PathBuf::from(raw.project.root.unwrap_or_else(|| ".".to_string())),
        lints,
        models,
    })
}

/// Applies the `[lints]` overrides: drops allowed diagnostics and changes
/// the severity of the others.
pub fn apply_lint_levels(diagnostics: &mut Vec<Diagnostic>, config: &ProjectConfig) {
    apply_lints(diagnostics, Some(config), &Selection::default());
}

/// Applies `wf.toml`'s `[lints]` (when there is a project file), then the
/// command line's `--select` and `--ignore`, which win: a code `wf.toml`
/// allows comes back when `--select` names it.
pub fn apply_lints(
    diagnostics: &mut Vec<Diagnostic>,
    config: Option<&ProjectConfig>,
    selection: &Selection,
) {
    // Models `[llm.models]` adds are known: their WF0816 findings go.
    if let Some(c) = config.filter(|c| !c.models.is_empty()) {
        diagnostics.retain(|d| {
            let listed = (d.code.code == wf_diagnostics::codes::ATTRACTOR_UNKNOWN_MODEL.code)
                .then(|| crate::attractor::models::unknown_model(&d.message))
                .flatten()
                .is_some_and(|(model, provider)| {
                    let provider = wf_llm::config::canonical(provider);
                    c.models
                        .get(provider)
                        .is_some_and(|m| m.iter().any(|x| x == model))
                });
            !listed
        });
    }
    if config.is_none_or(|c| c.lints.is_empty()) && selection.is_empty() {
        return;
    }
    diagnostics.retain_mut(|d| {
        if !selection.keeps(d.code) {
            return false;
        }
        match config.and_then(|c| c.level(d.code)) {
            Some(LintLevel::Allow) => selection.selects(d.code),
            Some(LintLevel::Warn) => {
                d.severity = Severity::Warning;
                true
            }
            Some(LintLevel::Deny) => {
                d.severity = Severity::Error;
                true
            }
            None => true,
        }
    });
}

fn find_key(text: &str, key: &str) -> Option<usize> {
    text.find(key)
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use wf_diagnostics::codes;

    fn parse_str(text: &str) -> Result<ProjectConfig, ConfigError> {
        parse(Path::new("wf.toml"), text)
    }

    #[test]
    fn empty_file_is_a_valid_project() {
        let config = parse_str("").unwrap();
        assert_eq!(config.root, PathBuf::from("."));
        assert!(config.lints.is_empty());
    }

    #[test]
    fn lints_by_code_and_name() {
        let config = parse_str(
            "[project]\nroot = \"src\"\n[lints]\nWF0205 = \"allow\"\nduplicate-accelerator = \"deny\"\n",
        )
        .unwrap();
        assert_eq!(config.root, PathBuf::from("src"));
        assert_eq!(config.lints.len(), 2);
        assert!(
            config
                .lints
                .iter()
                .any(|(c, l)| c.code == "WF0205" && *l == LintLevel::Allow)
        );
    }

    #[test]
    fn unknown_code_is_reported_with_position() {
        let err = parse_str("[lints]\nWF9999 = \"allow\"\n").unwrap_err();
        assert_eq!(err.position, Some((2, 1)));
        assert!(err.message.contains("unknown diagnostic code"));
    }

    #[test]
    fn unknown_name_gets_a_did_you_mean() {
        let err = parse_str("[lints]\nWF0205 = \"warn\"\nunreachable = \"allow\"\n").unwrap_err();
        assert_eq!(err.position, Some((3, 1)));
        assert_eq!(
            err.message,
            "unknown diagnostic code `unreachable`: did you mean `unreachable-node` (WF0205)? (in [lints])"
        );
    }

    #[test]
    fn prefixes_expand_and_the_more_specific_key_wins() {
        let config =
            parse_str("[lints]\nWF02 = \"deny\"\nunreachable-node = \"allow\"\nWF0 = \"warn\"\n")
                .unwrap();
        assert_eq!(
            config.level(&codes::UNREACHABLE_NODE),
            Some(LintLevel::Allow)
        );
        assert_eq!(
            config.level(&codes::DUPLICATE_ACCELERATOR),
            Some(LintLevel::Deny)
        );
        assert_eq!(
            config.level(&codes::READ_NOT_WRITTEN),
            Some(LintLevel::Warn)
        );
        // A prefix passes over the syntax errors and the compile-blocking
        // errors it covers.
        assert_eq!(config.level(&codes::CYCLE), None);
        assert_eq!(config.level(&codes::UNEXPECTED_TOKEN), None);
        assert_eq!(
            config.level(&codes::INVALID_SUPPRESSION),
            Some(LintLevel::Warn)
        );
    }

    #[test]
    fn the_command_line_wins_over_the_project_file() {
        use wf_diagnostics::{FileId, Span};
        let config = parse_str("[lints]\nWF0205 = \"allow\"\n").unwrap();
        let at = Span::new(0, 1).in_file(FileId(0));
        let diags = || {
            vec![
                Diagnostic::new(&codes::UNREACHABLE_NODE, "x", at),
                Diagnostic::new(&codes::DUPLICATE_ACCELERATOR, "z", at),
            ]
        };
        let selection = Selection {
            select: vec![select::parse("WF0205").unwrap()],
            ignore: Vec::new(),
        };
        let mut kept = diags();
        apply_lints(&mut kept, Some(&config), &selection);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].code.code, "WF0205");
        let selection = Selection {
            select: Vec::new(),
            ignore: vec![select::parse("duplicate-accelerator").unwrap()],
        };
        let mut kept = diags();
        apply_lints(&mut kept, Some(&config), &selection);
        assert!(kept.is_empty());
    }

    #[test]
    fn bad_level_and_unknown_section() {
        let err = parse_str("[lints]\nWF0205 = \"ignore\"\n").unwrap_err();
        assert!(err.message.contains("unknown lint level `ignore`"));
        assert_eq!(err.position, Some((2, 10)));
        let err = parse_str("[lint]\n").unwrap_err();
        assert!(err.message.contains("unknown field"), "{}", err.message);
    }

    #[test]
    fn syntax_errors_cannot_be_allowed() {
        let err = parse_str("[lints]\nWF0001 = \"allow\"\n").unwrap_err();
        assert!(err.message.contains("cannot be overridden"));
    }

    #[test]
    fn compile_blocking_errors_cannot_be_allowed_or_demoted() {
        for code in crate::suppress::COMPILE_BLOCKING {
            for level in ["allow", "warn"] {
                let err =
                    parse_str(&format!("[lints]\n{} = \"{level}\"\n", code.name)).unwrap_err();
                assert!(err.message.contains("cannot compile"), "{}", err.message);
                assert_eq!(err.position, Some((2, 1)));
            }
            assert!(parse_str(&format!("[lints]\n{} = \"deny\"\n", code.code)).is_ok());
        }
    }

    #[test]
    fn malformed_toml_has_a_position() {
        let err = parse_str("[lints\n").unwrap_err();
        assert!(err.position.is_some());
        assert!(err.to_string().starts_with("wf.toml:1:"));
    }

    #[test]
    fn levels_apply() {
        use wf_diagnostics::{FileId, Span};
        let config = parse_str("[lints]\nWF0205 = \"allow\"\nWF0209 = \"deny\"\n").unwrap();
        let at = Span::new(0, 1).in_file(FileId(0));
        let mut diags = vec![
            Diagnostic::new(&codes::UNREACHABLE_NODE, "x", at),
            Diagnostic::new(&codes::DUPLICATE_ACCELERATOR, "y", at),
            Diagnostic::new(&codes::CYCLE, "z", at),
        ];
        apply_lint_levels(&mut diags, &config);
        assert_eq!(diags.len(), 2);
        assert_eq!(diags[0].severity, Severity::Error);
        assert_eq!(diags[1].code.code, "WF0201");
    }

    #[test]
    fn the_llm_table_is_accepted_and_checked() {
        let config =
            parse_str("[llm]\nmodel = \"m\"\n[llm.models]\nlocal = [\"qwen3\"]\n").unwrap();
        assert_eq!(config.models["local"], ["qwen3"]);
        let err = parse_str("[llm]\nmodle = \"m\"\n").unwrap_err();
        assert_eq!(err.position, Some((2, 1)));
        assert!(
            err.message.contains("did you mean `model`?"),
            "{}",
            err.message
        );
    }

    #[test]
    fn llm_models_silence_the_unknown_model_warning() {
        let config = parse_str("[llm.models]\nanthropic = [\"claude-next\"]\n").unwrap();
        let diagnostic = |model: &str| {
            Diagnostic::new(
                &codes::ATTRACTOR_UNKNOWN_MODEL,
                format!("model `{model}` is not known for provider `anthropic`"),
                wf_diagnostics::FileSpan {
                    file: wf_diagnostics::FileId(0),
                    span: wf_diagnostics::Span::new(0, 1),
                },
            )
        };
        let mut found = vec![diagnostic("claude-next"), diagnostic("claude-nxt")];
        apply_lints(&mut found, Some(&config), &Selection::default());
        assert_eq!(found.len(), 1);
        assert!(found[0].message.contains("claude-nxt"));
    }
}
