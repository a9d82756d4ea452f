import { TICK_MS } from '../../lib/clock.js';

/** A unit: its dimension and the factor (and offset) to that dimension's base unit. */
export interface UnitDef {
  dim: string;
  factor: number;
  offset?: number;
}

const TICK_S = TICK_MS / 1000;

/** Units by their exact spelling (grouped by dimension, one line per family: kept as written). */
// prettier-ignore
const EXACT: Record<string, UnitDef> = {
  N: { dim: 'force', factor: 1 }, kN: { dim: 'force', factor: 1e3 }, MN: { dim: 'force', factor: 1e6 },
  kg: { dim: 'mass', factor: 1 }, g: { dim: 'mass', factor: 1e-3 }, mg: { dim: 'mass', factor: 1e-6 }, t: { dim: 'mass', factor: 1e3 },
  m: { dim: 'length', factor: 1 }, km: { dim: 'length', factor: 1e3 }, cm: { dim: 'length', factor: 1e-2 }, mm: { dim: 'length', factor: 1e-3 },
  µm: { dim: 'length', factor: 1e-6 }, um: { dim: 'length', factor: 1e-6 }, nm: { dim: 'length', factor: 1e-9 },
  ns: { dim: 'time', factor: 1e-9 }, µs: { dim: 'time', factor: 1e-6 }, us: { dim: 'time', factor: 1e-6 }, ms: { dim: 'time', factor: 1e-3 },
  s: { dim: 'time', factor: 1 }, min: { dim: 'time', factor: 60 }, h: { dim: 'time', factor: 3600 }, d: { dim: 'time', factor: 86400 },
  ticks: { dim: 'time', factor: TICK_S },
  J: { dim: 'energy', factor: 1 }, kJ: { dim: 'energy', factor: 1e3 }, MJ: { dim: 'energy', factor: 1e6 }, GJ: { dim: 'energy', factor: 1e9 },
  mJ: { dim: 'energy', factor: 1e-3 }, µJ: { dim: 'energy', factor: 1e-6 }, uJ: { dim: 'energy', factor: 1e-6 }, nJ: { dim: 'energy', factor: 1e-9 },
  eV: { dim: 'energy', factor: 1.602176634e-19 }, Wh: { dim: 'energy', factor: 3600 }, kWh: { dim: 'energy', factor: 3.6e6 },
  Pa: { dim: 'pressure', factor: 1 }, kPa: { dim: 'pressure', factor: 1e3 }, MPa: { dim: 'pressure', factor: 1e6 }, bar: { dim: 'pressure', factor: 1e5 },
  mbar: { dim: 'pressure', factor: 100 }, atm: { dim: 'pressure', factor: 101325 }, psi: { dim: 'pressure', factor: 6894.757 },
  K: { dim: 'temperature', factor: 1 }, mK: { dim: 'temperature', factor: 1e-3 }, µK: { dim: 'temperature', factor: 1e-6 }, uK: { dim: 'temperature', factor: 1e-6 },
  '°C': { dim: 'temperature', factor: 1, offset: 273.15 }, degC: { dim: 'temperature', factor: 1, offset: 273.15 },
  W: { dim: 'power', factor: 1 }, kW: { dim: 'power', factor: 1e3 }, MW: { dim: 'power', factor: 1e6 }, mW: { dim: 'power', factor: 1e-3 },
  Hz: { dim: 'frequency', factor: 1 }, kHz: { dim: 'frequency', factor: 1e3 }, MHz: { dim: 'frequency', factor: 1e6 }, GHz: { dim: 'frequency', factor: 1e9 }, THz: { dim: 'frequency', factor: 1e12 },
  'm/s': { dim: 'speed', factor: 1 }, 'km/h': { dim: 'speed', factor: 1 / 3.6 }, kph: { dim: 'speed', factor: 1 / 3.6 }, mph: { dim: 'speed', factor: 0.44704 }, knots: { dim: 'speed', factor: 0.514444 },
  'm/s^2': { dim: 'acceleration', factor: 1 }, 'm/s2': { dim: 'acceleration', factor: 1 }, 'm/s²': { dim: 'acceleration', factor: 1 },
  deg: { dim: 'angle', factor: 1 }, '°': { dim: 'angle', factor: 1 }, rad: { dim: 'angle', factor: 180 / Math.PI },
  'rad/s': { dim: 'angular_speed', factor: 1 },
  ppm: { dim: 'mixing_ratio', factor: 1 }, ppb: { dim: 'mixing_ratio', factor: 1e-3 },
  tCO2: { dim: 'co2', factor: 1 }, tCO2e: { dim: 'co2', factor: 1 }, kgCO2: { dim: 'co2', factor: 1e-3 }, ktCO2: { dim: 'co2', factor: 1e3 },
  MtCO2: { dim: 'co2', factor: 1e6 }, GtCO2: { dim: 'co2', factor: 1e9 },
  bits: { dim: 'information', factor: 1 }, bit: { dim: 'information', factor: 1 }, byte: { dim: 'information', factor: 8 }, bytes: { dim: 'information', factor: 8 },
  '%': { dim: 'ratio', factor: 0.01 },
  A: { dim: 'current', factor: 1 }, mA: { dim: 'current', factor: 1e-3 }, µA: { dim: 'current', factor: 1e-6 }, uA: { dim: 'current', factor: 1e-6 }, nA: { dim: 'current', factor: 1e-9 },
  T: { dim: 'magnetic_field', factor: 1 }, mT: { dim: 'magnetic_field', factor: 1e-3 }, µT: { dim: 'magnetic_field', factor: 1e-6 }, uT: { dim: 'magnetic_field', factor: 1e-6 }, G: { dim: 'magnetic_field', factor: 1e-4 },
  'm^3': { dim: 'volume', factor: 1 }, 'm³': { dim: 'volume', factor: 1 }, L: { dim: 'volume', factor: 1e-3 }, mL: { dim: 'volume', factor: 1e-6 }, ml: { dim: 'volume', factor: 1e-6 },
  'm^2': { dim: 'area', factor: 1 }, 'm²': { dim: 'area', factor: 1 },
  'mL/min': { dim: 'flow_ml', factor: 1 }, 'ml/min': { dim: 'flow_ml', factor: 1 },
  'mg/L': { dim: 'mass_concentration', factor: 1 }, 'mg/l': { dim: 'mass_concentration', factor: 1 },
  bpm: { dim: 'heart_rate', factor: 1 },
  dBm: { dim: 'dBm', factor: 1 }, dBi: { dim: 'dBi', factor: 1 }, dB: { dim: 'dB', factor: 1 },
  'kg m/s': { dim: 'momentum', factor: 1 }, 'W/m^2': { dim: 'irradiance', factor: 1 }, 'kg/m^3': { dim: 'density', factor: 1 }, 'kg/m^2': { dim: 'bmi', factor: 1 },
  'Pa s': { dim: 'viscosity', factor: 1 }, 'J/(kg K)': { dim: 'specific_heat', factor: 1 }, 'rad/s/T': { dim: 'gyromagnetic', factor: 1 },
  '1/s': { dim: 'rate', factor: 1 }, '1/h': { dim: 'rate', factor: 1 / 3600 }, 'K/GtCO2': { dim: 'tcre', factor: 1 },
  'kg m^2': { dim: 'moment_of_inertia', factor: 1 }, Mpc: { dim: 'length', factor: 3.0856775814913673e22 }, M_sun: { dim: 'mass', factor: 1.98847e30 },
  '': { dim: 'ratio', factor: 1 }, count: { dim: 'count', factor: 1 },
  unix_s: { dim: 'unix_time', factor: 1 }, cron: { dim: 'cron', factor: 1 }, event: { dim: 'event_name', factor: 1 },
};

