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
import wasmtime  # noqa: E402

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
    # `sgc frames` serves Kafka's frames at the wall clock unless --now-ms fixes the time (frames
    # carry none); the command is a host, and the core still never reads a clock.
    "wasi_snapshot_preview1.clock_time_get",
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
    """Both ABI versions, on one instance each, give the native outputs byte for byte."""
    plugins = {abi: host.Plugin(REACTOR, abi) for abi in (1, 2)}
    count = 0
    for name, config, lines in scenarios():
        expected = native(lines, config)
        for abi, plugin in plugins.items():
            handle = plugin.create(config)
            outputs = [plugin.call(handle, line)[1] for line in lines]
            plugin.destroy(handle)
            assert outputs == expected, f"{name}: reactor output (ABI v{abi}) differs from native"
        count += 1
    assert count > 0, "no scenarios"


def test_imports_are_what_the_code_needs():
    engine = wasmtime.Engine()
    for path, allowed in ((REACTOR, REACTOR_IMPORTS), (COMMAND, COMMAND_IMPORTS)):
        imports = {f"{i.module}.{i.name}" for i in wasmtime.Module.from_file(engine, path).imports}
        assert imports == allowed, f"{os.path.basename(path)} imports {sorted(imports ^ allowed)} unexpectedly"


def test_exports_of_the_reactor():
    engine = wasmtime.Engine()
    exports = {e.name for e in wasmtime.Module.from_file(engine, REACTOR).exports}
    assert {"memory", "_initialize", "sgc_abi_version_1", "sgc_alloc", "sgc_free", "sgc_create",
            "sgc_destroy", "sgc_call", "sgc_output_ptr", "sgc_output_len",
            "sgc_abi_version_2", "sgc_call2", "sgc_free_checked", "sgc_realloc"} <= exports
    assert "_start" not in exports
    plugin = host.Plugin(REACTOR)
    assert plugin.abi == 2
    types = {e.name: e.type for e in wasmtime.Module.from_file(engine, REACTOR).exports}
    assert [str(t) for t in types["sgc_call2"].params] == ["i32", "i32", "i32"]
    assert [str(t) for t in types["sgc_call2"].results] == ["i64"]
    assert [str(t) for t in types["sgc_free"].results] == [], "v1's sgc_free keeps its signature"
    assert [str(t) for t in types["sgc_free_checked"].results] == ["i32"]
    assert {"sgc_abi_version_3", "sgc_call_frame", "sgc_encode_request",
            "sgc_decode_response"} <= exports
    assert [str(t) for t in types["sgc_call_frame"].params] == [
        "i32", "i32", "i32", "i64", "i32", "i32"]
    assert [str(t) for t in types["sgc_call_frame"].results] == ["i64"]
    assert plugin.has_v3
    assert {"sgc_abi_version_5", "sgc_call_frame_authorized"} <= exports
    assert [str(t) for t in types["sgc_call_frame_authorized"].params] == [
        "i32", "i32", "i32", "i64", "i32", "i32", "i32", "i32"]
    assert [str(t) for t in types["sgc_call_frame_authorized"].results] == ["i64"]


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


ADVANCE = '{"nowMs": 0, "type": "AdvanceTime"}'
JOIN = {"nowMs": 1, "type": "StreamsGroupHeartbeat", "request": {
    "groupId": "g", "memberId": "m", "memberEpoch": 0, "topologyId": "t", "processId": "p",
    "rebalanceTimeoutMs": 1000, "activeTasks": [], "standbyTasks": [], "warmupTasks": []}}
BAD_RANGES = [  # (ptr, len) that no sgc_alloc handed out
    (0, 4), (8, 16), (0xFFFFFF00, 4096), (0xFFFFFFFF, 1), (0xFFFFFFFF, 0xFFFFFFFF),
    (0x7FFFFFFF, 0x7FFFFFFF), (0xFFFF0000, 0x20000)]


def put(plugin, data):
    """A fresh sgc_alloc buffer holding `data`."""
    ptr = plugin.fn["sgc_alloc"](plugin.store, len(data)) & 0xFFFFFFFF
    assert ptr != 0
    plugin.memory.write(plugin.store, data, ptr)
    return ptr


def v1_output(plugin):
    return (plugin.fn["sgc_output_ptr"](plugin.store) & 0xFFFFFFFF,
            plugin.fn["sgc_output_len"](plugin.store) & 0xFFFFFFFF)


