#!/usr/bin/env python3
"""Generates a large, realistic `.wf` project for throughput benchmarks.

usage: gen_project.py OUT_DIR [--mb 50] [--seed 7]

The project is many files of realistic size (about 200 to 400 lines), not one
giant workflow:

    OUT_DIR/wf.toml                 the project root
    OUT_DIR/lib/lib_NNNN.wf         shared library workflows (reviews)
    OUT_DIR/svc_NNN/flow_NNNN.wf    services: releases, deploy runbooks,
                                    code reviews

Every file has doc comments, block and line comments, attributes (strings,
text blocks with interpolation, durations, numbers, booleans, maps), `needs`
and `gives`, nodes of every kind (`step`, `human`, `tool`, `call`, `branch`,
`parallel`, `join`, `exit`) with `reads` and `writes`, calls with return maps
into imported files and guarded, labelled and weighted edges. Service files
import a library file and the previous file of their service, and call
workflows of both. Names are made unique per file, and the sizes, regions,
durations and prompts vary, so the project checks clean: `wfc check OUT_DIR`
reports no problems.
"""
import argparse
import os
import random

REVIEW = '''\
/// Reviews the change of a ticket and returns a decision: "ok" when the
/// change may ship, "changes" when it may not.
workflow Review@ {
  label = "Automated review @"
  needs ticket: string
  gives decision: string
  max_steps = %(steps)d

  /// Reads the change and the build log (optional: a caller that did not
  /// build still gets a review).
  step inspect "Inspect the change" {
    prompt = """
      Review the change for ${ticket} (%(topic)s).
      Summarise what changed, then rate the risk as "low" or "high".
      """
    model = "%(model)s"
    reads ticket, build.log?
    writes findings: list, risk: string
    timeout = %(t1)s
  }

  /// Routing only: risky changes get a second opinion.
  branch triage

  step second_opinion "Second reviewer for risky changes" {
    prompt = "Independently re-check the findings for ${ticket}; add anything they missed."
    model = "%(model2)s"
    reads findings
    writes second_findings: list
  }

  step decide "Decide" {
    prompt = """
      Answer "ok" if the change may ship, otherwise "changes".
      """
    reads findings, second_findings?
    writes decision: string
    goal_gate = true
  }

  exit done

  start -> inspect -> triage
  triage -> second_opinion  when risk == "high"
  triage -> decide          when risk != "high"
  second_opinion -> decide -> done
}
'''

RELEASE = '''\
/// Ships a ticket to %(envname)s, with an automated review (from %(libfile)s),
/// a local review and a human approval.
workflow Release@ {
  goal = "Ship $ticket to %(envname)s"
  needs ticket: string
  gives url: string
  max_steps = %(steps)d

  step plan "Plan the release" {
    prompt = """
      Plan how to ship ${ticket}. List risks.
      Keep the plan under %(words)d words.
      """
    model = "%(model)s"
    reads ticket
    writes plan: string
    timeout = %(t1)s
  }

  tool build {
    command = "cargo build --release -p %(crate)s"
    writes build.log: string
    retries = %(retries)d
    backoff = "standard"
  }

  // Sub-workflows; return maps copy keys back: parent <- child.
  call review = %(libreview)s {
    verdict <- decision
  }
  call second_review "Local review" = Review@ { local.verdict <- decision }

  human approve "Ship it?" { timeout = %(t2)s  default = "[R] Reject" }

  step deploy { reads plan, verdict, local.verdict  writes url: string  goal_gate = true }
  exit done
  exit rejected { writes url: string }

  start -> plan -> build
  build -> review      when outcome == success
  build -> rejected    when outcome == fail
  review -> second_review -> approve
  approve -> deploy    "[A] Approve"  when verdict == "ok" && local.verdict == "ok"
  approve -> rejected  "[R] Reject"
  deploy -> done
}
'''

