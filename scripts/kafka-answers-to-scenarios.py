#!/usr/bin/env python3
"""Turns measured Kafka answers into scenario files whose expectations are Kafka's.

Usage: scripts/kafka-answers-to-scenarios.py DIR PREFIX
  DIR holds rN.inputs.jsonl, rN.kafka.jsonl and rN.settings.json (one input per line, Kafka's
  answer per line, the settings); writes tests/scenarios/PREFIX-rN.json, each step expecting
  Kafka's response, records, topicsToCreate and nextDeadlineMs. Then
  `make update-scenarios` writes the committed outputs; the scenario test checks that ours
  contain Kafka's.
"""
import json
import os
import sys

KEYS = ("response", "records", "topicsToCreate", "nextDeadlineMs")


def main(directory, prefix):
    readme = open(os.path.join(directory, "README.md"), encoding="utf-8").read()
    rows = {}
    for line in readme.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 3 and cells[1].startswith("r"):
            for name in cells[1].split(","):
                rows[name.strip()] = cells[2]
    names = sorted(
        {f.split(".")[0] for f in os.listdir(directory) if f.endswith(".kafka.jsonl")},
        key=lambda n: int(n[1:]),
    )
    for name in names:
        base = os.path.join(directory, name)
        inputs = [json.loads(l) for l in open(base + ".inputs.jsonl") if l.strip()]
        answers = [json.loads(l) for l in open(base + ".kafka.jsonl") if l.strip()]
        settings = json.load(open(base + ".settings.json"))
        steps = []
        for given, kafka in zip(inputs, answers):
            expect = {k: kafka[k] for k in KEYS if k in kafka}
            expect["records"] = [
                {"key": r["key"], "value": r["value"]} for r in expect.get("records", [])
            ]
            steps.append({"input": given, "expect": expect})
        scenario = {
            "name": f"{settings['dialect']}: measured difference {name}, with Kafka's answers",
            "description": rows.get(name, "")
            + " (Kafka's own answers, measured from its coordinator, are each step's expectation.)",
            "config": settings,
            "steps": steps,
        }
        out = os.path.join("tests", "scenarios", f"{prefix}-{name}.json")
        with open(out, "w", encoding="utf-8") as f:
            f.write(json.dumps(scenario, indent=1, ensure_ascii=False) + "\n")
        print(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
