//! The loader refuses every kind of broken IR file with a JSON path.

use crate::support;

use serde_json::{Value, json};
use wf_ir::{
    CmpOp, Const, EdgeRange, EngineAttrs, FORMAT, Insn, IrEdge, IrNode, IrProgram, IrWorkflow,
    Limits, LoadError, LoadErrorKind as Kind, NodeIdx, Opcode, StrId, VERSION, load, to_json,
};

/// Two nodes `a -> b` in workflow `W`; strings: W a b a->b k.
fn tiny() -> IrProgram {
    let node = |id: u32, start: u32, len: u32| IrNode {
        id: StrId(id),
        op: Opcode::Step,
        label: None,
        spec: Default::default(),
        engine: EngineAttrs::default(),
        templates: Default::default(),
        reads: vec![],
        writes: vec![],
        call: None,
        edges: EdgeRange { start, len },
        handler: None,
    };
    IrProgram {
        format: FORMAT.into(),
        version: VERSION,
        strings: ["W", "a", "b", "a->b", "k"].map(String::from).to_vec(),
        workflows: vec![IrWorkflow {
            name: StrId(0),
            entry: NodeIdx(0),
            needs: vec![],
            gives: vec![],
            goal: None,
            label: None,
            limits: Limits::default(),
            retry_target: None,
            fallback_retry_target: None,
            spec: Default::default(),
            templates: Default::default(),
            nodes: vec![node(1, 0, 1), node(2, 1, 0)],
            edges: vec![IrEdge {
                id: StrId(3),
                from: NodeIdx(0),
                to: NodeIdx(1),
                label: None,
                weight: 0,
                guard: None,
                spec: Default::default(),
            }],
            dialect: Default::default(),
        }],
    }
}

fn with_guard(code: Vec<Insn>) -> IrProgram {
    let mut p = tiny();
    p.workflows[0].edges[0].guard = Some(code);
    p
}

fn refuse(program: &IrProgram) -> LoadError {
    load(&to_json(program)).expect_err("the loader refuses it")
}

fn refuse_json(value: &Value) -> LoadError {
    load(&serde_json::to_string_pretty(value).unwrap()).expect_err("the loader refuses it")
}

fn assert_error(err: &LoadError, kind: Kind, path: &str, words: &str) {
    assert_eq!(err.kind, kind, "{err}");
    assert_eq!(err.path, path, "{err}");
    assert!(err.message.contains(words), "{err}");
}

#[test]
fn a_well_formed_file_loads() {
    let p = tiny();
    assert_eq!(load(&to_json(&p)).unwrap(), p);
    let sample = support::compile(support::SAMPLE);
    assert_eq!(load(&to_json(&sample)).unwrap(), sample);
    // Optional fields may be left out; they read as null.
    let mut v = serde_json::to_value(&p).unwrap();
    v["workflows"][0].as_object_mut().unwrap().remove("goal");
    v["workflows"][0]["nodes"][0]
        .as_object_mut()
        .unwrap()
        .remove("call");
    assert_eq!(load(&v.to_string()).unwrap(), p);
}

#[test]
fn syntax_errors_have_line_and_column() {
    let err = load("{\n  \"format\": \"wfc-ir\",\n  \"version\": 1,,\n}").unwrap_err();
    assert_eq!(err.kind, Kind::Syntax);
    assert_eq!(err.position, Some((3, 16)));
    assert!(err.to_string().starts_with("line 3, column 16: "), "{err}");
    assert_eq!(load("").unwrap_err().kind, Kind::Syntax);
}

