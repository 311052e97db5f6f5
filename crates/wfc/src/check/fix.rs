//! `wfc check --fix`: applying the fixes diagnostics carry, as Ruff does.
//!
//! Each round applies, per file checked, every allowed fix whose edits
//! overlap no fix taken before it (in source order), writes the files that
//! changed, and checks again; overlapping fixes wait for the next round.
//! Rounds stop when no fix applies (at most [`MAX_ROUNDS`]). A file whose
//! errors grew after a round is put back as it was before `--fix`: a fix
//! must never make a file worse, and if one does that is a bug in wfc.

use std::collections::BTreeMap;
use std::path::Path;

use wf_diagnostics::{Applicability, Diagnostic, FileId, Severity, Sources};

/// Rounds of fixing before giving up on fixes that keep producing fixes.
pub const MAX_ROUNDS: usize = 8;

/// Which fixes `--fix` applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowed {
    /// Machine-applicable ones (`--fix`).
    Safe,
    /// Maybe-incorrect ones too (`--unsafe-fixes`).
    Unsafe,
}

impl Allowed {
    fn allows(self, applicability: Applicability) -> bool {
        self == Allowed::Unsafe || applicability == Applicability::MachineApplicable
    }
}

/// What the rounds did, for the summary.
#[derive(Debug, Default)]
pub struct Report {
    /// Fixes applied, per code.
    pub fixed: BTreeMap<&'static str, usize>,
    /// Files written (by shown path).
    pub files: Vec<String>,
    /// Files put back because the fixes made them worse.
    pub reverted: Vec<String>,
    /// Whether fixes still applied after the last round.
    pub unfinished: bool,
    /// The original text of every file written, by shown path.
    originals: BTreeMap<String, String>,
    /// Error counts per file expected after the last round: those before
    /// it, less the errors its fixes resolve.
    errors_before: BTreeMap<String, usize>,
}

impl Report {
    /// How many fixes were applied.
    pub fn count(&self) -> usize {
        self.fixed.values().sum()
    }
}

/// Applies one round of fixes to the first `inputs` files of `sources`
/// (the files named or found on the command line, not the ones they
/// import); returns how many were applied.
pub fn round(
    sources: &Sources,
    inputs: usize,
    diagnostics: &[Diagnostic],
    allowed: Allowed,
    report: &mut Report,
) -> Result<usize, String> {
    let mut per_file: BTreeMap<FileId, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diagnostics {
        let Some(fix) = &d.fix else { continue };
        if !allowed.allows(fix.applicability) || fix.edits.is_empty() {
            continue;
        }
        let file = fix.edits[0].location.file;
        let one_file = fix.edits.iter().all(|e| e.location.file == file);
        if one_file && (file.0 as usize) < inputs {
            per_file.entry(file).or_default().push(d);
        }
    }
    report.errors_before = error_counts(sources, diagnostics);
    let mut applied = 0;
    for (file, fixes) in per_file {
        let source = sources.get(file);
        let mut edits: Vec<(usize, usize, &str)> = Vec::new();
        let mut taken: Vec<&'static str> = Vec::new();
        let mut errors_fixed = 0;
        let mut sorted = fixes;
        sorted.sort_by_key(|d| d.fix.as_ref().map(|f| f.edits[0].location.span.start));
        for d in sorted {
            let fix = d.fix.as_ref().expect("kept for its fix");
            let ranges: Vec<(usize, usize, &str)> = fix
                .edits
                .iter()
                .map(|e| {
                    let r = e.location.span.range();
                    (r.start, r.end, e.replacement.as_str())
                })
                .collect();
            let in_bounds = ranges.iter().all(|&(s, e, _)| {
                s <= e && e <= source.text.len() && source.text.is_char_boundary(s)
            });
            let overlaps = ranges
                .iter()
                .any(|&(s, e, _)| edits.iter().any(|&(s2, e2, _)| s < e2 && s2 < e || s == s2));
            if in_bounds && !overlaps {
                edits.extend(ranges);
                taken.push(d.code.code);
                errors_fixed += usize::from(d.severity == Severity::Error);
            }
        }
        if taken.is_empty() {
            continue;
        }
        edits.sort_by_key(|&(s, _, _)| std::cmp::Reverse(s));
        let mut text = source.text.clone();
        for (start, end, replacement) in edits {
            text.replace_range(start..end, replacement);
        }
        if text == source.text {
            continue;
        }
        report
            .originals
            .entry(source.path.clone())
            .or_insert_with(|| source.text.clone());
        write(Path::new(&source.path), &text)?;
        // The errors the fixes resolve should be gone after the round.
        if let Some(count) = report.errors_before.get_mut(&source.path) {
            *count = count.saturating_sub(errors_fixed);
        }
        if !report.files.contains(&source.path) {
            report.files.push(source.path.clone());
        }
        for code in taken {
            *report.fixed.entry(code).or_default() += 1;
            applied += 1;
        }
    }
    Ok(applied)
}

