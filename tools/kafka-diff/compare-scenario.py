#!/usr/bin/env python3
"""Run one scenario file's inputs through sgc and through Kafka's coordinator (KOracle), and compare.

usage: compare-scenario.py ORACLE_DIR RELEASE SCENARIO.json [--kdiff] [--kafka-apis] [--keep DIR]

- sgc: target/release/sgc (SGC_BIN), with the scenario's config;
- Kafka: tools/kafka-diff/koracle.sh ORACLE_DIR RELEASE (KOracle over GroupCoordinatorShard);
- the two are compared by ORACLE_DIR/compare.py --pair, after folding a transactional record's
  producerId/producerEpoch into its value on both sides (compare.py keeps only key and value);
- --kdiff also runs ORACLE_DIR/oracle.sh (KDiff) and checks that KOracle answers exactly as KDiff
  on every input KDiff drives, while the sequence so far holds only inputs KDiff drives.
"""
import json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
SGC = os.environ.get('SGC_BIN', os.path.join(ROOT, 'target', 'release', 'sgc'))
KDIFF_INPUTS = {'StreamsGroupHeartbeat', 'StreamsGroupDescribe', 'DeleteGroups', 'TopicMetadata', 'AdvanceTime', 'Replay'}


def fold_producer(line):
    o = json.loads(line)
    for r in o.get('records', []) or []:
        if 'producerId' in r and r.get('value') is not None:
            r['value'] = dict(r['value'])
            r['value']['producer'] = '%s/%s' % (r.pop('producerId'), r.pop('producerEpoch', None))
        else:
            r.pop('producerId', None)
            r.pop('producerEpoch', None)
    return json.dumps(o)


def main():
    args = sys.argv[1:]
    flags = {a for a in args if a.startswith('--') and a != '--keep'}
    keep = None
    if '--keep' in args:
        keep = args[args.index('--keep') + 1]
        args = [a for i, a in enumerate(args) if a != '--keep' and (i == 0 or args[i - 1] != '--keep')]
    args = [a for a in args if not a.startswith('--')]
    oracle_dir, release, scenario = args[0], args[1], args[2]
    d = json.load(open(scenario))
    work = keep or tempfile.mkdtemp(prefix='koracle-')
    os.makedirs(work, exist_ok=True)
    inputs = os.path.join(work, 'inputs.jsonl')
    settings = os.path.join(work, 'settings.json')
    with open(inputs, 'w') as f:
        for s in d['steps']:
            f.write(json.dumps(s['input']) + '\n')
    with open(settings, 'w') as f:
        json.dump(d.get('config', {}), f)
    with open(inputs) as f:
        sgc = subprocess.run([SGC, '--config', settings], stdin=f, capture_output=True, text=True).stdout.splitlines()
    kcmd = [os.path.join(HERE, 'koracle.sh'), oracle_dir, release, inputs, '--config', settings]
    if '--kafka-apis' in flags:
        kcmd.append('--kafka-apis')
    k = subprocess.run(kcmd, capture_output=True, text=True)
    if k.returncode != 0:
        sys.exit('koracle failed: ' + k.stderr[-3000:])
    kafka = k.stdout.splitlines()
    ps, ks = os.path.join(work, 'sgc.out'), os.path.join(work, 'kafka.out')
    with open(ps, 'w') as f:
        f.write('\n'.join(fold_producer(l) for l in sgc) + '\n')
    with open(ks, 'w') as f:
        f.write('\n'.join(fold_producer(l) for l in kafka) + '\n')
    print('== %s (Kafka %s)%s' % (os.path.basename(scenario), release, '' if keep else ''))
    sys.stdout.flush()
    subprocess.run([sys.executable, os.path.join(oracle_dir, 'compare.py'), '--pair', inputs, ps, ks])
    if '--kdiff' in flags:
        kd = subprocess.run([os.path.join(oracle_dir, 'oracle.sh'), release, inputs, '--config', settings],
                            capture_output=True, text=True).stdout.splitlines()
        with open(os.path.join(work, 'kdiff.out'), 'w') as f:
            f.write('\n'.join(kd) + '\n')
        ins = [json.loads(l) for l in open(inputs) if l.strip()]
        same = checked = 0
        for i, (inp, a, b) in enumerate(zip(ins, kafka, kd)):
            if inp.get('type') not in KDIFF_INPUTS:
                break  # the state may differ from here on: KDiff does not drive this input
            checked += 1
            ja, jb = json.loads(a), json.loads(b)
            fields = ('response', 'records', 'topicsToCreate', 'nextDeadlineMs', 'timers', 'timersFired')
            diff = [f for f in fields if ja.get(f) != jb.get(f)]
            if diff:
                print('  KOracle/KDiff #%d %s differ in %s\n    koracle %s\n    kdiff   %s' % (
                    i, inp.get('type'), diff, json.dumps({f: ja.get(f) for f in diff})[:600],
                    json.dumps({f: jb.get(f) for f in diff})[:600]))
            else:
                same += 1
        print('  KOracle vs KDiff: %d of %d inputs identical (up to the first input KDiff does not drive)' % (same, checked))


if __name__ == '__main__':
    main()
