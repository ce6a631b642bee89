#!/usr/bin/env python3
"""Turns a sequence of inputs into a scenario file whose expectations are Kafka's own answers.

usage: to-scenario.py --oracle DIR --release 4.2.0|4.3.0|4.4 --name NAME --description TEXT
                      --settings SETTINGS.json INPUTS.jsonl

Runs the inputs through KOracle (Kafka's GroupCoordinatorShard of that release, with the
broker's front-end) and writes tests/scenarios/NAME.json: each step expects Kafka's response,
records (with their producer where transactional), internal topics to create and next deadline.
Then `make update-scenarios` writes the committed outputs, and the scenario test holds sgc to
Kafka's answers from then on. Where Kafka's own order changes from one run of the JVM to the
next (an endpoint's topics), sgc's order of the same topics is taken.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def arbitrary_order(kafka, ours):
    """Kafka lists an endpoint's topics subtopology by subtopology in the order of a map whose
    iteration order is salted per JVM run: where ours holds the same topics, its order stands
    in for that run's."""
    k, o = kafka.get("response"), ours.get("response")
    if not (isinstance(k, dict) and isinstance(o, dict)):
        return
    ke, oe = k.get("partitionsByUserEndpoint"), o.get("partitionsByUserEndpoint")
    if not (isinstance(ke, list) and isinstance(oe, list) and len(ke) == len(oe)):
        return
    for a, b in zip(ke, oe):
        for field in ("activePartitions", "standbyPartitions"):
            x, y = a.get(field), b.get(field)
            canon = lambda ts: sorted(json.dumps(t, sort_keys=True) for t in ts)  # noqa: E731
            if isinstance(x, list) and isinstance(y, list) and canon(x) == canon(y):
                a[field] = y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--release", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--description", required=True)
    ap.add_argument("--settings", required=True)
    ap.add_argument("inputs")
    a = ap.parse_args()
    p = subprocess.run(
        [os.path.join(HERE, "koracle.sh"), a.oracle, a.release, a.inputs, "--config", a.settings, "--kafka-apis"],
        capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("to-scenario: Kafka's coordinator failed: " + p.stderr[-1500:])
    inputs = [json.loads(line) for line in open(a.inputs) if line.strip()]
    answers = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    with open(a.inputs) as f:
        ours = subprocess.run([os.path.join(ROOT, "target", "release", "sgc"), "--config", a.settings],
                              stdin=f, capture_output=True, text=True).stdout.splitlines()
    for kafka, mine in zip(answers, (json.loads(line) for line in ours)):
        arbitrary_order(kafka, mine)
    steps = []
    for given, kafka in zip(inputs, answers):
        if "unsupported" in kafka or "harnessError" in kafka:
            sys.exit("to-scenario: Kafka does not take input %s: %s" % (json.dumps(given), kafka))
        expect = {"response": kafka.get("response")}
        expect["records"] = [
            {k: r[k] for k in ("key", "value", "producerId", "producerEpoch") if k in r}
            for r in kafka.get("records", [])
        ]
        expect["topicsToCreate"] = kafka.get("topicsToCreate", [])
        expect["nextDeadlineMs"] = min((t["deadlineMs"] for t in kafka.get("timers", [])), default=None)
        steps.append({"input": given, "expect": expect})
    scenario = {
        "name": a.name,
        "description": a.description + " (Kafka's own answers, from its coordinator of "
        + a.release + ", are each step's expectation.)",
        "config": json.load(open(a.settings)),
        "steps": steps,
    }
    out = os.path.join(ROOT, "tests", "scenarios", a.name + ".json")
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps(scenario, indent=1, ensure_ascii=False) + "\n")
    print(out)


if __name__ == "__main__":
    main()
