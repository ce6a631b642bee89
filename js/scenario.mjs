// Scenario files (tests/scenarios/*.json): run them through any binding and compare.

/** Why `actual` does not contain `expected` (DESIGN 6 subset rule), or null. */
export function mismatch(expected, actual, path = '') {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    }
    for (const [k, v] of Object.entries(expected)) {
      if (!(k in actual)) return `${path}.${k}: missing (expected ${JSON.stringify(v)})`;
      const m = mismatch(v, actual[k], `${path}.${k}`);
      if (m) return m;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${JSON.stringify(actual)}`;
    if (expected.length !== actual.length) {
      return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const m = mismatch(expected[i], actual[i], `${path}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  return expected === actual ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/**
 * Runs a scenario with `handle(config) -> (inputText) => outputText`; returns the output lines
 * and the first failed expectation, if any.
 */
export function runScenario(scenario, makeHandler) {
  const handle = makeHandler(scenario.config ?? null);
  const outputs = [];
  let failure = null;
  scenario.steps.forEach((step, i) => {
    const text = handle(JSON.stringify(step.input));
    outputs.push(text);
    if (failure === null && step.expect !== undefined) {
      const m = mismatch(step.expect, JSON.parse(text));
      if (m) failure = `step ${i}: ${m}`;
    }
  });
  return { outputs, failure };
}
