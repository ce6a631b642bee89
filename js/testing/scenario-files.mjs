// Scenario files (the tests/scenarios format): a cluster's trace written as one, and one read
// and run through a fresh coordinator of this package.

import { readFileSync, writeFileSync } from 'node:fs';
import { Coordinator } from '../node.mjs';
import { runScenario } from '../scenario.mjs';
import { clone } from './json.mjs';

/**
 * A trace (`[{input, output}]`, the output as text) as a scenario (`{name, description,
 * config, steps}`). `expect`: `'full'` (the whole output, the default), `'response'` (the
 * response only), `'none'`, or a function `(output, input, index) => expect | undefined`.
 */
export function traceToScenario(trace, { name, description, config, expect = 'full' }) {
  const steps = trace.map(({ input, output }, i) => {
    const step = { input: clone(input) };
    const parsed = JSON.parse(output);
    let e;
    if (typeof expect === 'function') e = expect(parsed, input, i);
    else if (expect === 'full') e = parsed;
    else if (expect === 'response') e = parsed.error ? parsed : { response: parsed.response };
    if (e !== undefined) step.expect = e;
    return step;
  });
  return { name, description, config: clone(config), steps };
}

/** Writes a scenario to `path` as JSON. */
export function saveScenario(path, scenario) {
  writeFileSync(path, `${JSON.stringify(scenario, null, 1)}\n`);
  return path;
}

/** Reads a scenario file. */
export function loadScenario(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Runs a scenario file (or object) through a fresh coordinator of this package. */
export function runScenarioFile(pathOrScenario) {
  const scenario = typeof pathOrScenario === 'string' ? loadScenario(pathOrScenario) : pathOrScenario;
  return runScenario(scenario, Coordinator);
}
