//! `wf-compile`: lowering a checked [`Program`] to an [`IrProgram`] (the
//! IR types, JSON form and verifying loader are `wf-ir`'s).
//!
//! The input is expected to be free of errors (`wfc build` refuses
//! otherwise), but nothing here assumes it: a model the checker would
//! reject (or one whose errors were suppressed) gives a [`CompileError`]
//! naming the workflow and the place, never a panic.
//!
//! Strings are interned in order of first use while walking the program in
//! a fixed order (workflows in program order; per workflow its name, goal,
//! label, needs, gives, attributes, then each node in table order, then
//! each edge in edge-table order), so the same program always gives the
//! same bytes.

mod attractor;
mod attrs;
mod guard;
mod strings;
mod templates;
mod values;

use std::collections::{HashMap, HashSet};
use std::fmt;

use wf_diagnostics::{FileSpan, Sources};
use wf_model::{Edge, Node, NodeId, NodeKind, Program, SourceFormat, Workflow};

use strings::Interner;
use wf_ir::{
    Dialect, EdgeRange, FORMAT, IrCall, IrEdge, IrNode, IrProgram, IrWorkflow, KeyType, NodeIdx,
    Opcode, ReadKey, ReturnMapping, VERSION, ValueType, WorkflowIdx,
};

/// Why a program could not be compiled.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    /// The workflow the problem is in.
    pub workflow: String,
    /// Where in the source, when known.
    pub span: Option<FileSpan>,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in workflow `{}`: {}", self.workflow, self.message)
    }
}

impl std::error::Error for CompileError {}

/// Compiles a checked, error-free program without its source text: like
/// [`compile_with`], but a string with `$key` interpolations is an error,
/// since only the source text tells them from an escaped `\$key`.
pub fn compile(program: &Program) -> Result<IrProgram, CompileError> {
    compile_with(program, &Sources::new())
}

/// Compiles a checked, error-free program. Workflow names must be unique
/// (calls resolve by name), every workflow must have an entry and no
/// cycle, and every engine attribute must have a value of its type.
/// `sources` holds the text of the program's files (by [`FileSpan::file`]):
/// strings with interpolations are split into templates from it.
pub fn compile_with(program: &Program, sources: &Sources) -> Result<IrProgram, CompileError> {
    let mut by_name: HashMap<&str, WorkflowIdx> = HashMap::new();
    for (i, workflow) in program.workflows.iter().enumerate() {
        if by_name
            .insert(&workflow.name, WorkflowIdx(i as u32))
            .is_some()
        {
            return Err(CompileError {
                workflow: workflow.name.clone(),
                span: Some(workflow.name_span),
                message: format!(
                    "the workflow name `{}` is defined more than once",
                    workflow.name
                ),
            });
        }
    }
    let mut strings = Interner::default();
    let mut workflows = Vec::with_capacity(program.workflows.len());
    for workflow in &program.workflows {
        let mut cx = Cx {
            workflow,
            strings: &mut strings,
            by_name: &by_name,
            nodes: workflow.node_index(),
            sources,
        };
        workflows.push(cx.workflow()?);
    }
    Ok(IrProgram {
        format: FORMAT.to_string(),
        version: VERSION,
        strings: strings.into_strings(),
        workflows,
    })
}

/// The state of lowering one workflow.
struct Cx<'a> {
    workflow: &'a Workflow,
    strings: &'a mut Interner,
    by_name: &'a HashMap<&'a str, WorkflowIdx>,
    nodes: rustc_hash::FxHashMap<&'a str, NodeId>,
    sources: &'a Sources,
}

impl<'a> Cx<'a> {
    /// A [`CompileError`] in this workflow.
    fn error(&self, span: Option<FileSpan>, message: impl Into<String>) -> CompileError {
        CompileError {
            workflow: self.workflow.name.clone(),
            span,
            message: message.into(),
        }
    }

