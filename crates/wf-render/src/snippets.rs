//! ariadne's view of [`Sources`], indexing only the lines reports show.
//!
//! ariadne indexes a whole file (every line, counted in characters) before
//! it draws a snippet of it; for a long file with a diagnostic or two that
//! was most of the cost of rendering. This cache gives ariadne, per file,
//! only the lines from the first to the last position any report points at
//! (and one more), with every line before them replaced by an empty line:
//! line numbers, columns and margins come out exactly as from the whole
//! file, and ariadne reads no other line. Report spans are moved into that
//! text with [`SourceCache::shift`].
//!
//! When the skipped prefix holds a line break other than `\n` and `\r\n`
//! (ariadne also breaks lines at a lone `\r`, vertical tab, form feed, NEL,
//! and U+2028/U+2029), the file is given whole, so the lines ariadne counts
//! are always the ones it would have counted; likewise for a non-ASCII
//! prefix in a file some report shows as a secondary snippet (see
//! [`SourceCache::compute_layout`]).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

use ariadne::{Cache, Source};

use super::Resolved;
use wf_diagnostics::{Diagnostic, FileId, Sources};

/// Per file, what reports point at.
pub(super) type Windows = HashMap<FileId, Window>;

/// The positions reports point at in one file.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    /// The smallest byte offset.
    low: u32,
    /// The largest byte offset.
    high: u32,
    /// Whether a report has a label here while its primary span is in
    /// another file (see [`SourceCache::compute_layout`]).
    secondary: bool,
}

/// The [`Windows`] of `diags`: every label's clamped span, in files that
/// exist (the others are never drawn).
pub(super) fn windows(diags: &[&Diagnostic], sources: &Sources) -> Windows {
    let mut windows = Windows::new();
    for d in diags {
        for label in std::iter::once(&d.primary).chain(&d.labels) {
            let resolved = Resolved::new(label.location, sources);
            if resolved.file.is_none() {
                continue;
            }
            let (low, high) = (resolved.span.start, resolved.span.end);
            let secondary = label.location.file != d.primary.location.file;
            windows
                .entry(label.location.file)
                .and_modify(|w| {
                    w.low = w.low.min(low);
                    w.high = w.high.max(high);
                    w.secondary |= secondary;
                })
                .or_insert(Window {
                    low,
                    high,
                    secondary,
                });
        }
    }
    windows
}

/// How one file is shown to ariadne: the original bytes `start..end`,
/// preceded by `pad` empty lines.
#[derive(Clone, Copy)]
struct Layout {
    start: usize,
    end: usize,
    pad: usize,
}

/// One file as ariadne sees it.
type Shown<'s> = Source<Cow<'s, str>>;

/// The cache handed to ariadne. One per thread rendering.
pub(super) struct SourceCache<'s> {
    sources: &'s Sources,
    windows: &'s Windows,
    layouts: HashMap<FileId, Layout>,
    loaded: HashMap<FileId, Shown<'s>>,
    /// Per file, whether it breaks lines only at `\n` (see
    /// [`SourceCache::plain_breaks`]).
    plain: HashMap<FileId, bool>,
}

impl<'s> SourceCache<'s> {
    pub(super) fn new(sources: &'s Sources, windows: &'s Windows) -> Self {
        SourceCache {
            sources,
            windows,
            layouts: HashMap::new(),
            loaded: HashMap::new(),
            plain: HashMap::new(),
        }
    }

    /// Whether ariadne breaks file `id` into lines exactly at its `\n`s
    /// (false for an unknown file). Scanned once per file.
    pub(super) fn plain_breaks(&mut self, id: FileId) -> bool {
        let sources = self.sources;
        *self.plain.entry(id).or_insert_with(|| {
            sources
                .try_get(id)
                .is_some_and(|f| plain_line_breaks(&f.text))
        })
    }

    /// `range` (clamped to `file`) as an offset range of the text ariadne
    /// is given for `file`.
    pub(super) fn shift(&mut self, file: FileId, range: Range<usize>) -> Range<usize> {
        let layout = self.layout(file);
        let at = |offset: usize| offset.clamp(layout.start, layout.end) - layout.start + layout.pad;
        at(range.start)..at(range.end)
    }

