#!/usr/bin/env python3
"""Differential runs of `sgc` against Kafka's own coordinator, input by input.

usage: kafka-diff.py --oracle DIR [--release 4.2.0|4.3.0|4.4|all] [--seeds N] [--first-seed S]
                     [--steps N] [--offsets] [--out DIR] [--sgc PATH] [--show N] [--json]
       kafka-diff.py --replay DIR   (compare again the sequences a run kept, e.g. after a fix)

DIR of --oracle holds Kafka's coordinator as jars (`kafka-RELEASE-oracle.jar`, `oracle.sh`).
Each seed is one random client sequence (generate.py), written with `sgc` steering the
clients, then answered by Kafka's coordinator through our own driver (java/KOracle.java,
compiled against the release's jar, with the broker's front-end), which drives the offsets and
admin APIs too (--offsets adds them to the sequences); --kdiff answers with the oracle's own
driver instead (groups only). An input is identical when
the response, the records (in order), the internal topics to create and the next deadline are
all Kafka's. The report gives the share per release and per input type, and every difference
by class (its first differing field), with the seed and input that shows it first.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
ARBITRARY = ("explain",)


def fail(message):
    print("kafka-diff: " + message, file=sys.stderr)
    sys.exit(2)


def run_kafka(oracle, release, inputs_path, settings_path, kdiff):
    if kdiff:
        # The oracle's own driver (groups only; a DeleteGroups of one partition in request
        # order, where Kafka's service deletes them in a HashSet's order).
        cmd = [os.path.join(oracle, "oracle.sh"), release, inputs_path, "--config", settings_path]
    else:
        # Our driver, with the broker's front-end (KafkaApis): topic ids of lower versions'
        # commits filled in from the metadata as a broker does, and the fetch-all's ids; the
        # generator commits only partitions that exist, which the front-end would refuse.
        cmd = [os.path.join(HERE, "koracle.sh"), oracle, release, inputs_path, "--config", settings_path, "--kafka-apis"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail("Kafka's coordinator failed on %s: %s" % (inputs_path, p.stderr[-1500:]))
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def run_sgc(binary, inputs_path, settings_path):
    with open(inputs_path) as f:
        p = subprocess.run([binary, "--config", settings_path], stdin=f, capture_output=True, text=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def first_difference(a, b, path):
    """The path of the first leaf where a and b differ, with both values; None if equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return (path + "." + k, a.get(k, "<absent>"), b.get(k, "<absent>"))
            d = first_difference(a[k], b[k], path + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, "%s[%d]" % (path, i))
            if d:
                return d
        if len(a) != len(b):
            return (path + "[len]", len(a), len(b))
        return None
    if a != b or type(a) is not type(b):
        return (path, a, b)
    return None


def shape(path):
    return re.sub(r"\[\d+\]", "[]", path)


def short(x, n=160):
    s = json.dumps(x)
    return s if len(s) <= n else s[:n] + "..."


def normalise(out):
    """What Kafka itself answers in an order that changes from one run of the JVM to the next:
    an endpoint's partitions come subtopology by subtopology in the order of a map built by
    `Collectors.toUnmodifiableMap` (its iteration order is salted per JVM), so each endpoint's
    topic lists are compared in topic order."""
    r = out.get("response")
    if isinstance(r, dict) and isinstance(r.get("partitionsByUserEndpoint"), list):
        for e in r["partitionsByUserEndpoint"]:
            for k in ("activePartitions", "standbyPartitions"):
                if isinstance(e.get(k), list):
                    e[k].sort(key=lambda t: t.get("topic", ""))
    return out