#[test]
fn format_and_version_are_checked_first() {
    let err = refuse_json(&json!({"format": "other", "version": 1, "junk": true}));
    assert_error(&err, Kind::Format, "$.format", "not a wfc IR file");
    let err = refuse_json(&json!({"version": 1}));
    assert_error(&err, Kind::Format, "$", "no `format`");
    let err = refuse_json(&json!({"format": "wfc-ir", "version": 2, "strings": 5}));
    assert_error(&err, Kind::Version, "$.version", "unsupported IR version 2");
    let err = refuse_json(&json!({"format": "wfc-ir"}));
    assert_error(&err, Kind::Version, "$", "no `version`");
    let err = refuse_json(&json!(["wfc-ir", 1]));
    assert_error(&err, Kind::Shape, "$", "JSON object");
    let err = refuse_json(&json!("wfc-ir"));
    assert_error(&err, Kind::Shape, "$", "JSON object");
    let err = refuse_json(&json!({"format": "wfc-ir", "version": 1}));
    assert_error(&err, Kind::Shape, "$", "missing field `strings`");
}

#[test]
fn shape_errors_have_a_path() {
    let mut v = serde_json::to_value(tiny()).unwrap();
    v["workflows"][0]["nodes"][1]["op"] = json!("teleport");
    let err = refuse_json(&v);
    assert_error(&err, Kind::Shape, "$.workflows[0].nodes[1].op", "teleport");
    assert!(err.position.is_some());

    let mut v = serde_json::to_value(tiny()).unwrap();
    v["workflows"][0]["edges"][0]["colour"] = json!("red");
    let err = refuse_json(&v);
    assert_error(
        &err,
        Kind::Shape,
        "$.workflows[0].edges[0].colour",
        "unknown field",
    );

    let mut v = serde_json::to_value(tiny()).unwrap();
    v["workflows"][0]["entry"] = json!(-1);
    assert_error(&refuse_json(&v), Kind::Shape, "$.workflows[0].entry", "");
}

/// A template must belong to a string attribute and name strings that exist.
#[test]
fn templates_are_verified() {
    let mut p = tiny();
    p.workflows[0].nodes[0]
        .templates
        .insert("prompt".into(), vec![wf_ir::Part::Key(StrId(4))]);
    assert_error(
        &refuse(&p),
        Kind::Invalid,
        "$.workflows[0].nodes[0].templates.prompt",
        "`prompt` is neither",
    );
    let mut p = tiny();
    p.workflows[0].nodes[0]
        .templates
        .insert("label".into(), vec![wf_ir::Part::Text(StrId(9))]);
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].nodes[0].templates.label[0].text",
        "string index 9",
    );
    let mut p = tiny();
    p.strings.push(String::new());
    p.workflows[0]
        .templates
        .insert("goal".into(), vec![wf_ir::Part::Key(StrId(5))]);
    assert_error(
        &refuse(&p),
        Kind::Invalid,
        "$.workflows[0].templates.goal[0].key",
        "must not be empty",
    );
}

#[test]
fn string_indices_are_in_range() {
    let mut p = tiny();
    p.workflows[0].nodes[1].id = StrId(99);
    let err = refuse(&p);
    assert_error(
        &err,
        Kind::Index,
        "$.workflows[0].nodes[1].id",
        "string index 99",
    );

    let mut p = tiny();
    p.workflows[0].nodes[0].engine.command = Some(StrId(5));
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].nodes[0].engine.command",
        "has 5 strings",
    );
    let p = with_guard(vec![Insn::Exists(StrId(7))]);
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].edges[0].guard[0].arg",
        "7",
    );
}

#[test]
fn node_and_workflow_indices_are_in_range() {
    let mut p = tiny();
    p.workflows[0].entry = NodeIdx(2);
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].entry",
        "node index 2",
    );

    let mut p = tiny();
    p.workflows[0].nodes[1].engine.retry_target = Some(NodeIdx(9));
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].nodes[1].engine.retry_target",
        "node index 9",
    );

    let mut p = tiny();
    p.workflows[0].fallback_retry_target = Some(NodeIdx(3));
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].fallback_retry_target",
        "3",
    );

    let mut p = tiny();
    p.workflows[0].edges[0].to = NodeIdx(2);
    assert_error(
        &refuse(&p),
        Kind::Index,
        "$.workflows[0].edges[0].to",
        "node index 2",
    );

    let mut p = tiny();
    p.workflows[0].nodes[1].op = Opcode::Call;
    p.workflows[0].nodes[1].call = Some(wf_ir::IrCall {
        workflow: wf_ir::WorkflowIdx(1),
        return_map: vec![],
    });
    let err = refuse(&p);
    assert_error(
        &err,
        Kind::Index,
        "$.workflows[0].nodes[1].call.workflow",
        "workflow index 1",
    );
}