    fn workflow(&mut self) -> Result<IrWorkflow, CompileError> {
        let w = self.workflow;
        if w.incomplete {
            return Err(self.error(
                Some(w.span),
                "the workflow has syntax errors; fix them before compiling",
            ));
        }
        let facts = wf_analysis::graph::analyze(w);
        let Some(entry) = facts.entry.node() else {
            return Err(self.error(
                Some(w.name_span),
                "the workflow has no entry node (set `entry = node`, or name a node `start`)",
            ));
        };
        let attractor = w.format == SourceFormat::Dot;
        if let Some(cycle) = facts.cycles.first().filter(|_| !attractor) {
            let mut path: Vec<&str> = cycle
                .path
                .iter()
                .map(|&e| w.node(w.edge(e).from).name.as_str())
                .collect();
            if let Some(&first) = path.first() {
                path.push(first);
            }
            return Err(self.error(
                Some(w.name_span),
                format!(
                    "the workflow has a cycle ({}); IR workflows are DAGs",
                    path.join(" -> ")
                ),
            ));
        }
        let name = self.strings.intern(&w.name);
        let header = attrs::workflow_attrs(self)?;
        let needs = self.key_types(&w.needs)?;
        let gives = self.key_types(&w.gives)?;
        // Edges grouped by source node, source order within a node.
        let mut order: Vec<usize> = (0..w.edges.len()).collect();
        order.sort_by_key(|&i| w.edges[i].from);
        let mut nodes = Vec::with_capacity(w.nodes.len());
        let mut start = 0u32;
        for (i, node) in w.nodes.iter().enumerate() {
            let len = order
                .iter()
                .skip(start as usize)
                .take_while(|&&e| w.edges[e].from.index() == i)
                .count() as u32;
            let mut ir = self.node(node, EdgeRange { start, len })?;
            if attractor {
                let handler = wf_dot::node_handler(node, i == entry.0 as usize);
                ir.handler = Some(self.strings.intern(handler));
                attractor::tool_command(self, node, &mut ir)?;
            }
            nodes.push(ir);
            start += len;
        }
        if start as usize != w.edges.len() {
            return Err(self.error(Some(w.span), "an edge starts at a node that does not exist"));
        }
        let edges = self.edges(&order)?;
        Ok(IrWorkflow {
            name,
            entry: NodeIdx(entry.0),
            needs,
            gives,
            goal: header.goal,
            label: header.label,
            limits: header.limits,
            retry_target: header.retry_target,
            fallback_retry_target: header.fallback_retry_target,
            spec: header.spec,
            templates: header.templates,
            nodes,
            edges,
            dialect: if attractor {
                Dialect::Attractor
            } else {
                Dialect::Wf
            },
        })
    }

    fn key_types(&mut self, keys: &[wf_model::KeyDecl]) -> Result<Vec<KeyType>, CompileError> {
        keys.iter()
            .map(|k| {
                let ty = match k.ty.as_deref() {
                    None => ValueType::Any,
                    Some(name) => value_type(name).ok_or_else(|| {
                        self.error(
                            k.ty_span.or(Some(k.span)),
                            format!("unknown type `{name}` for key `{}`", k.key),
                        )
                    })?,
                };
                Ok(KeyType {
                    key: self.strings.intern(&k.key),
                    ty,
                })
            })
            .collect()
    }

