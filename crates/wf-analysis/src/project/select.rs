//! Naming diagnostic codes: by code (`WF0205`), by name
//! (`unreachable-node`) or by code prefix (`WF02`, every graph check). The
//! keys of `wf.toml`'s `[lints]` and the values of `wfc check --select` and
//! `--ignore` are read here, so both accept the same spellings and both
//! answer a typo with the code that was probably meant.

use wf_diagnostics::{Code, Diagnostic, Family, Severity, codes};

use crate::suggest;

/// What one selector names.
#[derive(Debug, Clone, PartialEq)]
pub struct Selector {
    /// As written.
    pub text: String,
    /// The codes it names (one, unless it is a prefix).
    pub codes: Vec<&'static Code>,
    /// How specific it is: the digits of a prefix (`WF0` is 1, `WF02` is
    /// 2), 4 for a whole code or a name. The more specific selector wins.
    pub specificity: u8,
}

impl Selector {
    /// Whether it names `code`.
    pub fn names(&self, code: &Code) -> bool {
        self.codes.iter().any(|c| c.code == code.code)
    }

    /// Whether it is a prefix rather than one code.
    pub fn is_prefix(&self) -> bool {
        self.specificity < 4
    }
}

/// Reads a selector: a code, a name or a prefix (`WF`, then at most three
/// digits, that starts at least one code). An unknown one is an error
/// message with a did-you-mean when a code or name is close.
pub fn parse(text: &str) -> Result<Selector, String> {
    if let Some(code) = codes::lookup(text) {
        return Ok(Selector {
            text: text.to_string(),
            codes: vec![code],
            specificity: 4,
        });
    }
    let digits = text
        .get(..2)
        .filter(|wf| wf.eq_ignore_ascii_case("WF"))
        .map(|_| &text[2..]);
    if let Some(digits) = digits.filter(|d| d.len() < 4 && d.bytes().all(|b| b.is_ascii_digit())) {
        let matching: Vec<&'static Code> = codes::ALL
            .iter()
            .copied()
            .filter(|c| c.code[2..].starts_with(digits))
            .collect();
        if !matching.is_empty() {
            return Ok(Selector {
                text: text.to_string(),
                codes: matching,
                specificity: digits.len() as u8,
            });
        }
    }
    Err(match suggestion(text) {
        Some(code) => format!(
            "unknown diagnostic code `{text}`: did you mean `{}` ({})?",
            code.name, code.code
        ),
        None => format!("unknown diagnostic code `{text}`; run `wfc explain` to list the codes"),
    })
}

/// The code a misspelt selector probably means: the closest name or code
/// (see [`suggest::closeness`]), else the only name that has the selector
/// as whole `-`-separated words (`unreachable` → `unreachable-node`).
pub fn suggestion(text: &str) -> Option<&'static Code> {
    let names = codes::ALL.iter().map(|c| c.name);
    let all_codes = codes::ALL.iter().map(|c| c.code);
    if let Some(best) = suggest::best_match(text, names.chain(all_codes)) {
        return codes::lookup(best);
    }
    let query = text.to_ascii_lowercase().replace('_', "-");
    if query.is_empty() {
        return None;
    }
    let mut words = codes::ALL.iter().copied().filter(|c| {
        let name = format!("-{}-", c.name);
        name.contains(&format!("-{query}-"))
    });
    match (words.next(), words.next()) {
        (Some(code), None) => Some(code),
        _ => None,
    }
}

/// Whether a code's diagnostics can be dropped or re-levelled: syntax
/// errors cannot, because a file that does not parse cannot be checked.
pub fn overridable(code: &Code) -> bool {
    !is_syntax_error(code) && !compile_blocking(code)
}

/// A syntax error: the file cannot be understood without fixing it.
pub fn is_syntax_error(code: &Code) -> bool {
    code.family == Family::Syntax && code.severity == Severity::Error
}

/// An error that makes compiling impossible: dropping it would let `wfc
/// check` pass a file `wfc build` and `wfc run` refuse.
pub fn compile_blocking(code: &Code) -> bool {
    crate::suppress::COMPILE_BLOCKING
        .iter()
        .any(|c| c.code == code.code)
}