#[test]
fn calls_belong_to_call_nodes() {
    let mut p = tiny();
    p.workflows[0].nodes[1].op = Opcode::Call;
    assert_error(
        &refuse(&p),
        Kind::Invalid,
        "$.workflows[0].nodes[1].call",
        "needs a `call`",
    );
    let mut p = tiny();
    p.workflows[0].nodes[0].call = Some(wf_ir::IrCall {
        workflow: wf_ir::WorkflowIdx(0),
        return_map: vec![],
    });
    assert_error(
        &refuse(&p),
        Kind::Invalid,
        "$.workflows[0].nodes[0].call",
        "only `call`",
    );
}

#[test]
fn empty_workflows_and_bad_backoff_are_invalid() {
    let mut p = tiny();
    p.workflows[0].nodes.clear();
    p.workflows[0].edges.clear();
    assert_error(
        &refuse(&p),
        Kind::Invalid,
        "$.workflows[0].nodes",
        "at least one node",
    );
    let mut p = tiny();
    p.workflows[0].nodes[0].engine.backoff = Some(wf_ir::Backoff {
        factor: 0.5,
        ..wf_ir::Backoff::DEFAULT
    });
    let err = refuse(&p);
    assert_error(
        &err,
        Kind::Invalid,
        "$.workflows[0].nodes[0].engine.backoff.factor",
        "at least 1",
    );
}

#[test]
fn edge_ranges_match_the_edges() {
    let mut p = tiny();
    p.workflows[0].nodes[1].edges = EdgeRange { start: 0, len: 1 };
    p.workflows[0].nodes[0].edges = EdgeRange { start: 1, len: 0 };
    let err = refuse(&p);
    assert_error(
        &err,
        Kind::EdgeRange,
        "$.workflows[0].nodes[1].edges.start",
        "starts at node 0",
    );

    let mut p = tiny();
    p.workflows[0].nodes[0].edges = EdgeRange { start: 0, len: 0 };
    assert_error(
        &refuse(&p),
        Kind::EdgeRange,
        "$.workflows[0].edges[0]",
        "in no edge range",
    );

    let mut p = tiny();
    p.workflows[0].nodes[1].edges = EdgeRange {
        start: u32::MAX,
        len: u32::MAX,
    };
    assert_error(
        &refuse(&p),
        Kind::EdgeRange,
        "$.workflows[0].nodes[1].edges",
        "out of range",
    );
}

#[test]
fn duplicates_are_refused() {
    let mut p = tiny();
    p.workflows[0].nodes[1].id = StrId(1);
    assert_error(
        &refuse(&p),
        Kind::Duplicate,
        "$.workflows[0].nodes[1].id",
        "`a`",
    );

    let mut p = tiny();
    p.strings.push("a".into());
    p.workflows[0].nodes[1].id = StrId(5);
    assert_error(
        &refuse(&p),
        Kind::Duplicate,
        "$.workflows[0].nodes[1].id",
        "`a`",
    );

    let mut p = tiny();
    let w = p.workflows[0].clone();
    p.workflows.push(w);
    assert_error(&refuse(&p), Kind::Duplicate, "$.workflows[1].name", "`W`");

    let mut p = tiny();
    let mut e = p.workflows[0].edges[0].clone();
    e.label = Some(StrId(4));
    p.workflows[0].edges.push(e);
    p.workflows[0].nodes[0].edges.len = 2;
    p.workflows[0].nodes[1].edges.start = 2;
    assert_error(
        &refuse(&p),
        Kind::Duplicate,
        "$.workflows[0].edges[1].id",
        "`a->b`",
    );
}