/** Unit words, matched case-insensitively. */
const WORDS: Record<string, string> = {
  newton: 'N',
  newtons: 'N',
  kilonewton: 'kN',
  kilonewtons: 'kN',
  kilogram: 'kg',
  kilograms: 'kg',
  kilo: 'kg',
  kilos: 'kg',
  gram: 'g',
  grams: 'g',
  tonne: 't',
  tonnes: 't',
  ton: 't',
  tons: 't',
  meter: 'm',
  meters: 'm',
  metre: 'm',
  metres: 'm',
  kilometer: 'km',
  kilometers: 'km',
  kilometre: 'km',
  kilometres: 'km',
  nanosecond: 'ns',
  nanoseconds: 'ns',
  microsecond: 'us',
  microseconds: 'us',
  millisecond: 'ms',
  milliseconds: 'ms',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  mins: 'min',
  minute: 'min',
  minutes: 'min',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  day: 'd',
  days: 'd',
  week: 'week',
  weeks: 'week',
  tick: 'ticks',
  ticks: 'ticks',
  joule: 'J',
  joules: 'J',
  kilojoule: 'kJ',
  kilojoules: 'kJ',
  megajoule: 'MJ',
  megajoules: 'MJ',
  pascal: 'Pa',
  pascals: 'Pa',
  kilopascal: 'kPa',
  kilopascals: 'kPa',
  bars: 'bar',
  kelvin: 'K',
  celsius: '°C',
  watt: 'W',
  watts: 'W',
  kilowatt: 'kW',
  kilowatts: 'kW',
  megawatt: 'MW',
  megawatts: 'MW',
  hertz: 'Hz',
  degree: 'deg',
  degrees: 'deg',
  radian: 'rad',
  radians: 'rad',
  percent: '%',
  tesla: 'T',
  bit: 'bits',
  bits: 'bits',
  litre: 'L',
  litres: 'L',
  liter: 'L',
  liters: 'L',
  millilitre: 'mL',
  millilitres: 'mL',
  milliliter: 'mL',
  milliliters: 'mL',
};

const WEEK: UnitDef = { dim: 'time', factor: 604800 };

/** The unit spelled `token` (exact spelling first, then unit words), or undefined. */
export function unitOf(token: string): UnitDef | undefined {
  if (Object.hasOwn(EXACT, token)) return EXACT[token];
  const word = WORDS[token.toLowerCase()];
  if (word === 'week') return WEEK;
  return word !== undefined ? EXACT[word] : undefined;
}

/** `value` in unit `from` expressed in unit `to`, or undefined when their dimensions differ. */
export function convert(value: number, from: UnitDef, to: UnitDef): number | undefined {
  if (from.dim !== to.dim) return undefined;
  const base = value * from.factor + (from.offset ?? 0);
  return (base - (to.offset ?? 0)) / to.factor;
}

/** Seconds as whole ticks, at least one. */
export const ticksOf = (seconds: number): number => Math.max(1, Math.round(seconds / TICK_S));
