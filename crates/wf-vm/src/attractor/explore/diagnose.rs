//! Why a dry run cannot leave a loop: the loop, and the conditions on its
//! ways out that no stage can make hold (the stage's failure reason).

use std::collections::VecDeque;

use super::clause::{self, Clause, Guard};
use super::{Graph, Kind};

/// Why no exit can be reached from the current node: the loop it is in
/// and the conditions that keep the run in it.
pub(super) fn why(g: &Graph<'_, '_>) -> String {
    let here = g.ctx.node_idx;
    // The nodes the run can still reach.
    let mut reach = vec![false; g.kinds.len()];
    let mut back: Vec<Option<usize>> = vec![None; g.kinds.len()];
    let mut queue = VecDeque::from([here]);
    reach[here.0 as usize] = true;
    let mut cycle = None;
    while let Some(v) = queue.pop_front() {
        for e in g.ways(v) {
            let to = g.edge(e).to;
            if to == here && cycle.is_none() {
                cycle = Some(v);
            }
            if !reach[to.0 as usize] {
                reach[to.0 as usize] = true;
                back[to.0 as usize] = Some(e);
                queue.push_back(to);
            }
        }
    }
    let place = match cycle {
        Some(last) => {
            let mut path = vec![g.id(here)];
            let mut at = last;
            let mut rev = Vec::new();
            while at != here {
                rev.push(g.id(at));
                let Some(e) = back[at.0 as usize] else { break };
                at = g.edge(e).from;
            }
            path.extend(rev.into_iter().rev());
            path.push(g.id(here));
            format!(" (the loop `{}`)", path.join(" → "))
        }
        None => String::new(),
    };
    let mut ways = Vec::new();
    for (i, e) in g.ctx.workflow.edges.iter().enumerate() {
        if !reach[e.from.0 as usize] || g.passable(i) || reach[e.to.0 as usize] {
            continue;
        }
        let from = g.id(e.from);
        let why = match &g.guards[i] {
            Guard::All(cs) => cs
                .iter()
                .find(|c| {
                    !clause::possible(
                        c,
                        g.statuses(e.from),
                        g.kind(e.from) != Kind::Passes,
                        g.is_tool(e.from),
                        from,
                        &|k| g.current(k),
                    )
                })
                .map_or_else(
                    || "conditions that cannot hold together".to_string(),
                    |c: &Clause| clause::why_not(c, g.statuses(e.from), from),
                ),
            _ => "a condition beyond `key op value` tests joined by `&&`, which the dry run does not try to meet".into(),
        };
        ways.push(format!("edge `{}` needs {why}", g.ctx.str(e.id)));
    }
    let total = ways.len();
    ways.truncate(3);
    let more = if total > 3 {
        format!(" (and {} more)", total - 3)
    } else {
        String::new()
    };
    let how = if ways.is_empty() {
        "no edge leads out of it".to_string()
    } else {
        format!(
            "every way out needs what no stage can report: {}{more}",
            ways.join("; ")
        )
    };
    format!(
        "dry run: no exit can be reached from `{}`{place}: {how}",
        g.id(here)
    )
}
