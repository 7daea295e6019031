import { useState } from "preact/hooks";
import { timestampDate } from "@creativeops/client";
import type { PageProps } from "../main";
import { hasScope } from "../session";
import { TimeChart } from "../chart";
import { all, Empty, ErrorBox, Loading, PageHeader, useAsync } from "../ui";

const ranges: { value: string; label: string; hours: number; granularity: "minute" | "hour" | "day" }[] = [
  { value: "1h", label: "Last hour", hours: 1, granularity: "minute" },
  { value: "24h", label: "Last 24 hours", hours: 24, granularity: "hour" },
  { value: "7d", label: "Last 7 days", hours: 24 * 7, granularity: "hour" },
  { value: "30d", label: "Last 30 days", hours: 24 * 30, granularity: "day" },
];

export function UsagePage({ api, session }: PageProps) {
  const [range, setRange] = useState("24h");
  const [granularity, setGranularity] = useState<"minute" | "hour" | "day">("hour");
  const [keyId, setKeyId] = useState("");
  const r = ranges.find((x) => x.value === range) ?? ranges[1]!;
  const keys = useAsync(() => (hasScope(session, "keys:admin") ? all(api.keys.list()) : Promise.resolve([])), []);
  const report = useAsync(() => {
    const to = new Date();
    return api.analytics.usage({ from: new Date(to.getTime() - r.hours * 3600_000), to, granularity, keyId });
  }, [range, granularity, keyId]);
  const d = report.data;
  const labels = d ? d.series.map((p) => (p.start ? timestampDate(p.start) : new Date(0))) : [];
  const tooMany = r.hours * (granularity === "minute" ? 60 : granularity === "hour" ? 1 : 1 / 24) > 2000;
  return (
    <>
      <PageHeader title="Usage" />
      <form class="card filters" onSubmit={(e) => e.preventDefault()} aria-label="Usage filters">
        <div>
          <label for="usage-range">Range</label>
          <select
            id="usage-range"
            value={range}
            onChange={(e) => {
              const v = (e.currentTarget as HTMLSelectElement).value;
              setRange(v);
              setGranularity(ranges.find((x) => x.value === v)?.granularity ?? "hour");
            }}
          >
            {ranges.map((x) => (
              <option key={x.value} value={x.value}>
                {x.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="usage-granularity">Granularity</label>
          <select id="usage-granularity" value={granularity} onChange={(e) => setGranularity((e.currentTarget as HTMLSelectElement).value as typeof granularity)}>
            <option value="minute">Minute</option>
            <option value="hour">Hour</option>
            <option value="day">Day</option>
          </select>
        </div>
        <div>
          <label for="usage-key">Key</label>
          {keys.data && keys.data.length > 0 ? (
            <select id="usage-key" value={keyId} onChange={(e) => setKeyId((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">All keys</option>
              {keys.data.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name} ({k.prefix})
                </option>
              ))}
            </select>
          ) : (
            <input id="usage-key" placeholder="key_… (all keys when empty)" value={keyId} onChange={(e) => setKeyId((e.currentTarget as HTMLInputElement).value.trim())} />
          )}
        </div>
      </form>
      {tooMany && <p class="help">That many points is more than the chart can show legibly: pick a coarser granularity.</p>}
      {report.loading && <Loading what="usage" />}
      <ErrorBox error={report.error} title="Usage could not be loaded" />
      {d && !tooMany && (
        <>
          <section class="stats" aria-label="Totals">
            <div class="stat">
              <span class="label">Requests</span>
              <span class="value" data-testid="total-requests">
                {String(d.totals?.requests ?? 0n)}
              </span>
            </div>
            <div class="stat">
              <span class="label">Errors</span>
              <span class="value">
                {String(d.totals?.errors ?? 0n)} ({((d.totals?.errorRate ?? 0) * 100).toFixed(1)}%)
              </span>
            </div>
            <div class="stat">
              <span class="label">p50 / p95 / p99</span>
              <span class="value">
                {(d.totals?.p50Ms ?? 0).toFixed(1)} / {(d.totals?.p95Ms ?? 0).toFixed(1)} / {(d.totals?.p99Ms ?? 0).toFixed(1)} ms
              </span>
            </div>
          </section>
          <section aria-labelledby="usage-chart-title">
            <h2 id="usage-chart-title">Requests and errors</h2>
            <TimeChart
              title="Requests and errors per interval"
              unit="requests"
              granularity={d.granularity}
              labels={labels}
              series={[
                { name: "Requests", values: d.series.map((p) => Number(p.requests)), cls: "s-req", kind: "bar" },
                { name: "Errors", values: d.series.map((p) => Number(p.errors)), cls: "s-err", kind: "bar" },
              ]}
            />
            <h2>p99 latency</h2>
            <TimeChart
              title="p99 latency per interval"
              unit="ms"
              granularity={d.granularity}
              labels={labels}
              series={[{ name: "p99 (ms)", values: d.series.map((p) => p.p99Ms), cls: "s-p99", kind: "line" }]}
            />
          </section>
          <section aria-labelledby="routes-title">
            <h2 id="routes-title">By route</h2>
            {d.endpoints.length === 0 ? (
              <Empty>No requests in this range.</Empty>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Route</th>
                      <th scope="col">Requests</th>
                      <th scope="col">Errors</th>
                      <th scope="col">p50 ms</th>
                      <th scope="col">p95 ms</th>
                      <th scope="col">p99 ms</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.endpoints.map((e) => (
                      <tr key={e.method + e.route}>
                        <th scope="row">
                          <code>
                            {e.method} {e.route}
                          </code>
                        </th>
                        <td>{String(e.requests)}</td>
                        <td>{String(e.errors)}</td>
                        <td>{e.p50Ms.toFixed(1)}</td>
                        <td>{e.p95Ms.toFixed(1)}</td>
                        <td>{e.p99Ms.toFixed(1)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <section aria-labelledby="jobs-title">
            <h2 id="jobs-title">Jobs created in this range</h2>
            <dl class="stats">
              {(["queued", "processing", "completed", "failed", "canceled"] as const).map((s) => (
                <div class="stat" key={s}>
                  <dt class="label">{s}</dt>
                  <dd class="value">{String(d.jobs?.[s] ?? 0n)}</dd>
                </div>
              ))}
              <div class="stat">
                <dt class="label">average duration</dt>
                <dd class="value">{(d.jobs?.avgDurationMs ?? 0).toFixed(0)} ms</dd>
              </div>
            </dl>
          </section>
        </>
      )}
    </>
  );
}