/// After a round's re-check: puts back every file with more errors than
/// expected (a fix that resolves its error but brings another is worse).
pub fn revert_worse(sources: &Sources, diagnostics: &[Diagnostic], report: &mut Report) -> bool {
    let after = error_counts(sources, diagnostics);
    let mut reverted = false;
    for (path, &count) in &after {
        let before = report.errors_before.get(path).copied().unwrap_or(0);
        if count > before
            && let Some(original) = report.originals.get(path)
            && write(Path::new(path), original).is_ok()
        {
            report.reverted.push(path.clone());
            report.files.retain(|f| f != path);
            reverted = true;
        }
    }
    reverted
}

fn error_counts(sources: &Sources, diagnostics: &[Diagnostic]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for d in diagnostics.iter().filter(|d| d.severity == Severity::Error) {
        if let Some(file) = sources.try_get(d.primary.location.file) {
            *counts.entry(file.path.clone()).or_default() += 1;
        }
    }
    counts
}

/// Writes a fixed file in place, keeping its permissions (through a
/// temporary file renamed over it, as `wfc fmt` does).
fn write(path: &Path, text: &str) -> Result<(), String> {
    crate::fmt::write_atomically(path, text)
}

/// The summary printed to standard error.
pub fn summary(report: &Report, unsafe_left: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let count = report.count();
    if count > 0 {
        let codes: Vec<String> = report
            .fixed
            .iter()
            .map(|(code, n)| {
                if *n == 1 {
                    code.to_string()
                } else {
                    format!("{code} ×{n}")
                }
            })
            .collect();
        lines.push(format!(
            "fixed {} in {} ({})",
            plural(count, "problem"),
            plural(report.files.len().max(1), "file"),
            codes.join(", ")
        ));
    } else {
        lines.push("fixed nothing: no fix applies".to_string());
    }
    for path in &report.reverted {
        lines.push(format!(
            "error: the fixes made `{path}` worse, so it was put back as it was; this is a bug in wfc, please report it"
        ));
    }
    if report.unfinished {
        lines.push(format!(
            "note: fixes still applied after {MAX_ROUNDS} rounds; run `wfc check --fix` again"
        ));
    }
    if unsafe_left > 0 {
        lines.push(format!(
            "note: {} more {} available with `--unsafe-fixes` (they may change what the file means: review them)",
            unsafe_left,
            if unsafe_left == 1 { "fix is" } else { "fixes are" }
        ));
    }
    lines
}

/// How many reported diagnostics carry a maybe-incorrect fix in a file
/// `--fix` may write.
pub fn unsafe_available(diagnostics: &[Diagnostic], inputs: usize) -> usize {
    diagnostics
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| f.applicability == Applicability::MaybeIncorrect)
        .filter(|f| {
            f.edits
                .first()
                .is_some_and(|e| (e.location.file.0 as usize) < inputs)
        })
        .count()
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wf_diagnostics::{Fix, Span, codes};

    fn fixing(
        file: FileId,
        range: (usize, usize),
        to: &str,
        applicability: Applicability,
    ) -> Diagnostic {
        let at = Span::new(range.0, range.1).in_file(file);
        Diagnostic::new(&codes::ATTRIBUTE_TYPE_MISMATCH, "x", at).with_fix(Fix::replace(
            "fix",
            at,
            to,
            applicability,
        ))
    }

    #[test]
    fn overlapping_fixes_wait_and_unsafe_ones_need_the_flag() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wf");
        std::fs::write(&path, "abcdef").unwrap();
        let mut sources = Sources::new();
        let id = sources.add(path.display().to_string(), "abcdef");
        let diagnostics = [
            fixing(id, (0, 2), "X", Applicability::MachineApplicable),
            fixing(id, (1, 3), "Y", Applicability::MachineApplicable),
            fixing(id, (4, 5), "Z", Applicability::MaybeIncorrect),
        ];
        let mut report = Report::default();
        let applied = round(&sources, 1, &diagnostics, Allowed::Safe, &mut report).unwrap();
        assert_eq!(applied, 1, "the overlapping fix waits for the next round");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "Xcdef");
        assert_eq!(unsafe_available(&diagnostics, 1), 1);
        // Files beyond the inputs (imported ones) are never written.
        let mut report = Report::default();
        assert_eq!(
            round(&sources, 0, &diagnostics, Allowed::Unsafe, &mut report).unwrap(),
            0
        );
    }

    #[test]
    fn a_file_made_worse_is_put_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wf");
        std::fs::write(&path, "abc").unwrap();
        let shown = path.display().to_string();
        let mut sources = Sources::new();
        let id = sources.add(shown.clone(), "abc");
        let mut report = Report::default();
        let fix = [fixing(id, (0, 1), "Q", Applicability::MaybeIncorrect)];
        round(&sources, 1, &fix, Allowed::Unsafe, &mut report).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "Qbc");
        // The re-check finds an error the file did not have.
        let mut after = Sources::new();
        let id = after.add(shown.clone(), "Qbc");
        let worse = [Diagnostic::new(
            &codes::UNEXPECTED_TOKEN,
            "y",
            Span::new(0, 1).in_file(id),
        )];
        assert!(revert_worse(&after, &worse, &mut report));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "abc");
        assert_eq!(report.reverted, [shown]);
        assert!(report.files.is_empty());
    }
}
