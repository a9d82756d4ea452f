import type { z } from 'zod';
import type { allTools } from '../../tools/index.js';

/** Every action of the registry, each with its literal id and its output schema (`TypedActionDef`). */
type AnyAction = (typeof allTools)[number]['actions'][number];

/**
 * What a successful call of operation `id` answers: the output type of its own schema, read off the
 * tools themselves; `unknown` for an id no action declares with a literal (none today but a typo).
 */
export type OutputOf<Id extends string> = [Found<Id>] extends [never] ? unknown : Found<Id>;

type Found<Id extends string> = AnyAction extends infer A ? (A extends { id: Id; output: infer O extends z.ZodType } ? z.output<O> : never) : never;

/** The ids `callOp` types (every action's, when each declares its id as a literal). */
export type TypedOperationId = Extract<AnyAction['id'], string>;
