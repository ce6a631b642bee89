#!/usr/bin/env python3
"""What a wasm module's code is made of, in the manner of `twiggy top`, with no tool to install.

    python3 scripts/wasm-sizes.py MODULE.wasm [TOP]
    python3 scripts/wasm-sizes.py --parts MODULE.wasm [TOP]

Reads the code section and the `name` section (cargo's module before wasm-bindgen and wasm-opt
has it: target/wasm32-unknown-unknown/wasm-size/sgc_wasm.wasm) and prints the section sizes,
the TOP (default 25) largest functions, and the code by crate and module path (the first two
or three parts of each legacy-mangled name; std's sort and btree code is monomorphised into
the callers' types, so it shows under `core::slice::sort` and `alloc::collections::btree`).

`--parts` reads the names wasm-bindgen writes for a module built with v0 symbol names
(`scripts/web-size.sh` builds one): `<crate[hash]::module::Type>::method::<generic args>`. Each
function counts for the first crate path its name holds: the core's top-level module (`wire`
by its sub-modules), a dependency, or std's module; and std's and the dependencies' generic
code is told again by the core's module whose types it was instantiated for.
"""
import collections
import re
import sys


def uleb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7F) << s
        s += 7
        if x < 0x80:
            return r, i


def read(path):
    data = open(path, "rb").read()
    i, imported, bodies, names, sections = 8, 0, [], {}, collections.Counter()
    while i < len(data):
        sid = data[i]
        n, i = uleb(data, i + 1)
        end = i + n
        if sid == 2:  # imports: functions are numbered after the imported ones
            count, j = uleb(data, i)
            for _ in range(count):
                for _ in range(2):
                    ln, j = uleb(data, j)
                    j += ln
                kind = data[j]
                j += 1
                if kind == 0:
                    _, j = uleb(data, j)
                    imported += 1
                elif kind in (1, 2):
                    j += kind == 1  # table: element type
                    flags = data[j]
                    _, j = uleb(data, j + 1)
                    if flags & 1:
                        _, j = uleb(data, j)
                elif kind == 3:
                    j += 2
        elif sid == 10:
            count, j = uleb(data, i)
            for _ in range(count):
                ln, k = uleb(data, j)
                bodies.append(ln + k - j)
                j = k + ln
        if sid == 0:
            ln, j = uleb(data, i)
            name = data[j : j + ln].decode()
            sections["custom " + name] += n
            j += ln
            while name == "name" and j < end:
                sub = data[j]
                sl, j = uleb(data, j + 1)
                if sub == 1:
                    count, k = uleb(data, j)
                    for _ in range(count):
                        idx, k = uleb(data, k)
                        ln, k = uleb(data, k)
                        names[idx] = data[k : k + ln].decode("utf8", "replace")
                        k += ln
                j += sl
        else:
            sections[{1: "type", 2: "import", 3: "function", 5: "memory", 7: "export",
                      10: "code", 11: "data"}.get(sid, f"section {sid}")] += n
        i = end
    return sections, [(size, names.get(k + imported, f"func[{k}]")) for k, size in enumerate(bodies)]


def path(name):
    """The first parts of a legacy-mangled name (`_ZN4core5slice4sort...` -> core, slice, sort)."""
    if not name.startswith("_ZN"):
        return [name]
    parts, j = [], 3
    while j < len(name) and name[j].isdigit():
        k = j
        while name[k].isdigit():
            k += 1
        ln = int(name[j:k])
        parts.append(name[k : k + ln])
        j = k + ln
    return parts


CORE = "streams_group_coordinator"
V0_PATH = re.compile(r"([a-z_][a-z0-9_]*)\[[0-9a-f]{16}\]((?:::[A-Za-z_][A-Za-z0-9_]*)*)")


def v0_paths(name):
    """The crate paths of a demangled v0 name, in order: [[crate, module, ...], ...]."""
    return [[m.group(1)] + [p for p in m.group(2).split("::") if p] for m in V0_PATH.finditer(name)]


def part(paths):
    """Where a function counts: the core's module (`wire::` and its sub-module), or the crate."""
    for p in paths:
        if p[0] == CORE and len(p) > 1:
            return "wire::" + p[2] if p[1] == "wire" and len(p) > 3 else p[1]
        if p[0] in ("core", "alloc", "std"):
            return "::".join(p[:3])
        if p[0] != CORE:
            return p[0]
    return "(no crate path: wasm-bindgen's export shims, with what they inlined)"


def parts(funcs, top):
    total = sum(s for s, _ in funcs)
    by, served = collections.Counter(), collections.Counter()
    for size, name in funcs:
        paths = v0_paths(name)
        where = part(paths)
        by[where] += size
        if paths and paths[0][0] != CORE:
            user = next((p[1] for p in paths if p[0] == CORE and len(p) > 1), None)
            if user:
                served[f"{where} <- {user}"] += size
    print(f"code: {total:,} bytes in {len(funcs):,} functions, by part:")
    for key, size in by.most_common(top):
        print(f"{size:9,} {size * 100 / total:5.1f}%  {key[:120]}")
    print("\nstd's and the dependencies' code, by the core's module it serves:")
    for key, size in served.most_common(top):
        print(f"{size:9,} {size * 100 / total:5.1f}%  {key[:120]}")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--parts":
        _, funcs = read(args[1])
        parts(funcs, int(args[2]) if len(args) > 2 else 40)
        return
    sections, funcs = read(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    total = sum(s for s, _ in funcs)
    print("sections: " + ", ".join(f"{k} {v:,}" for k, v in sections.most_common()))
    print(f"\ncode: {total:,} bytes in {len(funcs):,} functions; the largest:")
    for size, name in sorted(funcs, reverse=True)[:top]:
        print(f"{size:9,} {size * 100 / total:5.1f}%  {re.sub(r'17h[0-9a-f]{16}E$', '', name)[:120]}")
    by = collections.Counter()
    for size, name in funcs:
        p = path(name)
        depth = 3 if p[0] in ("core", "alloc", "std") else 2
        by["::".join(p[:depth]) if len(p) > 1 else "(other: generic impls, wasm-bindgen shims)"] += size
    print("\nby path:")
    for key, size in by.most_common(top):
        print(f"{size:9,} {size * 100 / total:5.1f}%  {key[:120]}")


if __name__ == "__main__":
    main()
