//! SARIF output: a [SARIF 2.1.0] log, for GitHub code scanning and other
//! consumers of the Static Analysis Results Interchange Format.
//!
//! The log has one run. Its `tool.driver.rules` describe every code in
//! [`codes::ALL`], in that order, whether or not it was reported, so a
//! result's `ruleIndex` is its code's position in the registry. Each
//! diagnostic becomes one result: the primary location in `locations`,
//! secondary labels in `relatedLocations`, and its fix in `fixes`.
//!
//! Columns are counted in UTF-16 code units, SARIF's default, and the run
//! says so explicitly with `columnKind: "utf16CodeUnits"`; they therefore
//! differ from the character columns of the other formats on lines with
//! characters outside the Basic Multilingual Plane. Regions are 1-based
//! and their ends exclusive, as SARIF defines them.
//!
//! The structs here are the shape of the output, in field order; they
//! derive `Deserialize` so tests and tools can read a log back. Optional
//! SARIF properties that have no value are omitted, as SARIF recommends.
//! `docs/output-formats.md` documents the mapping.
//!
//! [SARIF 2.1.0]: https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html

use serde::{Deserialize, Serialize};

use super::{Resolved, explanation, message_with_notes_and_help};
use wf_diagnostics::codes::{self, Code};
use wf_diagnostics::{Applicability, Diagnostic, FileId, FileSpan, Severity, Sources};

/// The `$schema` of every log.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF version of every log.
pub const SARIF_VERSION: &str = "2.1.0";

/// `tool.driver.name`.
pub const TOOL_NAME: &str = "wfc";

/// `tool.driver.version`: the version of this crate, which is the version
/// of the `wfc` workspace.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// `tool.driver.informationUri`: the workspace's `repository` URL (a test
/// keeps the two equal).
pub const INFORMATION_URI: &str = "https://example.invalid/wfc";

/// `run.columnKind`: columns count UTF-16 code units.
pub const COLUMN_KIND: &str = "utf16CodeUnits";

/// The whole log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SarifLog {
    /// Always [`SARIF_SCHEMA`].
    #[serde(rename = "$schema")]
    pub schema: String,
    /// Always [`SARIF_VERSION`].
    pub version: String,
    /// Exactly one run.
    pub runs: Vec<SarifRun>,
}

/// One run of `wfc`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifRun {
    /// The tool and its rules.
    pub tool: SarifTool,
    /// Always [`COLUMN_KIND`].
    pub column_kind: String,
    /// One result per diagnostic, in [`super::sort_diagnostics`] order.
    pub results: Vec<SarifResult>,
}

/// `run.tool`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SarifTool {
    /// The tool itself.
    pub driver: SarifDriver,
}

/// `run.tool.driver`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifDriver {
    /// [`TOOL_NAME`].
    pub name: String,
    /// [`TOOL_VERSION`].
    pub version: String,
    /// [`INFORMATION_URI`].
    pub information_uri: String,
    /// One rule per code in [`codes::ALL`], in that order.
    pub rules: Vec<SarifRule>,
}

/// A rule (`reportingDescriptor`): one diagnostic code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifRule {
    /// The code, such as `WF0201`.
    pub id: String,
    /// The code's kebab-case name, such as `cycle`.
    pub name: String,
    /// The code's one-line summary.
    pub short_description: SarifMessage,
    /// The first paragraph of the explanation's "What it does", as plain
    /// text on one line.
    pub full_description: SarifMessage,
    /// The whole explanation, as `markdown` and (the same Markdown source)
    /// as `text`; `wfc explain CODE` prints the same.
    pub help: SarifMessage,
    /// The code's section of `docs/diagnostics.md` in the repository.
    pub help_uri: String,
    /// The code's default severity as a level.
    pub default_configuration: SarifConfiguration,
    /// The code's family as a tag.
    pub properties: SarifRuleProperties,
}

