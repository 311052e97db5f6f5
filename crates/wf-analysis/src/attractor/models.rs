//! WF0816: a node whose model the catalog (`wf-llm`'s `data/models.toml`)
//! does not list for the node's provider (fabro's `node_model_known` and
//! `stylesheet_model_known`): a `.dot` stage (`llm_provider`,
//! `llm_model`) or a `.wf` step (`provider`, `model`, or the Attractor
//! spellings). Only nodes that name their provider (an attribute, or a
//! stylesheet rule) are judged, and only for providers the catalog covers. `wf.toml`'s `[llm.models]` adds models: the project
//! file drops the findings it lists ([`crate::project::apply_lints`]).

use std::sync::OnceLock;

use wf_diagnostics::{Diagnostic, codes};
use wf_llm::catalog::Catalog;
use wf_model::{NodeKind, Value, Workflow};

fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::with_extra(&Default::default()))
}

/// The findings for `workflow`.
pub fn check(workflow: &Workflow) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    // Only stages that call a model; a stylesheet's `*` reaches the start
    // and exit too.
    for node in workflow.nodes.iter().filter(|n| n.kind == NodeKind::Step) {
        let text = |keys: [&str; 2]| {
            node.attributes
                .iter()
                .filter(|a| keys.contains(&a.key.as_str()))
                .find_map(|a| match &a.value {
                    Value::String(s) if !s.trim().is_empty() => Some((s.trim(), a)),
                    _ => None,
                })
        };
        let (Some((provider, _)), Some((model, attribute))) = (
            text(["llm_provider", "provider"]),
            text(["llm_model", "model"]),
        ) else {
            continue;
        };
        // One finding per written model: a stylesheet rule gives many
        // nodes the same one. A pattern (`claude-sonnet-*`) names no model.
        if catalog().knows(provider, model) != Some(false)
            || model.contains(['*', '?', '[', '$'])
            || out
                .iter()
                .any(|d| d.primary.location == attribute.value_span)
        {
            continue;
        }
        let mut help = format!(
            "check the spelling, or add it to wf.toml: [llm.models] {} = [\"{model}\"]",
            wf_llm::config::canonical(provider)
        );
        if let Some(near) = catalog().closest(provider, model) {
            help = format!("did you mean `{near}`? Or {help}");
        }
        out.push(
            Diagnostic::new(
                &codes::ATTRACTOR_UNKNOWN_MODEL,
                unknown_message(model, provider),
                attribute.value_span,
            )
            .with_primary_label(format!("node `{}` calls this model", node.name))
            .with_help(help),
        );
    }
    out
}

/// The finding's message; [`unknown_model`] reads it back.
fn unknown_message(model: &str, provider: &str) -> String {
    format!("model `{model}` is not known for provider `{provider}`")
}

/// The model and provider of a WF0816 message.
pub fn unknown_model(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("model `")?;
    let (model, rest) = rest.split_once("` is not known for provider `")?;
    Some((model, rest.strip_suffix('`')?))
}