DEPLOY_HEAD = '''\
/// Deploys one version of a service to one environment, migrating the
/// database first when needed and rolling back on request.
workflow DeployRunbook@ {
  entry = preflight            // explicit entry; no node is called `start`
  goal = "Deploy $service $version to $env"
  label = "Deploy runbook @"
  needs service: string, version: string, env: string
  gives deploy.status: string
  max_steps = %(steps)d

  /* ---------------------------------------------------------------
     1. Preflight and database migrations
     --------------------------------------------------------------- */

  /// Cluster access, image present, no deploy freeze.
  tool preflight "Preflight checks" {
    command = "./ops/preflight.sh --kubeconfig \\"${env}.kubeconfig\\" ${service} ${version} ${env}"
    timeout = %(t1)s
    retries = %(retries)d
    backoff = "standard"
    reads service, version, env
    writes preflight.log: string
  }

  tool count_migrations "Count pending migrations" {
    command = "./ops/migrations.sh --pending --json ${service}"
    timeout = %(t2)s
    writes migrations.count: int, migrations.plan: list
  }

  /// Routing only. When several guards hold, the highest `weight` wins.
  branch migration_route "How to migrate?"

  tool snapshot "Snapshot the database" {
    command = "./ops/db-snapshot.sh ${service} ${env}"
    timeout = 30m
    retries = 1
    writes snapshot.id: string
  }

  tool migrate "Apply migrations" {
    command = "./ops/migrations.sh --apply ${service}"
    timeout = 20m
    reads migrations.plan
    writes migrations.applied: int
  }

  /* ---------------------------------------------------------------
     2. Roll out to every region at once
     --------------------------------------------------------------- */

  /// Fan-out: every outgoing edge runs as its own branch.
  parallel rollout "Roll out to all regions" {
    max_parallel = %(nregions)d
    error_policy = "continue"
  }
'''

DEPLOY_REGION = '''\
  tool deploy_%(r)s "Deploy %(region)s" {
    command = "./ops/deploy.sh ${service} ${version} --region %(region)s"
    timeout = %(t)s
    retries = 2
    writes region.%(r)s: string
  }
'''

DEPLOY_TAIL = '''\
  /// Fan-in: waits for every region and merges their results.
  join regions_done "Collect the regions" {
    join_policy = "wait_all"
    merge = "collect"
    writes rollout.results: map, rollout.failed: int
  }

  tool smoke "Smoke tests" {
    command = "./ops/smoke.sh ${service} ${env}"
    timeout = %(t3)s
    retries = 2
    reads rollout.results
    writes smoke.report: string, smoke.failures: int
  }

  /* ---------------------------------------------------------------
     3. When something fails: a person decides
     --------------------------------------------------------------- */

  /// Reached from a failed migration, region or smoke test, so everything
  /// it shows is optional.
  human rollback_decision "The deployment failed. Roll back?" {
    prompt = """
      Deploying ${service} ${version} to ${env} failed.
      Check the smoke report and region results, then choose:
        roll back now, or keep the release running and investigate.
      """
    reads smoke.report?, rollout.results?, migrations.applied?
    timeout = 30m
    default = "[R] Roll back"     // nobody answered: the safe choice
  }

  tool rollback "Roll back the release" {
    command = "./ops/rollback.sh ${service} ${env}"
    timeout = 15m
    retries = 3
    writes rollback.log: string
  }

  /// Restore the database only if this run took a snapshot.
  branch restore_route

  tool restore_db "Restore the snapshot" {
    command = "./ops/db-restore.sh --latest ${service} ${env}"
    timeout = 45m
    reads snapshot.id?
  }

  step investigate "Open an incident" {
    prompt = "Open an incident for ${service} in ${env} and page %(owner)s."
    writes incident.id: string
  }

  exit deployed    { writes deploy.status: string }
  exit rolled_back { writes deploy.status: string }
  exit held        { reads incident.id  writes deploy.status: string }
  exit aborted     { reads preflight.log  writes deploy.status: string }

  // Preflight
  preflight -> count_migrations  when outcome == success
  preflight -> aborted           when outcome == fail

  // Migrations. When several guards hold, the highest weight wins.
  count_migrations -> migration_route
  migration_route -> snapshot   when migrations.count > %(mig)d && env in ["staging", "prod"]  { weight = 2 }
  migration_route -> migrate    when migrations.count > 0
  migration_route -> rollout    when migrations.count == 0
  snapshot -> migrate
  migrate -> rollout            when outcome == success
  migrate -> rollback_decision  when outcome != success

  // Fan-out and fan-in, one chain per region.
%(chains)s
  regions_done -> smoke              when rollout.failed == 0
  regions_done -> rollback_decision  when rollout.failed > 0
  smoke -> deployed           when outcome == success && smoke.failures == 0
  smoke -> rollback_decision  when outcome != success || smoke.failures > 0

  // The person's two choices; distinct accelerator keys.
  rollback_decision -> rollback     "[R] Roll back"
  rollback_decision -> investigate  "[K] Keep it running and investigate"

  rollback -> restore_route
  restore_route -> restore_db   when exists(snapshot.id)
  restore_route -> rolled_back  when !exists(snapshot.id)
  restore_db -> rolled_back
  investigate -> held
}
'''

