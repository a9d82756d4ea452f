import type { MathNode } from 'mathjs';
import { errors } from '../../errors.js';
import { REGISTRY_CONSTANTS } from '../operators/registry-constants.js';

/** Pure numeric functions a proposed expression may call. */
const FUNCTIONS = new Set([
  'abs',
  'sign',
  'sqrt',
  'cbrt',
  'nthRoot',
  'exp',
  'expm1',
  'log',
  'log10',
  'log2',
  'log1p',
  'pow',
  'hypot',
  'sin',
  'cos',
  'tan',
  'sec',
  'csc',
  'cot',
  'asin',
  'acos',
  'atan',
  'atan2',
  'sinh',
  'cosh',
  'tanh',
  'asinh',
  'acosh',
  'atanh',
  'min',
  'max',
  'floor',
  'ceil',
  'round',
  'fix',
  'mod',
  'gamma',
  'factorial',
  'erf',
]);

const MATH_CONSTANTS = new Set(['pi', 'e', 'tau']);

/** Node types of plain arithmetic: no assignment, no objects or arrays, no property or index access, no blocks. */
const NODE_TYPES = new Set(['ConstantNode', 'SymbolNode', 'OperatorNode', 'ParenthesisNode', 'FunctionNode', 'ConditionalNode', 'RelationalNode']);

/**
 * Checks that a proposed expression is plain arithmetic over its declared inputs, the registry
 * constants (`c0`, `h_P`, ...) and `pi`/`e`/`tau`, calling only pure numeric functions. Proposals come
 * from any caller and their expressions run in the registry's shared mathjs instance, so anything
 * that could change that instance (`import`, `createUnit`, assignments) or reach beyond numbers
 * (objects, property access, strings) is refused before the expression is ever evaluated.
 * VALIDATION_FAILED names the first offending part.
 */
export function checkExpression(root: MathNode, inputs: readonly string[]): void {
  const allowed = new Set(inputs);
  const problems: string[] = [];
  root.traverse((node, path, parent) => {
    if (problems.length > 0) return;
    if (!NODE_TYPES.has(node.type)) {
      problems.push(
        `${node.type.replace(/Node$/, '').toLowerCase()} syntax ("${node.toString()}") is not allowed; use arithmetic, comparisons and functions only`,
      );
      return;
    }
    if (node.type === 'ConstantNode' && typeof (node as unknown as { value: unknown }).value !== 'number') {
      problems.push(`only numeric literals are allowed, not ${node.toString()}`);
      return;
    }
    if (node.type !== 'SymbolNode') return;
    const name = (node as unknown as { name: string }).name;
    if (parent?.type === 'FunctionNode' && path === 'fn') {
      if (!FUNCTIONS.has(name)) problems.push(`function "${name}" is not allowed; use one of ${[...FUNCTIONS].join(', ')}`);
      return;
    }
    if (!allowed.has(name) && !MATH_CONSTANTS.has(name) && !(name in REGISTRY_CONSTANTS)) {
      problems.push(`"${name}" is neither a declared input nor a registry constant; declare it in inputs`);
    }
  });
  if (problems.length > 0) {
    throw errors.validation(`Invalid expression: ${problems[0]}`, { issues: [{ path: 'expression', message: problems[0], code: 'invalid_expression' }] });
  }
}
