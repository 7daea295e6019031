// A small history-API router: the server answers every /dashboard/* path with
// index.html, so links are real URLs that can be bookmarked and reloaded.
import { useEffect, useState } from "preact/hooks";

export const base = "/dashboard";

export function navigate(path: string, replace = false): void {
  const url = base + path;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** The path below /dashboard, e.g. "/keys" ("/" for the root). */
export function currentPath(): string {
  const p = window.location.pathname.startsWith(base) ? window.location.pathname.slice(base.length) : "/";
  return p === "" ? "/" : p;
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const on = () => setPath(currentPath());
    window.addEventListener("popstate", on);
    return () => window.removeEventListener("popstate", on);
  }, []);
  return path;
}

/** Client-side navigation for same-app links; modified clicks open normally. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.target as Element).closest("a");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const href = a.getAttribute("href");
  if (!href || !href.startsWith(base + "/") || a.target || a.hasAttribute("download")) return;
  e.preventDefault();
  navigate(href.slice(base.length));
}
