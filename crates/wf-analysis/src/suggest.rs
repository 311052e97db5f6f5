//! "Did you mean …?": finding the declared name a misspelled one was meant
//! to be, and writing names back as `.wf` source text for fixes.

use std::hash::Hasher;

// Fx hashing: these maps and hashes are private look-up structures (never
// iterated), and SipHash was most of the cost of building an index.
use rustc_hash::{FxHashMap as HashMap, FxHasher};

/// How many candidates one [`SuggestionIndex`] may compare in its full
/// scans (the search for typos of two or more edits). Real workflows need a
/// few hundred; the budget keeps pathological inputs (100,000 undeclared
/// names against 100,000 declared ones of the same length) linear. Typos of
/// one edit are found through the deletion index whatever the budget.
const SCAN_BUDGET: usize = 200_000;
/// How many candidates the deletion index may hand out in total; only
/// adversarial name sets (thousands of names one edit apart) come near it.
const NEAR_BUDGET: usize = 2_000_000;
/// Names longer than this (in characters) are not put in the deletion
/// index, whose size grows with the square of the length.
const MAX_INDEXED_LEN: usize = 64;

/// Whether `candidate` is close enough to `query` to be suggested, and how
/// close (lower is better). Names equal but for case are closest; otherwise
/// the optimal-string-alignment distance (Damerau-Levenshtein with adjacent
/// transpositions) of the lowercased names must be at most a third of the
/// longer name (at least 1) and leave a normalized similarity of 0.7, so
/// short names such as `a`/`b` or `end`/`and` are never "typos" of each
/// other while `reveiw`/`review` and `bulid`/`build` are.
pub fn closeness(query: &str, candidate: &str) -> Option<usize> {
    if query == candidate {
        return None;
    }
    if query.is_ascii() && candidate.is_ascii() && !plausible_ascii(query, candidate) {
        return None;
    }
    let q = query.to_lowercase();
    let c = candidate.to_lowercase();
    if q == c {
        return Some(0);
    }
    let longest = q.chars().count().max(c.chars().count());
    let distance = strsim::osa_distance(&q, &c);
    let similarity = 1.0 - distance as f64 / longest as f64;
    (distance <= (longest / 3).max(1) && similarity >= 0.7).then_some(distance)
}

/// A cheap necessary condition for [`closeness`] on ASCII names (whose
/// lowercase has as many characters): most candidates of a scan are far
/// from the query, and rejecting them here saves two allocations and a
/// quadratic distance each. An edit changes the multiset of characters by
/// at most two (a substitution), so the distance is at least half the
/// multiset difference; when that bound, or the length difference, exceeds
/// the distance `closeness` allows, the candidate cannot be close.
fn plausible_ascii(query: &str, candidate: &str) -> bool {
    let longest = query.len().max(candidate.len());
    let allowed = (longest / 3).max(1);
    if query.len().abs_diff(candidate.len()) > allowed {
        return false;
    }
    let mut counts = [0i32; 128];
    for b in query.bytes() {
        counts[usize::from(b.to_ascii_lowercase())] += 1;
    }
    for b in candidate.bytes() {
        counts[usize::from(b.to_ascii_lowercase())] -= 1;
    }
    let difference: u32 = counts.iter().map(|c| c.unsigned_abs()).sum();
    (difference as usize).div_ceil(2) <= allowed
}

/// The closest candidate to `query`, if any is close enough (see
/// [`closeness`]). Ties go to the earliest candidate. Meant for small
/// candidate sets (the workflows of a program, one `entry` look-up); for
/// many queries against many names use [`SuggestionIndex`].
pub fn best_match<'a>(
    query: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    let mut best = None;
    for (i, candidate) in candidates.iter().enumerate() {
        consider(&mut best, query, candidate, i as u32);
    }
    best.map(|(_, i)| candidates[i as usize])
}

/// The best candidate so far: distance, then insertion index (earlier
/// names win ties).
type Best = Option<(usize, u32)>;

/// Keeps candidate `i` in `best` when it is closer to `query`.
fn consider(best: &mut Best, query: &str, candidate: &str, i: u32) {
    let closer = closeness(query, candidate).filter(|&d| best.is_none_or(|b| (d, i) < b));
    if let Some(d) = closer {
        *best = Some((d, i));
    }
}

