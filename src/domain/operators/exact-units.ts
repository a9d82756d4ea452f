import type { MathJsInstance } from 'mathjs';

/**
 * Units mathjs 15 defines with a value that is not the exact SI / CODATA 2018 one, with the exact
 * value in SI base units. Each was checked against the SI brochure (9th ed.), CODATA 2018 and NIST
 * SP 811 (international foot, pound and gallon); units mathjs gets right are not listed.
 * Spelled once here so every mathjs instance of the service (operators, the checker script) agrees.
 */
export const EXACT_UNIT_VALUES: ReadonlyArray<{ names: readonly string[]; si: string; source: string; was: number }> = [
  // Exact since the 2019 SI redefinition: e = 1.602176634e-19 C, so 1 eV = 1.602176634e-19 J.
  { names: ['eV', 'electronvolt', 'electronvolts'], si: '1.602176634e-19 J', source: 'SI 2019, exact', was: 1.602176565e-19 },
  // The conventional millimetre of mercury: 13.5951 g/cm^3 x 9.80665 m/s^2 x 1 mm.
  { names: ['mmHg', 'mmhg'], si: '133.322387415 Pa', source: 'NIST SP 811 B.8', was: 133.322 },
  // The torr is defined as 1/760 of a standard atmosphere (101325 Pa).
  { names: ['torr'], si: '133.32236842105263 Pa', source: '101325/760 Pa, exact', was: 133.322 },
  // Force and pressure from the international pound (0.45359237 kg) and g_n (9.80665 m/s^2).
  { names: ['kip', 'kips'], si: '4448.2216152605 N', source: '1000 lbf, exact', was: 4448.2216 },
  { names: ['psi'], si: '6894.757293168361 Pa', source: 'lbf / in^2, exact', was: 6894.75729276459 },
  { names: ['hp'], si: '745.6998715822702 W', source: '550 ft lbf / s, exact', was: 745.6998715386 },
  // Lengths and areas of the international foot (0.3048 m): a rod is 16.5 ft, a chain 66 ft, an acre 43,560 ft^2.
  { names: ['rd'], si: '5.0292 m', source: '16.5 ft, exact (mathjs: rod 5.0292 but rd 5.02921)', was: 5.02921 },
  { names: ['sqrd'], si: '25.29285264 m^2', source: 'rod^2, exact', was: 25.29295 },
  { names: ['sqch'], si: '404.68564224 m^2', source: 'chain^2, exact', was: 404.6873 },
  { names: ['acre', 'acres'], si: '4046.8564224 m^2', source: '43,560 ft^2, exact', was: 4046.86 },
];

/**
 * Redefines the units of `EXACT_UNIT_VALUES` on a mathjs instance, in place: the value changes, the
 * unit keeps its name, base dimension and prefixes (so `keV` and `MeV` follow `eV`).
 */
export function applyExactUnits(math: MathJsInstance): void {
  const units = (math.Unit as unknown as { UNITS: Record<string, { value: unknown }> }).UNITS;
  for (const { names, si } of EXACT_UNIT_VALUES) {
    const value = math.unit(si).toSI().toNumber();
    for (const name of names) {
      const unit = units[name];
      if (!unit) throw new Error(`mathjs defines no unit ${name}`);
      unit.value = value;
    }
  }
}
