// Witness cosignatures on a certificate's checkpoint (c2sp.org/tlog-cosignature,
// cosignature/v1), checked in the browser with Web Crypto's Ed25519: the
// witness signs "cosignature/v1\ntime <unix seconds>\n" followed by the
// checkpoint text, and its signature line is "— <name> base64(key hash (4) ||
// time (8, big-endian) || Ed25519 signature (64))".

/** A witness to check: its name and cosignature verifier key. */
export interface WitnessKey {
  name: string;
  verifierKey: string;
}

/** The outcome for one witness. */
export interface CosignatureCheck {
  name: string;
  verifierKey: string;
  /** "valid": its cosignature verifies; "missing": the checkpoint carries none by this key; "invalid": one does not verify. */
  result: "valid" | "missing" | "invalid";
  /** When the witness cosigned (valid only). */
  time?: Date;
  detail: string;
}

const enc = new TextEncoder();

function b64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}

/** Parses "name+hash+base64(0x04 || Ed25519 key)", checking the hash. */
async function parseWitnessKey(vkey: string): Promise<{ name: string; hash: Uint8Array; key: Uint8Array<ArrayBuffer> }> {
  const v = vkey.trim();
  const i = v.indexOf("+");
  const j = v.indexOf("+", i + 1);
  if (i <= 0 || j < 0) throw new Error("witness key: not name+hash+key");
  const name = v.slice(0, i);
  const hashHex = v.slice(i + 1, j);
  if (!/^[0-9a-f]{8}$/.test(hashHex)) throw new Error("witness key: hash is not 8 hex digits");
  const key = b64(v.slice(j + 1));
  if (key.length !== 33 || key[0] !== 4) throw new Error("witness key: not a cosignature/v1 Ed25519 key");
  const hash = (await sha256(enc.encode(name + "\n"), key)).slice(0, 4);
  if (hex(hash) !== hashHex) throw new Error("witness key: hash does not match name and key");
  return { name, hash, key: key.slice(1) };
}

/** Checks the checkpoint's cosignature by each witness. */
export async function checkCosignatures(checkpoint: string, witnesses: WitnessKey[]): Promise<CosignatureCheck[]> {
  const split = checkpoint.lastIndexOf("\n\n");
  const text = split < 0 ? "" : checkpoint.slice(0, split + 1);
  const lines = split < 0 ? [] : checkpoint.slice(split + 2).split("\n").filter((l) => l !== "");
  const out: CosignatureCheck[] = [];
  for (const w of witnesses) {
    const base = { name: w.name, verifierKey: w.verifierKey };
    let key;
    try {
      key = await parseWitnessKey(w.verifierKey);
    } catch (e) {
      out.push({ ...base, result: "invalid", detail: (e as Error).message });
      continue;
    }
    const pub = await crypto.subtle.importKey("raw", key.key, { name: "Ed25519" }, false, ["verify"]);
    let check: CosignatureCheck = { ...base, result: "missing", detail: "the checkpoint carries no cosignature by this witness (yet)" };
    for (const line of lines) {
      const m = /^\u2014 (\S+) (\S+)$/.exec(line);
      if (!m || m[1] !== key.name) continue;
      const sig = b64(m[2]!);
      if (sig.length !== 4 + 8 + 64 || hex(sig.slice(0, 4)) !== hex(key.hash)) continue;
      const seconds = new DataView(sig.buffer, sig.byteOffset + 4, 8).getBigUint64(0);
      const msg = enc.encode(`cosignature/v1\ntime ${seconds}\n${text}`);
      if (await crypto.subtle.verify({ name: "Ed25519" }, pub, sig.slice(12), msg)) {
        const time = new Date(Number(seconds) * 1000);
        check = { ...base, result: "valid", time, detail: `cosigned at ${time.toISOString()}` };
      } else {
        check = { ...base, result: "invalid", detail: "the cosignature does not verify: the checkpoint or the line was altered" };
      }
      break;
    }
    out.push(check);
  }
  return out;
}