CODE_REVIEW = '''\
/// Implement a task, test it, review it (with the previous service
/// file's review), and ask a maintainer to approve.
workflow CodeReview@ {
  goal = "Implement $task and get it approved"
  label = "Code review @"
  needs task: string, repo: string
  gives status: string
  max_steps = %(steps)d

  /// Writes the patch. `style_guide?` is optional.
  step implement "Implement the change" {
    prompt = """
      You are working in ${repo}.
      Implement: ${task}

      Keep the change minimal and add tests for new behaviour (%(topic)s).
      """
    model = "%(model)s"
    reasoning_effort = "high"
    reads task, repo, style_guide?
    writes patch: string, patch.summary: string, ticket: string
    timeout = %(t1)s
    retries = 1
  }

  /// Runs the whole suite.
  tool test "Run the test suite" {
    command = "cargo test --workspace --no-fail-fast -p %(crate)s"
    cwd = "${repo}"
    env = { RUST_BACKTRACE: "1", CARGO_TERM_COLOR: "never" }
    reads patch
    writes test.report: string, test.failed: int
    timeout = %(t2)s
    retries = 2           // flaky network fetches are retried,
    backoff = "standard"  // waiting longer each time
  }

  call precheck "Automated review" = %(prevreview)s { precheck.verdict <- decision }

  step review "LLM code review" {
    prompt = """
      Review this patch as a senior maintainer would.

      Summary: ${patch.summary}
      Test report:
      ${test.report}

      Reply with verdict "ok" or "changes" and a list of comments.
      """
    model = "%(model)s"
    reads patch, patch.summary, test.report, precheck.verdict
    writes review.verdict: string, review.comments: list
    timeout = 15m
  }

  /* The human gate: the labels of the outgoing edges are the choices. */
  human approve "Merge this change?" {
    prompt = "The reviewer's comments are attached. Merge ${patch.summary}?"
    reads review.comments
    timeout = %(t3)s
    default = "[R] Request changes"
  }

  tool merge "Merge and push" {
    command = "git merge --ff-only review/candidate && git push origin HEAD"
    cwd = "${repo}"
    timeout = 5m
    retries = 3
  }

  step write_feedback "Turn the decision into actionable feedback" {
    reads review.comments, test.report?
    writes feedback: string
  }

  exit merged           { writes status: string }
  exit changes_requested { reads feedback  writes status: string }
  exit tests_failed     { reads test.report  writes status: string }

  start -> implement -> test
  test -> precheck      when outcome == success && test.failed == 0
  test -> tests_failed  when outcome != success || test.failed > 0
  precheck -> review -> approve

  /// The two choices offered to the maintainer.
  approve -> merge   "[A] Approve"           when review.verdict == "ok"
  approve -> write_feedback "[R] Request changes"

  merge -> merged
  write_feedback -> changes_requested
}
'''

REGIONS = ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-south-1",
           "ap-northeast-1", "sa-east-1", "ca-central-1"]
MODELS = ["claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5"]
TOPICS = ["billing", "search", "auth", "payments", "inventory", "shipping",
          "notifications", "reporting", "onboarding", "analytics"]
OWNERS = ["the on-call engineer", "the service owner", "the platform team"]


