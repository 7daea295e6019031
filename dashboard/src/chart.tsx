// A small SVG chart: bars or a line per series over time, with axes, a
// text summary for screen readers and the numbers in a table beside it.
export interface Series {
  name: string;
  values: number[];
  /** CSS class giving the colour (see styles.css). */
  cls: string;
  kind: "bar" | "line";
}

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function TimeChart(props: { title: string; labels: Date[]; series: Series[]; unit: string; granularity: string }) {
  const { labels, series } = props;
  const w = 640;
  const h = 200;
  const pad = { l: 48, r: 8, t: 8, b: 24 };
  const iw = w - pad.l - pad.r;
  const ih = h - pad.t - pad.b;
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const n = Math.max(labels.length, 1);
  const bw = iw / n;
  const x = (i: number) => pad.l + i * bw;
  const y = (v: number) => pad.t + ih - (v / max) * ih;
  const fmt = (d: Date) =>
    props.granularity === "day" ? d.toISOString().slice(5, 10) : d.toISOString().slice(props.granularity === "minute" ? 11 : 5, 16).replace("T", " ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const every = Math.max(1, Math.ceil(n / 6));
  const bars = series.filter((s) => s.kind === "bar");
  const totals = series.map((s) => `${s.name}: ${s.kind === "bar" ? "total " + s.values.reduce((a, b) => a + b, 0) : "max " + Math.max(0, ...s.values).toFixed(1)}`);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`${props.title}. ${labels.length} points. ${totals.join("; ")} ${props.unit}.`} preserveAspectRatio="none">
        {ticks.map((t) => (
          <g key={t}>
            <line class="grid" x1={pad.l} x2={w - pad.r} y1={y(t)} y2={y(t)} />
            <text class="tick" x={pad.l - 4} y={y(t) + 4} text-anchor="end">
              {t >= 1000 ? `${(t / 1000).toFixed(1)}k` : Number.isInteger(t) ? t : t.toFixed(1)}
            </text>
          </g>
        ))}
        {labels.map((d, i) =>
          i % every === 0 ? (
            <text key={i} class="tick" x={x(i) + bw / 2} y={h - 6} text-anchor="middle">
              {fmt(d)}
            </text>
          ) : null,
        )}
        {bars.map((s, si) =>
          s.values.map((v, i) =>
            v > 0 ? <rect key={`${si}-${i}`} class={s.cls} x={x(i) + (bw * si) / bars.length + 0.5} width={Math.max(bw / bars.length - 1, 0.5)} y={y(v)} height={pad.t + ih - y(v)} /> : null,
          ),
        )}
        {series
          .filter((s) => s.kind === "line")
          .map((s) => (
            <polyline key={s.name} class={s.cls + " line"} points={s.values.map((v, i) => `${x(i) + bw / 2},${y(v)}`).join(" ")} />
          ))}
      </svg>
      <figcaption>
        <ul class="legend">
          {series.map((s) => (
            <li key={s.name}>
              <span class={"swatch " + s.cls} aria-hidden="true" /> {s.name}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
