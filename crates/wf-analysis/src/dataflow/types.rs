//! WF0306 type mismatches and WF0307 unknown type names. Linear in the
//! number of declarations (hash maps keyed by key).

use rustc_hash::FxHashMap as HashMap;

use wf_diagnostics::{Applicability, Diagnostic, Fix, codes};
use wf_model::{KeyDecl, NodeId, Workflow};

use super::CalleeView;

use crate::suggest::best_match;

/// The language's types.
pub const TYPES: &[&str] = &[
    "string", "int", "float", "number", "bool", "list", "map", "any",
];

/// Whether values declared `a` may be used where `b` is declared: equal
/// types, `any` on either side, or `number` with `int` or `float`.
pub fn compatible(a: &str, b: &str) -> bool {
    let numeric = |t: &str| matches!(t, "int" | "float" | "number");
    a == b
        || a == "any"
        || b == "any"
        || (numeric(a) && numeric(b) && (a == "number" || b == "number"))
}

/// Every typed declaration of a workflow (`needs`, `gives`, `writes`), with
/// a short description of where it is.
fn declarations(workflow: &Workflow) -> Vec<(&KeyDecl, String)> {
    let mut out: Vec<(&KeyDecl, String)> = Vec::new();
    out.extend(workflow.needs.iter().map(|k| (k, "needed".to_string())));
    out.extend(workflow.gives.iter().map(|k| (k, "given".to_string())));
    for node in &workflow.nodes {
        out.extend(
            node.writes
                .iter()
                .map(|k| (k, format!("written by `{}`", node.name))),
        );
    }
    out.retain(|(k, _)| k.ty.as_deref().is_some_and(|t| TYPES.contains(&t)));
    out.sort_by_key(|(k, _)| (k.span.file, k.span.span.start));
    out
}

/// The first typed declaration of every key of `workflow` (in source
/// order), with its description: the type the key has in that workflow.
pub fn key_types(workflow: &Workflow) -> HashMap<&str, (&KeyDecl, String)> {
    let mut types = HashMap::default();
    for (decl, what) in declarations(workflow) {
        types.entry(decl.key.as_str()).or_insert((decl, what));
    }
    types
}

/// WF0307 for every unknown type name, and WF0306 for every declaration
/// whose type disagrees with the key's first typed declaration.
pub fn check_workflow(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let all = workflow
        .needs
        .iter()
        .chain(&workflow.gives)
        .chain(workflow.nodes.iter().flat_map(|n| &n.writes));
    for decl in all {
        let (Some(ty), Some(ty_span)) = (&decl.ty, decl.ty_span) else {
            continue;
        };
        if TYPES.contains(&ty.as_str()) {
            continue;
        }
        let diagnostic = Diagnostic::new(
            &codes::UNKNOWN_TYPE,
            format!("unknown type `{ty}` for key `{}`", decl.key),
            ty_span,
        )
        .with_primary_label("not a type of the language")
        .with_note(
            "the types are `string`, `int`, `float`, `number`, `bool`, `list`, `map` and `any`",
        );
        let better = best_match(ty, TYPES.iter().copied()).or(match ty.as_str() {
            "integer" | "i64" | "long" => Some("int"),
            "str" | "text" => Some("string"),
            "double" | "f64" | "real" => Some("float"),
            "boolean" => Some("bool"),
            "array" | "vec" => Some("list"),
            "dict" | "object" | "record" => Some("map"),
            _ => None,
        });
        out.push(match better {
            Some(better) => diagnostic
                .with_help(format!("did you mean `{better}`?"))
                .with_fix(Fix::replace(
                    format!("use `{better}`"),
                    ty_span,
                    better.to_string(),
                    Applicability::MaybeIncorrect,
                )),
            None => diagnostic.with_help("use one of the language's types, or `any`"),
        });
    }

    let mut first: HashMap<&str, (&KeyDecl, String)> = HashMap::default();
    for (decl, what) in declarations(workflow) {
        let Some((reference, ref_what)) = first.get(decl.key.as_str()) else {
            first.insert(decl.key.as_str(), (decl, what));
            continue;
        };
        let (a, b) = (
            reference.ty.as_deref().unwrap(),
            decl.ty.as_deref().unwrap(),
        );
        if compatible(a, b) {
            continue;
        }
        out.push(
            Diagnostic::new(
                &codes::TYPE_MISMATCH,
                format!("`{}` is {what} as `{b}`, but {ref_what} as `{a}`", decl.key),
                decl.ty_span.unwrap_or(decl.span),
            )
            .with_primary_label(format!("`{b}` here"))
            .with_label(
                reference.ty_span.unwrap_or(reference.span),
                format!("`{}` is `{a}` here", decl.key),
            )
            .with_help(format!(
                "use one type for `{}` throughout the workflow, or use two keys",
                decl.key
            )),
        );
    }
    out
}

