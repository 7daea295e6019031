import { useState } from "preact/hooks";
import type { PageProps } from "../main";
import { Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

const pageSize = 25;

export function CreatorsPage({ api }: PageProps) {
  const verticals = useAsync(() => api.engine.listVerticals().catch(() => []), []);
  const [vertical, setVertical] = useState("");
  const [q, setQ] = useState("");
  const [pageToken, setPageToken] = useState("");
  const [history, setHistory] = useState<string[]>([]);
  const page = useAsync(() => api.rpc.creators.listCreators({ vertical, pageSize, pageToken }), [vertical, pageToken]);
  const shown = (page.data?.creators ?? []).filter((c) => !q || (c.name + " " + c.email).toLowerCase().includes(q.toLowerCase()));
  return (
    <>
      <PageHeader title="Creators" />
      <form class="card filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="cr-vertical">Vertical</label>
          <select
            id="cr-vertical"
            value={vertical}
            onChange={(e) => {
              setVertical((e.currentTarget as HTMLSelectElement).value);
              setPageToken("");
              setHistory([]);
            }}
          >
            <option value="">All verticals</option>
            {verticals.data?.map((v) => (
              <option key={v.key} value={v.key}>
                {v.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="cr-q">Name or email on this page</label>
          <input id="cr-q" type="search" value={q} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} />
        </div>
      </form>
      {page.loading && <Loading what="creators" />}
      <ErrorBox error={page.error} title="The creators could not be loaded" />
      {page.data && shown.length === 0 && <Empty>No creator matches.</Empty>}
      {shown.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Vertical</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Works</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>{c.email}</td>
                  <td>{c.vertical}</td>
                  <td>
                    <span class={"status " + c.status}>{c.status}</span>
                  </td>
                  <td>{fmtTime(c.createdAt)}</td>
                  <td>
                    <a href={`/dashboard/catalog?creator_id=${encodeURIComponent(c.id)}`}>IP catalog</a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.data && (
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
            disabled={!page.data.nextPageToken}
            onClick={() => {
              setHistory([...history, pageToken]);
              setPageToken(page.data?.nextPageToken ?? "");
            }}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}