/// Hashes of `word` and of every string obtained by deleting one of its
/// characters. Two strings within one edit (insertion, deletion,
/// substitution or adjacent transposition) share at least one of these
/// (the symmetric-deletion method), so looking the hashes up finds every
/// one-edit candidate without scanning; collisions only add candidates,
/// which are verified anyway.
fn deletion_hashes(word: &[char]) -> impl Iterator<Item = u64> + '_ {
    (0..=word.len()).map(move |skip| {
        let mut hasher = FxHasher::default();
        for (i, c) in word.iter().enumerate() {
            if i != skip {
                hasher.write_u32(*c as u32);
            }
        }
        hasher.write_usize(word.len() - usize::from(skip < word.len()));
        hasher.finish()
    })
}

/// Declared names indexed for "did you mean" look-ups in near-linear total
/// time: case-insensitive matches by hash map, one-edit typos through a
/// deletion index, longer edits by a budgeted scan of the names of
/// plausible length (at most 200,000 comparisons per index).
pub struct SuggestionIndex<'a> {
    /// The names, in insertion order.
    names: Vec<&'a str>,
    /// Indices of the names by length in characters.
    by_length: HashMap<usize, Vec<u32>>,
    /// Lowercased name to the first name with that spelling.
    by_lowercase: HashMap<String, u32>,
    /// `(deletion hash, name index)`, sorted; built on first use.
    deletions: Option<Vec<(u64, u32)>>,
    /// Comparisons the full scans may still make.
    scan_budget: usize,
    /// Candidates the deletion index may still hand out.
    near_budget: usize,
}

impl<'a> SuggestionIndex<'a> {
    /// Indexes `names` (earlier names win ties).
    pub fn new(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Vec<&'a str> = names.into_iter().collect();
        let mut by_length: HashMap<usize, Vec<u32>> = HashMap::default();
        let mut by_lowercase = HashMap::default();
        for (i, name) in names.iter().enumerate() {
            by_length
                .entry(name.chars().count())
                .or_default()
                .push(i as u32);
            by_lowercase.entry(name.to_lowercase()).or_insert(i as u32);
        }
        SuggestionIndex {
            names,
            by_length,
            by_lowercase,
            deletions: None,
            scan_budget: SCAN_BUDGET,
            near_budget: NEAR_BUDGET,
        }
    }

    /// The indexed name closest to `query`, if one is close enough
    /// (see [`closeness`]).
    pub fn suggest(&mut self, query: &str) -> Option<&'a str> {
        let lower = query.to_lowercase();
        let same_but_case = self
            .by_lowercase
            .get(&lower)
            .map(|&i| self.names[i as usize]);
        if let Some(same) = same_but_case.filter(|&same| same != query) {
            return Some(same);
        }
        let best = self.one_edit(query, &lower).or_else(|| self.scan(query));
        best.map(|(_, i)| self.names[i as usize])
    }

    /// The best candidate one edit away, through the deletion index.
    fn one_edit(&mut self, query: &str, lower: &str) -> Best {
        let chars: Vec<char> = lower.chars().collect();
        if chars.len() > MAX_INDEXED_LEN {
            return None;
        }
        let names = &self.names;
        let deletions = self.deletions.get_or_insert_with(|| {
            let mut table = Vec::new();
            for (i, name) in names.iter().enumerate() {
                let chars: Vec<char> = name.to_lowercase().chars().collect();
                if chars.len() <= MAX_INDEXED_LEN {
                    table.extend(deletion_hashes(&chars).map(|h| (h, i as u32)));
                }
            }
            table.sort_unstable();
            table.dedup();
            table
        });
        let mut best = None;
        for hash in deletion_hashes(&chars) {
            let from = deletions.partition_point(|&(h, _)| h < hash);
            for &(h, i) in &deletions[from..] {
                if h != hash || self.near_budget == 0 {
                    break;
                }
                self.near_budget -= 1;
                consider(&mut best, query, names[i as usize], i);
            }
        }
        best
    }

    /// The best candidate among the names of plausible length, within the
    /// scan budget.
    fn scan(&mut self, query: &str) -> Best {
        let len = query.chars().count();
        // A candidate of length `l` differs by at least `|l - len|` edits,
        // and at most `max(1, max(l, len) / 3)` are allowed: this bounds `l`
        // to roughly [2/3 len, 3/2 len].
        let low = len.saturating_sub((len / 3).max(1));
        let high = len + (len / 2).max(1);
        let mut best = None;
        for l in low..=high {
            let Some(bucket) = self.by_length.get(&l) else {
                continue;
            };
            for &i in bucket {
                if self.scan_budget == 0 {
                    return best;
                }
                self.scan_budget -= 1;
                consider(&mut best, query, self.names[i as usize], i);
            }
        }
        best
    }
}