#[test]
fn cycles_are_refused_with_their_path() {
    let mut p = tiny();
    let mut back = p.workflows[0].edges[0].clone();
    back.id = StrId(4);
    back.from = NodeIdx(1);
    back.to = NodeIdx(0);
    p.workflows[0].edges.push(back);
    p.workflows[0].nodes[1].edges = EdgeRange { start: 1, len: 1 };
    let err = refuse(&p);
    assert_error(&err, Kind::Cycle, "$.workflows[0].edges", "(b -> a -> b)");

    let mut p = tiny();
    p.workflows[0].edges[0].to = NodeIdx(0);
    assert_error(&refuse(&p), Kind::Cycle, "$.workflows[0].edges", "(a -> a)");
}

#[test]
fn attractor_workflows_may_loop_and_name_their_handlers() {
    let mut p = tiny();
    p.workflows[0].edges[0].to = NodeIdx(0);
    p.workflows[0].dialect = wf_ir::Dialect::Attractor;
    p.workflows[0].nodes[0].handler = Some(StrId(1));
    let json = wf_ir::to_json(&p);
    assert!(json.contains("\"dialect\": \"attractor\""), "{json}");
    wf_ir::load(&json).expect("a pipeline's loop is allowed");
    // The same loop in the default dialect is refused; a handler out of
    // the string table is refused in any dialect.
    p.workflows[0].dialect = wf_ir::Dialect::Wf;
    assert_error(&refuse(&p), Kind::Cycle, "$.workflows[0].edges", "(a -> a)");
    p.workflows[0].dialect = wf_ir::Dialect::Attractor;
    p.workflows[0].nodes[0].handler = Some(StrId(999));
    assert_eq!(refuse(&p).path, "$.workflows[0].nodes[0].handler");
}

fn guard_error(code: Vec<Insn>) -> LoadError {
    refuse(&with_guard(code))
}

const GUARD: &str = "$.workflows[0].edges[0].guard";

#[test]
fn well_formed_guards_load() {
    let t = Insn::Push(Const::Bool(true));
    let ok = [
        vec![t.clone()],
        vec![
            Insn::LoadOutcome,
            Insn::Push(Const::Str(StrId(1))),
            Insn::Cmp(CmpOp::Eq),
        ],
        // a && (b || c)
        vec![
            t.clone(),
            Insn::JumpIfFalse(5),
            t.clone(),
            Insn::JumpIfTrue(5),
            Insn::Exists(StrId(4)),
        ],
        vec![
            Insn::Load(StrId(4)),
            Insn::Push(Const::Int(1)),
            Insn::Push(Const::Null),
            Insn::List(2),
            Insn::In,
            Insn::Not,
        ],
        vec![
            Insn::LoadLabel,
            Insn::Push(Const::Str(StrId(4))),
            Insn::Matches,
        ],
        vec![Insn::List(0), Insn::Push(Const::Float(0.5)), Insn::Contains],
    ];
    for code in ok {
        load(&to_json(&with_guard(code.clone()))).unwrap_or_else(|e| panic!("{code:?}: {e}"));
    }
}

#[test]
fn stack_underflow() {
    let err = guard_error(vec![Insn::Push(Const::Int(1)), Insn::Cmp(CmpOp::Lt)]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[1]"),
        "stack underflow: `cmp` pops 2",
    );
    let err = guard_error(vec![Insn::Not]);
    assert_error(&err, Kind::Bytecode, &format!("{GUARD}[0]"), "underflow");
    let err = guard_error(vec![Insn::LoadOutcome, Insn::List(2)]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[1]"),
        "`list` pops 2",
    );
}

