/** Small dependency-free SVG charts for the benchmark report (rendered on the repository page). */
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Horizontal bars, one per label, with the floor drawn as a tick when given. */
export function barChart(title: string, unit: string, rows: { label: string; value: number; floor?: number | null }[]): string {
  const width = 900;
  const labelWidth = 330;
  const rowHeight = 22;
  const height = 40 + rows.length * rowHeight + 20;
  const max = Math.max(...rows.flatMap((r) => [r.value, r.floor ?? 0])) || 1;
  const scale = (v: number) => (v / max) * (width - labelWidth - 90);
  const bars = rows
    .map((r, i) => {
      const y = 40 + i * rowHeight;
      const floor = r.floor
        ? `<line x1="${labelWidth + scale(r.floor)}" x2="${labelWidth + scale(r.floor)}" y1="${y - 2}" y2="${y + 16}" stroke="#d62728" stroke-width="2"/>`
        : '';
      return `<text x="${labelWidth - 6}" y="${y + 12}" text-anchor="end" font-size="11">${esc(r.label)}</text><rect x="${labelWidth}" y="${y}" width="${Math.max(1, scale(r.value))}" height="14" fill="#1f77b4"/>${floor}<text x="${labelWidth + scale(r.value) + 4}" y="${y + 12}" font-size="11">${r.value.toFixed(r.value < 10 ? 2 : 0)}</text>`;
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text><text x="10" y="34" font-size="11" fill="#555">${esc(unit)}; red tick: the floor</text>${bars}</svg>`;
}

/** A line over time (one point per second). */
export function lineChart(title: string, unit: string, points: number[]): string {
  const width = 900;
  const height = 260;
  const pad = 50;
  const max = Math.max(...points, 1);
  const x = (i: number) => pad + (i / Math.max(1, points.length - 1)) * (width - 2 * pad);
  const y = (v: number) => height - pad - (v / max) * (height - 2 * pad);
  const path = points.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text><line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="#999"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" stroke="#999"/><text x="${pad - 6}" y="${pad + 4}" text-anchor="end" font-size="11">${max.toFixed(0)}</text><text x="${pad - 6}" y="${height - pad}" text-anchor="end" font-size="11">0</text><text x="${width / 2}" y="${height - 15}" text-anchor="middle" font-size="11">seconds (${esc(unit)})</text><path d="${path}" fill="none" stroke="#1f77b4" stroke-width="2"/></svg>`;
}

/** One line per row over a few x values (tenant sizes), with a legend: growth that should stay flat. */
export function growthChart(title: string, unit: string, xs: readonly number[], rows: { label: string; values: readonly number[] }[]): string {
  const width = 900;
  const plotWidth = 420;
  const height = Math.max(300, 60 + rows.length * 16);
  const pad = 50;
  const max = Math.max(...rows.flatMap((r) => r.values), 1);
  const x = (i: number) => pad + (i / Math.max(1, xs.length - 1)) * (plotWidth - pad);
  const y = (v: number) => height - pad - (v / max) * (height - 2 * pad);
  const colour = (i: number) => `hsl(${(i * 47) % 360} 65% 42%)`;
  const lines = rows
    .map((r, i) => {
      const path = r.values.map((v, j) => `${j === 0 ? 'M' : 'L'}${x(j).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
      const legend = `<line x1="${plotWidth + 20}" x2="${plotWidth + 40}" y1="${44 + i * 16}" y2="${44 + i * 16}" stroke="${colour(i)}" stroke-width="3"/><text x="${plotWidth + 46}" y="${48 + i * 16}" font-size="11">${esc(r.label.slice(0, 60))}</text>`;
      return `<path d="${path}" fill="none" stroke="${colour(i)}" stroke-width="2"/>${legend}`;
    })
    .join('');
  const ticks = xs.map((v, j) => `<text x="${x(j)}" y="${height - pad + 16}" text-anchor="middle" font-size="11">${v.toLocaleString('en')}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/><text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text><line x1="${pad}" y1="${height - pad}" x2="${plotWidth}" y2="${height - pad}" stroke="#999"/><line x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" stroke="#999"/><text x="${pad - 6}" y="${pad + 4}" text-anchor="end" font-size="11">${max.toFixed(max < 10 ? 1 : 0)}</text><text x="${pad - 6}" y="${height - pad}" text-anchor="end" font-size="11">0</text>${ticks}<text x="${(pad + plotWidth) / 2}" y="${height - 12}" text-anchor="middle" font-size="11">items per tenant (${esc(unit)})</text>${lines}</svg>`;
}