def describe_g(plugin, handle):
    status, out = plugin.call(handle, json.dumps(
        {"nowMs": 2, "type": "StreamsGroupDescribe", "request": {"groupIds": ["g"]}}))
    assert status == host.STATUS_OK, out
    return out


def test_every_bad_free_answers_a_status_and_changes_nothing():
    """Issue 16: sgc_free on the module's own output buffer corrupted the heap (a later call
    trapped in dlfree); double, interior and wrong-length frees only happened to survive."""
    plugin = host.Plugin(REACTOR, abi=1)
    control = host.Plugin(REACTOR, abi=1)
    h, hc = plugin.create(None), control.create(None)
    for p, handle in ((plugin, h), (control, hc)):
        assert p.call(handle, json.dumps(JOIN))[0] == host.STATUS_OK
    free_checked = plugin.fn["sgc_free_checked"]
    data = ADVANCE.encode()
    ptr = put(plugin, data)
    n = len(data)
    assert plugin.fn["sgc_call"](plugin.store, h, ptr, n) == host.STATUS_OK
    out_ptr, out_len = v1_output(plugin)
    out_before = plugin.output()
    status, v2_out = plugin.call2_raw(h, ptr, n)
    assert status == host.STATUS_OK
    r = host.unpack(plugin.raw_call2(h, ptr, n))
    plugin._refresh()
    v2_ptr, v2_len = r[1], r[2]
    cases = [
        ("own v1 output", out_ptr, out_len, host.FREE_NOT_ALLOCATED),
        ("own v1 output, other length", out_ptr, 1, host.FREE_NOT_ALLOCATED),
        ("own v2 output", v2_ptr, v2_len, host.FREE_NOT_ALLOCATED),
        ("interior", ptr + 1, n - 1, host.FREE_NOT_ALLOCATED),
        ("interior, same length", ptr + 4, n, host.FREE_NOT_ALLOCATED),
        ("too long", ptr, n + 1, host.FREE_WRONG_LENGTH),
        ("too short", ptr, n - 1, host.FREE_WRONG_LENGTH),
        ("length 0", ptr, 0, host.FREE_WRONG_LENGTH),
        ("null", 0, n, host.FREE_NOT_ALLOCATED),
        ("null, length 0", 0, 0, host.FREE_NOT_ALLOCATED),
    ] + [(f"never handed out {p:#x}+{ln:#x}", p, ln, host.FREE_NOT_ALLOCATED) for p, ln in BAD_RANGES]
    for name, p, ln, expected in cases:
        # v1's sgc_free answers nothing but must change nothing either.
        plugin.fn["sgc_free"](plugin.store, p, ln)
        assert free_checked(plugin.store, p, ln) == expected, name
    # Nothing changed: the outputs are where they were, the input buffer is live and intact.
    plugin._refresh()
    assert plugin.output() == out_before
    assert plugin.read(v2_ptr, v2_len).decode() == v2_out
    assert plugin.read(ptr, n) == data
    assert plugin.fn["sgc_call"](plugin.store, h, ptr, n) == host.STATUS_OK
    # The double free: the first frees, every later one answers FREE_NOT_ALLOCATED.
    assert free_checked(plugin.store, ptr, n) == host.FREE_OK
    for _ in range(3):
        plugin.fn["sgc_free"](plugin.store, ptr, n)
        assert free_checked(plugin.store, ptr, n) == host.FREE_NOT_ALLOCATED
    # A freed buffer is no longer an input.
    assert plugin.fn["sgc_call"](plugin.store, h, ptr, n) == host.STATUS_INTERNAL_ERROR
    # The heap is sound: many allocations, calls and frees later the plugin still answers
    # exactly as an instance that never saw a bad free.
    for i in range(200):
        line = json.dumps({"nowMs": 10 + i, "type": "AdvanceTime"})
        assert plugin.call(h, line) == control.call(hc, line)
    assert describe_g(plugin, h) == describe_g(control, hc)
    for abi in (1, 2):
        plugin.abi = abi
        for name, config, lines in list(scenarios())[:5]:
            handle = plugin.create(config)
            assert [plugin.call(handle, line)[1] for line in lines] == native(lines, config), name
            plugin.destroy(handle)


