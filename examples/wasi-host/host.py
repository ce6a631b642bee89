#!/usr/bin/env python3
"""A broker-like WASI plugin host for streams-group-coordinator, on the `wasmtime` package.

It loads `sgc-reactor.wasm`, drives it through the `sgc_*` ABI (docs/wasi-abi.md), and, like a
broker hosting a `__consumer_offsets` partition, appends every record the coordinator emits to a
log file. Killed and restarted, it rebuilds the coordinator by replaying that log into a fresh
instance and carries on with the same state. `Plugin.call_frame` is a broker's way in for
Kafka's request frames as they arrive on a connection (ABI version 3).

    host.py run INPUTS [--config CFG] [--log LOG] [--restart-after N] [--abi 1|2]
                                                                        print one output per input
    host.py imports MODULE                                              print the module's imports
"""
import argparse
import ctypes
import json
import os
import sys

import wasmtime

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODULE = os.path.join(HERE, "..", "..", "pkg", "wasi", "sgc-reactor.wasm")

STATUS_OK, STATUS_INPUT_ERROR, STATUS_INTERNAL_ERROR = 0, 1, 2
# sgc_free_checked: freed; not a live allocation; a live allocation of another length.
FREE_OK, FREE_NOT_ALLOCATED, FREE_WRONG_LENGTH = 0, 1, 2
U64 = (1 << 64) - 1


ENGINE = wasmtime.Engine()
_MODULES = {}
# Counted execution: wasmtime's fuel, about one unit a wasm instruction, the same count on every
# run (what `bench.py --fuel` measures where a shared machine's clock cannot be trusted).
_FUEL_CONFIG = wasmtime.Config()
_FUEL_CONFIG.consume_fuel = True
FUEL_ENGINE = wasmtime.Engine(_FUEL_CONFIG)
FUEL = 1 << 62


def compiled(module_path, engine=ENGINE):
    """The module compiled once per process and engine (a restart instantiates it again, as a
    broker keeps its compiled plugin when it rebuilds a coordinator)."""
    key = (os.path.abspath(module_path), id(engine))
    if key not in _MODULES:
        _MODULES[key] = wasmtime.Module.from_file(engine, key[0])
    return _MODULES[key]


def unpack(result):
    """An sgc_call2 result (a signed i64 in Python) as (status, ptr, len)."""
    r = result & U64
    return r >> 62, r & 0xFFFFFFFF, (r >> 32) & 0x3FFFFFFF


class RawCall:
    """Calls one export through wasmtime's unchecked call, for exports of `i32` and `i64`
    parameters answering `i32` or `i64`. wasmtime-py's `Func.__call__` reads the function's type back from the engine and
    converts every value on each call, which costs several times the call itself; this checks
    the signature once. It uses wasmtime-py's ctypes bindings (`wasmtime._ffi`, pinned at
    50.0.1 by `make setup`); `RawCall.make` answers None where they differ, and the host then
    uses the public call."""

    def __init__(self, ffi, store, func, params):
        self.ffi = ffi
        self.store = store
        self.ctx = store._context()
        self.func = ctypes.byref(func._func)
        self.vals = (ffi.wasmtime_val_raw_t * max(len(params), 1))()
        self.n = len(self.vals)
        self.wide = [t == "i64" for t in params]
        self.trap = ctypes.POINTER(ffi.wasm_trap_t)()

    @staticmethod
    def make(store, func, params, result):
        try:
            from wasmtime import _ffi as ffi
            ty = func.type(store)
            if [str(t) for t in ty.params] != params or [str(t) for t in ty.results] != [result]:
                return None
            return RawCall(ffi, store, func, params)
        except (ImportError, AttributeError):
            return None

    def __call__(self, *args):
        vals = self.vals
        for i, v in enumerate(args):
            if self.wide[i]:
                vals[i].i64 = v
            else:
                vals[i].i32 = v
        error = self.ffi.wasmtime_func_call_unchecked(
            self.ctx, self.func, vals, self.n, ctypes.byref(self.trap))
        if self.trap:
            trap = wasmtime.Trap._from_ptr(self.trap)
            self.trap = ctypes.POINTER(self.ffi.wasm_trap_t)()
            raise trap
        if error:
            raise wasmtime.WasmtimeError._from_ptr(error)
        return vals[0].i64


