import { REGISTRY_CONSTANTS } from './registry-constants.js';
let loading;
/** The shared engine; the first call imports mathjs. */
export function loadMathEngine() {
    return (loading ??= import('mathjs').then((m) => createMathEngine(m.create(m.all))));
}
function createMathEngine(math) {
    const numericConstants = {};
    const unitConstants = {};
    for (const [k, v] of Object.entries(REGISTRY_CONSTANTS)) {
        if (typeof v === 'number') {
            numericConstants[k] = v;
            unitConstants[k] = v;
        }
        else {
            const u = math.unit(v);
            numericConstants[k] = u.toSI().toNumber();
            unitConstants[k] = u;
        }
    }
    const affines = new Map();
    const affine = (unit) => {
        let found = affines.get(unit);
        if (!found) {
            const zero = unit ? math.unit(0, unit).toSI().toNumber() : 0;
            const one = unit ? math.unit(1, unit).toSI().toNumber() : 1;
            found = { offset: zero, scale: one - zero };
            affines.set(unit, found);
        }
        return found;
    };
    const toSi = (x, unit) => {
        const a = affine(unit);
        return a.offset === 0 ? x * a.scale : a.offset + x * a.scale;
    };
    const fromSi = (si, unit) => {
        const a = affine(unit);
        return a.offset === 0 ? si / a.scale : (si - a.offset) / a.scale;
    };
    const dimensionless = (unit) => unit === '' || math.unit(1, unit).equalBase(math.unit(1, 'm/m'));
    const sameDimension = (a, b) => {
        if (a === b)
            return true;
        if (a === '' || b === '')
            return dimensionless(a) && dimensionless(b);
        return math.unit(1, a).equalBase(math.unit(1, b));
    };
    const compiled = new Map();
    const compile = (op) => {
        const cached = compiled.get(op.id);
        if (cached)
            return cached;
        const code = math.compile(op.expression);
        const names = op.inputs.map((i) => i.name);
        const units = op.inputs.map((i) => i.unit);
        const out = op.output.unit;
        const result = {
            numeric(values) {
                const scope = { ...numericConstants };
                for (let i = 0; i < names.length; i++)
                    scope[names[i]] = toSi(values[i], units[i]);
                const v = code.evaluate(scope);
                if (typeof v === 'number')
                    return out ? fromSi(v, out) : v;
                if (math.isUnit(v))
                    return out ? v.toNumber(out) : v.toSI().toNumber();
                return v;
            },
            withUnits(values) {
                const scope = { ...unitConstants };
                for (let i = 0; i < names.length; i++)
                    scope[names[i]] = units[i] ? math.unit(values[i], units[i]) : values[i];
                return code.evaluate(scope);
            },
            unitResultToOutput(v) {
                if (typeof v === 'number')
                    return out === '' ? v : undefined;
                if (!math.isUnit(v))
                    return undefined;
                const u = v;
                if (out === '')
                    return u.equalBase(math.unit(1, 'm/m')) ? u.toSI().toNumber() : undefined;
                return u.equalBase(math.unit(1, out)) ? u.toNumber(out) : undefined;
            },
        };
        compiled.set(op.id, result);
        return result;
    };
    return { math, compile, toSi, fromSi, sameDimension };
}
//# sourceMappingURL=math-engine.js.map