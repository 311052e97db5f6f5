//! Cutting text to size: reasons, notes and key names that come from
//! agents must not grow the run's memory, log or report without bound
//! (`docs/runtime.md` section 4).

/// `text` cut to at most `max` bytes (at a character boundary) followed by
/// the marker `… [truncated, N bytes]`, where N is the original length;
/// unchanged when it fits.
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    format!(
        "{}… [truncated, {} bytes]",
        &text[..floor_boundary(text, max)],
        text.len()
    )
}

/// Like [`clip`], in place, and without copying a text that fits.
pub fn clip_in_place(text: &mut String, max: usize) {
    if text.len() > max {
        *text = clip(text, max);
    }
}

/// A key as messages show it: whole when short, else its first 40 bytes
/// and its length, so that a rejected 15 MiB key costs a short line.
pub fn key_excerpt(key: &str) -> String {
    const SHOWN: usize = 40;
    if key.len() <= SHOWN * 2 {
        return key.to_owned();
    }
    format!(
        "{}… ({} bytes)",
        &key[..floor_boundary(key, SHOWN)],
        key.len()
    )
}

/// The largest character boundary of `text` at or below `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_at_a_char_boundary_with_the_original_length() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("abcdef", 3), "abc… [truncated, 6 bytes]");
        // `é` is two bytes: the cut falls before it, not inside it.
        assert_eq!(clip("aé", 2), "a… [truncated, 3 bytes]");
        let mut s = "x".repeat(100);
        clip_in_place(&mut s, 10);
        assert_eq!(s, format!("{}… [truncated, 100 bytes]", "x".repeat(10)));
        assert_eq!(key_excerpt("k"), "k");
        let long = "k".repeat(1000);
        assert_eq!(
            key_excerpt(&long),
            format!("{}… (1000 bytes)", "k".repeat(40))
        );
    }
}
