#!/usr/bin/env python3
"""Computes topology ids (docs/topology-id.md) with the Python standard library only.

Usage: topology_id.py [FILE...]   (standard input when no file is given)

Each input is JSON: a topology (the `topology` list of a StreamsGroupInitialize request), an
object with a `topology` field (such as the request itself), or a list of those. Prints one id
per topology, in input order.
"""

import hashlib
import json
import sys

VERSION = "sgc-topology-v1"


def u32(n):
    return n.to_bytes(4, "big")


def string(s):
    data = s.encode("utf-8")
    return u32(len(data)) + data


def str_set(items):
    items = sorted(set(items))
    return u32(len(items)) + b"".join(string(s) for s in items)


def info_key(info):
    rf = info.get("replicationFactor", 0)
    if rf == 0:
        rf = -1
    configs = sorted((c["key"], c["value"]) for c in info.get("topicConfigs", []))
    return (info["name"], info.get("partitions", 0), rf, configs)


def infos(items):
    keys = sorted(info_key(i) for i in items)
    out = u32(len(keys))
    for name, partitions, rf, configs in keys:
        out += string(name) + partitions.to_bytes(4, "big", signed=True)
        out += rf.to_bytes(2, "big", signed=True)
        out += u32(len(configs))
        for key, value in configs:
            out += string(key) + string(value)
    return out


def resolve(indices, names):
    # Indices outside their list (rejected by validation V9) are skipped; note that Python
    # would accept negative indices, so check the range explicitly.
    return [names[i] for i in indices if 0 <= i < len(names)]


def subtopology(s):
    sources = s.get("sourceTopics", [])
    regexes = s.get("sourceTopicRegex", [])
    repartition = s.get("repartitionSourceTopics", [])
    repartition_names = [t["name"] for t in repartition]
    groups = set()
    for g in s.get("copartitionGroups", []):
        topics = resolve(g.get("sourceTopics", []), sources)
        topics += resolve(g.get("repartitionSourceTopics", []), repartition_names)
        patterns = resolve(g.get("sourceTopicRegex", []), regexes)
        groups.add((tuple(sorted(set(topics))), tuple(sorted(set(patterns)))))
    out = string(s["subtopologyId"])
    out += str_set(sources)
    out += str_set(regexes)
    out += infos(s.get("stateChangelogTopics", []))
    out += str_set(s.get("repartitionSinkTopics", []))
    out += infos(repartition)
    out += u32(len(groups))
    for topics, patterns in sorted(groups):
        out += str_set(topics) + str_set(patterns)
    return out


def canonical_form(topology):
    encoded = sorted((s["subtopologyId"].encode("utf-8"), subtopology(s)) for s in topology)
    return string(VERSION) + u32(len(encoded)) + b"".join(e for _, e in encoded)


def topology_id(topology):
    return hashlib.sha256(canonical_form(topology)).hexdigest()


def topologies(doc):
    if isinstance(doc, dict):
        return [doc["topology"]]
    if all(isinstance(e, dict) and "subtopologyId" in e for e in doc):
        return [doc]
    return [t for e in doc for t in topologies(e)]


def main(paths):
    docs = []
    if paths:
        for path in paths:
            with open(path, encoding="utf-8") as f:
                docs.append(json.load(f))
    else:
        docs.append(json.load(sys.stdin))
    for doc in docs:
        for topology in topologies(doc):
            print(topology_id(topology))


if __name__ == "__main__":
    main(sys.argv[1:])