/// A message (`message` or `multiformatMessageString`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SarifMessage {
    /// Plain text.
    pub text: String,
    /// The same in Markdown, when there is Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
}

impl SarifMessage {
    fn text(text: impl Into<String>) -> Self {
        SarifMessage {
            text: text.into(),
            markdown: None,
        }
    }
}

/// `reportingConfiguration`: a rule's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SarifConfiguration {
    /// The default level.
    pub level: SarifLevel,
}

/// A rule's property bag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SarifRuleProperties {
    /// `syntax`, `names` or `graph`.
    pub tags: Vec<String>,
}

/// A SARIF level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SarifLevel {
    /// Severity `error`.
    Error,
    /// Severity `warning`.
    Warning,
    /// Severity `info`.
    Note,
}

impl From<Severity> for SarifLevel {
    fn from(severity: Severity) -> Self {
        match severity {
            Severity::Error => SarifLevel::Error,
            Severity::Warning => SarifLevel::Warning,
            Severity::Info => SarifLevel::Note,
        }
    }
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    /// The code, such as `WF0201`.
    pub rule_id: String,
    /// The code's index in `tool.driver.rules` (absent only for a code
    /// missing from the registry, which is a bug).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_index: Option<usize>,
    /// The diagnostic's severity as a level (always given, even when it is
    /// the rule's default).
    pub level: SarifLevel,
    /// The message, followed by one `note: …` line per note and a
    /// `help: …` line when there is help.
    pub message: SarifMessage,
    /// The primary location, with the primary label as its message; empty
    /// when the diagnostic's file is unknown (a bug in a check).
    pub locations: Vec<SarifLocation>,
    /// Secondary labels, numbered from 1 by `id`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<SarifLocation>,
    /// The diagnostic's fix, if it has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<SarifFix>,
}

/// A location with an optional message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifLocation {
    /// Set on related locations only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<usize>,
    /// The file and region.
    pub physical_location: SarifPhysicalLocation,
    /// The label's message, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<SarifMessage>,
}

/// A region of a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifPhysicalLocation {
    /// The file.
    pub artifact_location: SarifArtifactLocation,
    /// The region.
    pub region: SarifRegion,
}

/// A file, by URI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SarifArtifactLocation {
    /// The path as given to `wfc`, with forward slashes and percent-encoded
    /// where URI syntax needs it; absolute paths become `file://` URIs.
    pub uri: String,
}

/// A text region: 1-based lines, 1-based UTF-16 columns, exclusive end.
/// An empty region (start equal to end) is an insertion point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifRegion {
    /// Line of the first character.
    pub start_line: u32,
    /// Column of the first character.
    pub start_column: u32,
    /// Line of the end.
    pub end_line: u32,
    /// Column just past the last character.
    pub end_column: u32,
}

/// A proposed fix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifFix {
    /// The fix's short imperative description.
    pub description: SarifMessage,
    /// The edits, grouped by file in the order the files first appear.
    pub artifact_changes: Vec<SarifArtifactChange>,
    /// How safe the fix is.
    pub properties: SarifFixProperties,
}

/// A fix's property bag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SarifFixProperties {
    /// `machine-applicable` or `maybe-incorrect`, as in the JSON output.
    pub applicability: Applicability,
}

/// The edits of a fix in one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifArtifactChange {
    /// The file.
    pub artifact_location: SarifArtifactLocation,
    /// Non-overlapping replacements, in the fix's order; every region refers
    /// to the file as it was checked.
    pub replacements: Vec<SarifReplacement>,
}

/// One replacement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifReplacement {
    /// The region to delete (empty for an insertion).
    pub deleted_region: SarifRegion,
    /// The text to insert in its place (`""` for a deletion).
    pub inserted_content: SarifArtifactContent,
}

/// Inserted text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SarifArtifactContent {
    /// The text.
    pub text: String,
}