#[test]
fn jumps_go_forward_and_stay_in_range() {
    let t = Insn::Push(Const::Bool(true));
    let err = guard_error(vec![t.clone(), Insn::JumpIfTrue(0), t.clone()]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[1].arg"),
        "jump target 0",
    );
    let err = guard_error(vec![t.clone(), Insn::JumpIfTrue(1), t.clone()]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[1].arg"),
        "goes forward",
    );
    let err = guard_error(vec![t.clone(), Insn::JumpIfFalse(4), t.clone()]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[1].arg"),
        "jump target 4",
    );
}

#[test]
fn jumps_agree_on_the_stack_depth() {
    let t = Insn::Push(Const::Bool(true));
    // The jump keeps 1 value; falling through reaches index 4 with 2.
    let code = vec![
        t.clone(),
        Insn::JumpIfFalse(4),
        t.clone(),
        t.clone(),
        Insn::Not,
    ];
    let err = guard_error(code);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[4]"),
        "a jump arrives here with 1",
    );
    let code = vec![t.clone(), Insn::JumpIfFalse(4), t.clone(), t.clone()];
    let err = guard_error(code);
    assert_error(&err, Kind::Bytecode, GUARD, "a jump to the end leaves 1");
}

#[test]
fn exactly_one_value_is_left() {
    let t = Insn::Push(Const::Bool(true));
    let err = guard_error(vec![t.clone(), t.clone()]);
    assert_error(&err, Kind::Bytecode, GUARD, "leaves 2");
    let err = guard_error(vec![]);
    assert_error(&err, Kind::Bytecode, GUARD, "at least one instruction");
    let err = guard_error(vec![
        Insn::List(0),
        Insn::List(0),
        Insn::List(2),
        Insn::List(0),
    ]);
    assert_error(&err, Kind::Bytecode, GUARD, "leaves 2");
}

#[test]
fn matches_takes_a_constant_pattern_that_compiles() {
    let err = guard_error(vec![Insn::LoadLabel, Insn::Load(StrId(4)), Insn::Matches]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[2]"),
        "directly follow",
    );

    let mut p = with_guard(vec![
        Insn::LoadLabel,
        Insn::Push(Const::Str(StrId(5))),
        Insn::Matches,
    ]);
    p.strings.push("fix(".into());
    let err = refuse(&p);
    assert_error(
        &err,
        Kind::Regex,
        &format!("{GUARD}[1].arg.value"),
        "does not compile",
    );

    p.strings[5] = "(a{999}){999}".into();
    let err = refuse(&p);
    assert_error(
        &err,
        Kind::Regex,
        &format!("{GUARD}[1].arg.value"),
        "size limit",
    );

    // A jump that lands on `matches` would give it another top of stack.
    let t = Insn::Push(Const::Bool(true));
    let err = guard_error(vec![
        Insn::LoadLabel,
        t,
        Insn::JumpIfTrue(4),
        Insn::Push(Const::Str(StrId(4))),
        Insn::Matches,
    ]);
    assert_error(
        &err,
        Kind::Bytecode,
        &format!("{GUARD}[4]"),
        "no jump may target it",
    );
}