/// `wfc check --select` and `--ignore`, applied after `wf.toml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// When not empty, only these codes are reported.
    pub select: Vec<Selector>,
    /// These codes are not reported.
    pub ignore: Vec<Selector>,
}

impl Selection {
    /// Whether nothing was selected or ignored.
    pub fn is_empty(&self) -> bool {
        self.select.is_empty() && self.ignore.is_empty()
    }

    /// Whether a diagnostic of `code` is reported: it is selected (or
    /// nothing is) and not ignored by a selector at least as specific as
    /// the one that selects it, as in Ruff. Syntax errors always are.
    pub fn keeps(&self, code: &Code) -> bool {
        if !overridable(code) {
            return true;
        }
        let best = |selectors: &[Selector]| {
            selectors
                .iter()
                .filter(|s| s.names(code))
                .map(|s| s.specificity)
                .max()
        };
        let selected = if self.select.is_empty() {
            Some(0)
        } else {
            best(&self.select)
        };
        match (selected, best(&self.ignore)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(s), Some(i)) => s > i,
        }
    }

    /// Whether a code is named by `--select` (which brings back a code
    /// that `wf.toml` allows: the command line wins).
    pub fn selects(&self, code: &Code) -> bool {
        self.select.iter().any(|s| s.names(code))
    }

    /// Drops the diagnostics this selection does not keep.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        if !self.is_empty() {
            diagnostics.retain(|d| self.keeps(d.code));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selection(select: &[&str], ignore: &[&str]) -> Selection {
        let parse_all = |list: &[&str]| list.iter().map(|s| parse(s).unwrap()).collect::<Vec<_>>();
        Selection {
            select: parse_all(select),
            ignore: parse_all(ignore),
        }
    }

    #[test]
    fn codes_names_and_prefixes() {
        assert_eq!(parse("wf0205").unwrap().codes, [&codes::UNREACHABLE_NODE]);
        assert_eq!(parse("cycle").unwrap().codes, [&codes::CYCLE]);
        let graph = parse("WF02").unwrap();
        assert!(graph.is_prefix());
        assert!(graph.codes.iter().all(|c| c.family == Family::Graph));
        assert!(graph.codes.len() >= 9);
        assert!(parse("WF99").is_err(), "a prefix must start some code");
        assert!(parse("WF02x").is_err());
    }

    #[test]
    fn typos_get_a_did_you_mean() {
        let err = parse("unreachable").unwrap_err();
        assert_eq!(
            err,
            "unknown diagnostic code `unreachable`: did you mean `unreachable-node` (WF0205)?"
        );
        assert!(parse("cylce").unwrap_err().contains("`cycle` (WF0201)"));
        assert!(parse("WF0250").unwrap_err().contains("did you mean"));
        assert!(
            parse("nonsense-here")
                .unwrap_err()
                .contains("run `wfc explain`")
        );
        // `duplicate` is a word of several names: no guess.
        assert!(suggestion("duplicate").is_none());
    }

    #[test]
    fn select_and_ignore_follow_specificity() {
        let s = selection(&["WF02"], &["WF0205"]);
        assert!(s.keeps(&codes::DUPLICATE_ACCELERATOR));
        assert!(!s.keeps(&codes::UNREACHABLE_NODE));
        assert!(!s.keeps(&codes::READ_NOT_WRITTEN), "not selected");
        let s = selection(&["unreachable-node"], &["WF02"]);
        assert!(
            s.keeps(&codes::UNREACHABLE_NODE),
            "more specific select wins"
        );
        assert!(!s.keeps(&codes::DUPLICATE_ACCELERATOR));
        let s = selection(&["WF02"], &["WF02"]);
        assert!(
            !s.keeps(&codes::DUPLICATE_ACCELERATOR),
            "ties go to --ignore"
        );
        let s = selection(&[], &["WF02", "cycle"]);
        assert!(s.keeps(&codes::CYCLE), "compile-blocking errors stay");
        let s = selection(&["WF03"], &["WF0"]);
        assert!(s.keeps(&codes::UNEXPECTED_TOKEN), "syntax errors stay");
        assert!(
            !s.keeps(&codes::INVALID_SUPPRESSION),
            "a syntax warning goes"
        );
    }
}
