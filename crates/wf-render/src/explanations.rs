//! The long explanation of every diagnostic code, keyed by code.
//!
//! The registry (`wf_diagnostics::codes`) holds what producing a
//! diagnostic needs; the texts live here, in `explanations/<CODE>.md`
//! beside this crate, so that editing one recompiles only the crates that
//! print it. The tests below keep the two in step: every registered code
//! has exactly one explanation and every explanation a registered code.

use wf_diagnostics::Code;

macro_rules! explanations {
    ($($code:literal)*) => {
        /// `(code, Markdown text)` of every code, in code order.
        static EXPLANATIONS: &[(&str, &str)] = &[
            $(($code, include_str!(concat!("../explanations/", $code, ".md"))),)*
        ];
    };
}

// A new code needs its `explanations/<CODE>.md` and its entry here.
explanations! {
    "WF0001" "WF0002" "WF0003" "WF0004" "WF0005" "WF0006" "WF0007" "WF0008" "WF0009" "WF0010"
    "WF0011" "WF0012"
    "WF0101" "WF0102" "WF0103" "WF0104" "WF0105" "WF0106" "WF0107" "WF0108" "WF0109" "WF0110"
    "WF0201" "WF0202" "WF0203" "WF0204" "WF0205" "WF0206" "WF0207" "WF0208" "WF0209" "WF0210"
    "WF0301" "WF0302" "WF0303" "WF0304" "WF0305" "WF0306" "WF0307" "WF0308" "WF0321" "WF0322"
    "WF0401" "WF0402" "WF0403" "WF0404" "WF0405" "WF0406" "WF0407"
    "WF0501" "WF0502" "WF0503" "WF0504" "WF0505" "WF0506" "WF0507" "WF0508" "WF0509" "WF0510"
    "WF0511" "WF0512" "WF0513" "WF0515" "WF0530"
    "WF0601" "WF0602" "WF0603" "WF0604" "WF0605" "WF0606" "WF0607"
    "WF0701" "WF0702" "WF0703" "WF0704"
    "WF0801" "WF0802" "WF0803" "WF0804" "WF0805" "WF0806" "WF0807" "WF0808" "WF0809" "WF0810"
    "WF0811" "WF0812" "WF0813" "WF0814" "WF0815" "WF0816" "WF0820" "WF0860" "WF0861" "WF0862"
    "WF0901" "WF0902" "WF0903" "WF0904" "WF0905" "WF0906" "WF0907" "WF0908" "WF0909" "WF0910"
    "WF0930" "WF0931"
}

/// The long explanation of `code` in Markdown: what it detects, why it
/// matters, an example, how to fix it (the sections `wfc explain` prints).
///
/// A code registered without an explanation (which this crate's tests
/// forbid) gets its one-line summary rather than a panic.
pub fn explanation(code: &Code) -> &'static str {
    EXPLANATIONS
        .binary_search_by(|&(c, _)| c.cmp(code.code))
        .map_or(code.summary, |i| EXPLANATIONS[i].1)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use wf_diagnostics::codes;

    use super::*;

    /// In code order, so that [`explanation`]'s binary search finds each.
    #[test]
    fn table_is_sorted_without_duplicates() {
        for pair in EXPLANATIONS.windows(2) {
            assert!(
                pair[0].0 < pair[1].0,
                "explanations! lists {} before {}: keep it in code order, each code once",
                pair[0].0,
                pair[1].0
            );
        }
    }

    #[test]
    fn every_code_has_exactly_one_explanation_and_every_explanation_a_code() {
        let registered: BTreeSet<&str> = codes::ALL.iter().map(|c| c.code).collect();
        let explained: BTreeSet<&str> = EXPLANATIONS.iter().map(|&(c, _)| c).collect();
        assert_eq!(
            explained.len(),
            EXPLANATIONS.len(),
            "a code explained twice"
        );
        let unexplained: Vec<_> = registered.difference(&explained).collect();
        assert!(
            unexplained.is_empty(),
            "registered codes without an explanation: {unexplained:?} \
             (add explanations/<CODE>.md and its entry in src/explanations.rs)"
        );
        let unregistered: Vec<_> = explained.difference(&registered).collect();
        assert!(
            unregistered.is_empty(),
            "explanations of codes the registry does not have: {unregistered:?}"
        );
    }

    /// A Markdown file in `explanations/` that the table does not list
    /// would never be printed.
    #[test]
    fn every_file_in_explanations_is_compiled_in() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("explanations");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .expect("explanations/ is readable")
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let listed: Vec<String> = EXPLANATIONS
            .iter()
            .map(|&(c, _)| format!("{c}.md"))
            .collect();
        assert_eq!(
            files, listed,
            "explanations/ and src/explanations.rs differ"
        );
    }

    #[test]
    fn explanation_gives_each_code_its_own_text() {
        for code in codes::ALL {
            let text = explanation(code);
            assert_ne!(
                text, code.summary,
                "{}: fell back to the summary",
                code.code
            );
            assert!(text.starts_with("## What it does\n"), "{}", code.code);
        }
        assert_eq!(
            explanation(&codes::CYCLE),
            include_str!("../explanations/WF0201.md")
        );
    }

    #[test]
    fn an_unexplained_code_falls_back_to_its_summary() {
        static UNEXPLAINED: Code = Code {
            code: "WF0999",
            name: "not-a-code",
            family: wf_diagnostics::Family::Syntax,
            severity: wf_diagnostics::Severity::Error,
            summary: "a code without an explanation",
        };
        assert_eq!(explanation(&UNEXPLAINED), "a code without an explanation");
    }
}