/// Issue 17.3: a stored program whose `compensate` the engine could not
/// run is refused when loaded, not when a run fails.
#[test]
fn effect_attributes_are_verified() {
    let set = |key: &str, value: Value| {
        let mut p = tiny();
        p.workflows[0].nodes[0].spec.insert(key.into(), value);
        p
    };
    let at = |key: &str| format!("$.workflows[0].nodes[0].spec.{key}");
    assert_error(
        &refuse(&set("compensate", json!("nowhere"))),
        Kind::Invalid,
        &at("compensate"),
        "names no node of this workflow: `nowhere`",
    );
    assert_error(
        &refuse(&set("compensate", json!("a"))),
        Kind::Invalid,
        &at("compensate"),
        "cannot compensate itself",
    );
    assert_error(
        &refuse(&set("compensate", json!("b"))),
        Kind::Invalid,
        &at("compensate"),
        "`b` is not a `tool` node",
    );
    assert_error(
        &refuse(&set("effect", json!("twice"))),
        Kind::Invalid,
        &at("effect"),
        "unknown kind of effect `twice`",
    );
    assert_error(
        &refuse(&set("idempotence_key", json!(3))),
        Kind::Invalid,
        &at("idempotence_key"),
        "expected a string",
    );
    let mut p = set("compensate", json!("b"));
    p.workflows[0].nodes[1].op = Opcode::Tool;
    p.workflows[0].nodes[0]
        .spec
        .insert("effect".into(), json!("at_most_once"));
    assert_eq!(load(&to_json(&p)).unwrap(), p);
}

/// Defaults are left out of the file (a plain node is its id, opcode and
/// edge range), what is set is written, and the form that spelled every
/// default out (written before 2026-11-26) loads to the same program.
#[test]
fn defaults_are_left_out_and_the_spelled_out_form_still_loads() {
    let p = tiny();
    let compact = serde_json::to_string(&p).unwrap();
    assert_eq!(
        compact,
        r#"{"format":"wfc-ir","version":1,"strings":["W","a","b","a->b","k"],"workflows":[{"name":0,"entry":0,"nodes":[{"id":1,"op":"step","edges":{"start":0,"len":1}},{"id":2,"op":"step","edges":{"start":1,"len":0}}],"edges":[{"id":3,"from":0,"to":1}]}]}"#
    );
    assert_eq!(load(&compact).unwrap(), p);
    assert_eq!(load(&to_json(&p)).unwrap(), p);

    let node = |id: u32, start: u32, len: u32| {
        json!({
            "id": id, "op": "step", "label": null, "spec": {},
            "engine": {
                "timeout_ms": null, "retries": null, "backoff": null,
                "allow_partial": false, "auto_status": false, "goal_gate": false,
                "retry_target": null, "fallback_retry_target": null, "command": null,
                "default_choice": null, "join_policy": null, "error_policy": null,
                "max_parallel": null, "merge": null
            },
            "reads": [], "writes": [], "call": null,
            "edges": {"start": start, "len": len}
        })
    };
    let spelled_out = json!({
        "format": "wfc-ir", "version": 1,
        "strings": ["W", "a", "b", "a->b", "k"],
        "workflows": [{
            "name": 0, "entry": 0, "needs": [], "gives": [], "goal": null, "label": null,
            "limits": {
                "max_steps": null, "max_visits": null, "max_depth": null,
                "wall_clock_ms": null, "default_timeout_ms": null, "default_retries": null
            },
            "retry_target": null, "fallback_retry_target": null, "spec": {},
            "nodes": [node(1, 0, 1), node(2, 1, 0)],
            "edges": [{
                "id": 3, "from": 0, "to": 1, "label": null, "weight": 0,
                "guard": null, "spec": {}
            }]
        }]
    });
    assert_eq!(load(&spelled_out.to_string()).unwrap(), p);

    // What is set is written, and nothing else of its object.
    let mut p = tiny();
    let w = &mut p.workflows[0];
    w.limits.max_steps = Some(9);
    w.nodes[0].engine.allow_partial = true;
    w.nodes[0].engine.retries = Some(0);
    w.nodes[1].reads = vec![wf_ir::ReadKey {
        key: StrId(4),
        optional: false,
    }];
    w.edges[0].weight = -2;
    let text = serde_json::to_string(&p).unwrap();
    for part in [
        r#""limits":{"max_steps":9}"#,
        r#""engine":{"retries":0,"allow_partial":true}"#,
        r#""reads":[{"key":4}]"#,
        r#""weight":-2"#,
    ] {
        assert!(text.contains(part), "{part} in {text}");
    }
    assert_eq!(load(&text).unwrap(), p);
}
