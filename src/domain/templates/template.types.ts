import type { Definition } from '../contracts/contract.types.js';

/**
 * A deploy parameter of a template. With `paths` it sets those members of the definition (e.g.
 * `transitions[0].trigger.every_ticks`); without, it is an input value kept in `definition.defaults`.
 * `default` is the value the shipped definition already holds.
 */
export interface TemplateParam {
  description: string;
  default: unknown;
  /** Unit of the value: a physical unit ("N", "kPa"), "ticks", "cron", "unix_s", "event" (a name), "count", "bits" or "" for a ratio. */
  unit?: string | undefined;
  paths?: string[] | undefined;
}

/** One step of a template's worked example: drive a transition, post an event, or fire a scheduled trigger now. */
export type WalkthroughStep =
  | { transition: string; input: Record<string, unknown>; expect: string }
  | { event: string; payload: Record<string, unknown>; expect: string }
  | { fire_now: true; expect: string };

/** A worked example that takes a fresh deployment to a terminal or steady state (the tests run every one). */
export interface Walkthrough {
  /** Deploy parameters the example uses, when the defaults would need too many steps. */
  params?: Record<string, unknown> | undefined;
  steps: WalkthroughStep[];
}

/** A curated template, one file `resources/templates/<id>.json`. */
export interface CuratedTemplate {
  id: string;
  title: string;
  /** Category id, e.g. "thermo-and-information". */
  category: string;
  description: string;
  /** What it is for, in short sentences. */
  uses: string[];
  /** Extra words that describe it, for search and `generate`. */
  keywords: string[];
  params: Record<string, TemplateParam>;
  definition: Definition;
  walkthrough: Walkthrough;
}

/** A category of `resources/templates/categories.json`, with its templates in catalogue order. */
export interface TemplateCategory {
  id: string;
  name: string;
  description: string;
  templates: string[];
}
