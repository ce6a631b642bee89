// Scenario files (tests/scenarios/*.json): run them through any binding and compare. No Node
// APIs here, so this module works in the browser too.

/** Why `actual` does not contain `expected` (DESIGN 6 subset rule), or null. */
export function mismatch(expected, actual, path = '') {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return `${path}: expected an object, got ${stringify(actual)}`;
    }
    for (const [k, v] of Object.entries(expected)) {
      if (!(k in actual)) return `${path}.${k}: missing (expected ${stringify(v)})`;
      const m = mismatch(v, actual[k], `${path}.${k}`);
      if (m) return m;
    }
    return null;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${stringify(actual)}`;
    if (expected.length !== actual.length) {
      return `${path}: expected ${expected.length} elements, got ${actual.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const m = mismatch(expected[i], actual[i], `${path}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  // Numbers compare by value whether they arrived as numbers or BigInts.
  if ((typeof expected === 'bigint' || typeof expected === 'number') &&
      (typeof actual === 'bigint' || typeof actual === 'number')) {
    // eslint-disable-next-line eqeqeq
    if (expected == actual) return null;
  }
  return expected === actual ? null : `${path}: expected ${stringify(expected)}, got ${stringify(actual)}`;
}

/**
 * JSON text of a value the way the coordinator writes it: keys in insertion order, no spaces,
 * BigInts as plain integers. `stringify(handle(object))` equals `handle(string)` byte for byte.
 */
export function stringify(value) {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    default:
      break;
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => stringify(v)).join(',')}]`;
  }
  const parts = [];
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(k)}:${stringify(v)}`);
  }
  return `{${parts.join(',')}}`;
}

/** A handler factory from a `Coordinator` class: each call gets a fresh coordinator. */
function handlerFactory(makeHandler) {
  if (typeof makeHandler === 'function' && makeHandler.prototype &&
      typeof makeHandler.prototype.handle === 'function') {
    const Klass = makeHandler;
    return (config) => {
      const c = new Klass(config);
      return (text) => c.handle(text);
    };
  }
  return makeHandler;
}

/**
 * Runs a scenario with `makeHandler(config) -> (inputText) => outputText`, or with a
 * `Coordinator` class; returns the output lines and the first failed expectation, if any.
 */
export function runScenario(scenario, makeHandler) {
  const handle = handlerFactory(makeHandler)(scenario.config ?? null);
  const outputs = [];
  let failure = null;
  scenario.steps.forEach((step, i) => {
    const text = handle(typeof step.input === 'string' ? step.input : JSON.stringify(step.input));
    outputs.push(text);
    if (failure === null && step.expect !== undefined) {
      const m = mismatch(step.expect, JSON.parse(text));
      if (m) failure = `step ${i}: ${m}`;
    }
  });
  return { outputs, failure };
}
