//! WF0515: an attribute name the schema does not know that is a near miss
//! of one it does (`timout`, `retires`), or the last part of a dotted
//! Attractor name written without its prefix (`default_choice` for
//! `human.default_choice`).
//!
//! Names far from every known one stay the opaque spec, unreported. The
//! known names of a `.dot` pipeline also include Attractor's own and
//! Graphviz's, so that `xlabel` is not taken for a misspelt `label`.

use wf_diagnostics::{Applicability, Diagnostic, Fix, codes};
use wf_model::{Attribute, SourceFormat};

use super::schema::{Place, SCHEMA};

/// Attractor attributes (spec Appendix A, the handler attributes of
/// section 4, and fabro's) that wfc's schema does not type, by place.
const ATTRACTOR: &[(Place, &[&str])] = &[
    (
        Place::Workflow,
        &[
            "rankdir",
            "stack.child_dotfile",
            "stack.child_workdir",
            "stack.child_workflow",
            "stack.child_autostart",
            "tool_hooks.pre",
            "tool_hooks.post",
            "thread_id",
            "default_thread",
        ],
    ),
    (
        Place::Node,
        &[
            "shape",
            "type",
            "tool_command",
            "script",
            "human.default_choice",
            "manager.poll_interval",
            "manager.max_cycles",
            "manager.stop_condition",
            "manager.actions",
            "manager.steer_prompt",
            "stack.child_dotfile",
            "stack.child_workflow",
            "stack.child_autostart",
            "selection",
            "backend",
            "max_tokens",
        ],
    ),
    (Place::Edge, &["condition", "freeform"]),
];

/// Graphviz's own attributes, which any DOT file may use for presentation.
const GRAPHVIZ: &[&str] = &[
    "arrowhead",
    "arrowsize",
    "arrowtail",
    "bgcolor",
    "center",
    "charset",
    "color",
    "colorscheme",
    "comment",
    "compound",
    "concentrate",
    "constraint",
    "decorate",
    "dir",
    "distortion",
    "fillcolor",
    "fixedsize",
    "fontcolor",
    "fontname",
    "fontpath",
    "fontsize",
    "gradientangle",
    "group",
    "headclip",
    "headlabel",
    "headport",
    "height",
    "href",
    "id",
    "image",
    "imagescale",
    "labelangle",
    "labeldistance",
    "labelfloat",
    "labelfontcolor",
    "labelfontname",
    "labelfontsize",
    "labeljust",
    "labelloc",
    "layout",
    "lhead",
    "ltail",
    "margin",
    "minlen",
    "newrank",
    "nodesep",
    "nojustify",
    "ordering",
    "orientation",
    "outputorder",
    "overlap",
    "pad",
    "penwidth",
    "peripheries",
    "pos",
    "rank",
    "ranksep",
    "ratio",
    "regular",
    "rotate",
    "samehead",
    "sametail",
    "sep",
    "shapefile",
    "sides",
    "size",
    "skew",
    "splines",
    "style",
    "tailclip",
    "taillabel",
    "tailport",
    "target",
    "tooltip",
    "url",
    "width",
    "xlabel",
    "xlp",
];

/// Every name known at `place` in `format`.
fn known(place: Place, format: SourceFormat) -> impl Iterator<Item = &'static str> {
    let dot = format == SourceFormat::Dot;
    let schema = SCHEMA
        .iter()
        .filter(move |s| s.place == place)
        .map(|s| s.key);
    let attractor = ATTRACTOR
        .iter()
        .filter(move |(p, _)| dot && *p == place)
        .flat_map(|(_, names)| names.iter().copied());
    let graphviz = GRAPHVIZ.iter().copied().filter(move |_| dot);
    schema.chain(attractor).chain(graphviz)
}

