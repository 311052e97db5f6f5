//! Keeping the columns an author lined up by hand.
//!
//! Many pipelines align the `[` of consecutive statements, their
//! attributes or their trailing comments:
//!
//! ```dot
//! start  [shape=Mdiamond, label="Start"]
//! exit   [shape=Msquare,  label="Exit"]
//! ```
//!
//! The layout writes single spaces; each statement's first line records
//! its *cells* (the tokens after which the author may have padded: `[`,
//! each attribute but the first, `->` and the node after it, a trailing
//! comment) with their source columns. Cells of consecutive statements of
//! a block (no blank line between them) that start in the same source
//! column form a group when at least one of them followed two or more
//! spaces; each group is then padded to that column, or to its widest
//! member's when a member now reaches past it, leftmost groups first. Formatting the result again finds the same
//! groups at the same columns, so the layout stays idempotent, and a group
//! follows its widest member when an edit makes it wider.

/// A group needing more padding than this is left with single spaces: a
/// gap that wide is more likely an accident than a column.
const MAX_PADDING: usize = 40;

/// One statement's first output line.
#[derive(Debug)]
pub(super) struct Row {
    /// Where the line's code starts in the output (after the indentation).
    pub(super) start: usize,
    /// The indentation width in characters.
    pub(super) indent: usize,
    /// The block it belongs to.
    pub(super) block: u32,
    /// The cells: byte offset in the line's code, source column, and
    /// whether the source had two or more spaces before it.
    pub(super) cells: Vec<(usize, usize, bool)>,
}

/// Pads the cells of `rows` in `out` (see the module documentation).
pub(super) fn apply(out: &str, rows: &[Row]) -> String {
    // Union-find over every cell, indexed by (row, cell).
    let ids: Vec<usize> = rows
        .iter()
        .scan(0, |next, row| {
            let first = *next;
            *next += row.cells.len();
            Some(first)
        })
        .collect();
    let total = rows.iter().map(|r| r.cells.len()).sum();
    let mut parent: Vec<usize> = (0..total).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for r in 1..rows.len() {
        let (above, below) = (&rows[r - 1], &rows[r]);
        let between = out
            .get(line_end(out, above.start)..below.start)
            .unwrap_or("");
        if above.block != below.block || between.contains("\n\n") {
            continue;
        }
        for (i, a) in above.cells.iter().enumerate() {
            for (j, b) in below.cells.iter().enumerate() {
                if a.1 == b.1 {
                    let (x, y) = (
                        find(&mut parent, ids[r - 1] + i),
                        find(&mut parent, ids[r] + j),
                    );
                    parent[x] = y;
                }
            }
        }
    }
    // Groups of two or more with a padded member, leftmost first.
    let mut groups: std::collections::BTreeMap<usize, Vec<(usize, usize)>> = Default::default();
    for (r, row) in rows.iter().enumerate() {
        for c in 0..row.cells.len() {
            let root = find(&mut parent, ids[r] + c);
            groups.entry(root).or_default().push((r, c));
        }
    }
    let mut groups: Vec<Vec<(usize, usize)>> = groups
        .into_values()
        .filter(|g| g.len() > 1 && g.iter().any(|&(r, c)| rows[r].cells[c].2))
        .collect();
    groups.sort_by_key(|g| rows[g[0].0].cells[g[0].1].1);
    // Spaces inserted per row, before the cell of that index.
    let mut inserted: Vec<Vec<usize>> = rows.iter().map(|r| vec![0; r.cells.len()]).collect();
    let column = |inserted: &[Vec<usize>], r: usize, c: usize| {
        let row = &rows[r];
        let code = &out[row.start..row.start + row.cells[c].0];
        row.indent + code.chars().count() + inserted[r][..=c].iter().sum::<usize>()
    };
    for group in &groups {
        // The author's column, unless a member now reaches past it.
        let (r0, c0) = group[0];
        let target = group
            .iter()
            .map(|&(r, c)| column(&inserted, r, c))
            .max()
            .unwrap_or(0)
            .max(rows[r0].cells[c0].1);
        if group
            .iter()
            .any(|&(r, c)| target - column(&inserted, r, c) > MAX_PADDING)
        {
            continue;
        }
        for &(r, c) in group {
            inserted[r][c] += target - column(&inserted, r, c);
        }
    }
    let mut result = String::with_capacity(out.len() + 256);
    let mut copied = 0;
    for (row, spaces) in rows.iter().zip(&inserted) {
        for (cell, &n) in row.cells.iter().zip(spaces) {
            if n == 0 {
                continue;
            }
            let at = row.start + cell.0;
            result.push_str(&out[copied..at]);
            result.extend(std::iter::repeat_n(' ', n));
            copied = at;
        }
    }
    result.push_str(&out[copied..]);
    result
}

