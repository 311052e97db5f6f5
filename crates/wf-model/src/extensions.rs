//! The one table from file extension to source format, and how a
//! directory walk treats each extension. The loader (`wf-project`), the
//! analysis's front-end dispatch, the formatter and the language server
//! all read it, so a new extension is added here and nowhere else.

use std::path::Path;

use crate::SourceFormat;

/// Whether a directory walk collects the files of an extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walked {
    /// Always.
    Yes,
    /// Only when the text is a Reflex workflow (a top-level object with
    /// `entry` and `nodes`): other JSON, such as package manifests and
    /// IR files, is not a workflow.
    IfReflex,
    /// Never: the file is read only when named (on the command line, by an
    /// import, or opened in the editor).
    No,
}

/// One row of [`EXTENSIONS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extension {
    /// The extension, without the dot.
    pub extension: &'static str,
    /// The format its files are read as.
    pub format: SourceFormat,
    /// Whether a directory walk collects them.
    pub walked: Walked,
}

/// Every extension wfc reads, and its format. `.gv` is Graphviz's own
/// extension: most `.gv` files are diagrams, not pipelines, so they are
/// read as DOT only when named. Any other extension (and standard input)
/// reads as `.wf`, but is never collected by a walk.
pub const EXTENSIONS: [Extension; 5] = [
    Extension {
        extension: "wf",
        format: SourceFormat::Wf,
        walked: Walked::Yes,
    },
    Extension {
        extension: "dot",
        format: SourceFormat::Dot,
        walked: Walked::Yes,
    },
    Extension {
        extension: "fabro",
        format: SourceFormat::Dot,
        walked: Walked::Yes,
    },
    Extension {
        extension: "gv",
        format: SourceFormat::Dot,
        walked: Walked::No,
    },
    Extension {
        extension: "json",
        format: SourceFormat::ReflexJson,
        walked: Walked::IfReflex,
    },
];

/// The row of `path`'s extension, if wfc knows it.
pub fn extension_of(path: &Path) -> Option<&'static Extension> {
    let extension = path.extension()?.to_str()?;
    EXTENSIONS.iter().find(|e| e.extension == extension)
}

impl SourceFormat {
    /// The format of the file at `path` by its extension; `None` for an
    /// extension wfc does not know (read as `.wf` where a format is needed).
    pub fn of_path(path: &Path) -> Option<SourceFormat> {
        extension_of(path).map(|e| e.format)
    }

    /// The extensions of this format, in [`EXTENSIONS`] order.
    pub fn extensions(self) -> impl Iterator<Item = &'static str> {
        EXTENSIONS
            .iter()
            .filter(move |e| e.format == self)
            .map(|e| e.extension)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_extension_once_and_dot_has_three() {
        for (i, row) in EXTENSIONS.iter().enumerate() {
            assert!(EXTENSIONS[..i].iter().all(|e| e.extension != row.extension));
        }
        let dot: Vec<_> = SourceFormat::Dot.extensions().collect();
        assert_eq!(dot, ["dot", "fabro", "gv"]);
        assert_eq!(
            SourceFormat::of_path(Path::new("a/b.fabro")),
            Some(SourceFormat::Dot)
        );
        assert_eq!(SourceFormat::of_path(Path::new("a/b.toml")), None);
        assert_eq!(SourceFormat::of_path(Path::new("wf")), None);
    }
}