    fn layout(&mut self, file: FileId) -> Layout {
        if let Some(&layout) = self.layouts.get(&file) {
            return layout;
        }
        let layout = self.compute_layout(file);
        self.layouts.insert(file, layout);
        layout
    }

    fn compute_layout(&self, id: FileId) -> Layout {
        let Some(file) = self.sources.try_get(id) else {
            return Layout {
                start: 0,
                end: 0,
                pad: 0,
            };
        };
        let len = file.text.len();
        let whole = Layout {
            start: 0,
            end: len,
            pad: 0,
        };
        let Some(&Window {
            low,
            high,
            secondary,
        }) = self.windows.get(&id)
        else {
            return whole;
        };
        // ariadne has no empty line after a final `\n`: the end of such a
        // text is on the last line, not on the one our index starts there.
        let trailing = len > 0 && file.text.ends_with('\n');
        let first = file
            .line_index(low)
            .min(file.line_count() - 1 - usize::from(trailing));
        let start = file.line_start(first).unwrap_or(0);
        // One line past the last one pointed at: a span ending at a line's
        // end may be resolved against the next line's start.
        let end = file
            .line_start(file.line_index(high) + 2)
            .unwrap_or(len)
            .max(start);
        let prefix = &file.text[..start];
        // ariadne places the header of a snippet in a file other than the
        // report's primary one by reading a character offset as a byte
        // offset: that lands on the same place in the window only when the
        // skipped prefix has one byte per character.
        if !plain_line_breaks(prefix) || (secondary && !prefix.is_ascii()) {
            return whole;
        }
        Layout {
            start,
            end,
            pad: first,
        }
    }
}

/// Whether ariadne breaks `text` into lines exactly at its `\n`s: no lone
/// `\r` (a `\r\n` is one break), vertical tab, form feed, NEL, or
/// U+2028/U+2029.
fn plain_line_breaks(text: &str) -> bool {
    let bytes = text.as_bytes();
    if memchr::memchr2(0x0b, 0x0c, bytes).is_some() {
        return false;
    }
    // One pass over the bytes that can start an odd break: `\r`, and the
    // UTF-8 lead bytes of NEL (C2 85) and U+2028/U+2029 (E2 80 A8/A9).
    memchr::memchr3_iter(b'\r', 0xc2, 0xe2, bytes).all(|i| {
        let next = |k: usize| bytes.get(i + k).copied();
        match bytes[i] {
            b'\r' => next(1) == Some(b'\n'),
            0xc2 => next(1) != Some(0x85),
            _ => !(next(1) == Some(0x80) && matches!(next(2), Some(0xa8 | 0xa9))),
        }
    })
}

impl<'s> Cache<FileId> for SourceCache<'s> {
    type Storage = Cow<'s, str>;

    fn fetch(&mut self, id: &FileId) -> Result<&Shown<'s>, impl fmt::Debug> {
        // Labels into unknown files are dropped before rendering, so the
        // error arm (which ariadne would print to stderr) is never taken.
        let Some(file) = self.sources.try_get(*id) else {
            return Err(format!("unknown file id {}", id.0));
        };
        let layout = self.layout(*id);
        Ok(self.loaded.entry(*id).or_insert_with(|| {
            let window = &file.text[layout.start..layout.end];
            let text = if layout.pad == 0 && window.len() == file.text.len() {
                Cow::Borrowed(window)
            } else {
                let mut text = String::with_capacity(layout.pad + window.len());
                text.extend(std::iter::repeat_n('\n', layout.pad));
                text.push_str(window);
                Cow::Owned(text)
            };
            Source::from(text)
        }))
    }

    fn display<'a>(&self, id: &'a FileId) -> Option<impl fmt::Display + 'a> {
        self.sources.try_get(*id).map(|f| f.path.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_newlines_and_crlf_are_plain() {
        assert!(plain_line_breaks("a\nb\r\nc\n"));
        assert!(plain_line_breaks("é and — are not breaks\n"));
        // Neighbours of the odd breaks' encodings.
        assert!(plain_line_breaks(
            "\u{84}\u{86}\u{2027}\u{202a}\u{2030}\r\n"
        ));
        for odd in [
            "a\rb",
            "a\x0bb",
            "a\x0cb",
            "a\u{85}b",
            "a\u{2028}b",
            "a\u{2029}b",
            "\r",
        ] {
            assert!(!plain_line_breaks(odd), "{odd:?}");
        }
    }
}