def test_realloc_refuses_what_it_did_not_hand_out():
    plugin = host.Plugin(REACTOR, abi=1)
    realloc, free_checked = plugin.fn["sgc_realloc"], plugin.fn["sgc_free_checked"]
    ptr = put(plugin, b"abcdef")
    h = plugin.create(None)
    plugin.call(h, ADVANCE)
    out_ptr, out_len = v1_output(plugin)
    for p, ln in [(ptr, 5), (ptr + 1, 5), (out_ptr, out_len)] + BAD_RANGES:
        assert realloc(plugin.store, p, ln, 64) == 0, (p, ln)
    assert realloc(plugin.store, ptr, 6, 0) == 0
    assert realloc(plugin.store, ptr, 6, 0xFFFFFFFF) == 0, "too large"
    assert bytes(plugin.memory.read(plugin.store, ptr, ptr + 6)) == b"abcdef"
    grown = realloc(plugin.store, ptr, 6, 100000) & 0xFFFFFFFF
    assert grown != 0
    assert bytes(plugin.memory.read(plugin.store, grown, grown + 6)) == b"abcdef"
    assert free_checked(plugin.store, ptr, 6) == host.FREE_NOT_ALLOCATED, "realloc freed the old one"
    assert free_checked(plugin.store, grown, 100000) == host.FREE_OK
    assert plugin.fn["sgc_alloc"](plugin.store, 0) == 0
    assert plugin.fn["sgc_alloc"](plugin.store, 0xFFFFFFFF) == 0
    assert plugin.fn["sgc_alloc"](plugin.store, 0x7FFFFFFF) == 0


def test_v2_bad_pointers_answer_a_status_and_never_disturb_another_handle():
    plugin = host.Plugin(REACTOR, abi=2)
    a, b = plugin.create(None), plugin.create({"group.streams.heartbeat.interval.ms": 7000})
    status, out_a = plugin.call(a, json.dumps(JOIN))
    assert status == host.STATUS_OK
    r_a = host.unpack(plugin.raw_call2(a, *plugin._put(json.dumps(JOIN).encode())))
    plugin._refresh()
    bytes_a = plugin.read(r_a[1], r_a[2])
    data = ADVANCE.encode()
    freed, live = put(plugin, data), put(plugin, data)
    assert plugin.fn["sgc_free_checked"](plugin.store, freed, len(data)) == host.FREE_OK
    bad = BAD_RANGES + [(freed, len(data)), (r_a[1], r_a[2]), (live, len(data) + 1),
                        (live + len(data), 1), (live - 1, 2)]
    for ptr, length in bad:
        for handle in (b, 0, 999, 0xFFFFFFFF):
            status, out = plugin.call2_raw(handle, ptr, length)
            assert status == host.STATUS_INTERNAL_ERROR, (handle, ptr, length, out)
            assert json.loads(out)["error"]["code"] == "INVALID_INPUT"
        # a's output and state stay a's.
        assert plugin.read(r_a[1], r_a[2]) == bytes_a
    status, out = plugin.call2_raw(0, live, len(data))
    assert status == host.STATUS_INTERNAL_ERROR and "unknown coordinator handle" in out
    status, out = plugin.call2_raw(b, live, 0)
    assert status == host.STATUS_INPUT_ERROR
    status, out = plugin.call(b, "{not json")
    assert status == host.STATUS_INPUT_ERROR and json.loads(out)["error"]["path"] == ""
    not_utf8 = put(plugin, b"\xff\xfe{}")
    assert plugin.call2_raw(b, not_utf8, 4)[0] == host.STATUS_INPUT_ERROR
    # b works, and its config is its own.
    status, out_b = plugin.call(b, json.dumps(JOIN))
    assert status == host.STATUS_OK
    assert json.loads(out_b)["response"]["heartbeatIntervalMs"] == 7000
    assert plugin.read(r_a[1], r_a[2]) == bytes_a, "a call on b moved a's output"
    assert json.loads(bytes_a)["response"]["heartbeatIntervalMs"] == 5000
    # v1 calls do not move v2 outputs either, and destroying b leaves a alone.
    assert plugin.fn["sgc_call"](plugin.store, b, live, len(data)) == host.STATUS_OK
    plugin.destroy(b)
    plugin.destroy(b)
    plugin._refresh()
    assert plugin.read(r_a[1], r_a[2]) == bytes_a
    assert plugin.call2_raw(b, live, len(data))[0] == host.STATUS_INTERNAL_ERROR
    assert json.loads(describe_g(plugin, a))["response"]["groups"][0]["members"][0]["memberId"] == "m"


