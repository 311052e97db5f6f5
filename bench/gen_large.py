#!/usr/bin/env python3
"""Generates one large, valid `.wf` workflow for scaling benchmarks.

usage: gen_large.py EDGES [--nodes N] > big.wf

The graph is a DAG: a spine n0 -> n1 -> ... plus forward "skip" edges, so
the entry is n0 (the only node without incoming edges), the terminal is the
last node, and every node is reachable. Every node is declared, with a
label, a small body and a contract, so lexing and parsing see realistic
input, not just arrows.
"""
import argparse
import random
import sys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("edges", type=int)
    parser.add_argument("--nodes", type=int, default=None, help="default: edges / 2")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    nodes = args.nodes or max(2, args.edges // 2)
    rng = random.Random(args.seed)
    out = sys.stdout
    out.write(f"/// Generated: {nodes} nodes, {args.edges} edges.\n")
    out.write("workflow Big {\n  max_steps = 1000000\n")
    for i in range(nodes):
        if i % 3 == 0:
            out.write(f'  step n{i} "Node {i}" {{ timeout = 15m  writes k{i}: string }}\n')
        else:
            out.write(f"  step n{i}\n")
    written = 0
    for i in range(nodes - 1):
        out.write(f"  n{i} -> n{i + 1}\n")
        written += 1
    while written < args.edges:
        a = rng.randrange(0, nodes - 1)
        b = rng.randrange(a + 1, min(nodes, a + 50) if a + 1 < nodes else nodes)
        if b <= a:
            continue
        out.write(f"  n{a} -> n{b} when outcome == success\n")
        written += 1
    out.write("}\n")


if __name__ == "__main__":
    main()
