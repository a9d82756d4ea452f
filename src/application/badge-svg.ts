import type { SelfCheckReport } from '../registry/app-ports.js';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Approximate width of Verdana 11px text: enough for a badge to fit its words. */
const widthOf = (text: string) => Math.round(text.length * 6.6 + 10);

/** A flat two-part SVG badge ("self-check | 180/190 passing"), its colour by the share that passes. */
export function badgeSvg(report: SelfCheckReport | undefined): string {
  const label = 'self-check';
  const checked = report ? report.total - report.skipped : 0;
  const value = report ? `${report.passed}/${checked} passing` : 'unavailable';
  const share = report && checked > 0 ? report.passed / checked : 0;
  const color = !report ? '#9f9f9f' : share === 1 ? '#4c1' : share >= 0.9 ? '#97ca00' : share >= 0.75 ? '#dfb317' : '#e05d44';
  const title = report
    ? `${report.passed} of ${checked} operations pass the self-check (${report.succeeded} answered, ${report.passed - report.succeeded} refused as expected, ${report.failed} failed, ${report.skipped} not run); checked ${report.checked_at}`
    : 'The self-check could not run';
  const lw = widthOf(label);
  const vw = widthOf(value);
  const w = lw + vw;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${escape(`${label}: ${value}`)}">`,
    `<title>${escape(title)}</title>`,
    `<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>`,
    `<clipPath id="r"><rect width="${w}" height="20" rx="3" fill="#fff"/></clipPath>`,
    `<g clip-path="url(#r)"><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${color}"/><rect width="${w}" height="20" fill="url(#s)"/></g>`,
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">`,
    `<text x="${lw / 2}" y="15" fill="#010101" fill-opacity=".3">${escape(label)}</text><text x="${lw / 2}" y="14">${escape(label)}</text>`,
    `<text x="${lw + vw / 2}" y="15" fill="#010101" fill-opacity=".3">${escape(value)}</text><text x="${lw + vw / 2}" y="14">${escape(value)}</text>`,
    `</g></svg>`,
  ].join('');
}