class Plugin:
    """One instance of the reactor module; several coordinators (handles) may live in it.

    With ABI version 2 (the default when the module exports `sgc_abi_version_2`), a request is
    one export call: the input goes into one reusable buffer from `sgc_alloc` (grown with
    `sgc_realloc`), `sgc_call2` answers status, output address and length in one i64, and the
    output is read straight out of linear memory. `abi=1` drives the version 1 exports (alloc,
    call, output_ptr, output_len, free: five calls and two copies per request)."""

    def __init__(self, module_path=DEFAULT_MODULE, abi=None, fuel=False):
        self.engine = FUEL_ENGINE if fuel else ENGINE
        self.store = wasmtime.Store(self.engine)
        if fuel:
            self.store.set_fuel(FUEL)
        wasi = wasmtime.WasiConfig()
        wasi.inherit_stderr()
        self.store.set_wasi(wasi)
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        self.instance = linker.instantiate(self.store, compiled(module_path, self.engine))
        ex = self.instance.exports(self.store)
        self.memory = ex["memory"]
        names = ("sgc_alloc", "sgc_free", "sgc_create", "sgc_destroy", "sgc_call",
                 "sgc_output_ptr", "sgc_output_len", "sgc_abi_version_1",
                 "sgc_abi_version_2", "sgc_call2", "sgc_free_checked", "sgc_realloc",
                 "sgc_abi_version_3", "sgc_call_frame", "sgc_encode_request",
                 "sgc_decode_response")
        self.fn = {name: ex[name] for name in names if ex.get(name) is not None}
        ex["_initialize"](self.store)
        if self.fn["sgc_abi_version_1"](self.store) != 1:
            raise RuntimeError("unexpected ABI version")
        has_v2 = "sgc_abi_version_2" in self.fn and self.fn["sgc_abi_version_2"](self.store) == 2
        self.abi = abi if abi is not None else (2 if has_v2 else 1)
        if self.abi == 2 and not has_v2:
            raise RuntimeError("the module does not export ABI version 2")
        self.has_v3 = ("sgc_abi_version_3" in self.fn
                       and self.fn["sgc_abi_version_3"](self.store) == 3)
        self.buf, self.cap = 0, 0  # the reusable input buffer (version 2)
        self._refresh()
        self.raw_call2 = None
        if has_v2:
            raw = RawCall.make(self.store, self.fn["sgc_call2"], ["i32", "i32", "i32"], "i64")
            public = self.fn["sgc_call2"]
            self.raw_call2 = raw or (lambda h, p, n: public(self.store, h, p, n))
        self.raw_call_frame = None
        if self.has_v3:
            frame_params = ["i32", "i32", "i32", "i64", "i32", "i32"]
            raw = RawCall.make(self.store, self.fn["sgc_call_frame"], frame_params, "i64")
            public_frame = self.fn["sgc_call_frame"]
            self.raw_call_frame = raw or (lambda *a: public_frame(self.store, *a))

    def fuel_used(self):
        """Fuel spent so far (a plugin made with `fuel=True`)."""
        return FUEL - self.store.get_fuel()

    def _with_bytes(self, data, call):
        if not data:
            result = call(0, 0)
            self._refresh()
            return result
        ptr = self.fn["sgc_alloc"](self.store, len(data))
        if ptr == 0:
            raise MemoryError("sgc_alloc failed")
        try:
            self.memory.write(self.store, data, ptr)
            return call(ptr, len(data))
        finally:
            self.fn["sgc_free"](self.store, ptr, len(data))
            self._refresh()

    def _refresh(self):
        """Where linear memory lives in the host now and its size; it moves when memory grows,
        so this runs after every export call that may grow it."""
        self.base = ctypes.addressof(self.memory.data_ptr(self.store).contents)
        self.size = self.memory.data_len(self.store)

    def _put(self, data):
        """Writes `data` into the reusable input buffer, growing it (one sgc_realloc) when short."""
        n = len(data)
        if n > self.cap:
            cap = max(n, 2 * self.cap, 4096)
            ptr = self.fn["sgc_realloc"](self.store, self.buf, self.cap, cap) & 0xFFFFFFFF
            if ptr == 0:
                raise MemoryError("sgc_realloc failed")
            self.buf, self.cap = ptr, cap
            self._refresh()
        if n:
            ctypes.memmove(self.base + self.buf, data, n)
        return self.buf, n

    def read(self, ptr, length):
        """A copy of `length` bytes of linear memory at `ptr`, bounds-checked (after
        `_refresh`)."""
        if ptr + length > self.size:
            raise RuntimeError(f"[{ptr}, +{length}) lies outside linear memory")
        return ctypes.string_at(self.base + ptr, length)

    def output(self):
        ptr = self.fn["sgc_output_ptr"](self.store) & 0xFFFFFFFF
        length = self.fn["sgc_output_len"](self.store) & 0xFFFFFFFF
        return bytes(self.memory.read(self.store, ptr, ptr + length)).decode("utf-8")

    def create(self, config=None):
        data = json.dumps(config).encode() if config is not None else b""
        handle = self._with_bytes(data, lambda p, n: self.fn["sgc_create"](self.store, p, n))
        if handle == 0:
            raise ValueError(self.output())
        return handle

    def destroy(self, handle):
        self.fn["sgc_destroy"](self.store, handle)

    def call2_raw(self, handle, ptr, length):
        """One sgc_call2 as (status, output text), with whatever pointer and length."""
        status, out_ptr, out_len = unpack(self.raw_call2(handle, ptr, length))
        self._refresh()
        return status, self.read(out_ptr, out_len).decode("utf-8")

    def _answer(self, result):
        """A version 2 or 3 answer: (status, a copy of the output bytes)."""
        status, out_ptr, out_len = unpack(result)
        self._refresh()
        return status, self.read(out_ptr, out_len)

    def call_frame(self, handle, frame, now_ms, client_host=""):
        """Version 3: one Kafka request frame (header and body, without the 4-byte size) at
        `now_ms` from `client_host`, with one `sgc_call_frame`. Status 0 answers
        `(0, response, fields)`: the response frame with its 4-byte size before it (the bytes
        to write to the connection) and the output's other fields (records, topicsToCreate,
        explain, nextDeadlineMs); any other status `(status, None, {"error": ...})`."""
        if not self.has_v3:
            raise RuntimeError("the module does not export ABI version 3")
        host = client_host.encode("utf-8")
        ptr, _ = self._put(bytes(frame) + host)
        status, out = self._answer(self.raw_call_frame(
            handle, ptr, len(frame), now_ms, ptr + len(frame), len(host)))
        if status != STATUS_OK:
            return status, None, json.loads(out)
        size = int.from_bytes(out[:4], "big", signed=True)
        return status, out[:4 + size], json.loads(out[4 + size:])

    def encode_request(self, handle, inp, api_version, correlation_id):
        """Version 3: the request frame of a JSON input (text or a dict): `(0, frame)`, or
        `(status, {"error": ...})`."""
        text = inp if isinstance(inp, str) else json.dumps(inp)
        ptr, n = self._put(text.encode("utf-8"))
        status, out = self._answer(self.fn["sgc_encode_request"](
            self.store, handle, ptr, n, api_version, correlation_id))
        return (status, out) if status == STATUS_OK else (status, json.loads(out))

    def decode_response(self, handle, api_key, api_version, frame):
        """Version 3: a response frame (without its size) read back: `(status, JSON)`, the JSON
        `{"correlationId", "response"}` on status 0."""
        ptr, n = self._put(bytes(frame))
        status, out = self._answer(self.fn["sgc_decode_response"](
            self.store, handle, api_key, api_version, ptr, n))
        return status, json.loads(out)

    def call(self, handle, text):
        data = text.encode("utf-8")
        if self.abi == 2:
            ptr, n = self._put(data)
            return self.call2_raw(handle, ptr, n)
        status = self._with_bytes(data, lambda p, n: self.fn["sgc_call"](self.store, handle, p, n))
        return status, self.output()


