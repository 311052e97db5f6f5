//! Loading an IR file as untrusted input.
//!
//! [`load`] parses the JSON, checks the format and version before anything
//! else (so a file of another version gets that message, not a shape
//! error), deserialises it with the path of any shape error, and runs
//! [`verify`]: every index in range, edge ranges that partition the edge
//! table by source node, unique names and ids, well-formed guard bytecode
//! with compilable patterns, and no cycles. A program that passes can be
//! run without any further bounds check on indices. Every error names the
//! place with a JSON path such as `$.workflows[2].nodes[5].edges.start`.

mod bytecode;
mod effects;
mod graph;
mod verify;

use std::fmt;

use serde::Deserialize;

use crate::types::{FORMAT, IrProgram, VERSION};

pub use bytecode::{REGEX_SIZE_LIMIT, compile_pattern};
pub use verify::verify;

/// What kind of problem a [`LoadError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LoadErrorKind {
    /// The text is not JSON.
    Syntax,
    /// `format` is not `"wfc-ir"`.
    Format,
    /// `version` is not one this crate reads.
    Version,
    /// Valid JSON that does not have the IR's shape (a missing field, a
    /// field of the wrong type, an unknown field).
    Shape,
    /// An index (string, workflow, node or edge) out of range.
    Index,
    /// A node's edge range that is out of bounds, holds an edge of another
    /// source node, or leaves an edge in no range.
    EdgeRange,
    /// Two workflows with one name, two nodes of a workflow with one id, or
    /// two edges of a workflow with one id.
    Duplicate,
    /// Malformed guard bytecode.
    Bytecode,
    /// A `matches` pattern that does not compile within the size limit.
    Regex,
    /// A cycle in a workflow's graph.
    Cycle,
    /// Any other broken rule (a `call` node without a callee, a back-off
    /// factor below 1).
    Invalid,
}

/// Why an IR file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// What kind of problem it is.
    pub kind: LoadErrorKind,
    /// Where: a JSON path (`$` is the document).
    pub path: String,
    /// What is wrong.
    pub message: String,
    /// Line and column (1-based) in the text, when known.
    pub position: Option<(usize, usize)>,
}

impl LoadError {
    /// An error at `path`, without a text position.
    pub fn new(kind: LoadErrorKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        LoadError {
            kind,
            path: path.into(),
            message: message.into(),
            position: None,
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, column)) if self.kind == LoadErrorKind::Syntax => {
                write!(f, "line {line}, column {column}: {}", self.message)
            }
            Some((line, column)) => write!(
                f,
                "{}: {} (line {line}, column {column})",
                self.path, self.message
            ),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for LoadError {}

/// The two fields read before the rest; the others are skipped.
#[derive(Deserialize)]
struct Header {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

/// Parses and verifies an IR file.
pub fn load(text: &str) -> Result<IrProgram, LoadError> {
    let header: Header = serde_json::from_str(text).map_err(|e| {
        let mut err = json_error(e, "$".into());
        if err.kind == LoadErrorKind::Shape {
            err.message = format!("an IR file is a JSON object ({})", err.message);
        }
        err
    })?;
    // serde also reads a struct from an array; an IR file is an object.
    if !text.trim_start().starts_with('{') {
        return Err(LoadError::new(
            LoadErrorKind::Shape,
            "$",
            "an IR file is a JSON object",
        ));
    }
    match header.format {
        Some(serde_json::Value::String(f)) if f == FORMAT => {}
        Some(other) => {
            return Err(LoadError::new(
                LoadErrorKind::Format,
                "$.format",
                format!("not a wfc IR file: `format` is {other}, expected \"{FORMAT}\""),
            ));
        }
        None => {
            return Err(LoadError::new(
                LoadErrorKind::Format,
                "$",
                format!("not a wfc IR file: no `format` field (expected \"{FORMAT}\")"),
            ));
        }
    }
    match header.version {
        Some(v) if v.as_u64() == Some(u64::from(VERSION)) => {}
        Some(v) => {
            return Err(LoadError::new(
                LoadErrorKind::Version,
                "$.version",
                format!(
                    "unsupported IR version {v}: this wfc reads version {VERSION}; rebuild the file with this wfc (`wfc build`)"
                ),
            ));
        }
        None => {
            return Err(LoadError::new(
                LoadErrorKind::Version,
                "$",
                format!("no `version` field (this wfc reads version {VERSION})"),
            ));
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let program: IrProgram = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = json_path(e.path());
        json_error(e.into_inner(), path)
    })?;
    verify(&program)?;
    Ok(program)
}

/// A serde_json error as a [`LoadError`] at `path`.
fn json_error(e: serde_json::Error, path: String) -> LoadError {
    use serde_json::error::Category;
    let kind = match e.classify() {
        Category::Syntax | Category::Eof | Category::Io => LoadErrorKind::Syntax,
        Category::Data => LoadErrorKind::Shape,
    };
    let position = (e.line() > 0).then(|| (e.line(), e.column()));
    // serde_json appends " at line L column C"; the position is kept apart.
    let mut message = e.to_string();
    if let Some(at) = message.rfind(" at line ") {
        message.truncate(at);
    }
    LoadError {
        kind,
        path,
        message,
        position,
    }
}

/// serde_path_to_error's path (`workflows[2].nodes[5].id`) as a JSON path.
fn json_path(path: &serde_path_to_error::Path) -> String {
    let text = path.to_string();
    if text == "." || text.is_empty() {
        "$".to_string()
    } else if text.starts_with('[') {
        format!("${text}")
    } else {
        format!("$.{text}")
    }
}