/// The type every typed key of `workflow` has there (its first typed
/// declaration, see [`key_types`]) and the description of that
/// declaration, span-free: what callers' type checks need of a callee.
pub fn key_type_names(workflow: &Workflow) -> HashMap<String, (String, String)> {
    key_types(workflow)
        .into_iter()
        .map(|(key, (decl, what))| {
            let ty = decl.ty.clone().expect("typed declarations only");
            (key.to_string(), (ty, what))
        })
        .collect()
}

/// WF0306 across calls: a callee need whose type differs from the type the
/// caller gives the key, and a return map whose child and parent types
/// differ. `callee(v)` is what the call node `v` sees of its callee
/// (span-free); `callee_model(v)` the callee itself, read only to report.
pub fn check_calls<'a>(
    workflow: &Workflow,
    callee: impl Fn(NodeId) -> Option<CalleeView<'a>>,
    callee_model: impl Fn(NodeId) -> Option<&'a Workflow>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut caller_types: Option<HashMap<&str, (&KeyDecl, String)>> = None;
    for (v, node) in workflow.nodes.iter().enumerate() {
        let v = NodeId(v as u32);
        let Some(call) = &node.call else { continue };
        let Some(view) = callee(v) else {
            continue;
        };
        let interface = view.interface;
        if interface.need_types.iter().all(Option::is_none) && call.return_map.is_empty() {
            continue;
        }
        let caller_types = caller_types.get_or_insert_with(|| key_types(workflow));
        for (i, need_ty) in interface.need_types.iter().enumerate() {
            let Some(need_ty) = need_ty.as_deref() else {
                continue;
            };
            let key = interface.need_keys[i].as_str();
            let Some((decl, what)) = caller_types.get(key) else {
                continue;
            };
            let have = decl.ty.as_deref().unwrap();
            if compatible(have, need_ty) {
                continue;
            }
            let Some(callee) = callee_model(v) else {
                continue;
            };
            let need = &callee.needs[i];
            out.push(
                Diagnostic::new(
                    &codes::TYPE_MISMATCH,
                    format!(
                        "workflow `{}` needs `{}` as `{need_ty}`, but in `{}` it is {what} as `{have}`",
                        callee.name, need.key, workflow.name
                    ),
                    call.workflow_span,
                )
                .with_primary_label(format!("`{}` receives `{}` here", callee.name, need.key))
                .with_label(need.ty_span.unwrap_or(need.span), format!("`{need_ty}` here"))
                .with_label(decl.ty_span.unwrap_or(decl.span), format!("`{have}` here"))
                .with_help(format!(
                    "give `{}` the type `{need_ty}` in `{}`, or pass the callee a key of the right type",
                    need.key, workflow.name
                )),
            );
        }
        for entry in &call.return_map {
            let Some((have, child_what)) = interface.key_types.get(entry.child.as_str()) else {
                continue;
            };
            let Some((parent, parent_what)) = caller_types.get(entry.parent.as_str()) else {
                continue;
            };
            let want = parent.ty.as_deref().unwrap();
            if compatible(have, want) {
                continue;
            }
            let Some(callee) = callee_model(v) else {
                continue;
            };
            let callee_types = key_types(callee);
            let Some((child, _)) = callee_types.get(entry.child.as_str()) else {
                continue;
            };
            out.push(
                Diagnostic::new(
                    &codes::TYPE_MISMATCH,
                    format!(
                        "the return map puts `{}` (`{have}` in `{}`) into `{}`, which is {parent_what} as `{want}`",
                        entry.child, callee.name, entry.parent
                    ),
                    entry.parent_span,
                )
                .with_primary_label(format!("`{want}` expected here"))
                .with_label(
                    child.ty_span.unwrap_or(child.span),
                    format!("`{}` is {child_what} as `{have}`", entry.child),
                )
                .with_label(
                    parent.ty_span.unwrap_or(parent.span),
                    format!("`{}` is `{want}` here", entry.parent),
                )
                .with_help(format!(
                    "return `{}` into a key of type `{have}`, or change one of the declarations",
                    entry.child
                )),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::compatible;

    #[test]
    fn compatibility() {
        assert!(compatible("int", "int"));
        assert!(compatible("int", "number"));
        assert!(compatible("number", "float"));
        assert!(!compatible("int", "float"));
        assert!(compatible("any", "map"));
        assert!(!compatible("string", "int"));
    }
}