/// Builds the SARIF log for diagnostics, in the order given (callers sort
/// first, with [`super::sort_diagnostics`], when they need the
/// deterministic order [`super::render`] guarantees).
pub fn log(diags: &[Diagnostic], sources: &Sources) -> SarifLog {
    let refs: Vec<&Diagnostic> = diags.iter().collect();
    build(&refs, sources)
}

pub(super) fn render(diags: &[&Diagnostic], sources: &Sources) -> String {
    // Serialising plain structs of strings and numbers cannot fail.
    let mut out =
        serde_json::to_string_pretty(&build(diags, sources)).expect("the SARIF log serialises");
    out.push('\n');
    out
}

fn build(diags: &[&Diagnostic], sources: &Sources) -> SarifLog {
    SarifLog {
        schema: SARIF_SCHEMA.to_owned(),
        version: SARIF_VERSION.to_owned(),
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: TOOL_NAME.to_owned(),
                    version: TOOL_VERSION.to_owned(),
                    information_uri: INFORMATION_URI.to_owned(),
                    rules: codes::ALL.iter().map(|code| rule(code)).collect(),
                },
            },
            column_kind: COLUMN_KIND.to_owned(),
            results: diags.iter().map(|d| result(d, sources)).collect(),
        }],
    }
}

fn rule(code: &Code) -> SarifRule {
    SarifRule {
        id: code.code.to_owned(),
        name: code.name.to_owned(),
        short_description: SarifMessage::text(code.summary),
        full_description: SarifMessage::text(
            what_it_does(explanation(code)).unwrap_or_else(|| code.summary.to_owned()),
        ),
        help: SarifMessage {
            text: explanation(code).to_owned(),
            markdown: Some(explanation(code).to_owned()),
        },
        help_uri: help_uri(code),
        default_configuration: SarifConfiguration {
            level: code.severity.into(),
        },
        properties: SarifRuleProperties {
            tags: vec![code.family.as_str().to_owned()],
        },
    }
}

/// The URL of a code's section in `docs/diagnostics.md`, whose headings are
/// `## WF0201: cycle` (GitHub's anchor for that is `wf0201-cycle`).
pub fn help_uri(code: &Code) -> String {
    format!(
        "{INFORMATION_URI}/blob/main/docs/diagnostics.md#{}-{}",
        code.code.to_ascii_lowercase(),
        code.name
    )
}

/// The first paragraph under the explanation's `## What it does`, on one
/// line.
fn what_it_does(explanation: &str) -> Option<String> {
    let section = explanation.split_once("## What it does\n")?.1;
    let paragraph = section.trim_start().split("\n\n").next()?;
    let text = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty() && !text.starts_with('#')).then_some(text)
}

fn result(d: &Diagnostic, sources: &Sources) -> SarifResult {
    let locations = physical(d.primary.location, sources)
        .map(|physical_location| SarifLocation {
            id: None,
            physical_location,
            message: message(&d.primary.message),
        })
        .into_iter()
        .collect();
    let related_locations = d
        .labels
        .iter()
        .filter_map(|l| Some((physical(l.location, sources)?, &l.message)))
        .enumerate()
        .map(|(i, (physical_location, text))| SarifLocation {
            id: Some(i + 1),
            physical_location,
            message: message(text),
        })
        .collect();
    SarifResult {
        rule_id: d.code.code.to_owned(),
        rule_index: codes::ALL.iter().position(|c| c.code == d.code.code),
        level: d.severity.into(),
        message: SarifMessage::text(message_with_notes_and_help(d)),
        locations,
        related_locations,
        fixes: d
            .fix
            .as_ref()
            .and_then(|f| fix(f, sources))
            .into_iter()
            .collect(),
    }
}

fn message(text: &str) -> Option<SarifMessage> {
    (!text.is_empty()).then(|| SarifMessage::text(text))
}

