#!/usr/bin/env python3
"""`make bench-faces`' table: reads the faces' results (one JSON line per face: face, us,
heartbeats; the native face first), prints the Markdown table and writes it, with the commit,
the date and the load average, between the markers of DOC (docs/performance.md by default;
BENCH_FACES_DOC= leaves every file alone):

    <!-- bench-faces:begin -->
    ...replaced...
    <!-- bench-faces:end -->

    python3 scripts/bench-faces-table.py RESULTS.jsonl [DOC]
"""
import datetime
import json
import os
import subprocess
import sys

BEGIN = "<!-- bench-faces:begin -->"
END = "<!-- bench-faces:end -->"
ORDER = ["native", "Node, handle(object)", "Node, handle(string)", "Chromium, handle(object)",
         "Chromium, handle(string)", "wasmtime-py", "wasmtime crate", "node:wasi"]


def table(rows, load):
    native = rows[0]["us"]
    rows = sorted(rows, key=lambda r: next((i for i, o in enumerate(ORDER) if r["face"].startswith(o)), len(ORDER)))
    lines = [
        f"steady heartbeat, 1,000-member stable group, {rows[0]['heartbeats']:,} heartbeats a pass, best of 5 passes,"
        f" CPU time where the host tells it (wall clock in Chromium) (load average {load:.1f})",
        "",
        "| face | µs per heartbeat | ratio to native |",
        "|---|---:|---:|",
    ]
    lines += [f"| {r['face']} | {r['us']:.1f} | {r['us'] / native:.2f}x |" for r in rows]
    return "\n".join(lines)


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True).stdout.strip()


def commit():
    """The checked-out commit, marked when the tree differs from it (the doc itself aside)."""
    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/performance.md")
    return f"{head}, with uncommitted changes" if changed else head


def rewrite(doc, block):
    """Replaces what lies between the markers of `doc` with `block`; fails without both markers."""
    text = open(doc, encoding="utf-8").read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit(f"bench-faces: {doc} has no {BEGIN} ... {END} to write the table between")
    text = text[: start + len(BEGIN)] + "\n" + block + "\n" + text[end:]
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    results = sys.argv[1]
    doc = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("BENCH_FACES_DOC", "docs/performance.md")
    rows = [json.loads(line) for line in open(results) if line.strip()]
    body = table(rows, os.getloadavg()[0])
    print(body)
    if doc:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        rewrite(doc, f"Latest run, at `{commit()}` on {date} (written by `make bench-faces`):\n\n{body}")
        print(f"\nbench-faces: the table is in {doc}", file=sys.stderr)


if __name__ == "__main__":
    main()
