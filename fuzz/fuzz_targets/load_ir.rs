//! Fuzzes the IR loader: any text is refused with an error or loads into a
//! program on which every index the engine follows is in range.
//!
//! Seeds: compiled examples, e.g.
//! `for f in ../examples/*.wf; do ../target/debug/wfc build $f -o corpus/load_ir/$(basename $f .wf).json; done`
//! and the dictionary `load_ir.dict` (`-dict=load_ir.dict`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wf_ir::{Const, Insn, NodeIdx};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(program) = wf_ir::load(text) else {
        return;
    };
    // Everything a verified program promises: these index without panics.
    for w in &program.workflows {
        let _ = program.str(w.name);
        let _ = &w.nodes[w.entry.0 as usize];
        for (i, node) in w.nodes.iter().enumerate() {
            let _ = program.str(node.id);
            for edge in w.outgoing(NodeIdx(i as u32)) {
                assert_eq!(edge.from.0 as usize, i);
                let _ = &w.nodes[edge.to.0 as usize];
            }
            if let Some(call) = &node.call {
                let _ = &program.workflows[call.workflow.0 as usize];
            }
        }
        for edge in &w.edges {
            for insn in edge.guard.iter().flatten() {
                match insn {
                    Insn::Load(s) | Insn::Exists(s) | Insn::Push(Const::Str(s)) => {
                        let _ = program.str(*s);
                    }
                    _ => {}
                }
            }
        }
    }
    // Writing it back gives a file that loads to the same program.
    let again = wf_ir::load(&wf_ir::to_json(&program)).expect("a written program loads");
    assert_eq!(again, program);
});
