//! Engine throughput (steps per second) with the `auto` agent.
//!
//! `cargo bench -p wf-vm --bench engine`; figures and how to read them are
//! in `docs/performance.md`.

use wf_test_support::vm as common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use wf_ir::{IrProgram, WorkflowIdx};
use wf_vm::agents::AutoAgent;
use wf_vm::{
    AgentError, Decision, DecisionAgent, DecisionContext, Engine, EngineConfig, Outcome, RunDir,
    RunStatus, Write,
};

/// `auto`, plus `stop` written at `start` once the call depth reaches
/// `depth` (the one thing `auto` cannot decide: when recursion ends).
struct Recurse(usize);

impl DecisionAgent for Recurse {
    fn decide(&mut self, ctx: &DecisionContext<'_>) -> Result<Decision, AgentError> {
        if ctx.depth == self.0 && ctx.str(ctx.node.id) == "start" {
            let mut o = Outcome::success();
            o.writes.push(Write {
                key: "stop".into(),
                value: json!(true),
            });
            return Ok(Decision::Advance(o));
        }
        AutoAgent.decide(ctx)
    }
}

/// Makes a fresh agent for each run.
type MakeAgent = fn() -> Box<dyn DecisionAgent>;

fn config() -> EngineConfig {
    let mut c = EngineConfig::default();
    c.limits.max_depth = 10_000;
    c.snapshot_every = 0;
    c
}

/// Times `run` on `iters` fresh engines from `setup`; building and
/// dropping the engines is not timed.
fn timed<E>(iters: u64, mut setup: impl FnMut() -> E, mut run: impl FnMut(&mut E)) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let mut e = setup();
        let t = Instant::now();
        run(&mut e);
        total += t.elapsed();
    }
    total
}

fn steps_of(program: &IrProgram, agent: &mut dyn DecisionAgent) -> u64 {
    let mut e = Engine::new(program, WorkflowIdx(0), config()).unwrap();
    let r = e.run(agent);
    assert_eq!(r.status, RunStatus::Completed, "{r:?}");
    r.steps
}

fn in_memory(c: &mut Criterion) {
    let mut g = c.benchmark_group("in_memory");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    let cases: Vec<(&str, IrProgram, MakeAgent)> = vec![
        ("linear_1000", common::linear(1000, false), || {
            Box::new(AutoAgent)
        }),
        ("linear_1000_writes", common::linear(1000, true), || {
            Box::new(AutoAgent)
        }),
        ("nested_calls_1000", common::nested(1000), || {
            Box::new(AutoAgent)
        }),
        ("recursive_1000", common::recursive(), || {
            Box::new(Recurse(1000))
        }),
    ];
    for (name, program, agent) in &cases {
        let steps = steps_of(program, &mut *agent());
        g.throughput(Throughput::Elements(steps));
        g.bench_function(*name, |b| {
            b.iter_custom(|iters| {
                timed(
                    iters,
                    || {
                        (
                            Engine::new(program, WorkflowIdx(0), config()).unwrap(),
                            agent(),
                        )
                    },
                    |(engine, agent)| {
                        black_box(engine.run_for(&mut **agent, u64::MAX));
                    },
                )
            })
        });
    }
    // Control for the run-directory figures: the same steps in memory on top
    // of 0 or 100,000 entries set before the run (only the steps timed).
    let program = common::linear(1001, false);
    for size in [0usize, 100_000] {
        g.throughput(Throughput::Elements(1000));
        g.bench_function(format!("linear_1000_bb_{size}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut e = Engine::new(&program, WorkflowIdx(0), config()).unwrap();
                    for i in 0..size {
                        e.set_input(&format!("pre.{i}"), json!(i)).unwrap();
                    }
                    let t = Instant::now();
                    black_box(e.run_for(&mut AutoAgent, 1000));
                    total += t.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

fn run_dir(c: &mut Criterion) {
    let mut g = c.benchmark_group("run_dir");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let base = std::env::temp_dir().join(format!("wf-vm-bench-{}", std::process::id()));
    let mut n = 0u32;
    let mut fresh = |program: &IrProgram| {
        n += 1;
        let p = base.join(n.to_string());
        let _ = std::fs::remove_dir_all(&p);
        RunDir::create(p, program, &json!({})).unwrap()
    };
    // 1,000 logged steps on top of a blackboard of `size` entries (inputs
    // set before the run): the per-step cost must not depend on `size`.
    // The steps write nothing, so only persistence is measured, and the
    // run stops one step before completion, so no final snapshot is timed.
    let program = common::linear(1001, false);
    for size in [0usize, 10_000, 100_000] {
        g.throughput(Throughput::Elements(1000));
        g.bench_function(format!("linear_1000_bb_{size}"), |b| {
            // Only the steps are timed: building the blackboard, the first
            // snapshot and freeing the engine are not.
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut e = Engine::new(&program, WorkflowIdx(0), config()).unwrap();
                    for i in 0..size {
                        e.set_input(&format!("pre.{i}"), json!(i)).unwrap();
                    }
                    e.persist_to(fresh(&program)).unwrap();
                    let t = Instant::now();
                    black_box(e.run_for(&mut AutoAgent, 1000));
                    total += t.elapsed();
                }
                total
            })
        });
    }
    let writes = common::linear(1001, true);
    g.throughput(Throughput::Elements(1000));
    g.bench_function("linear_1000_writes", |b| {
        b.iter_custom(|iters| {
            timed(
                iters,
                || {
                    let mut e = Engine::new(&writes, WorkflowIdx(0), config()).unwrap();
                    e.persist_to(fresh(&writes)).unwrap();
                    e
                },
                |engine| {
                    black_box(engine.run_for(&mut AutoAgent, 1000));
                },
            )
        })
    });
    let rec = common::recursive();
    let steps = steps_of(&rec, &mut Recurse(1000));
    g.throughput(Throughput::Elements(steps));
    g.bench_function("recursive_1000", |b| {
        b.iter_custom(|iters| {
            timed(
                iters,
                || {
                    let mut e = Engine::new(&rec, WorkflowIdx(0), config()).unwrap();
                    e.persist_to(fresh(&rec)).unwrap();
                    e
                },
                |engine| {
                    black_box(engine.run(&mut Recurse(1000)));
                },
            )
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&base);
}

criterion_group!(benches, in_memory, run_dir);
criterion_main!(benches);
