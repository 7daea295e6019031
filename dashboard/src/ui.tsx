// Shared pieces: loading/error/empty states, copy and confirm buttons, dates.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { CreativeOpsError, timestampDate } from "@creativeops/client";
import type { Timestamp } from "@bufbuild/protobuf/wkt";

export interface AsyncState<T> {
  loading: boolean;
  error: unknown;
  data: T | undefined;
  reload: () => void;
}

/** Runs fn when deps change; keeps the last data while reloading. */
export function useAsync<T>(fn: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ loading: boolean; error: unknown; data: T | undefined }>({
    loading: true,
    error: undefined,
    data: undefined,
  });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    fn().then(
      (data) => live && setState({ loading: false, error: undefined, data }),
      (error: unknown) => live && setState((s) => ({ loading: false, error, data: s.data })),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Collects every item of a paginated list. */
export async function all<T>(it: AsyncIterable<T>, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) {
    out.push(x);
    if (out.length >= max) break;
  }
  return out;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** An API error as the server described it: message, status, reason and the fields at fault. */
export function ErrorBox({ error, title }: { error: unknown; title?: string }) {
  if (error === undefined || error === null) return null;
  const e = error instanceof CreativeOpsError ? error : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert">
      <strong>{title ?? "Something went wrong"}</strong>
      <p>{message}</p>
      {e && (
        <p class="meta">
          {e.status}
          {e.reason && e.reason !== e.status ? ` · ${e.reason}` : ""}
          {e.requestId ? ` · request ${e.requestId}` : ""}
        </p>
      )}
      {e && e.fieldViolations.length > 0 && (
        <ul>
          {e.fieldViolations.map((v) => (
            <li key={v.field}>
              <code>{v.field}</code>: {v.description}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? "Copied" : label}
      <span class="sr-only" aria-live="polite">
        {done ? " to the clipboard" : ""}
      </span>
    </button>
  );
}

/** A button that asks first, in a modal <dialog> (focus trapped, Escape cancels). */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void> | void;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button type="button" class={props.danger ? "danger" : "secondary"} onClick={() => ref.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={ref} aria-label={props.question}>
        <form
          method="dialog"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            try {
              await props.onConfirm();
            } finally {
              setBusy(false);
              ref.current?.close();
            }
          }}
        >
          <p>
            <strong>{props.question}</strong>
          </p>
          {props.children}
          <div class="row">
            <button type="button" class="secondary" onClick={() => ref.current?.close()}>
              Cancel
            </button>
            <button type="submit" class={props.danger ? "danger" : ""} disabled={busy}>
              {props.confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}

export function fmtTime(t: Timestamp | undefined): string {
  if (!t) return "—";
  return timestampDate(t).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

export function downloadJSON(filename: string, value: unknown): void {
  const blob = new Blob([typeof value === "string" ? value : JSON.stringify(value, null, 2)], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <header class="page-header">
      <h1 tabIndex={-1} id="page-title">
        {title}
      </h1>
      {children}
    </header>
  );
}

/** Shown instead of a page the session's key may not use. */
export function NeedsScope({ scope }: { scope: string }) {
  return (
    <div class="error" role="alert">
      <strong>Not allowed</strong>
      <p>
        This page needs an API key with the <code>{scope}</code> scope. Sign in with such a key to use it.
      </p>
    </div>
  );
}