class BrokerPartition:
    """What a broker does for one `__consumer_offsets` partition: route requests to the
    coordinator, append its records to the log, rebuild from the log after a restart."""

    def __init__(self, config, log_path, module_path=DEFAULT_MODULE, abi=None):
        self.config, self.log_path, self.module_path, self.abi = config, log_path, module_path, abi
        self.topics = {}  # the last topic image the host reported, re-sent after a rebuild
        self.start()

    def start(self):
        self.plugin = Plugin(self.module_path, self.abi)
        self.handle = self.plugin.create(self.config)
        records = []
        if self.log_path and os.path.exists(self.log_path):
            with open(self.log_path) as f:
                records = [json.loads(line) for line in f if line.strip()]
        if records:
            now = max((r.get("_nowMs", 0) for r in records), default=0)
            clean = [{k: v for k, v in r.items() if k != "_nowMs"} for r in records]
            status, out = self.plugin.call(self.handle, json.dumps(
                {"nowMs": now, "type": "Replay", "records": clean}))
            if status != STATUS_OK:
                raise RuntimeError(f"replay failed: {out}")
        if self.topics:
            status, out = self.plugin.call(self.handle, json.dumps(
                {"nowMs": 0, "type": "TopicMetadata", "topics": list(self.topics.values())}))
            if status != STATUS_OK:
                raise RuntimeError(f"topic image refused: {out}")

    def kill(self):
        """Loses everything in memory, as a crashed broker does."""
        self.plugin = None
        self.handle = None

    def handle_input(self, line):
        status, out = self.plugin.call(self.handle, line)
        if status == STATUS_INTERNAL_ERROR:
            raise RuntimeError(out)
        try:
            inp = json.loads(line)
        except ValueError:
            inp = {}
        if status == STATUS_OK and inp.get("type") == "TopicMetadata":
            for t in inp.get("topics") or []:
                self.topics[t["name"]] = t
            for name in inp.get("deletedTopics") or []:
                self.topics.pop(name, None)
        if status == STATUS_OK and self.log_path:
            output = json.loads(out)
            if output.get("records"):
                with open(self.log_path, "a") as f:
                    for r in output["records"]:
                        r = dict(r)
                        r["_nowMs"] = inp.get("nowMs", 0)
                        f.write(json.dumps(r) + "\n")
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run")
    run.add_argument("inputs")
    run.add_argument("--config")
    run.add_argument("--log")
    run.add_argument("--module", default=DEFAULT_MODULE)
    run.add_argument("--restart-after", type=int, default=None)
    run.add_argument("--abi", type=int, choices=(1, 2), default=None)
    imp = sub.add_parser("imports")
    imp.add_argument("module")
    args = parser.parse_args()

    if args.cmd == "imports":
        engine = wasmtime.Engine()
        module = wasmtime.Module.from_file(engine, args.module)
        for i in module.imports:
            print(f"{i.module}.{i.name}")
        return 0

    config = None
    if args.config:
        with open(args.config) as f:
            config = json.load(f)
    if args.log and os.path.exists(args.log):
        os.remove(args.log)
    partition = BrokerPartition(config, args.log, args.module, args.abi)
    with open(args.inputs) as f:
        lines = [line.strip() for line in f if line.strip()]
    for i, line in enumerate(lines):
        if args.restart_after is not None and i == args.restart_after:
            partition.kill()
            partition.start()
        sys.stdout.write(partition.handle_input(line) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