    fn node(&mut self, node: &Node, edges: EdgeRange) -> Result<IrNode, CompileError> {
        let id = self.strings.intern(&node.name);
        let attrs::NodeParts {
            label,
            spec,
            engine,
            templates,
        } = attrs::node_attrs(self, node)?;
        let reads = node
            .reads
            .iter()
            .map(|r| ReadKey {
                key: self.strings.intern(&r.key),
                optional: r.optional,
            })
            .collect();
        let writes = self.key_types(&node.writes)?;
        let call = match (&node.call, node.kind) {
            (Some(call), NodeKind::Call) => {
                let Some(&workflow) = self.by_name.get(call.workflow.as_str()) else {
                    return Err(self.error(
                        Some(call.workflow_span),
                        format!(
                            "`{}` calls the unknown workflow `{}`",
                            node.name, call.workflow
                        ),
                    ));
                };
                let return_map = call
                    .return_map
                    .iter()
                    .map(|m| ReturnMapping {
                        parent: self.strings.intern(&m.parent),
                        child: self.strings.intern(&m.child),
                    })
                    .collect();
                Some(IrCall {
                    workflow,
                    return_map,
                })
            }
            (None, NodeKind::Call) => {
                return Err(self.error(
                    Some(node.name_span),
                    format!("the call node `{}` names no workflow", node.name),
                ));
            }
            _ => None,
        };
        Ok(IrNode {
            id,
            op: opcode(node.kind),
            label,
            spec,
            engine,
            templates,
            reads,
            writes,
            call,
            edges,
            handler: None,
        })
    }

    /// The edge table, in `order`, with ids.
    fn edges(&mut self, order: &[usize]) -> Result<Vec<IrEdge>, CompileError> {
        let w = self.workflow;
        // Explicit ids first, so that generated ones avoid them.
        let mut taken: HashSet<String> = HashSet::new();
        let mut explicit: Vec<Option<String>> = vec![None; w.edges.len()];
        for &i in order {
            if let Some(id) = attrs::explicit_edge_id(self, &w.edges[i])? {
                if !taken.insert(id.clone()) {
                    return Err(self.error(
                        Some(w.edges[i].span),
                        format!("two edges have the id `{id}`"),
                    ));
                }
                explicit[i] = Some(id);
            }
        }
        let mut out = Vec::with_capacity(order.len());
        for &i in order {
            let edge = &w.edges[i];
            let id = match explicit[i].take() {
                Some(id) => id,
                None => self.generated_id(edge, &mut taken),
            };
            let id = self.strings.intern(&id);
            out.push(self.edge(edge, id)?);
        }
        Ok(out)
    }

    /// `from->to`, or `from->to#2`, `#3`, … when taken.
    fn generated_id(&self, edge: &Edge, taken: &mut HashSet<String>) -> String {
        let w = self.workflow;
        let base = format!("{}->{}", w.node(edge.from).name, w.node(edge.to).name);
        let mut id = base.clone();
        let mut n = 1;
        while taken.contains(&id) {
            n += 1;
            id = format!("{base}#{n}");
        }
        taken.insert(id.clone());
        id
    }

    fn edge(&mut self, edge: &Edge, id: wf_ir::StrId) -> Result<IrEdge, CompileError> {
        let attrs::EdgeParts {
            label,
            weight,
            spec,
        } = attrs::edge_attrs(self, edge)?;
        let guard = match &edge.guard {
            Some(g) => Some(guard::compile(self, &g.expr, g.span)?),
            None => None,
        };
        Ok(IrEdge {
            id,
            from: NodeIdx(edge.from.0),
            to: NodeIdx(edge.to.0),
            label,
            weight,
            guard,
            spec,
        })
    }
}

/// The opcode of a node kind.
fn opcode(kind: NodeKind) -> Opcode {
    match kind {
        NodeKind::Step => Opcode::Step,
        NodeKind::Human => Opcode::Human,
        NodeKind::Tool => Opcode::Tool,
        NodeKind::Call => Opcode::Call,
        NodeKind::Branch => Opcode::Branch,
        NodeKind::Parallel => Opcode::Parallel,
        NodeKind::Join => Opcode::Join,
        NodeKind::Exit => Opcode::Exit,
    }
}

/// The value type a type name stands for (docs/language.md 5.1).
fn value_type(name: &str) -> Option<ValueType> {
    Some(match name {
        "string" => ValueType::String,
        "int" => ValueType::Int,
        "float" => ValueType::Float,
        "number" => ValueType::Number,
        "bool" => ValueType::Bool,
        "list" => ValueType::List,
        "map" => ValueType::Map,
        "any" => ValueType::Any,
        _ => return None,
    })
}
