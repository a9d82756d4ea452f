/** One input of an operator, as the data files declare it (`docs/helpers/operators-format.md`). */
export interface OperatorInput {
  name: string;
  /** mathjs unit syntax; empty for dimensionless (money, counts, ratios). */
  unit: string;
  description: string;
  example: number;
  min?: number;
  max?: number;
}

export interface OperatorOutput {
  name: string;
  unit: string;
  description: string;
}

/** A registry operator: a named equation with an expression mathjs can evaluate. */
export interface OperatorDef {
  id: string;
  name: string;
  description: string;
  formula: string;
  expression: string;
  inputs: OperatorInput[];
  output: OperatorOutput;
  domain: string[];
  tier: string;
  proof_required: boolean;
  /** Filled in by the loader from the file the operator came from. */
  category: string;
}

/** One data file, `resources/operators/<category>.json`. */
export interface CategoryFile {
  category: string;
  title: string;
  group: string;
  operators: Array<Omit<OperatorDef, 'category'>>;
}

/** What evaluating one operator produced, in the operator's declared output unit. */
export interface OperatorResult {
  operator: string;
  value: number;
  unit: string;
  /** The formula with the values substituted, for humans. */
  equation: string;
  /** Inputs as used, in their declared units. */
  inputs: Record<string, number>;
  /**
   * Relative difference between the SI-number evaluation and the unit-aware one (0 when they agree to
   * the bit); null when the unit-aware evaluation does not apply (offset units such as degC).
   */
  cross_check: number | null;
}