/// The offset of the end of the line that `at` is on.
fn line_end(out: &str, at: usize) -> usize {
    out[at..].find('\n').map_or(out.len(), |i| at + i)
}

#[cfg(test)]
mod tests {
    use crate::{Options, SourceKind, format_source};

    fn format(text: &str) -> String {
        let once = format_source(text, SourceKind::Dot, &Options::default()).unwrap();
        let twice = format_source(&once, SourceKind::Dot, &Options::default()).unwrap();
        assert_eq!(once, twice, "not idempotent");
        once
    }

    #[test]
    fn the_file_keeps_its_indentation_unit() {
        let two = "digraph G {\n  a [x=1]\n  subgraph s {\n    b\n  }\n}\n";
        assert_eq!(format(two), two);
        let tab = "digraph G {\n\ta [x=1];\n\tsubgraph s {\n\t\tb\n\t}\n}\n";
        assert_eq!(format(tab), tab.replace(';', ""));
        let none = "digraph G { a; b }\n";
        assert_eq!(format(none), "digraph G {\n    a\n    b\n}\n");
    }

    #[test]
    fn semicolons_stay_when_every_statement_has_one() {
        let all = "digraph G {\n  a [x=1];\n  b [\n    y=2\n  ];\n  a -> b;\n  k=v;\n}\n";
        assert_eq!(format(all), all);
        let some = "digraph G {\n  a [x=1];\n  a -> b\n}\n";
        assert_eq!(format(some), "digraph G {\n  a [x=1]\n  a -> b\n}\n");
    }

    #[test]
    fn spaced_equals_stay_when_the_file_writes_them_so() {
        let spaced = "digraph G {\n  goal = \"x\"\n  a [\n    label = \"A\",\n    shape = box\n  ]\n  b [k=v]\n}\n";
        assert_eq!(format(spaced), spaced);
        // A spread list that fits is joined, and then written `k=v`.
        let joined = "digraph G {\n  goal = \"x\"\n  a [label = \"A\",\n    shape = box]\n}\n";
        assert_eq!(
            format(joined),
            "digraph G {\n  goal = \"x\"\n  a [label=\"A\", shape=box]\n}\n"
        );
        let mixed = "digraph G {\n  goal = \"x\"\n  rankdir=LR\n}\n";
        assert_eq!(
            format(mixed),
            "digraph G {\n  goal=\"x\"\n  rankdir=LR\n}\n"
        );
    }

    #[test]
    fn hand_aligned_columns_stay() {
        let aligned = "digraph G {\n  start  [shape=Mdiamond]  // in\n  exit   [shape=Msquare]   // out\n  a ->  b\n  cc -> d\n}\n";
        assert_eq!(format(aligned), aligned);
        // A statement that no longer lines up leaves the group, and a
        // group of one is not a column.
        let moved = aligned.replace("exit   [", "the_exit [");
        assert_eq!(
            format(&moved),
            "digraph G {\n  start [shape=Mdiamond]  // in\n  the_exit [shape=Msquare]  // out\n  a ->  b\n  cc -> d\n}\n"
        );
        // Padding that lines nothing up goes.
        let lone = "digraph G {\n  a    [x=1]\n\n  b [y=2]     // c\n}\n";
        assert_eq!(
            format(lone),
            "digraph G {\n  a [x=1]\n\n  b [y=2]  // c\n}\n"
        );
    }
}
