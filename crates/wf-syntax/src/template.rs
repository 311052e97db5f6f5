//! A string literal's value split at its `$key` / `${key}` interpolations,
//! for the compiler: the parsed value alone cannot tell an interpolation
//! from a literal `\$key`, since both decode to `$key`.

use crate::strings::{decode_str, decode_text_block, interpolations};

/// One piece of a string literal's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePart {
    /// Literal text, escapes resolved.
    Text(String),
    /// A `$key` / `${key}` interpolation: the key.
    Key(String),
}

/// The value of the string literal whose raw source text (quotes included,
/// `"…"` or `"""…"""`) is `raw`, split at its interpolations, in order.
/// Empty text pieces are left out; a literal without interpolations is one
/// [`TemplatePart::Text`] (none when it is empty).
///
/// Each marker is replaced by a private-use sentinel character before
/// decoding, so escapes and text-block indentation are resolved exactly as
/// the parser resolves them; a sentinel the text could itself produce is
/// skipped for the next one.
pub fn template(raw: &str) -> Vec<TemplatePart> {
    let markers = interpolations(raw, 0);
    let decode = |text: &str| {
        if text.starts_with("\"\"\"") {
            decode_text_block(text)
        } else {
            decode_str(text)
        }
    };
    if markers.is_empty() {
        return text_part(decode(raw)).into_iter().collect();
    }
    for sentinel in '\u{E000}'..='\u{F8FF}' {
        if raw.contains(sentinel) {
            continue;
        }
        let mut marked = String::with_capacity(raw.len());
        let mut at = 0;
        for m in &markers {
            marked.push_str(&raw[at..m.span.start as usize]);
            marked.push(sentinel);
            at = m.span.end as usize;
        }
        marked.push_str(&raw[at..]);
        let decoded = decode(&marked);
        let pieces: Vec<&str> = decoded.split(sentinel).collect();
        if pieces.len() != markers.len() + 1 {
            continue;
        }
        let mut out = Vec::with_capacity(2 * markers.len() + 1);
        for (piece, m) in pieces.iter().zip(&markers) {
            out.extend(text_part(piece.to_string()));
            out.push(TemplatePart::Key(m.key.text.clone()));
        }
        out.extend(text_part(pieces[markers.len()].to_string()));
        return out;
    }
    // Unreachable in practice: 6,400 sentinels cannot all occur in one literal.
    text_part(decode(raw)).into_iter().collect()
}

fn text_part(text: String) -> Option<TemplatePart> {
    (!text.is_empty()).then_some(TemplatePart::Text(text))
}

#[cfg(test)]
mod tests {
    use super::TemplatePart::{Key, Text};
    use super::*;

    #[test]
    fn splits_at_interpolations_and_keeps_escaped_dollars() {
        assert_eq!(
            template(r#""echo ${env} \$HOME $a.b""#),
            vec![
                Text("echo ".into()),
                Key("env".into()),
                Text(" $HOME ".into()),
                Key("a.b".into()),
            ]
        );
    }

    #[test]
    fn plain_and_empty_literals() {
        assert_eq!(template(r#""a\tb""#), vec![Text("a\tb".into())]);
        assert_eq!(template(r#""""#), vec![]);
        assert_eq!(template(r#""$ 5 \${x}""#), vec![Text("$ 5 ${x}".into())]);
    }

    #[test]
    fn text_blocks_strip_indentation_around_markers() {
        let raw = "\"\"\"\n    deploy $svc\n      to \\$HOME\n    \"\"\"";
        assert_eq!(
            template(raw),
            vec![
                Text("deploy ".into()),
                Key("svc".into()),
                Text("\n  to $HOME".into()),
            ]
        );
    }

    #[test]
    fn a_sentinel_in_the_text_is_skipped() {
        assert_eq!(
            template("\"\u{E000}$k\\u{E001}\""),
            vec![
                Text("\u{E000}".into()),
                Key("k".into()),
                Text("\u{E001}".into())
            ]
        );
    }
}
