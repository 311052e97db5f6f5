//! The structural checks of a deserialised program.

use std::collections::HashSet;

use super::{LoadError, LoadErrorKind as Kind, bytecode, graph};
use crate::types::{
    FORMAT, IrNode, IrProgram, IrWorkflow, KeyType, NodeIdx, Opcode, Part, StrId, Template, VERSION,
};

/// Verifies a program that did not come from `wf_compile::compile` (or did,
/// but was stored): everything [`super::load`] checks after parsing. Runs in
/// O(size of the program), plus the cost of compiling `matches` patterns.
pub fn verify(program: &IrProgram) -> Result<(), LoadError> {
    if program.format != FORMAT {
        return Err(LoadError::new(
            Kind::Format,
            "$.format",
            format!("expected \"{FORMAT}\""),
        ));
    }
    if program.version != VERSION {
        return Err(LoadError::new(
            Kind::Version,
            "$.version",
            format!("unsupported IR version {}", program.version),
        ));
    }
    let v = Verifier { program };
    let mut names = HashSet::new();
    for (w, workflow) in program.workflows.iter().enumerate() {
        let at = format!("$.workflows[{w}]");
        let name = v.string(workflow.name, || format!("{at}.name"))?;
        if !names.insert(name) {
            return Err(LoadError::new(
                Kind::Duplicate,
                format!("{at}.name"),
                format!("a workflow named `{name}` is already defined"),
            ));
        }
        v.workflow(workflow, &at)?;
    }
    Ok(())
}

/// Checks of one program.
pub(super) struct Verifier<'p> {
    pub program: &'p IrProgram,
}