/// The fix, or `None` when it has no edits (SARIF needs at least one) or an
/// edit points into an unknown file (a partial fix would be wrong).
fn fix(fix: &wf_diagnostics::Fix, sources: &Sources) -> Option<SarifFix> {
    if fix.edits.is_empty() {
        return None;
    }
    let mut changes: Vec<(FileId, SarifArtifactChange)> = Vec::new();
    for edit in &fix.edits {
        let physical = physical(edit.location, sources)?;
        let replacement = SarifReplacement {
            deleted_region: physical.region,
            inserted_content: SarifArtifactContent {
                text: edit.replacement.clone(),
            },
        };
        let file = edit.location.file;
        match changes.iter_mut().find(|(id, _)| *id == file) {
            Some((_, change)) => change.replacements.push(replacement),
            None => changes.push((
                file,
                SarifArtifactChange {
                    artifact_location: physical.artifact_location,
                    replacements: vec![replacement],
                },
            )),
        }
    }
    Some(SarifFix {
        description: SarifMessage::text(fix.message.clone()),
        artifact_changes: changes.into_iter().map(|(_, change)| change).collect(),
        properties: SarifFixProperties {
            applicability: fix.applicability,
        },
    })
}

/// The file and region of a location, or `None` when its file is unknown.
fn physical(location: FileSpan, sources: &Sources) -> Option<SarifPhysicalLocation> {
    let at = Resolved::new(location, sources);
    at.file?;
    Some(SarifPhysicalLocation {
        artifact_location: SarifArtifactLocation {
            uri: artifact_uri(at.path()),
        },
        region: SarifRegion {
            start_line: at.start().line,
            start_column: at.start_utf16_column(),
            end_line: at.end().line,
            end_column: at.end_utf16_column(),
        },
    })
}

/// A display path as a URI reference: backslashes become forward slashes;
/// absolute paths (`/x`, `C:/x`) become `file://` URIs; every byte that URI
/// syntax does not allow in a path is percent-encoded, and so is `:` in a
/// relative path, where it would read as a scheme. Ordinary relative paths
/// such as `flows/release.wf` are unchanged.
fn artifact_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let bytes = path.as_bytes();
    let drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/';
    let (mut uri, colon_ok) = if path.starts_with('/') {
        (String::from("file://"), true)
    } else if drive {
        (String::from("file:///"), true)
    } else {
        (String::new(), false)
    };
    for &b in bytes {
        let keep = b.is_ascii_alphanumeric()
            || b"-._~/!$&'()*+,;=@".contains(&b)
            || (b == b':' && colon_ok);
        if keep {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_keep_plain_paths_and_encode_the_rest() {
        assert_eq!(artifact_uri("flows/release.wf"), "flows/release.wf");
        assert_eq!(artifact_uri("flows\\lib\\a.wf"), "flows/lib/a.wf");
        assert_eq!(artifact_uri("./a b%.wf"), "./a%20b%25.wf");
        assert_eq!(artifact_uri("<stdin>"), "%3Cstdin%3E");
        assert_eq!(artifact_uri("a:b.wf"), "a%3Ab.wf");
        assert_eq!(artifact_uri("é.wf"), "%C3%A9.wf");
        assert_eq!(artifact_uri("/home/u/a.wf"), "file:///home/u/a.wf");
        assert_eq!(artifact_uri("C:\\w\\a #1.wf"), "file:///C:/w/a%20%231.wf");
    }

    #[test]
    fn full_description_is_the_first_paragraph_of_what_it_does() {
        let md = "## What it does\n\nReports a\n`thing`.\n\nMore.\n\n## Why\n";
        assert_eq!(what_it_does(md).as_deref(), Some("Reports a `thing`."));
        assert_eq!(what_it_does("## What it does\n\n## Why\n"), None);
        assert_eq!(what_it_does("no sections"), None);
        for code in codes::ALL {
            assert!(what_it_does(explanation(code)).is_some(), "{}", code.code);
        }
    }
}
