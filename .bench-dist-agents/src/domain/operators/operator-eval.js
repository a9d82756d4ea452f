import { CoreError, errors } from '../../errors.js';
/**
 * Evaluates one operator on inputs given in its declared units and returns the value in its declared
 * output unit. The value comes from the expression on SI numbers; the same expression is evaluated
 * again with mathjs units as a cross-check of the unit conversions (skipped for offset units such as
 * degC, whose products mathjs does not convert affinely).
 *
 * Missing or non-numeric inputs are VALIDATION_FAILED (400) naming the input; inputs outside the
 * declared bounds and results that are not finite real numbers are UNPROCESSABLE (422).
 */
export function evaluateOperator(engine, op, inputs) {
    const values = [];
    const used = {};
    for (const input of op.inputs) {
        const raw = inputs[input.name];
        const unit = input.unit ? ` ${input.unit}` : '';
        if (raw === undefined || raw === null) {
            throw errors.validation(`${op.id} (${op.name}) needs input "${input.name}"${input.unit ? ` in ${input.unit}` : ' (dimensionless)'}: ${input.description}`, { operator: op.id, input: input.name, unit: input.unit });
        }
        if (typeof raw !== 'number' || !Number.isFinite(raw)) {
            throw errors.validation(`Input "${input.name}" of ${op.id} must be a finite number${unit ? ` in${unit}` : ''}`, {
                operator: op.id,
                input: input.name,
            });
        }
        if (input.min !== undefined && raw < input.min) {
            throw errors.unprocessable(`Input "${input.name}" of ${op.id} is ${raw}${unit}, below its minimum ${input.min}${unit}`, {
                operator: op.id,
                input: input.name,
                min: input.min,
            });
        }
        if (input.max !== undefined && raw > input.max) {
            throw errors.unprocessable(`Input "${input.name}" of ${op.id} is ${raw}${unit}, above its maximum ${input.max}${unit}`, {
                operator: op.id,
                input: input.name,
                max: input.max,
            });
        }
        values.push(raw);
        used[input.name] = raw;
    }
    const compiled = engine.compile(op);
    let value;
    try {
        value = compiled.numeric(values);
    }
    catch (err) {
        if (err instanceof CoreError)
            throw err;
        throw errors.unprocessable(`${op.id} cannot be evaluated for these inputs: ${err.message}`, { operator: op.id });
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw errors.unprocessable(`${op.id} (${op.name}) gives no finite real value for these inputs (${describeValue(value)}); check they are inside the formula's domain`, { operator: op.id, inputs: used });
    }
    return {
        operator: op.id,
        value,
        unit: op.output.unit,
        equation: equationOf(op, used, value),
        inputs: used,
        cross_check: crossCheck(engine, op, values, value),
    };
}
function crossCheck(engine, op, values, value) {
    const units = [...op.inputs.map((i) => i.unit), op.output.unit];
    if (units.some((u) => u !== '' && engine.toSi(0, u) !== 0))
        return null;
    try {
        const compiled = engine.compile(op);
        const other = compiled.unitResultToOutput(compiled.withUnits(values));
        if (other === undefined || !Number.isFinite(other))
            return null;
        if (other === value)
            return 0;
        return Math.abs(other - value) / Math.max(Math.abs(other), Math.abs(value));
    }
    catch {
        return null;
    }
}
function describeValue(v) {
    if (typeof v === 'number')
        return String(v);
    if (v && typeof v === 'object' && 're' in v && 'im' in v)
        return 'a complex number';
    return typeof v;
}
/** `F = m·a; m = 2 kg, a = 9.81 m/s^2 → F = 19.62 N` */
export function equationOf(op, inputs, value) {
    const parts = op.inputs.map((i) => `${i.name} = ${fmt(inputs[i.name])}${i.unit ? ` ${i.unit}` : ''}`);
    return `${op.formula}; ${parts.join(', ')} → ${op.output.name} = ${fmt(value)}${op.output.unit ? ` ${op.output.unit}` : ''}`;
}
function fmt(n) {
    return String(Number(n.toPrecision(10)));
}
//# sourceMappingURL=operator-eval.js.map