/// How far a misspelling may be from the name: one edit, two for names of
/// eight characters or more. Names under five characters are never
/// compared (`mode` is not a misspelt `model`), nor names that differ
/// only in digits.
fn near(written: &str, name: &str) -> bool {
    if written.len() < 5 || written.len() > 100 {
        return false;
    }
    // A singular for a plural: `max_retry` for `max_retries`.
    if written
        .strip_suffix('y')
        .is_some_and(|stem| name.strip_suffix("ies") == Some(stem))
    {
        return true;
    }
    let limit = if written.len().min(name.len()) < 8 {
        1
    } else {
        2
    };
    let digitless = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    written.len().abs_diff(name.len()) <= limit
        && strsim::osa_distance(&written.to_lowercase(), name) <= limit
        && digitless(written) != digitless(name)
}

/// The known name `written` is probably meant to be, when it is unknown.
pub fn meant(place: Place, format: SourceFormat, written: &str) -> Option<&'static str> {
    if known(place, format).any(|k| k == written) {
        return None;
    }
    // A dotted name without its prefix: `default_choice`.
    let unprefixed = known(place, format)
        .find(|k| written.len() >= 6 && k.strip_suffix(written).is_some_and(|p| p.ends_with('.')));
    unprefixed.or_else(|| {
        known(place, format)
            .filter(|k| near(written, k))
            .min_by_key(|k| strsim::osa_distance(&written.to_lowercase(), k))
    })
}

/// WF0515 for `attribute` when its name is a near miss of a known one.
pub fn check(place: Place, format: SourceFormat, attribute: &Attribute) -> Option<Diagnostic> {
    // A near miss of a tool's `command` is WF0507's, which renames it.
    let name = meant(place, format, &attribute.key).filter(|n| *n != "command")?;
    let written = &attribute.key;
    let d = Diagnostic::new(
        &codes::MISSPELT_ATTRIBUTE,
        format!("unknown attribute `{written}`; did you mean `{name}`?"),
        attribute.key_span,
    )
    .with_primary_label("not an attribute the engine reads, so it is ignored")
    .with_help(format!("write `{name}`"));
    // The fix only when the span is the name exactly (not quoted).
    if attribute.key_span.span.len() as usize != written.len() {
        return Some(d);
    }
    // The fix is written in the file's own syntax: a dotted DOT key is
    // quoted (`"human.default_choice"`).
    let replacement = if format == SourceFormat::Dot && name.contains('.') {
        format!("\"{name}\"")
    } else {
        name.to_string()
    };
    Some(d.with_fix(Fix::replace(
        format!("rename to `{name}`"),
        attribute.key_span,
        replacement,
        Applicability::MaybeIncorrect,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_of_known_names() {
        let wf = |p, k| meant(p, SourceFormat::Wf, k);
        let dot = |p, k| meant(p, SourceFormat::Dot, k);
        assert_eq!(wf(Place::Node, "timout"), Some("timeout"));
        assert_eq!(wf(Place::Node, "timeot"), Some("timeout"));
        assert_eq!(wf(Place::Node, "retires"), Some("retries"));
        assert_eq!(wf(Place::Node, "goal_gat"), Some("goal_gate"));
        assert_eq!(wf(Place::Node, "defualt"), Some("default"));
        assert_eq!(wf(Place::Workflow, "max_step"), Some("max_steps"));
        assert_eq!(wf(Place::Node, "max_retry"), Some("max_retries"));
        assert_eq!(
            dot(Place::Node, "default_choice"),
            Some("human.default_choice")
        );
        assert_eq!(dot(Place::Node, "tool_comand"), Some("tool_command"));
        // Known, far from everything, or too short to tell.
        assert_eq!(dot(Place::Node, "xlabel"), None);
        assert_eq!(dot(Place::Node, "shape"), None);
        assert_eq!(wf(Place::Node, "owner"), None);
        assert_eq!(wf(Place::Node, "mode"), None);
        assert_eq!(wf(Place::Node, "step2"), None);
    }
}
