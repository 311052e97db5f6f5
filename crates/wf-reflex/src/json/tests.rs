//! Tests of the JSON parser.

use super::*;

fn ok(text: &str) -> Json {
    parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
}

fn err(text: &str) -> JsonError {
    parse(text).expect_err(text)
}

#[test]
fn values_and_spans() {
    let json = ok(r#" { "a" : [1, -2.5e3, true, null, "x\"\u00e9\ud83d\ude00"] } "#);
    assert_eq!(json.span, Span::new(1, 59));
    let JsonKind::Object(members) = &json.kind else {
        panic!()
    };
    assert_eq!(members[0].key, "a");
    assert_eq!(members[0].key_span, Span::new(3, 6));
    let JsonKind::Array(items) = &members[0].value.kind else {
        panic!()
    };
    assert_eq!(items[0].kind, JsonKind::Int(1));
    assert_eq!(items[1].kind, JsonKind::Float(-2500.0));
    assert_eq!(items[2].kind, JsonKind::Bool(true));
    assert_eq!(items[3].kind, JsonKind::Null);
    assert_eq!(items[4].kind, JsonKind::String("x\"é😀".into()));
}

#[test]
fn duplicate_keys_are_kept_in_order() {
    let JsonKind::Object(m) = ok(r#"{"a":1,"a":2}"#).kind else {
        panic!()
    };
    assert_eq!(m.len(), 2);
    assert_eq!(m[1].value.kind, JsonKind::Int(2));
}

#[test]
fn big_integers_become_floats() {
    assert_eq!(
        ok("123456789012345678901").kind,
        JsonKind::Float(1.2345678901234568e20)
    );
    assert!(err("1e999").message.contains("out of range"));
}

#[test]
fn errors_point_at_the_problem() {
    let e = err("{\"a\": 1,}");
    assert!(e.message.contains("trailing comma"), "{e:?}");
    assert_eq!(e.span, Span::new(7, 8));
    let e = err("{\"a\" 1}");
    assert!(e.message.contains("`:`"), "{e:?}");
    assert_eq!(e.span, Span::new(5, 6));
    let e = err("[1, 2");
    assert!(e.message.contains("end of the document"), "{e:?}");
    assert_eq!(e.opened.unwrap().0, Span::new(0, 1));
    let e = err("{\"a\": \"b}");
    assert!(e.message.contains("unterminated"), "{e:?}");
    assert!(err("// c\n{}").message.contains("no comments"));
    assert!(err("{'a': 1}").message.contains("double quotes"));
    assert!(err("01").message.contains("leading zeros"));
    assert!(err("-").message.contains("digit"));
    assert!(err("nul").message.contains("unexpected `nul`"));
    assert!(err("\"\\x\"").message.contains("invalid escape"));
    assert!(err("\"\\ud800\"").message.contains("surrogate"));
    assert!(err("\"\\u12\"").message.contains("four hexadecimal"));
    assert!(err("\"a\tb\"").message.contains("control character"));
    assert!(err("{} {}").message.contains("end of the document"));
    assert!(err("").message.contains("unexpected end"));
    assert!(err("\u{e9}").message.contains("`é`"));
}

#[test]
fn depth_is_bounded() {
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert!(err(&deep).message.contains("levels deep"));
    let fine = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    ok(&fine);
    // Far deeper input fails fast, without overflowing the stack.
    let hostile = "{\"a\":".repeat(100_000);
    assert!(err(&hostile).message.contains("levels deep"));
}

#[test]
fn agrees_with_serde_json_on_valid_documents() {
    for text in [
        r#"{"x": [1, 2.5, "s", {"y": null}], "z": false}"#,
        r#""\u00e9\n\/""#,
        "-0.0",
        "[]",
    ] {
        let ours = ok(text);
        let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(to_serde(&ours), theirs, "{text}");
    }
}

fn to_serde(json: &Json) -> serde_json::Value {
    use serde_json::Value as V;
    match &json.kind {
        JsonKind::Null => V::Null,
        JsonKind::Bool(b) => V::Bool(*b),
        JsonKind::Int(n) => V::from(*n),
        JsonKind::Float(f) => V::from(*f),
        JsonKind::String(s) => V::String(s.clone()),
        JsonKind::Array(items) => V::Array(items.iter().map(to_serde).collect()),
        JsonKind::Object(m) => V::Object(
            m.iter()
                .map(|m| (m.key.clone(), to_serde(&m.value)))
                .collect(),
        ),
    }
}