def differences(ours, kafka):
    """(class, detail) of every way one output differs from Kafka's."""
    ours, kafka = normalise(ours), normalise(kafka)
    if "error" in ours and "response" not in ours:
        return [("sgc refused the input", ours["error"].get("message", "")[:160])]
    if "unsupported" in kafka:
        return [("Kafka's driver does not take the input", short(kafka["unsupported"]))]
    out = []
    d = first_difference(ours.get("response"), kafka.get("response"), "response")
    if d:
        out.append((shape(d[0]), "%s: sgc %s, Kafka %s" % (d[0], short(d[1]), short(d[2]))))
    # A transactional record carries its producer on both sides; explain-only fields do not.
    kept = ("key", "value", "producerId", "producerEpoch")
    mine = [{k: r[k] for k in kept if k in r} for r in ours.get("records", [])]
    theirs = [{k: r[k] for k in kept if k in r} for r in kafka.get("records", [])]
    if mine != theirs:
        canon = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
        if sorted(map(canon, mine)) == sorted(map(canon, theirs)):
            out.append(("records: order", "sgc %s, Kafka %s" % (order(mine), order(theirs))))
        else:
            keys = lambda rs: [canon(r["key"]) for r in rs]  # noqa: E731
            only_ours = [r for r in mine if canon(r["key"]) not in keys(theirs)]
            only_kafka = [r for r in theirs if canon(r["key"]) not in keys(mine)]
            for r in only_ours:
                out.append(("records: only sgc writes type %s" % r["key"]["type"], short(r)))
            for r in only_kafka:
                out.append(("records: only Kafka writes type %s" % r["key"]["type"], short(r)))
            if not only_ours and not only_kafka:
                theirs_by_key = {canon(r["key"]): r for r in theirs}
                for r in mine:
                    k = theirs_by_key.get(canon(r["key"]))
                    d = k and first_difference(r["value"], k["value"], "value")
                    if d:
                        out.append(("records: type %s %s" % (r["key"]["type"], shape(d[0])),
                                    "%s %s: sgc %s, Kafka %s" % (short(r["key"]["data"], 80), d[0], short(d[1]), short(d[2]))))
                if not out or not out[-1][0].startswith("records"):
                    out.append(("records: order or count", "sgc %s, Kafka %s" % (order(mine), order(theirs))))
    canon_topics = lambda ts: sorted(json.dumps(t, sort_keys=True) for t in ts or [])  # noqa: E731
    if canon_topics(ours.get("topicsToCreate")) != canon_topics(kafka.get("topicsToCreate")):
        out.append(("topicsToCreate", "sgc %s, Kafka %s" % (short(ours.get("topicsToCreate")), short(kafka.get("topicsToCreate")))))
    theirs_next = min((t["deadlineMs"] for t in kafka.get("timers", [])), default=None)
    if "timers" not in kafka:
        theirs_next = kafka.get("nextDeadlineMs")
    if ours.get("nextDeadlineMs") != theirs_next:
        due = sorted(kafka.get("timers", []), key=lambda t: t["deadlineMs"])[:3]
        out.append(("nextDeadlineMs", "sgc %s, Kafka %s (Kafka's timers %s)" % (ours.get("nextDeadlineMs"), theirs_next, short(due))))
    if "exception" in kafka and not out:
        pass  # Kafka threw and answered as its service does; identical answers are identical.
    return out


def order(records):
    return [(r["key"]["type"], r["key"]["data"].get("memberId")) + (() if r["value"] is not None else ("tombstone",)) for r in records]


