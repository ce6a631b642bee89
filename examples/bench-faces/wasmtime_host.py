#!/usr/bin/env python3
"""`make bench-faces`, the Python face: sgc-reactor.wasm under wasmtime-py through ABI version 2
and, for Kafka's request frames, version 3's sgc_call_frame (examples/wasi-host/host.py). Replays setup.jsonl untimed, then times steady.jsonl five times on
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

    # The same heartbeats as Kafka's request frames, one sgc_call_frame each, on a fresh plugin.
    frames = split_frames(os.path.join(args.dir, "steady.frames"))
    expect_frames = split_frames(os.path.join(args.dir, "expect.frames"))
    with open(os.path.join(args.dir, "frames-now.txt"), encoding="utf-8") as f:
        now = int(f.read().strip())
    h = plugin.create(config)
    for line in setup:
        plugin.call(h, line)
    best = float("inf")
    for p in range(5):
        t0 = time.thread_time()
        for i, frame in enumerate(frames):
            status, response, _ = plugin.call_frame(h, frame, now)
            if p == 0 and (status != 0 or bytes(response[4:]) != expect_frames[i]):
                sys.exit(f"wasmtime-py: response frame {i} differs from native")
        best = min(best, time.thread_time() - t0)
    print(json.dumps({"face": "wasmtime-py, sgc_call_frame", "us": best * 1e6 / len(frames), "heartbeats": len(frames)}))


def split_frames(path):
    """Kafka's size-prefixed stream in the file at `path`, as its frames."""
    with open(path, "rb") as f:
        data = f.read()
    out, at = [], 0
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "big", signed=True)
        out.append(data[at + 4:at + 4 + size])
        at += 4 + size
    return out


if __name__ == "__main__":
    main()
