#!/usr/bin/env python3
"""Heartbeats per second under wasmtime for a 1,000-member stable group, through ABI version 1
(`sgc_call`: five export calls per request) and version 2 (`sgc_call2`: one), on one instance.

    .venv/bin/python examples/wasi-host/bench.py [--members 1000] [--rounds 5] [--abi 1|2] [--module M]
    .venv/bin/python examples/wasi-host/bench.py --fuel [--module M]...

With `--fuel`, each module given (default the one built) runs the same heartbeats with
wasmtime's fuel metering instead of a clock and prints the fuel (about one unit a wasm
instruction) a steady heartbeat costs, with its owned task lists and without: the same figures
on every run, to compare two builds on a shared machine.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--abi", type=int, choices=(1, 2), default=None, help="only this version")
    parser.add_argument("--module", action="append", default=None)
    parser.add_argument("--fuel", action="store_true", help="count fuel instead of time")
    args = parser.parse_args()
    modules = args.module or [host.DEFAULT_MODULE]
    if args.fuel:
        for module in modules:
            owned, plain = fuel(module, args.members)
            print(f"{os.path.basename(module)}: {owned:,.0f} fuel a steady heartbeat with its "
                  f"owned tasks, {plain:,.0f} without")
        return
    plugin = host.Plugin(modules[0], abi=2)
    h, members, now, build = stable_group(plugin, args.members)
    lines = []
    for _ in range(args.rounds):
        lines += heartbeats(members, now, owned=True)
        now += 5 * len(members)
    print(f"built a stable {args.members}-member group in {build:.1f} s")
    # The same heartbeats again and again: a steady member's heartbeat changes nothing, so
    # each version sees the same state. Both versions alternate to share machine noise.
    versions = [args.abi] if args.abi else [1, 2]
    best = {}
    for _ in range(3):
        for abi in versions:
            plugin.abi = abi
            t0 = time.perf_counter()
            for line in lines:
                status, _ = plugin.call(h, line)
                assert status == 0
            elapsed = time.perf_counter() - t0
            best[abi] = min(best.get(abi, elapsed), elapsed)
    for abi in versions:
        elapsed = best[abi]
        how = "sgc_call, 5 export calls" if abi == 1 else "sgc_call2, 1 export call"
        print(f"wasmtime-py ABI v{abi}: {len(lines) / elapsed:,.0f} heartbeats/s "
              f"({elapsed / len(lines) * 1e6:.1f} us each; {how} per request, best of 3)")


def heartbeats(members, now, owned):
    """Every member's steady heartbeat, 5 ms apart, with its owned task lists or without."""
    out = []
    for i, m in enumerate(members):
        request = {"groupId": "bench", "memberId": m["id"], "memberEpoch": m["epoch"]}
        if owned:
            request.update(activeTasks=m["a"], standbyTasks=m["s"], warmupTasks=[])
        out.append(json.dumps({"nowMs": now + 5 * i, "type": "StreamsGroupHeartbeat",
                               "request": request}))
    return out


def fuel(module, count):
    """Fuel a steady heartbeat costs in `module`: (with owned tasks, without)."""
    plugin = host.Plugin(module, abi=2, fuel=True)
    h, members, now, _ = stable_group(plugin, count)
    per = []
    for owned in (True, False):
        lines = heartbeats(members, now, owned)
        now += 5 * len(lines)
        before = plugin.fuel_used()
        for line in lines:
            status, _ = plugin.call(h, line)
            assert status == 0
        per.append((plugin.fuel_used() - before) / len(lines))
    return per


def stable_group(plugin, count):
    """A stable `count`-member group in `plugin`: its handle, members, the time and how long
    it took to build."""
    h = plugin.create({"group.streams.num.standby.replicas": 1})

    def call(obj):
        status, out = plugin.call(h, json.dumps(obj))
        assert status == 0, out
        return json.loads(out)

    call({"nowMs": 0, "type": "TopicMetadata", "topics": [
        {"name": "events", "partitions": 1000}, {"name": "accounts", "partitions": 500},
        {"name": "bench-store-changelog", "partitions": 500}]})
    call({"nowMs": 0, "type": "StreamsGroupInitialize", "request": {"groupId": "bench", "topologyId": "t", "topology": [
        {"subtopologyId": "0", "sourceTopics": ["events"]},
        {"subtopologyId": "1", "sourceTopics": ["accounts"], "stateChangelogTopics": [{"name": "bench-store-changelog"}]}]}})
    now = 1
    members = []
    t0 = time.perf_counter()
    for i in range(count):
        out = call({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
            "groupId": "bench", "memberId": f"m{i:05}", "memberEpoch": 0, "topologyId": "t",
            "processId": f"p{i // 10}", "rebalanceTimeoutMs": 600000,
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}})
        r = out["response"]
        members.append({"id": f"m{i:05}", "epoch": r["memberEpoch"], "a": r["activeTasks"], "s": r["standbyTasks"]})
        now += 1
    for _ in range(20):
        for m in members:
            out = call({"nowMs": now, "type": "StreamsGroupHeartbeat", "request": {
                "groupId": "bench", "memberId": m["id"], "memberEpoch": m["epoch"],
                "activeTasks": m["a"], "standbyTasks": m["s"], "warmupTasks": []}})
            r = out["response"]
            m["epoch"] = r["memberEpoch"]
            if r["activeTasks"] is not None:
                m["a"], m["s"] = r["activeTasks"], r["standbyTasks"]
            now += 5
        g = call({"nowMs": now, "type": "StreamsGroupDescribe", "request": {"groupIds": ["bench"]}})
        if g["response"]["groups"][0]["groupState"] == "Stable":
            break
    build = time.perf_counter() - t0
    assert g["response"]["groups"][0]["groupState"] == "Stable"
    return h, members, now, build


if __name__ == "__main__":
    main()
