//! The types of guard operands, and the declared types of blackboard keys.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use wf_diagnostics::FileSpan;
use wf_model::{KeyDecl, Value, Workflow};

/// The type of a guard operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// An outcome status (`outcome`, `success`, …): a string restricted to
    /// the five status names.
    Status,
    /// A string.
    String,
    /// An integer.
    Int,
    /// A float.
    Float,
    /// A key declared `number`: an integer or a float.
    Number,
    /// A duration literal (compared as milliseconds).
    Duration,
    /// A boolean.
    Bool,
    /// A list.
    List,
    /// A map.
    Map,
    /// `null`.
    Null,
    /// Unknown: an undeclared key, a key declared `any` (or with an unknown
    /// or conflicting type), or a part that failed to parse. Accepted
    /// everywhere, so one unknown never causes an error.
    Any,
}

impl Ty {
    /// The type named in a contract (`writes count: int`); unknown names
    /// are [`Ty::Any`] (the contracts family reports them).
    pub fn from_decl(name: &str) -> Ty {
        match name {
            "string" => Ty::String,
            "int" => Ty::Int,
            "float" => Ty::Float,
            "number" => Ty::Number,
            "bool" => Ty::Bool,
            "list" => Ty::List,
            "map" => Ty::Map,
            _ => Ty::Any,
        }
    }

    /// The type of a literal value.
    pub fn of_value(value: &Value) -> Ty {
        match value {
            Value::Null => Ty::Null,
            Value::Bool(_) => Ty::Bool,
            Value::Int(_) => Ty::Int,
            Value::Float(_) => Ty::Float,
            Value::String(_) => Ty::String,
            Value::Duration(_) => Ty::Duration,
            Value::List(_) => Ty::List,
            Value::Map(_) => Ty::Map,
            Value::Ref(_) => Ty::Any,
        }
    }

    /// Numbers and durations: what `<`, `<=`, `>` and `>=` order.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            Ty::Int | Ty::Float | Ty::Number | Ty::Duration | Ty::Any
        )
    }

    /// Strings, statuses (which are names) and unknowns.
    pub fn is_stringy(self) -> bool {
        matches!(self, Ty::String | Ty::Status | Ty::Any)
    }

    /// Whether `==` between the two types can be meaningful: the same
    /// type, two numeric types, a status and a string (statuses compare by
    /// name), `null` (absent) with anything, or an unknown.
    pub fn comparable(self, other: Ty) -> bool {
        self == other
            || matches!(self, Ty::Any | Ty::Null)
            || matches!(other, Ty::Any | Ty::Null)
            || (self.is_numeric() && other.is_numeric())
            || (self.is_stringy() && other.is_stringy())
    }

    /// The type with its article, for messages: "an `int`", "a `string`".
    pub fn with_article(self) -> String {
        let name = self.to_string();
        let article = if matches!(self, Ty::Int | Ty::Any) {
            "an"
        } else {
            "a"
        };
        format!("{article} `{name}`")
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Ty::Status => "status",
            Ty::String => "string",
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Number => "number",
            Ty::Duration => "duration",
            Ty::Bool => "bool",
            Ty::List => "list",
            Ty::Map => "map",
            Ty::Null => "null",
            Ty::Any => "any",
        })
    }
}

/// What is known about one key in a workflow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyType {
    /// The declared type; [`Ty::Any`] when undeclared, `any`, unknown, or
    /// declared with different types in different places (the contracts
    /// family reports that conflict).
    pub ty: Ty,
    /// Where the type was declared, when it is known.
    pub decl: Option<FileSpan>,
}

/// The keys a workflow declares anywhere, with their types: its `needs`
/// and `gives`, its nodes' `reads` and `writes`, and the parent keys of its
/// return maps (typed like the callee's child key).
#[derive(Debug, Clone, Default)]
pub struct KeyTypes<'a> {
    keys: HashMap<&'a str, KeyType>,
}

impl<'a> KeyTypes<'a> {
    /// The table of `workflow`'s own declarations; return-map parent keys
    /// are known but untyped. O(declarations).
    pub fn own(workflow: &'a Workflow) -> Self {
        let mut table = KeyTypes::default();
        let decls = workflow
            .needs
            .iter()
            .chain(&workflow.gives)
            .chain(workflow.nodes.iter().flat_map(|n| &n.writes));
        for decl in decls {
            table.declare_decl(decl);
        }
        for read in workflow.nodes.iter().flat_map(|n| &n.reads) {
            table.mention(&read.key);
        }
        // A return map writes its parent keys; their types are the
        // callee's, which [`KeyTypes::add_return_maps`] fills in.
        let calls = workflow.nodes.iter().filter_map(|n| n.call.as_ref());
        for entry in calls.flat_map(|c| &c.return_map) {
            table.mention(&entry.parent);
        }
        table
    }

    /// Types the parent keys of `workflow`'s return maps like the child
    /// keys in their callees' own tables (`callee_types`). The per-workflow
    /// check cannot see callees, so this is for callers that have the
    /// whole program (such as a query over a workflow and its callees).
    pub fn add_return_maps<'t>(
        &mut self,
        workflow: &'a Workflow,
        callee_types: impl Fn(&str) -> Option<&'t KeyTypes<'a>>,
    ) where
        'a: 't,
    {
        for call in workflow.nodes.iter().filter_map(|n| n.call.as_ref()) {
            let callee = callee_types(&call.workflow);
            for entry in &call.return_map {
                let child = callee.and_then(|t| t.get(&entry.child));
                match child {
                    Some(KeyType { ty, decl: Some(_) }) => {
                        self.declare(&entry.parent, ty, entry.parent_span)
                    }
                    _ => self.mention(&entry.parent),
                }
            }
        }
    }

    fn declare_decl(&mut self, decl: &'a KeyDecl) {
        match &decl.ty {
            Some(ty) => self.declare(&decl.key, Ty::from_decl(ty), decl.span),
            None => self.mention(&decl.key),
        }
    }

    /// Records a typed declaration; a second, different type makes the key
    /// [`Ty::Any`] for good.
    fn declare(&mut self, key: &'a str, ty: Ty, span: FileSpan) {
        let typed = KeyType {
            ty,
            decl: Some(span),
        };
        self.keys
            .entry(key)
            .and_modify(|known| match known.decl {
                None => *known = typed,
                Some(_) if known.ty != ty => known.ty = Ty::Any,
                Some(_) => {}
            })
            .or_insert(typed);
    }

    /// Records that the key exists, with no type.
    fn mention(&mut self, key: &'a str) {
        self.keys.entry(key).or_insert(KeyType {
            ty: Ty::Any,
            decl: None,
        });
    }

    /// The key, when the workflow declares or mentions it.
    pub fn get(&self, key: &str) -> Option<KeyType> {
        self.keys.get(key).copied()
    }

    /// The key's type ([`Ty::Any`] when unknown).
    pub fn ty(&self, key: &str) -> KeyType {
        self.get(key).unwrap_or(KeyType {
            ty: Ty::Any,
            decl: None,
        })
    }
}
