import { useState } from "preact/hooks";
import { toJsonString } from "@bufbuild/protobuf";
import { CertificateSchema, checkCertificate, checkExternalTimestamps, timestampFromDate } from "@creativeops/client";
import type { Certificate, CertificateCheck, IPRecord, LogWitness } from "@creativeops/client";
import { checkCosignatures } from "../cosignatures";
import type { PageProps } from "../main";
import { downloadJSON, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

const types = ["song", "script", "book", "artwork", "concept", "other"];
const pageSize = 25;

interface Filters {
  q: string;
  type: string;
  creatorId: string;
  after: string;
  before: string;
}

export function CatalogPage({ api }: PageProps) {
  const initial = new URLSearchParams(window.location.search);
  const [f, setF] = useState<Filters>({
    q: "",
    type: "",
    creatorId: initial.get("creator_id") ?? "",
    after: "",
    before: "",
  });
  const [pageToken, setPageToken] = useState("");
  const [history, setHistory] = useState<string[]>([]);
  const page = useAsync(
    () =>
      api.rpc.ip.listCatalog({
        q: f.q,
        type: f.type,
        creatorId: f.creatorId,
        pageSize,
        pageToken,
        ...(f.after ? { registeredAfter: timestampFromDate(new Date(f.after + "T00:00:00Z")) } : {}),
        ...(f.before ? { registeredBefore: timestampFromDate(new Date(f.before + "T23:59:59Z")) } : {}),
      }),
    [f, pageToken],
  );
  const records: IPRecord[] = page.data?.records ?? [];
  return (
    <>
      <PageHeader title="IP catalog" />
      <form
        class="card filters"
        role="search"
        aria-label="Catalog filters"
        onSubmit={(e) => {
          e.preventDefault();
          const d = new FormData(e.currentTarget as HTMLFormElement);
          const g = (k: string) => String(d.get(k) ?? "").trim();
          setPageToken("");
          setHistory([]);
          setF({ q: g("q"), type: g("type"), creatorId: g("creator_id"), after: g("after"), before: g("before") });
        }}
      >
        <div>
          <label for="cat-q">Title contains</label>
          <input id="cat-q" name="q" type="search" defaultValue={f.q} />
        </div>
        <div>
          <label for="cat-type">Type</label>
          <select id="cat-type" name="type" defaultValue={f.type}>
            <option value="">Any type</option>
            {types.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="cat-creator">Creator id</label>
          <input id="cat-creator" name="creator_id" defaultValue={f.creatorId} placeholder="cr_…" />
        </div>
        <div>
          <label for="cat-after">Registered from</label>
          <input id="cat-after" name="after" type="date" defaultValue={f.after} />
        </div>
        <div>
          <label for="cat-before">Registered until</label>
          <input id="cat-before" name="before" type="date" defaultValue={f.before} />
        </div>
        <div class="end">
          <button type="submit">Search</button>
        </div>
      </form>
      {page.loading && <Loading what="records" />}
      <ErrorBox error={page.error} title="The catalog could not be loaded" />
      {page.data && records.length === 0 && <Empty>No registered work matches.</Empty>}
      {records.length > 0 && (
        <>
          <p class="help" role="status">
            {String(page.data?.total ?? 0)} matching records
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Type</th>
                  <th scope="col">Creator</th>
                  <th scope="col">Registered</th>
                  <th scope="col">Content hash</th>
                  <th scope="col">Log index</th>
                </tr>
              </thead>
              <tbody>
                {records.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      <a href={`/dashboard/catalog/${r.certificateId}`}>{r.title}</a>
                    </th>
                    <td>{r.type}</td>
                    <td>
                      <code>{r.creatorId}</code>
                    </td>
                    <td>{fmtTime(r.timestamp)}</td>
                    <td>
                      <code class="hash">{r.contentHash.slice(0, 23)}…</code>
                    </td>
                    <td>{String(r.logIndex)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="row" aria-label="Pages">
            <button
              type="button"
              class="secondary"
              disabled={history.length === 0}
              onClick={() => {
                setPageToken(history[history.length - 1] ?? "");
                setHistory(history.slice(0, -1));
              }}
            >
              Previous
            </button>
            <button
              type="button"
              class="secondary"
              disabled={!page.data?.nextPageToken}
              onClick={() => {
                setHistory([...history, pageToken]);
                setPageToken(page.data?.nextPageToken ?? "");
              }}
            >
              Next
            </button>
          </nav>
        </>
      )}
    </>
  );
}

/** The bundle as the REST API serves it (snake_case protobuf JSON): what `creativeops verify --bundle` reads. */
export function bundleJSON(c: Certificate): string {
  return toJsonString(CertificateSchema, c, { useProtoFieldName: true, prettySpaces: 2 });
}

function Checks({ checks }: { checks: CertificateCheck[] }) {
  const failed = checks.filter((c) => !c.ok);
  return (
    <section aria-labelledby="checks-title" aria-live="polite">
      <h2 id="checks-title">Verification</h2>
      <p class={failed.length ? "field-error" : "ok"} data-testid="verify-summary">
        {failed.length ? `${failed.length} check(s) failed: ${failed.map((c) => c.name).join(", ")}` : "Every check the browser made passed."}
      </p>
      <ul class="checks-list">
        {checks.map((c) => (
          <li key={c.name} class={c.skipped ? "skipped" : c.ok ? "pass" : "fail"} data-check={c.name}>
            <span class="mark" aria-hidden="true">
              {c.skipped ? "–" : c.ok ? "✓" : "✗"}
            </span>
            <span class="sr-only">{c.skipped ? "not checked" : c.ok ? "passed" : "failed"}: </span>
            <code>{c.name}</code> <span class="detail">{c.detail}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The witnesses that cosign the log (GET /v1/ip/keys) and, checked in this
 * browser, whether the certificate's checkpoint carries a valid cosignature
 * by each.
 */
function Witnesses({ checkpoint, witnesses }: { checkpoint: string; witnesses: LogWitness[] }) {
  const checks = useAsync(() => checkCosignatures(checkpoint, witnesses.map((w) => ({ name: w.name, verifierKey: w.verifierKey }))), [checkpoint, witnesses]);
  return (
    <section class="card" aria-labelledby="witnesses-title">
      <h2 id="witnesses-title">Witness cosignatures</h2>
      <p class="help">
        Independent witnesses cosign the log's checkpoints once they have checked it only grew. Each cosignature below is checked in this browser (Ed25519, Web Crypto) against the witness's key. Check them offline with <code>creativeops verify --witness-key</code>.
      </p>
      {witnesses.length === 0 && <p data-testid="no-witnesses">No witness is configured for this log: its checkpoints carry the log's signature only.</p>}
      <ErrorBox error={checks.error} title="The cosignatures could not be checked" />
      {checks.data && (
        <ul class="checks-list">
          {checks.data.map((c, i) => {
            const w = witnesses[i]!;
            return (
              <li key={c.verifierKey} class={c.result === "valid" ? "pass" : c.result === "invalid" ? "fail" : "skipped"} data-witness={c.name} data-result={c.result}>
                <span class="mark" aria-hidden="true">
                  {c.result === "valid" ? "✓" : c.result === "invalid" ? "✗" : "–"}
                </span>
                <span class="sr-only">{c.result === "valid" ? "valid cosignature" : c.result === "invalid" ? "invalid cosignature" : "no cosignature"}: </span>
                <code>{c.name}</code> <span class="detail">{c.detail}</span>
                <br />
                <span class="help">
                  witness status <span class={`status ${w.status === "fork" ? "failed" : ""}`}>{w.status}</span>
                  {w.status === "fork" && " — it refused the log as inconsistent with a tree it cosigned: an alert for the operator"}
                  {w.detail && ` (${w.detail})`}, cosigned up to {String(w.cosignedSize)} entries · <code class="hash">{w.verifierKey}</code>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** The certificate's timestamps from independent authorities, each with its status. */
function ExternalTimestamps({ c, checks }: { c: Certificate; checks?: CertificateCheck[] }) {
  if (c.externalTimestamps.length === 0) return null;
  return (
    <section class="card" aria-labelledby="external-title">
      <h2 id="external-title">Independent timestamps</h2>
      <p class="help">
        RFC 3161 timestamps of this record by authorities the service's operator does not control. A pending one is fetched in the background; the certificate
        is updated when it arrives.
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">Authority</th>
            <th scope="col">Status</th>
            <th scope="col">Time</th>
            <th scope="col">In this browser</th>
          </tr>
        </thead>
        <tbody>
          {c.externalTimestamps.map((et, i) => {
            const check = checks?.find((k) => k.name === `external_timestamp[${i + 1}]`);
            return (
              <tr key={et.authorityUrl} data-external={et.authorityUrl} data-status={et.status}>
                <td>
                  <code>{et.authorityUrl}</code>
                </td>
                <td class={et.status === "ok" ? "ok" : et.status === "failed" ? "field-error" : ""}>
                  {et.status}
                  {et.error && et.status !== "ok" ? ` (${et.error})` : ""}
                </td>
                <td>{et.genTime ? fmtTime(et.genTime) : "—"}</td>
                <td data-testid="external-check">{check ? (check.skipped ? "not checked" : check.ok ? "verified" : "FAILED") + `: ${check.detail}` : "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export function CertificatePage({ api, param }: PageProps) {
  const cert = useAsync(() => api.ip.getCertificate(param), [param]);
  const keys = useAsync(() => api.ip.getKeys(), []);
  const [checks, setChecks] = useState<CertificateCheck[]>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const c = cert.data;
  return (
    <>
      <PageHeader title={c ? `Certificate of “${c.title}”` : "Certificate"}>
        <a href="/dashboard/catalog">Catalog</a>
      </PageHeader>
      {cert.loading && <Loading what="the certificate" />}
      <ErrorBox error={cert.error} title="The certificate could not be loaded" />
      {c && (
        <>
          <section class="card">
            <dl class="fields-list">
              <dt>Title</dt>
              <dd>{c.title}</dd>
              <dt>Type</dt>
              <dd>{c.type}</dd>
              <dt>Description</dt>
              <dd>{c.description || "—"}</dd>
              <dt>Creator</dt>
              <dd>
                <code>{c.creatorId}</code>
              </dd>
              <dt>Registered</dt>
              <dd>{fmtTime(c.timestamp)}</dd>
              <dt>Content hash</dt>
              <dd>
                <code class="hash">{c.contentHash}</code>
              </dd>
              <dt>Certificate</dt>
              <dd>
                <code>{c.certificateId}</code> (record <code>{c.id}</code>)
              </dd>
              <dt>Log</dt>
              <dd>
                entry {String(c.logIndex)} of {String(c.treeSize)} · <code class="hash">{c.logVerifierKey}</code>
              </dd>
            </dl>
            <button type="button" class="secondary" onClick={() => downloadJSON(`${c.certificateId}.json`, bundleJSON(c))}>
              Download bundle
            </button>
          </section>
          <form
            class="card"
            aria-labelledby="verify-title"
            onSubmit={async (e) => {
              e.preventDefault();
              const form = e.currentTarget as HTMLFormElement;
              const file = (form.elements.namedItem("work") as HTMLInputElement).files?.[0];
              const caFiles = Array.from((form.elements.namedItem("tsa-ca") as HTMLInputElement | null)?.files ?? []);
              setBusy(true);
              setError(undefined);
              try {
                const own = await checkCertificate(c, file ? { work: new Uint8Array(await file.arrayBuffer()) } : {});
                const pems = await Promise.all(caFiles.map((f) => f.text()));
                setChecks([...own, ...(await checkExternalTimestamps(c, pems))]);
              } catch (err) {
                setError(err);
              } finally {
                setBusy(false);
              }
            }}
          >
            <h2 id="verify-title">Verify in this browser</h2>
            <p class="help">
              Checks the record against what is shown, the timestamp authority's signature on the record (RFC 3161, ECDSA), the log's signature on the checkpoint (Ed25519) and the record's inclusion proof, with Web Crypto. The file stays on this device: only its SHA-256 is computed.
            </p>
            <label for="work">The work's file (optional)</label>
            <input id="work" name="work" type="file" />
            {c.externalTimestamps.length > 0 && (
              <>
                <label for="tsa-ca">The independent authorities' CA certificates, PEM (optional; without them their tokens are not checked)</label>
                <input id="tsa-ca" name="tsa-ca" type="file" multiple accept=".pem,.crt,.cer" />
              </>
            )}
            <button type="submit" disabled={busy}>
              {busy ? "Verifying…" : "Verify"}
            </button>
            <ErrorBox error={error} title="Verification could not run" />
          </form>
          <ExternalTimestamps c={c} checks={checks} />
          {checks && <Checks checks={checks} />}
          {keys.data && <Witnesses checkpoint={c.checkpoint} witnesses={keys.data.witnesses} />}
        </>
      )}
    </>
  );
}
