//! Durable-run throughput (`bench/durable_chain.sh`): a chain of N step
//! nodes run by the `auto` agent, in memory (`mem N`) or with a run
//! directory (`dir N`), with the default snapshot cadence. Prints the
//! set-up time (building the program; with a run directory, writing
//! `program.json` and the first snapshot), the run's wall and CPU time
//! per step, the wall and CPU time per step of each tenth of the run (the last
//! one includes the final snapshot), and the run directory's sizes.
//! `KEEP=1` keeps the run directory and prints its path.
use serde_json::json;
use std::time::Instant;
use wf_ir::WorkflowIdx;
use wf_vm::{Engine, EngineConfig, RunDir, agents::AutoAgent};

/// The process's CPU time (user + system) in seconds: on a shared machine
/// it is steadier than wall time.
fn cpu() -> f64 {
    // SAFETY: `rusage` is plain data, zero is a valid value of it, and
    // `getrusage` only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args[1].as_str();
    let n: usize = args[2].parse().unwrap();
    let program = wf_test_support::vm::linear(n, args.get(3).is_some_and(|a| a == "writes"));
    let mut config = EngineConfig::default();
    config.limits.max_steps = u64::MAX / 2;
    // `SNAPSHOTS=off`: no periodic snapshot (the first and the final one
    // remain), to tell the snapshots' share of the cost from the records'.
    if std::env::var("SNAPSHOTS").is_ok_and(|v| v == "off") {
        config.snapshot_interval = std::time::Duration::ZERO;
        config.snapshot_log_bytes = 0;
    }
    let t0 = Instant::now();
    let mut e = Engine::new(&program, WorkflowIdx(0), config).unwrap();
    let dir = std::env::temp_dir().join(format!("store-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if mode == "dir" {
        e.persist_to(RunDir::create(&dir, &program, &json!({})).unwrap())
            .unwrap();
    }
    let t1 = Instant::now();
    let c1 = cpu();
    let mut steps;
    let mut lap = Instant::now();
    let mut laps = Vec::new();
    let mut cpu_lap = c1;
    let mut cpu_laps = Vec::new();
    let chunk = (n as u64 / 10).max(1);
    loop {
        let r = e.run_for(&mut AutoAgent, chunk);
        let now = Instant::now();
        laps.push(now - lap);
        lap = now;
        let c = cpu();
        cpu_laps.push(c - cpu_lap);
        cpu_lap = c;
        steps = e.steps();
        if r.is_final() {
            break;
        }
    }
    let t2 = Instant::now();
    let c2 = cpu();
    let snap = std::fs::metadata(dir.join("snapshot.json"))
        .map(|m| m.len())
        .unwrap_or(0);
    let log = std::fs::metadata(dir.join("log.jsonl"))
        .map(|m| m.len())
        .unwrap_or(0);
    let prog = std::fs::metadata(dir.join("program.json"))
        .map(|m| m.len())
        .unwrap_or(0);
    let per: Vec<String> = laps
        .iter()
        .map(|d| format!("{:.2}", d.as_secs_f64() * 1e6 / chunk as f64))
        .collect();
    let cpu_per: Vec<String> = cpu_laps
        .iter()
        .map(|c| format!("{:.2}", c * 1e6 / chunk as f64))
        .collect();
    println!(
        "{mode} n={n} steps={steps} setup={:.3}s run={:.3}s total={:.3}s per_step={:.3}us steps/s={:.0} laps_us=[{}] cpu_laps_us=[{}] snapshot={}B program={}B log={}B cpu_run={:.3}s cpu_per_step={:.3}us cpu_total={:.3}s",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        (t2 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64() * 1e6 / steps as f64,
        steps as f64 / (t2 - t1).as_secs_f64(),
        per.join(","),
        cpu_per.join(","),
        snap,
        prog,
        log,
        c2 - c1,
        (c2 - c1) * 1e6 / steps as f64,
        c2
    );
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("{}", dir.display());
    }
}
