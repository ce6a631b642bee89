#!/usr/bin/env python3
"""WASI tests under the Python wasmtime host: every scenario through the reactor gives exactly
the native outputs; the import list is what the code needs; bad pointers are errors, not traps;
and a broker that is killed and restarted (replaying its log) ends in the same group state."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "wasi-host"))
import host  # noqa: E402

SGC = os.environ.get("SGC_BIN", os.path.join(ROOT, "target", "debug", "sgc"))
REACTOR = os.path.join(ROOT, "pkg", "wasi", "sgc-reactor.wasm")
COMMAND = os.path.join(ROOT, "pkg", "wasi", "sgc.wasm")

REACTOR_IMPORTS = {
    "wasi_snapshot_preview1.environ_get", "wasi_snapshot_preview1.environ_sizes_get",
    "wasi_snapshot_preview1.fd_write", "wasi_snapshot_preview1.proc_exit",
    "wasi_snapshot_preview1.random_get",
}
COMMAND_IMPORTS = REACTOR_IMPORTS | {
    "wasi_snapshot_preview1.args_get", "wasi_snapshot_preview1.args_sizes_get",
    "wasi_snapshot_preview1.fd_read", "wasi_snapshot_preview1.fd_close",
    "wasi_snapshot_preview1.fd_fdstat_get", "wasi_snapshot_preview1.fd_filestat_get",
    "wasi_snapshot_preview1.fd_prestat_get", "wasi_snapshot_preview1.fd_prestat_dir_name",
    "wasi_snapshot_preview1.path_open",
}


def native(lines, config):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(config if config is not None else {}, f)
        cfg = f.name
    try:
        out = subprocess.run([SGC, "--config", cfg], input="\n".join(lines) + "\n",
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.remove(cfg)
    return out.splitlines()


def scenarios():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "scenarios", "*.json"))):
        with open(path) as f:
            s = json.load(f)
        yield os.path.basename(path), s.get("config"), [json.dumps(step["input"]) for step in s["steps"]]


def test_scenarios_match_native():
    plugin = host.Plugin(REACTOR)
    count = 0
    for name, config, lines in scenarios():
        handle = plugin.create(config)
        outputs = [plugin.call(handle, line)[1] for line in lines]
        plugin.destroy(handle)
        expected = native(lines, config)
        assert outputs == expected, f"{name}: reactor output differs from native"
        count += 1
    assert count > 0, "no scenarios"


def test_imports_are_what_the_code_needs():
    import wasmtime
    engine = wasmtime.Engine()
    for path, allowed in ((REACTOR, REACTOR_IMPORTS), (COMMAND, COMMAND_IMPORTS)):
        imports = {f"{i.module}.{i.name}" for i in wasmtime.Module.from_file(engine, path).imports}
        assert imports == allowed, f"{os.path.basename(path)} imports {sorted(imports ^ allowed)} unexpectedly"


def test_exports_of_the_reactor():
    import wasmtime
    engine = wasmtime.Engine()
    exports = {e.name for e in wasmtime.Module.from_file(engine, REACTOR).exports}
    assert {"memory", "_initialize", "sgc_abi_version_1", "sgc_alloc", "sgc_free", "sgc_create",
            "sgc_destroy", "sgc_call", "sgc_output_ptr", "sgc_output_len"} <= exports
    assert "_start" not in exports


def test_bad_calls_are_errors_not_traps():
    plugin = host.Plugin(REACTOR)
    h = plugin.create(None)
    status = plugin.fn["sgc_call"](plugin.store, h, 0xFFFFFF00, 4096)
    assert status == host.STATUS_INTERNAL_ERROR
    assert json.loads(plugin.output())["error"]["code"] == "INVALID_INPUT"
    status, out = plugin.call(h + 41, '{"nowMs": 0, "type": "AdvanceTime"}')
    assert status == host.STATUS_INTERNAL_ERROR and "unknown coordinator handle" in out
    status, out = plugin.call(h, "{not json")
    assert status == host.STATUS_INPUT_ERROR and json.loads(out)["error"]["path"] == ""
    status, out = plugin.call(h, '{"nowMs": 0, "type": "AdvanceTime"}')
    assert status == host.STATUS_OK
    try:
        plugin.create({"group.streams.session.timeout.ms": -5})
        raise AssertionError("a bad config was accepted")
    except ValueError as e:
        assert "INVALID_CONFIG" in str(e)


def test_several_handles_are_independent():
    plugin = host.Plugin(REACTOR)
    a, b = plugin.create(None), plugin.create({"group.streams.heartbeat.interval.ms": 7000})
    assert a != b
    join = {"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {
        "groupId": "g", "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
        "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}
    _, out_a = plugin.call(a, json.dumps(join))
    _, out_b = plugin.call(b, json.dumps(join))
    assert json.loads(out_a)["response"]["heartbeatIntervalMs"] == 5000
    assert json.loads(out_b)["response"]["heartbeatIntervalMs"] == 7000
    describe = json.dumps({"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}})
    plugin.destroy(b)
    _, out = plugin.call(a, describe)
    assert json.loads(out)["response"]["groups"][0]["members"][0]["memberId"] == "m"


def final_state(lines, restart_after, log):
    if os.path.exists(log):
        os.remove(log)
    partition = host.BrokerPartition(None, log, REACTOR)
    outputs = []
    for i, line in enumerate(lines):
        if restart_after is not None and i == restart_after:
            partition.kill()
            partition.start()
        outputs.append(partition.handle_input(line))
    return json.loads(outputs[-1])["response"]["groups"]


def test_kill_restart_replay_keeps_the_state():
    with open(os.path.join(ROOT, "examples", "demo", "three-instances.jsonl")) as f:
        lines = [line.strip() for line in f if line.strip()]
    assert json.loads(lines[-1])["type"] == "StreamsGroupDescribe"
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "partition-0.log")
        baseline = final_state(lines, None, log)
        assert baseline[0]["groupState"] == "Stable"
        for restart_after in range(1, len(lines) - 1):
            assert final_state(lines, restart_after, log) == baseline, f"restart after line {restart_after}"


def main():
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_") and callable(v)]
    passed = failed = 0
    for t in tests:
        try:
            t()
            passed += 1
            print(f"ok - {t.__name__}")
        except Exception:  # noqa: BLE001 - report every failure and go on
            failed += 1
            print(f"FAILED - {t.__name__}")
            traceback.print_exc()
    print(f"wasi-python: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