def test_v2_inputs_grow_the_buffer_and_sub_ranges_work():
    plugin = host.Plugin(REACTOR, abi=2)
    h = plugin.create(None)
    big = json.dumps({"nowMs": 3, "type": "TopicMetadata", "topics": [
        {"name": f"topic-{i:05}-" + "x" * 200, "partitions": 3} for i in range(500)]})
    assert len(big) > 100000
    status, out = plugin.call(h, big)
    assert status == host.STATUS_OK, out
    assert plugin.cap >= len(big)
    padded = b"  [" + ADVANCE.encode() + b"] "
    ptr = put(plugin, padded)
    status, out = plugin.call2_raw(h, ptr + 3, len(ADVANCE))
    assert status == host.STATUS_OK and json.loads(out)["response"] is None


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


API_VERSIONS_V0 = bytes([0, 18, 0, 0, 0, 0, 0, 5, 0, 1, ord("c")])  # correlation id 5, client "c"
JOIN_INPUT = dict(JOIN, client={"clientId": "app-1", "clientHost": "/10.0.0.1"})


def test_v3_api_versions_through_a_frame():
    plugin = host.Plugin(REACTOR)
    h = plugin.create({"dialect": "kafka-4.2"})
    status, frame, fields = plugin.call_frame(h, API_VERSIONS_V0, 0)
    assert status == host.STATUS_OK, fields
    assert fields == {"records": [], "topicsToCreate": [], "explain": [], "nextDeadlineMs": None}
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    status, read = plugin.decode_response(h, 18, 0, frame[4:])
    assert status == host.STATUS_OK, read
    assert read["correlationId"] == 5 and read["response"]["errorCode"] == 0
    assert 88 in [k["apiKey"] for k in read["response"]["apiKeys"]]


def test_v3_a_join_built_by_encoding_answers_as_the_json_input():
    plugin = host.Plugin(REACTOR)
    h, control = plugin.create(None), plugin.create(None)
    status, request = plugin.encode_request(h, JOIN_INPUT, 0, 41)
    assert status == host.STATUS_OK, request
    status, frame, fields = plugin.call_frame(h, request, 1, "/10.0.0.1")
    assert status == host.STATUS_OK, fields
    expected = json.loads(plugin.call(control, json.dumps(JOIN_INPUT))[1])
    response = expected.pop("response")
    assert fields == expected
    assert "/10.0.0.1" in json.dumps(fields["records"])
    key = int.from_bytes(request[:2], "big")
    status, read = plugin.decode_response(h, key, 0, frame[4:])
    assert status == host.STATUS_OK, read
    assert read["correlationId"] == 41
    assert read["response"]["memberId"] == "m"
    assert read["response"]["memberEpoch"] == response["memberEpoch"]
    status, error = plugin.encode_request(h, ADVANCE, 0, 1)
    assert status == host.STATUS_INPUT_ERROR and error["error"]["path"] == "type"


def test_v3_a_bad_frame_is_status_1_and_changes_nothing():
    plugin = host.Plugin(REACTOR)
    h, control = plugin.create(None), plugin.create(None)
    _, request = plugin.encode_request(h, JOIN_INPUT, 0, 1)
    unknown_key = request[:1] + b"\0" + request[2:]
    for bad in (request[:5], request[:-2], unknown_key, b""):
        status, _, out = plugin.call_frame(h, bad, 1)
        assert status == host.STATUS_INPUT_ERROR, bad
        assert out["error"]["code"] == "INVALID_FRAME", out
    status, _, out = plugin.call_frame(h, request, -1)
    assert status == host.STATUS_INPUT_ERROR and out["error"]["path"] == "nowMs"
    call_frame = plugin.fn["sgc_call_frame"]
    for ptr, length in BAD_RANGES:
        status, _, _ = host.unpack(call_frame(plugin.store, h, ptr, length, 1, 0, 0))
        assert status == host.STATUS_INTERNAL_ERROR, (ptr, length)
    assert plugin.call_frame(h + 9, request, 1)[0] == host.STATUS_INTERNAL_ERROR
    status, _, fields = plugin.call_frame(h, request, 1, "/10.0.0.1")
    expected = json.loads(plugin.call(control, json.dumps(JOIN_INPUT))[1])
    expected.pop("response")
    assert fields == expected, "nothing changed"


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