/// The `.wf` keywords, which cannot be written as bare names.
const KEYWORDS: &[&str] = &[
    "import", "as", "workflow", "needs", "gives", "step", "human", "tool", "call", "branch",
    "parallel", "join", "exit", "reads", "writes", "when", "true", "false", "null", "in",
    "contains", "matches", "exists",
];

/// Whether `name` can be written bare (an identifier that is not a keyword).
pub fn is_plain_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let valid = match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => chars.all(|c| c.is_ascii_alphanumeric() || c == '_'),
        Some('_') => {
            let rest = chars.as_str();
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        _ => false,
    };
    valid && !KEYWORDS.contains(&name)
}

/// How to write `name` in `.wf` source: bare when it is an identifier,
/// otherwise as a quoted string with escapes.
pub fn name_source_text(name: &str) -> String {
    if is_plain_identifier(name) {
        return name.to_string();
    }
    crate::text::string_literal(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_filter_never_rejects_a_close_name() {
        let words = [
            "review",
            "reveiw",
            "Review",
            "reviews",
            "rev",
            "build",
            "bulid",
            "biuld",
            "start",
            "stop",
            "tsart",
            "satrt",
            "done",
            "deploy",
            "approve",
            "aprove",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "cab",
            "end",
            "and",
            "x_1",
            "x_2",
            "deploy_prod",
            "deploy_pord",
            "implement",
            "implmeent",
            "test",
            "tests",
            "tset",
            "",
        ];
        for q in words {
            for c in words {
                let slow = {
                    let (q, c) = (q.to_lowercase(), c.to_lowercase());
                    let longest = q.chars().count().max(c.chars().count());
                    let distance = strsim::osa_distance(&q, &c);
                    distance <= (longest / 3).max(1)
                };
                if slow {
                    assert!(plausible_ascii(q, c), "{q} / {c}");
                }
            }
        }
    }

    #[test]
    fn typos_are_close_and_short_names_are_not() {
        assert!(closeness("reveiw", "review").is_some());
        assert!(closeness("bulid", "build").is_some());
        assert!(closeness("aprove", "approve").is_some());
        assert!(closeness("Review", "review") == Some(0));
        assert!(closeness("a", "b").is_none());
        assert!(closeness("end", "and").is_none());
        assert!(closeness("start", "stop").is_none());
        assert!(closeness("done", "deploy").is_none());
        assert!(closeness("review", "review").is_none());
    }

    #[test]
    fn index_finds_best_and_prefers_case_match() {
        let names = ["review", "deploy", "Reviews"];
        let mut index = SuggestionIndex::new(names);
        assert_eq!(index.suggest("reveiw"), Some("review"));
        assert_eq!(index.suggest("REVIEW"), Some("review"));
        assert_eq!(index.suggest("deplyo"), Some("deploy"));
        assert_eq!(index.suggest("xyz"), None);
        assert_eq!(best_match("Reveiw", ["Review", "Release"]), Some("Review"));
    }

    #[test]
    fn two_edit_typos_of_long_names_are_found_by_the_scan() {
        let mut index = SuggestionIndex::new(["approval", "deployment"]);
        assert_eq!(index.suggest("aproveal"), Some("approval"));
        assert_eq!(index.suggest("deploymnet"), Some("deployment"));
        assert_eq!(index.suggest("aprovel"), Some("approval"));
    }

    #[test]
    fn earlier_names_win_ties() {
        let mut index = SuggestionIndex::new(["tests", "tesst", "test1"]);
        assert_eq!(index.suggest("testt"), Some("tests"));
    }

    /// 100,000 undeclared names, each one edit from one of 100,000 declared
    /// names of the same length: every one is found (no scan budget runs
    /// out) in near-linear time.
    #[test]
    fn one_edit_typos_are_found_at_scale() {
        let declared: Vec<String> = (0..100_000).map(|i| format!("node{i:06}")).collect();
        let mut index = SuggestionIndex::new(declared.iter().map(String::as_str));
        for (i, name) in declared.iter().enumerate().step_by(7) {
            let typo = name.replacen("node", "nodx", 1);
            assert_eq!(index.suggest(&typo), Some(name.as_str()), "{i}");
        }
    }

    #[test]
    fn source_text_quotes_when_needed() {
        assert_eq!(name_source_text("review"), "review");
        assert_eq!(name_source_text("_x"), "_x");
        assert_eq!(name_source_text("step"), "\"step\"");
        assert_eq!(name_source_text("Part Concept"), "\"Part Concept\"");
        assert_eq!(name_source_text("a\"b"), "\"a\\\"b\"");
        assert_eq!(name_source_text("_"), "\"_\"");
    }
}
