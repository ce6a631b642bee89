// Scenario files (tests/scenarios/*.json): `{name, description, config, steps: [{input, expect}]}`.

import type { Coordinator, Input, Settings } from './index.js';

/** One step: an input and, optionally, the parts of the output that must match. */
export interface ScenarioStep {
  input: Input;
  /**
   * Matched as a subset (DESIGN 6): every key named must be present and match (objects
   * recursively; arrays element by element with equal length; scalars exactly).
   */
  expect?: unknown;
}

export interface Scenario {
  name: string;
  description?: string;
  config?: Settings | null;
  steps: ScenarioStep[];
}

/** Makes a handler for a config: `(inputText) => outputText`. */
export type HandlerFactory = (config: Settings | null) => (inputText: string) => string;

export interface ScenarioRun {
  /** The output text of every step, in order. */
  outputs: string[];
  /** The first failed expectation (`step <i>: <path>: ...`), or null. */
  failure: string | null;
}

/** Why `actual` does not contain `expected` (the subset rule), or null when it does. */
export declare function mismatch(expected: unknown, actual: unknown, path?: string): string | null;

/**
 * JSON text the way the coordinator writes it (keys in insertion order, no spaces, BigInts as
 * plain integers): `stringify(c.handle(object))` equals `c.handle(JSON.stringify(object))`.
 */
export declare function stringify(value: unknown): string;

/** Runs a scenario through a handler factory or a `Coordinator` class. */
export declare function runScenario(
  scenario: Scenario,
  makeHandler: HandlerFactory | typeof Coordinator,
): ScenarioRun;
