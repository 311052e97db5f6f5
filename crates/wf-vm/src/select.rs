//! Edge selection (DESIGN section 2, Attractor seed section 3.3), applied
//! to the edges whose guards hold:
//!
//! 1. guarded edges (their condition matched): best weight, then target id;
//! 2. the outcome's preferred label, matched after [`normalize_label`];
//! 3. the outcome's suggested next node ids, in order;
//! 4. the highest weight among unconditional edges, then the target id
//!    that sorts first.

use wf_ir::{EdgeIdx, IrProgram, IrWorkflow};

use crate::agent::Outcome;

/// Lowercase, trimmed, without an accelerator prefix (`[Y] `, `Y) `,
/// `Y - `): `"[A] Approve"`, `"A) approve"` and `" Approve "` are equal.
pub fn normalize_label(label: &str) -> String {
    let t = label.trim();
    let mut chars = t.char_indices();
    let rest = match (chars.next(), chars.next(), chars.next()) {
        (Some((_, '[')), Some((_, k)), Some((i, ']'))) if k.is_alphanumeric() => Some(&t[i + 1..]),
        (Some((_, k)), Some((i, ')')), _) if k.is_alphanumeric() => Some(&t[i + 1..]),
        (Some((_, k)), Some((i, ' ')), Some((_, '-'))) if k.is_alphanumeric() => Some(&t[i + 2..]),
        _ => None,
    };
    let rest = match rest {
        // Only a prefix followed by whitespace is an accelerator.
        Some(r) if r.starts_with(char::is_whitespace) => r,
        _ => t,
    };
    rest.trim().to_lowercase()
}

/// Picks the edge to follow among `valid` (edge-table order), or `None`
/// when `valid` is empty. `labels` are the workflow's normalised edge
/// labels, by edge index.
pub(crate) fn select(
    program: &IrProgram,
    wf: &IrWorkflow,
    labels: &[Option<Box<str>>],
    valid: &[EdgeIdx],
    outcome: &Outcome,
) -> Option<EdgeIdx> {
    if let [only] = valid {
        // Every rule below picks the only valid edge.
        return Some(*only);
    }
    let edge = |e: EdgeIdx| &wf.edges[e.0 as usize];
    let target = |e: EdgeIdx| program.str(wf.nodes[edge(e).to.0 as usize].id);
    let best = |it: &mut dyn Iterator<Item = EdgeIdx>| {
        it.fold(None::<EdgeIdx>, |best, e| match best {
            None => Some(e),
            Some(b) => {
                let (we, wb) = (edge(e).weight, edge(b).weight);
                if we > wb || (we == wb && target(e) < target(b)) {
                    Some(e)
                } else {
                    Some(b)
                }
            }
        })
    };
    if let Some(e) = best(&mut valid.iter().copied().filter(|&e| edge(e).guard.is_some())) {
        return Some(e);
    }
    if let Some(pref) = &outcome.preferred_label {
        let pref = normalize_label(pref);
        if let Some(&e) = valid
            .iter()
            .find(|e| labels[e.0 as usize].as_deref() == Some(pref.as_str()))
        {
            return Some(e);
        }
    }
    for id in &outcome.suggested_next {
        if let Some(&e) = valid.iter().find(|&&e| target(e) == id) {
            return Some(e);
        }
    }
    best(&mut valid.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_normalise() {
        assert_eq!(normalize_label("[A] Approve"), "approve");
        assert_eq!(normalize_label("  A) Approve "), "approve");
        assert_eq!(normalize_label("R - Reject"), "reject");
        assert_eq!(normalize_label("Yes"), "yes");
        assert_eq!(normalize_label("A)pprove"), "a)pprove");
        assert_eq!(normalize_label("[AB] x"), "[ab] x");
    }
}
