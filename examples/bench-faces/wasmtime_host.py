#!/usr/bin/env python3
"""`make bench-faces`, the Python face: sgc-reactor.wasm under wasmtime-py through ABI version 2
(examples/wasi-host/host.py). Replays setup.jsonl untimed, then times steady.jsonl five times on
this thread's CPU time, checking the first pass against expect.jsonl; prints {"face", "us",
"heartbeats"}.

    .venv/bin/python examples/bench-faces/wasmtime_host.py DIR [--module sgc-reactor.wasm]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wasi-host"))
import host  # noqa: E402


def lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--module", default=host.DEFAULT_MODULE)
    args = parser.parse_args()
    with open(os.path.join(args.dir, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    setup, steady, expect = (lines(os.path.join(args.dir, n)) for n in ("setup.jsonl", "steady.jsonl", "expect.jsonl"))
    plugin = host.Plugin(args.module, abi=2)
    h = plugin.create(config)
    for line in setup:
        plugin.call(h, line)
    best = float("inf")
    for p in range(5):
        t0 = time.thread_time()
        if p == 0:
            for i, line in enumerate(steady):
                status, out = plugin.call(h, line)
                if status != 0 or out != expect[i]:
                    sys.exit(f"wasmtime-py: output {i} differs from native: {out[:200]}")
        else:
            for line in steady:
                plugin.call(h, line)
        best = min(best, time.thread_time() - t0)
    print(json.dumps({"face": "wasmtime-py, sgc_call2", "us": best * 1e6 / len(steady), "heartbeats": len(steady)}))


if __name__ == "__main__":
    main()
