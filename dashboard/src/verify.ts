// Verifies an IP certificate in the browser, as `creativeops verify` does
// (ipreg/bundle.go), with Web Crypto: the work's SHA-256, the record bytes
// against the displayed fields, the checkpoint's Ed25519 signed-note
// signature and the RFC 6962 inclusion proof. The RFC 3161 token (CMS and
// X.509) is left to `creativeops verify` and openssl, and said so.
import type { Certificate } from "@creativeops/client";
import { timestampDate } from "@creativeops/client";

export interface Check {
  name: string;
  ok: boolean;
  skipped?: boolean;
  detail: string;
}

const enc = new TextEncoder();

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}

export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function b64(s: string): Uint8Array {
  const bin = atob(s);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function toB64(b: Uint8Array): string {
  return btoa(String.fromCharCode(...b));
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** RFC 6962 leaf hash: SHA-256(0x00 || data). */
export function leafHash(data: Uint8Array): Promise<Uint8Array> {
  return sha256(new Uint8Array([0]), data);
}

/**
 * RFC 9162 §2.1.3.2: the root an inclusion proof leads to, or an error
 * when the proof has the wrong length for index and size.
 */
export async function rootFromInclusionProof(index: bigint, size: bigint, leaf: Uint8Array, proof: Uint8Array[]): Promise<Uint8Array> {
  if (index < 0n || index >= size) throw new Error(`index ${index} outside tree of size ${size}`);
  let fn = index;
  let sn = size - 1n;
  let r = leaf;
  const one = new Uint8Array([1]);
  for (const p of proof) {
    if (sn === 0n) throw new Error("proof is too long");
    if ((fn & 1n) === 1n || fn === sn) {
      r = await sha256(one, p, r);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = await sha256(one, r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  if (sn !== 0n) throw new Error("proof is too short");
  return r;
}

export interface OpenedCheckpoint {
  origin: string;
  size: bigint;
  root: Uint8Array;
}

/**
 * Checks a signed note (golang.org/x/mod/sumdb/note) holding a C2SP checkpoint
 * against a verifier key "name+hash+base64(0x01 || Ed25519 public key)".
 */
export async function openCheckpoint(msg: string, verifierKey: string): Promise<OpenedCheckpoint> {
  // name+hash+key: the name and hash hold no "+", the base64 key may.
  const vk = verifierKey.trim();
  const i = vk.indexOf("+");
  const j = vk.indexOf("+", i + 1);
  if (i <= 0 || j < 0) throw new Error("log verifier key: not name+hash+key");
  const name = vk.slice(0, i);
  const hashHex = vk.slice(i + 1, j);
  const keyB64 = vk.slice(j + 1);
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw new Error("log verifier key: hash is not 8 hex digits");
  const key = b64(keyB64);
  if (key.length !== 33 || key[0] !== 1) throw new Error("log verifier key: not an Ed25519 key");
  const wantHash = (await sha256(enc.encode(name + "\n"), key)).slice(0, 4);
  if (hex(wantHash) !== hashHex.toLowerCase()) throw new Error("log verifier key: hash does not match name and key");
  const split = msg.lastIndexOf("\n\n");
  if (split < 0) throw new Error("checkpoint: no signature block");
  const text = msg.slice(0, split + 1);
  const sigLines = msg.slice(split + 2).split("\n").filter((l) => l !== "");
  const pub = await crypto.subtle.importKey("raw", key.slice(1), { name: "Ed25519" }, false, ["verify"]);
  let verified = false;
  for (const line of sigLines) {
    const m = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const sig = b64(m[2]!);
    if (sig.length !== 4 + 64 || !equal(sig.slice(0, 4), wantHash)) continue;
    if (await crypto.subtle.verify({ name: "Ed25519" }, pub, sig.slice(4), enc.encode(text))) {
      verified = true;
      break;
    }
    throw new Error(`checkpoint signature by ${name} does not verify`);
  }
  if (!verified) throw new Error(`checkpoint is not signed by ${name}`);
  const lines = text.split("\n");
  if (lines.length < 4) throw new Error("checkpoint: too few lines");
  const [origin, sizeText, rootText] = lines as [string, string, string];
  if (origin !== name) throw new Error(`checkpoint origin "${origin}" does not match key name "${name}"`);
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText)) throw new Error(`checkpoint tree size "${sizeText}" is malformed`);
  const root = b64(rootText);
  if (root.length !== 32) throw new Error(`checkpoint root "${rootText}" is malformed`);
  return { origin, size: BigInt(sizeText), root };
}

/** An RFC 3339 UTC time to whole seconds and nanoseconds (Date alone keeps milliseconds). */
export function parseRFC3339(s: string): { seconds: bigint; nanos: number } | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(m[1] + "Z");
  if (Number.isNaN(ms)) return undefined;
  return { seconds: BigInt(ms / 1000), nanos: Number((m[2] ?? "").padEnd(9, "0")) };
}

/** Runs every check the browser can make; a check that depends on a failed one says so. */
export async function verifyCertificate(c: Certificate, work?: Uint8Array): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string, skipped = false) => checks.push({ name, ok, detail, skipped });
  add("bundle_format", c.format === "creativeops/certificate/v1", c.format || "(none)");

  let rec: Record<string, unknown> | undefined;
  try {
    rec = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(c.record)) as Record<string, unknown>;
  } catch (e) {
    add("record", false, `record bytes are not JSON: ${(e as Error).message}`);
  }

  if (!work) add("work_hash", true, "skipped: choose the work's file to compare its SHA-256", true);
  else if (!rec) add("work_hash", false, "not checked: record failed");
  else {
    const got = "sha256:" + hex(await sha256(work));
    add("work_hash", got === rec.content_hash, got === rec.content_hash ? `work matches ${got}` : `work hashes to ${got}, record says ${String(rec.content_hash)}`);
  }

  if (rec) {
    const shown: Record<string, string> = {
      id: c.id,
      organization_id: c.organizationId,
      creator_id: c.creatorId,
      title: c.title,
      type: c.type,
      description: c.description,
      certificate_id: c.certificateId,
      content_hash: c.contentHash,
    };
    const diffs = Object.entries(shown)
      .filter(([k, v]) => (rec![k] ?? "") !== v)
      .map(([k, v]) => `${k}: record "${String(rec![k])}", shown "${v}"`);
    const recTime = typeof rec.timestamp === "string" ? parseRFC3339(rec.timestamp) : undefined;
    const shownTime = c.timestamp ? { seconds: c.timestamp.seconds, nanos: c.timestamp.nanos } : undefined;
    if (!recTime || !shownTime || recTime.seconds !== shownTime.seconds || recTime.nanos !== shownTime.nanos)
      diffs.push(`timestamp: record ${String(rec.timestamp)}, shown ${c.timestamp ? timestampDate(c.timestamp).toISOString() : "none"}`);
    if (rec.format !== "creativeops/record/v1") diffs.push(`format: ${String(rec.format)}`);
    add("record", diffs.length === 0, diffs.length === 0 ? "record bytes match the displayed fields" : diffs.join("; "));
    add("content_hash", /^sha256:[0-9a-f]{64}$/.test(c.contentHash) && rec.content_hash === c.contentHash, c.contentHash);
  } else {
    add("content_hash", false, "not checked: record failed");
  }

  add("timestamp_token", true, "not checked in the browser: run `creativeops verify --bundle` or `openssl ts -verify` (see docs/ip-registry.md)", true);

  let cp: OpenedCheckpoint | undefined;
  try {
    cp = await openCheckpoint(c.checkpoint, c.logVerifierKey);
    add("checkpoint_signature", true, `Ed25519 signature of ${cp.origin}: tree size ${cp.size}, root ${toB64(cp.root)}`);
  } catch (e) {
    add("checkpoint_signature", false, (e as Error).message);
  }
  if (!cp) add("log_inclusion", false, "not checked: checkpoint_signature failed");
  else if (cp.size !== c.treeSize) add("log_inclusion", false, `bundle tree_size ${c.treeSize}, checkpoint size ${cp.size}`);
  else {
    try {
      const root = await rootFromInclusionProof(c.logIndex, cp.size, await leafHash(c.record), c.inclusionProof);
      add("log_inclusion", equal(root, cp.root), equal(root, cp.root) ? `record is entry ${c.logIndex} of ${cp.size}` : `proof leads to root ${toB64(root)}, checkpoint has ${toB64(cp.root)}`);
    } catch (e) {
      add("log_inclusion", false, `inclusion proof for index ${c.logIndex}: ${(e as Error).message}`);
    }
  }
  return checks;
}
