; The right side of `matches` in a guard is a regular expression (Rust's
; `regex` syntax). Nothing else in a .wf file embeds another language.
(comparison
  operator: "matches"
  right: (string (string_content) @injection.content)
  (#set! injection.language "regex"))