impl<'p> Verifier<'p> {
    /// The string `id` names, or an index error at `path`.
    pub fn string(&self, id: StrId, path: impl FnOnce() -> String) -> Result<&'p str, LoadError> {
        match self.program.strings.get(id.0 as usize) {
            Some(s) => Ok(s),
            None => Err(out_of_range(
                path(),
                "string",
                id.0,
                self.program.strings.len(),
                "the string table",
            )),
        }
    }

    fn opt_string(
        &self,
        id: Option<StrId>,
        path: impl FnOnce() -> String,
    ) -> Result<(), LoadError> {
        match id {
            Some(id) => self.string(id, path).map(|_| ()),
            None => Ok(()),
        }
    }

    fn keys(&self, keys: &[KeyType], at: &str) -> Result<(), LoadError> {
        for (i, k) in keys.iter().enumerate() {
            self.string(k.key, || format!("{at}[{i}].key"))?;
        }
        Ok(())
    }

    fn workflow(&self, w: &IrWorkflow, at: &str) -> Result<(), LoadError> {
        let nodes = w.nodes.len();
        if nodes == 0 {
            return Err(LoadError::new(
                Kind::Invalid,
                format!("{at}.nodes"),
                "a workflow needs at least one node (its entry)",
            ));
        }
        node_index(w.entry, nodes, || format!("{at}.entry"))?;
        self.keys(&w.needs, &format!("{at}.needs"))?;
        self.keys(&w.gives, &format!("{at}.gives"))?;
        self.opt_string(w.goal, || format!("{at}.goal"))?;
        self.opt_string(w.label, || format!("{at}.label"))?;
        self.templates(&w.templates, &w.spec, &["goal", "label"], at)?;
        opt_node_index(w.retry_target, nodes, || format!("{at}.retry_target"))?;
        opt_node_index(w.fallback_retry_target, nodes, || {
            format!("{at}.fallback_retry_target")
        })?;
        let mut ids = HashSet::new();
        for (n, node) in w.nodes.iter().enumerate() {
            let at = format!("{at}.nodes[{n}]");
            let id = self.string(node.id, || format!("{at}.id"))?;
            if !ids.insert(id) {
                return Err(LoadError::new(
                    Kind::Duplicate,
                    format!("{at}.id"),
                    format!("the node id `{id}` is already used in this workflow"),
                ));
            }
            self.node(node, nodes, &at)?;
        }
        self.edge_ranges(w, at)?;
        let mut edge_ids = HashSet::new();
        for (e, edge) in w.edges.iter().enumerate() {
            let at = format!("{at}.edges[{e}]");
            let id = self.string(edge.id, || format!("{at}.id"))?;
            if !edge_ids.insert(id) {
                return Err(LoadError::new(
                    Kind::Duplicate,
                    format!("{at}.id"),
                    format!("the edge id `{id}` is already used in this workflow"),
                ));
            }
            self.opt_string(edge.label, || format!("{at}.label"))?;
            if let Some(code) = &edge.guard {
                bytecode::verify(self, code, &format!("{at}.guard"))?;
            }
        }
        super::effects::verify(self.program, w, at)?;
        // Attractor pipelines loop by design; the runtime bounds them with
        // `max_visits` and `max_steps`.
        if w.dialect == crate::types::Dialect::Attractor {
            return Ok(());
        }
        graph::acyclic(self, w, at)
    }

    fn node(&self, node: &IrNode, nodes: usize, at: &str) -> Result<(), LoadError> {
        self.opt_string(node.label, || format!("{at}.label"))?;
        self.opt_string(node.handler, || format!("{at}.handler"))?;
        let e = &node.engine;
        let engine = |field: &str| format!("{at}.engine.{field}");
        self.opt_string(e.command, || engine("command"))?;
        self.templates(&node.templates, &node.spec, &["label", "command"], at)?;
        self.opt_string(e.default_choice, || engine("default_choice"))?;
        self.opt_string(e.join_policy, || engine("join_policy"))?;
        self.opt_string(e.error_policy, || engine("error_policy"))?;
        self.opt_string(e.merge, || engine("merge"))?;
        opt_node_index(e.retry_target, nodes, || engine("retry_target"))?;
        opt_node_index(e.fallback_retry_target, nodes, || {
            engine("fallback_retry_target")
        })?;
        if let Some(b) = &e.backoff
            && !(b.factor.is_finite() && b.factor >= 1.0)
        {
            return Err(LoadError::new(
                Kind::Invalid,
                engine("backoff.factor"),
                format!("a back-off factor must be at least 1, found {}", b.factor),
            ));
        }
        for (i, r) in node.reads.iter().enumerate() {
            self.string(r.key, || format!("{at}.reads[{i}].key"))?;
        }
        self.keys(&node.writes, &format!("{at}.writes"))?;
        match (&node.call, node.op) {
            (Some(call), Opcode::Call) => {
                let count = self.program.workflows.len();
                if call.workflow.0 as usize >= count {
                    return Err(out_of_range(
                        format!("{at}.call.workflow"),
                        "workflow",
                        call.workflow.0,
                        count,
                        "the program",
                    ));
                }
                for (i, m) in call.return_map.iter().enumerate() {
                    self.string(m.parent, || format!("{at}.call.return_map[{i}].parent"))?;
                    self.string(m.child, || format!("{at}.call.return_map[{i}].child"))?;
                }
                Ok(())
            }
            (None, Opcode::Call) => Err(LoadError::new(
                Kind::Invalid,
                format!("{at}.call"),
                "a `call` node needs a `call` (its callee and return map)",
            )),
            (Some(_), _) => Err(LoadError::new(
                Kind::Invalid,
                format!("{at}.call"),
                "only `call` nodes invoke a workflow",
            )),
            (None, _) => Ok(()),
        }
    }

    /// Every template names an attribute that has a string (one of `fields`
    /// or a top-level string of `spec`), and its pieces are in the string
    /// table, with non-empty keys.
    fn templates(
        &self,
        templates: &std::collections::BTreeMap<String, Template>,
        spec: &serde_json::Map<String, serde_json::Value>,
        fields: &[&str],
        at: &str,
    ) -> Result<(), LoadError> {
        for (name, parts) in templates {
            let at = format!("{at}.templates.{name}");
            let is_spec_string = spec.get(name).is_some_and(|v| v.is_string());
            if !fields.contains(&name.as_str()) && !is_spec_string {
                return Err(LoadError::new(
                    Kind::Invalid,
                    at,
                    format!(
                        "a template must belong to {} or a string of `spec`; `{name}` is neither",
                        fields
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            for (i, part) in parts.iter().enumerate() {
                match *part {
                    Part::Text(id) => {
                        self.string(id, || format!("{at}[{i}].text"))?;
                    }
                    Part::Key(id) => {
                        if self.string(id, || format!("{at}[{i}].key"))?.is_empty() {
                            return Err(LoadError::new(
                                Kind::Invalid,
                                format!("{at}[{i}].key"),
                                "an interpolated key must not be empty",
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Each node's range is in bounds and holds only its own edges; every
    /// edge is in its source's range; every edge's ends are nodes.
    fn edge_ranges(&self, w: &IrWorkflow, at: &str) -> Result<(), LoadError> {
        let count = w.edges.len();
        let nodes = w.nodes.len();
        for (e, edge) in w.edges.iter().enumerate() {
            node_index(edge.from, nodes, || format!("{at}.edges[{e}].from"))?;
            node_index(edge.to, nodes, || format!("{at}.edges[{e}].to"))?;
        }
        let mut covered = vec![false; count];
        for (n, node) in w.nodes.iter().enumerate() {
            let range = node.edges;
            let end = u64::from(range.start) + u64::from(range.len);
            if end > count as u64 {
                return Err(LoadError::new(
                    Kind::EdgeRange,
                    format!("{at}.nodes[{n}].edges"),
                    format!(
                        "the edge range {}..{end} is out of range: the workflow has {count} edges",
                        range.start
                    ),
                ));
            }
            let (start, end) = (range.start as usize, end as usize);
            let slots = covered[start..end].iter_mut();
            for (e, (edge, seen)) in (start..).zip(w.edges[start..end].iter().zip(slots)) {
                let from = edge.from;
                if from.0 as usize != n {
                    return Err(LoadError::new(
                        Kind::EdgeRange,
                        format!("{at}.nodes[{n}].edges.start"),
                        format!(
                            "the range holds edge {e}, which starts at node {} (not this node, {n})",
                            from.0
                        ),
                    ));
                }
                *seen = true;
            }
        }
        if let Some(e) = covered.iter().position(|c| !c) {
            return Err(LoadError::new(
                Kind::EdgeRange,
                format!("{at}.edges[{e}]"),
                format!(
                    "edge {e} is in no edge range of its source node {}",
                    w.edges[e].from.0
                ),
            ));
        }
        Ok(())
    }
}

fn out_of_range(path: String, what: &str, index: u32, len: usize, table: &str) -> LoadError {
    LoadError::new(
        Kind::Index,
        path,
        format!("{what} index {index} is out of range: {table} has {len} {what}s"),
    )
}

fn node_index(n: NodeIdx, nodes: usize, path: impl FnOnce() -> String) -> Result<(), LoadError> {
    if (n.0 as usize) < nodes {
        Ok(())
    } else {
        Err(out_of_range(path(), "node", n.0, nodes, "the workflow"))
    }
}

fn opt_node_index(
    n: Option<NodeIdx>,
    nodes: usize,
    path: impl FnOnce() -> String,
) -> Result<(), LoadError> {
    n.map_or(Ok(()), |n| node_index(n, nodes, path))
}
