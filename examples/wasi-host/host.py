#!/usr/bin/env python3
"""A broker-like WASI plugin host for streams-group-coordinator, on the `wasmtime` package.

It loads `sgc-reactor.wasm`, drives it through the `sgc_*` ABI (docs/wasi-abi.md), and, like a
broker hosting a `__consumer_offsets` partition, appends every record the coordinator emits to a
log file. Killed and restarted, it rebuilds the coordinator by replaying that log into a fresh
instance and carries on with the same state.

    host.py run INPUTS [--config CFG] [--log LOG] [--restart-after N]   print one output per input
    host.py imports MODULE                                              print the module's imports
"""
import argparse
import json
import os
import sys

import wasmtime

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_MODULE = os.path.join(HERE, "..", "..", "pkg", "wasi", "sgc-reactor.wasm")

STATUS_OK, STATUS_INPUT_ERROR, STATUS_INTERNAL_ERROR = 0, 1, 2


class Plugin:
    """One instance of the reactor module; several coordinators (handles) may live in it."""

    def __init__(self, module_path=DEFAULT_MODULE):
        self.engine = wasmtime.Engine()
        self.store = wasmtime.Store(self.engine)
        wasi = wasmtime.WasiConfig()
        wasi.inherit_stderr()
        self.store.set_wasi(wasi)
        linker = wasmtime.Linker(self.engine)
        linker.define_wasi()
        module = wasmtime.Module.from_file(self.engine, module_path)
        self.instance = linker.instantiate(self.store, module)
        ex = self.instance.exports(self.store)
        self.memory = ex["memory"]
        self.fn = {name: ex[name] for name in (
            "sgc_alloc", "sgc_free", "sgc_create", "sgc_destroy", "sgc_call",
            "sgc_output_ptr", "sgc_output_len", "sgc_abi_version_1")}
        ex["_initialize"](self.store)
        if self.fn["sgc_abi_version_1"](self.store) != 1:
            raise RuntimeError("unexpected ABI version")

    def _with_bytes(self, data, call):
        if not data:
            return call(0, 0)
        ptr = self.fn["sgc_alloc"](self.store, len(data))
        if ptr == 0:
            raise MemoryError("sgc_alloc failed")
        try:
            self.memory.write(self.store, data, ptr)
            return call(ptr, len(data))
        finally:
            self.fn["sgc_free"](self.store, ptr, len(data))

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

    def call(self, handle, text):
        status = self._with_bytes(text.encode("utf-8"),
                                  lambda p, n: self.fn["sgc_call"](self.store, handle, p, n))
        return status, self.output()


class BrokerPartition:
    """What a broker does for one `__consumer_offsets` partition: route requests to the
    coordinator, append its records to the log, rebuild from the log after a restart."""

    def __init__(self, config, log_path, module_path=DEFAULT_MODULE):
        self.config, self.log_path, self.module_path = config, log_path, module_path
        self.topics = {}  # the last topic image the host reported, re-sent after a rebuild
        self.start()

    def start(self):
        self.plugin = Plugin(self.module_path)
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
    partition = BrokerPartition(config, args.log, args.module)
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
