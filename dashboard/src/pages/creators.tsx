import { useState } from "preact/hooks";
import type { PageProps } from "../main";
import type { Creator } from "@creativeops/client";
import { ConfirmButton, Empty, ErrorBox, fmtTime, Loading, PageHeader, useAsync } from "../ui";

const pageSize = 25;

export function CreatorsPage({ api }: PageProps) {
  const verticals = useAsync(() => api.engine.listVerticals().catch(() => []), []);
  const [vertical, setVertical] = useState("");
  const [q, setQ] = useState("");
  const [pageToken, setPageToken] = useState("");
  const [history, setHistory] = useState<string[]>([]);
  const [reload, setReload] = useState(0);
  const [editing, setEditing] = useState("");
  const [actionError, setActionError] = useState<unknown>(undefined);
  const page = useAsync(() => api.rpc.creators.listCreators({ vertical, pageSize, pageToken }), [vertical, pageToken, reload]);
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
      <ErrorBox error={actionError} title="The change was refused" />
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
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((c) =>
                editing === c.id ? (
                  <tr key={c.id}>
                    <td colSpan={7}>
                      <EditCreator
                        creator={c}
                        verticals={verticals.data?.map((v) => v.key) ?? [c.vertical]}
                        onCancel={() => setEditing("")}
                        onSave={async (changes) => {
                          setActionError(undefined);
                          try {
                            await api.creators.update(c.id, { ...changes, revision: c.revision });
                            setEditing("");
                            setReload(reload + 1);
                          } catch (e) {
                            setActionError(e);
                          }
                        }}
                      />
                    </td>
                  </tr>
                ) : (
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
                  <td class="row">
                    <button type="button" class="secondary" aria-label={`Edit ${c.name}`} onClick={() => setEditing(c.id)}>
                      Edit
                    </button>
                    <ConfirmButton
                      label="Erase"
                      danger
                      question={`Erase ${c.name}?`}
                      confirmLabel="Erase for good"
                      onConfirm={async () => {
                        setActionError(undefined);
                        try {
                          await api.creators.erase(c.id);
                          setReload(reload + 1);
                        } catch (e) {
                          setActionError(e);
                        }
                      }}
                    >
                      <p>
                        Their name, email and metadata are removed from the service, with their tracked plans and the
                        contexts of their runs. IP records stay (they name the id only). This cannot be undone.
                      </p>
                    </ConfirmButton>
                  </td>
                </tr>
                ),
              )}
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

/** The edit form of one creator: name, email, vertical. */
function EditCreator(props: {
  creator: Creator;
  verticals: string[];
  onCancel: () => void;
  onSave: (changes: { name?: string; email?: string; vertical?: string }) => Promise<void>;
}) {
  const c = props.creator;
  const [name, setName] = useState(c.name);
  const [email, setEmail] = useState(c.email);
  const [vertical, setVertical] = useState(c.vertical);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card"
      aria-label={`Edit ${c.name}`}
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        try {
          await props.onSave({
            ...(name !== c.name ? { name } : {}),
            ...(email !== c.email ? { email } : {}),
            ...(vertical !== c.vertical ? { vertical } : {}),
          });
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for="edit-name">Name</label>
      <input id="edit-name" value={name} required maxLength={200} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
      <label for="edit-email">Email</label>
      <input id="edit-email" type="email" value={email} required onInput={(e) => setEmail((e.currentTarget as HTMLInputElement).value)} />
      <label for="edit-vertical">Vertical</label>
      <select id="edit-vertical" value={vertical} onChange={(e) => setVertical((e.currentTarget as HTMLSelectElement).value)}>
        {props.verticals.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
      <div class="row">
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" disabled={busy}>
          Save
        </button>
      </div>
    </form>
  );
}