def dur(rng: random.Random) -> str:
    return rng.choice([f"{rng.randint(1, 59)}m", f"{rng.randint(30, 900)}s",
                       f"{rng.randint(1, 8)}h", f"{rng.randint(500, 9000)}ms"])


def fill(template: str, tag: str, params: dict) -> str:
    return (template % params).replace("@", tag)


def common(rng: random.Random) -> dict:
    return {
        "steps": rng.randint(50, 900),
        "topic": rng.choice(TOPICS),
        "model": rng.choice(MODELS),
        "model2": rng.choice(MODELS),
        "t1": dur(rng), "t2": dur(rng), "t3": dur(rng),
        "retries": rng.randint(1, 4),
        "words": rng.randint(100, 900),
        "crate": rng.choice(TOPICS) + "-" + rng.choice(["api", "core", "worker"]),
        "owner": rng.choice(OWNERS),
        "mig": rng.randint(1, 9),
        "envname": rng.choice(["staging", "prod", "canary"]),
    }


def deploy(rng: random.Random, tag: str) -> str:
    p = common(rng)
    regions = rng.sample(REGIONS, rng.randint(2, 6))
    p["nregions"] = len(regions)
    out = fill(DEPLOY_HEAD, tag, p)
    for region in regions:
        r = region.replace("-", "_")
        out += DEPLOY_REGION % {"r": r, "region": region, "t": dur(rng)}
    p["chains"] = "".join(
        f"  rollout -> deploy_{r.replace('-', '_')} -> regions_done\n" for r in regions)
    return out + fill(DEPLOY_TAIL, tag, p)


def lib_file(rng: random.Random, k: int) -> str:
    head = f"// Library {k}: reviews shared by the services.\n\n"
    parts = [fill(REVIEW, f"_L{k}_{j}", common(rng)) for j in range(rng.randint(3, 5))]
    return head + "\n".join(parts)


def svc_file(rng: random.Random, i: int, lib: int, prev: int | None) -> str:
    tag = f"_{i}"
    libreview = f"Review_L{lib}_0"
    out = f"// Service file {i}.\nimport \"../lib/lib_{lib:04d}.wf\"\n"
    if prev is not None:
        out += f"import \"flow_{prev:04d}.wf\" as previous\n"
    out += "\n" + fill(REVIEW, tag, common(rng)) + "\n"
    p = common(rng)
    p["libfile"] = f"lib_{lib:04d}.wf"
    p["libreview"] = libreview
    out += fill(RELEASE, tag, p) + "\n"
    kinds = rng.choice([["deploy"], ["code"], ["deploy", "code"], ["code", "deploy"]])
    for kind in kinds:
        if kind == "deploy":
            out += deploy(rng, tag) + "\n"
        else:
            p = common(rng)
            p["prevreview"] = f"Review_{prev}" if prev is not None else libreview
            out += fill(CODE_REVIEW, tag, p) + "\n"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--files-per-service", type=int, default=20)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    target = int(args.mb * 1_000_000)
    os.makedirs(os.path.join(args.out_dir, "lib"), exist_ok=True)
    with open(os.path.join(args.out_dir, "wf.toml"), "w") as f:
        f.write("# Generated by bench/gen_project.py: the project root.\n[lints]\n")
    total = 0
    files = lines = 0
    libs = 0
    i = 0
    while total < target:
        # One library file for every ten service files.
        if i % 10 == 0:
            text = lib_file(rng, libs)
            path = os.path.join(args.out_dir, "lib", f"lib_{libs:04d}.wf")
            libs += 1
        else:
            svc = i // args.files_per_service
            prev = None if i % args.files_per_service in (0, 1) or (i - 1) % 10 == 0 else i - 1
            text = svc_file(rng, i, rng.randrange(libs), prev)
            d = os.path.join(args.out_dir, f"svc_{svc:03d}")
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, f"flow_{i:04d}.wf")
        with open(path, "w") as f:
            f.write(text)
        data = text.encode()
        total += len(data)
        lines += data.count(b"\n")
        files += 1
        i += 1
    print(f"{args.out_dir}: {files} files, {lines} lines, {total} bytes")


if __name__ == "__main__":
    main()