def compare_sequence(inputs, ours, kafka):
    """Per input: (type, differences, after_first_record_divergence)."""
    rows = []
    diverged = False
    for given, o, k in zip(inputs, ours, kafka):
        diffs = differences(o, k)
        rows.append((given["type"], diffs, diverged))
        if any(c.startswith("records") for c, _ in diffs):
            diverged = True
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oracle", help="the folder of Kafka's coordinator jars and oracle.sh")
    ap.add_argument("--release", default="all")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--offsets", action="store_true", help="offsets and admin inputs too")
    ap.add_argument("--kdiff", action="store_true", help="answer with the oracle's own driver (groups only)")
    ap.add_argument("--out", default=os.path.join(ROOT, "target", "kafka-diff"))
    ap.add_argument("--sgc", default=os.path.join(ROOT, "target", "release", "sgc"))
    ap.add_argument("--show", type=int, default=3, help="examples shown per class")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--replay", help="compare the sequences kept in this folder again")
    a = ap.parse_args()
    if not a.oracle:
        fail("no oracle given: pass --oracle DIR, the folder of Kafka's coordinator jars "
             "(kafka-RELEASE-oracle.jar and oracle.sh); without it there is nothing to compare with")
    if not os.path.isfile(os.path.join(a.oracle, "oracle.sh")):
        fail("no oracle at %s (no oracle.sh there)" % a.oracle)
    if not os.access(a.sgc, os.X_OK):
        fail("no sgc at %s: cargo build --release -p sgc-cli" % a.sgc)
    releases = generate.RELEASES if a.release == "all" else (a.release,)
    report = {}
    for release in releases:
        totals = collections.Counter()
        by_type = collections.defaultdict(collections.Counter)
        classes = collections.defaultdict(list)
        folder = os.path.join(a.replay or a.out, release + ("-offsets" if a.offsets else ""))
        os.makedirs(folder, exist_ok=True)
        seeds = range(a.first_seed, a.first_seed + a.seeds)
        if a.replay:
            seeds = sorted(int(f.split(".")[0][1:]) for f in os.listdir(folder) if f.endswith(".inputs.jsonl"))
        for seed in seeds:
            base = os.path.join(folder, "s%d" % seed)
            settings_path = base + ".settings.json"
            inputs_path = base + ".inputs.jsonl"
            if not a.replay:
                rng = generate.random.Random(seed * 7919 + len(release))
                settings = generate.settings_for(release, rng)
                with open(settings_path, "w") as f:
                    json.dump(settings, f)
                gen = generate.Generator(release, seed, a.steps, a.sgc, settings_path, settings, a.offsets)
                inputs = gen.run()
                with open(inputs_path, "w") as f:
                    f.writelines(json.dumps(i) + "\n" for i in inputs)
            inputs = [json.loads(line) for line in open(inputs_path) if line.strip()]
            ours = run_sgc(a.sgc, inputs_path, settings_path)
            kafka = run_kafka(a.oracle, release, inputs_path, settings_path, a.kdiff)
            with open(base + ".kafka.jsonl", "w") as f:
                f.writelines(json.dumps(k) + "\n" for k in kafka)
            for i, (kind, diffs, after) in enumerate(compare_sequence(inputs, ours, kafka)):
                totals["inputs"] += 1
                by_type[kind]["inputs"] += 1
                if not diffs:
                    totals["identical"] += 1
                    by_type[kind]["identical"] += 1
                for cls, detail in diffs:
                    classes["%s %s" % (kind, cls)].append((seed, i, after, detail))
        report[release] = (totals, by_type, classes)
    if a.json:
        print(json.dumps({r: {"inputs": t["inputs"], "identical": t["identical"],
                              "byType": {k: dict(v) for k, v in bt.items()},
                              "classes": {c: len(v) for c, v in cl.items()}}
                          for r, (t, bt, cl) in report.items()}, indent=1))
        return
    for release, (totals, by_type, classes) in report.items():
        share = 100.0 * totals["identical"] / max(1, totals["inputs"])
        print("== Kafka %s: %d of %d inputs identical (%.1f%%)" % (release, totals["identical"], totals["inputs"], share))
        for kind, c in sorted(by_type.items(), key=lambda kv: -kv[1]["inputs"]):
            print("   %-40s %5d of %5d (%.1f%%)" % (kind, c["identical"], c["inputs"], 100.0 * c["identical"] / c["inputs"]))
        for cls, seen in sorted(classes.items(), key=lambda kv: -len(kv[1])):
            first = sum(1 for s in seen if not s[2])
            print("  %4d (%d before any record difference)  %s" % (len(seen), first, cls))
            for seed, i, after, detail in seen[: a.show]:
                print("        s%d #%d%s: %s" % (seed, i, " (after)" if after else "", detail))


if __name__ == "__main__":
    main()
