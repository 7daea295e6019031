// Offline verification of IP certificates, as `creativeops verify` does
// (ipreg/bundle.go), with Web Crypto only (Node 20 and browsers): the
// work's SHA-256, the record bytes against the displayed fields, the RFC
// 3161 timestamp token (CMS signature, certificate chain to the TSA root,
// EKU, ESS binding, imprint and time), the checkpoint's Ed25519
// signed-note signature, the RFC 6962 inclusion proof, and, given the
// service's published keys, that the bundle uses them.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Certificate, IPKeys } from "./gen/creativeops/v1/ip_pb.js";

/** The outcome of one verification step, named as `creativeops verify` names it. */
export interface CertificateCheck {
  name: string;
  ok: boolean;
  /** A check that could not be made (work_hash without the work): it counts as passed. */
  skipped?: boolean;
  detail: string;
}

/** What a verified certificate proves: the signed record's fields and the token's time. */
export interface VerifiedCertificate {
  certificateId: string;
  /** The record id (ipr_...). */
  id: string;
  organizationId: string;
  creatorId: string;
  title: string;
  type: string;
  description: string;
  /** "sha256:<hex>" of the registered work. */
  contentHash: string;
  /** When the work was registered: the TSA's signed time (whole seconds). */
  timestamp: Date;
  /** The TSA token's serial number, in decimal. */
  tokenSerial: string;
  /** The log's origin and the record's place in it. */
  logOrigin: string;
  logIndex: bigint;
  treeSize: bigint;
  /** Every check made, all passed. */
  checks: CertificateCheck[];
}

/**
 * A certificate that does not verify. Not an API error (it extends Error,
 * not CreativeOpsError): `failed` names the checks that failed, `checks`
 * has them all with their details.
 */
export class CertificateVerificationError extends Error {
  override readonly name = "CertificateVerificationError";
  readonly checks: CertificateCheck[];
  readonly failed: string[];

  constructor(checks: CertificateCheck[]) {
    const failed = checks.filter((c) => !c.ok);
    super(`certificate verification failed: ${failed.map((c) => `${c.name} (${c.detail})`).join("; ")}`);
    this.checks = checks;
    this.failed = failed.map((c) => c.name);
  }
}

export interface CheckCertificateOptions {
  /** The registered file: its SHA-256 must be the record's content hash. */
  work?: Uint8Array;
  /**
   * The service's published keys (GET /v1/ip/keys), obtained apart from the
   * bundle: the bundle must use this TSA root and one of these log keys
   * (check trust_anchors). Without them a check proves only that the bundle
   * is consistent with the keys it carries itself.
   */
  keys?: IPKeys;
}

/**
 * Verifies a certificate bundle offline against the service's keys
 * (GET /v1/ip/keys, e.g. from co.ip.getKeys(), ideally kept from earlier)
 * and returns what it proves; throws CertificateVerificationError naming
 * each failed check. With `work`, also checks the file is the registered one.
 *
 *     const claims = await verifyCertificate(await co.ip.getCertificate(id), await co.ip.getKeys());
 *     console.log(`${claims.title} (${claims.contentHash}) existed at ${claims.timestamp.toISOString()}`);
 */
export async function verifyCertificate(certificate: Certificate, keys: IPKeys, options: { work?: Uint8Array } = {}): Promise<VerifiedCertificate> {
  if (keys === undefined || keys === null || typeof keys.tsaRootPem !== "string") {
    throw new TypeError("keys: the service's IPKeys (co.ip.getKeys()) are required");
  }
  const { checks, token, checkpoint } = await runChecks(certificate, { ...options, keys });
  if (checks.some((c) => !c.ok) || token === undefined || checkpoint === undefined) {
    throw new CertificateVerificationError(checks);
  }
  return {
    certificateId: certificate.certificateId,
    id: certificate.id,
    organizationId: certificate.organizationId,
    creatorId: certificate.creatorId,
    title: certificate.title,
    type: certificate.type,
    description: certificate.description,
    contentHash: certificate.contentHash,
    timestamp: new Date(Number(token.genTime.seconds) * 1000),
    tokenSerial: token.serial.toString(),
    logOrigin: checkpoint.origin,
    logIndex: certificate.logIndex,
    treeSize: checkpoint.size,
    checks,
  };
}

/**
 * Runs every check and reports each, failed or not, in the order and with
 * the names of `creativeops verify`: bundle_format, work_hash, record,
 * content_hash, timestamp_token, timestamp_imprint, timestamp_time,
 * checkpoint_signature, log_inclusion, and trust_anchors when keys are
 * given. A check that depends on a failed one fails saying so.
 */
export async function checkCertificate(c: Certificate, options: CheckCertificateOptions = {}): Promise<CertificateCheck[]> {
  return (await runChecks(c, options)).checks;
}

const enc = new TextEncoder();

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(...parts)));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    all.set(p, o);
    o += p.length;
  }
  return all;
}

function hex(b: Uint8Array): string {
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

// --- DER, X.509 and CMS, as far as an RFC 3161 token needs them ---

interface Der {
  tag: number;
  /** The whole TLV. */
  raw: Uint8Array;
  /** The contents. */
  value: Uint8Array;
}

/** Reads the DER TLV at pos (single-byte tags, definite lengths). */
function readDer(buf: Uint8Array, pos = 0): Der {
  const tag = buf[pos];
  let len = buf[pos + 1];
  if (tag === undefined || len === undefined) throw new Error("DER: truncated");
  let hdr = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Error("DER: unsupported length");
    len = 0;
    for (let k = 0; k < n; k++) {
      const b = buf[pos + 2 + k];
      if (b === undefined) throw new Error("DER: truncated");
      len = len * 256 + b;
    }
    hdr += n;
  }
  if (pos + hdr + len > buf.length) throw new Error("DER: truncated");
  return { tag, raw: buf.subarray(pos, pos + hdr + len), value: buf.subarray(pos + hdr, pos + hdr + len) };
}

function children(d: Der): Der[] {
  const out: Der[] = [];
  for (let pos = 0; pos < d.value.length; ) {
    const c = readDer(d.value, pos);
    out.push(c);
    pos += c.raw.length;
  }
  return out;
}

/** The element at index i of a constructed DER value, of the given tag. */
function at(items: Der[], i: number, tag: number, what: string): Der {
  const d = items[i];
  if (d === undefined || d.tag !== tag) throw new Error(`${what}: malformed`);
  return d;
}

function oid(d: Der): string {
  if (d.tag !== 0x06) throw new Error("DER: not an OBJECT IDENTIFIER");
  const parts: number[] = [];
  let v = 0;
  for (const b of d.value) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join(".");
}

function integer(d: Der): bigint {
  if (d.tag !== 0x02 || d.value.length === 0) throw new Error("DER: not an INTEGER");
  let v = 0n;
  for (const b of d.value) v = (v << 8n) | BigInt(b);
  return (d.value[0]! & 0x80) !== 0 ? v - (1n << BigInt(d.value.length * 8)) : v;
}

/** UTCTime or GeneralizedTime, to seconds and nanoseconds since the epoch. */
function derTime(d: Der): { seconds: bigint; nanos: number } {
  const s = new TextDecoder().decode(d.value);
  const m =
    d.tag === 0x17
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s)
      : d.tag === 0x18
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,9}))?Z$/.exec(s)
        : null;
  if (!m) throw new Error(`DER: malformed time "${s}"`);
  let year = Number(m[1]);
  if (d.tag === 0x17) year += year < 50 ? 2000 : 1900;
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return { seconds: BigInt(ms / 1000), nanos: Number((m[7] ?? "").padEnd(9, "0")) };
}

const OID = {
  signedData: "1.2.840.113549.1.7.2",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  signingCertificate: "1.2.840.113549.1.9.16.2.12",
  sha256: "2.16.840.1.101.3.4.2.1",
  sha384: "2.16.840.1.101.3.4.2.2",
  sha512: "2.16.840.1.101.3.4.2.3",
  rsaEncryption: "1.2.840.113549.1.1.1",
  sha256WithRSA: "1.2.840.113549.1.1.11",
  sha384WithRSA: "1.2.840.113549.1.1.12",
  sha512WithRSA: "1.2.840.113549.1.1.13",
  basicConstraints: "2.5.29.19",
  ecdsaWithSHA256: "1.2.840.10045.4.3.2",
  ecPublicKey: "1.2.840.10045.2.1",
  p256: "1.2.840.10045.3.1.7",
  extKeyUsage: "2.5.29.37",
  keyUsage: "2.5.29.15",
  timeStamping: "1.3.6.1.5.5.7.3.8",
  commonName: "2.5.4.3",
} as const;

interface X509 {
  raw: Uint8Array;
  tbs: Uint8Array;
  sigAlg: string;
  signature: Uint8Array;
  serial: bigint;
  issuer: Uint8Array;
  subject: Uint8Array;
  commonName: string;
  notBefore: bigint;
  notAfter: bigint;
  spki: Uint8Array;
  extensions: { id: string; critical: boolean; value: Uint8Array }[];
}

function parseCert(raw: Uint8Array): X509 {
  const cert = readDer(raw);
  if (cert.tag !== 0x30 || cert.raw.length !== raw.length) throw new Error("certificate: not one DER SEQUENCE");
  const [tbs, alg, sig] = children(cert);
  if (tbs?.tag !== 0x30 || alg?.tag !== 0x30 || sig?.tag !== 0x03) throw new Error("certificate: malformed");
  const f = children(tbs);
  let i = f[0]?.tag === 0xa0 ? 1 : 0; // [0] version
  const serial = integer(at(f, i++, 0x02, "certificate serial"));
  i++; // signature algorithm, repeated outside
  const issuer = at(f, i++, 0x30, "certificate issuer");
  const validity = children(at(f, i++, 0x30, "certificate validity"));
  const subject = at(f, i++, 0x30, "certificate subject");
  const spki = at(f, i++, 0x30, "certificate public key");
  const extensions: X509["extensions"] = [];
  for (const d of f.slice(i)) {
    if (d.tag !== 0xa3) continue;
    for (const e of children(at(children(d), 0, 0x30, "certificate extensions"))) {
      const parts = children(e);
      const critical = parts[1]?.tag === 0x01 && parts[1].value[0] !== 0;
      const value = parts[parts.length - 1];
      if (value?.tag !== 0x04) throw new Error("certificate extension: malformed");
      extensions.push({ id: oid(at(parts, 0, 0x06, "extension id")), critical, value: value.value });
    }
  }
  let commonName = "";
  for (const rdn of children(subject)) {
    for (const atv of children(rdn)) {
      const [t, v] = children(atv);
      if (t && v && oid(t) === OID.commonName) commonName = new TextDecoder().decode(v.value);
    }
  }
  const [notBefore, notAfter] = validity;
  if (!notBefore || !notAfter) throw new Error("certificate validity: malformed");
  return {
    raw: cert.raw,
    tbs: tbs.raw,
    sigAlg: oid(at(children(alg), 0, 0x06, "certificate signature algorithm")),
    signature: sig.value.subarray(1), // BIT STRING: no unused bits in a signature
    serial,
    issuer: issuer.raw,
    subject: subject.raw,
    commonName,
    notBefore: derTime(notBefore).seconds,
    notAfter: derTime(notAfter).seconds,
    spki: spki.raw,
    extensions,
  };
}

/** The DER of the first CERTIFICATE block of a PEM text. */
function pemCert(pem: string): Uint8Array {
  const m = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/.exec(pem);
  if (!m) throw new Error("no CERTIFICATE in the PEM text");
  return b64(m[1]!.replace(/\s+/g, ""));
}

/** A DER ECDSA signature (SEQUENCE of r and s) as Web Crypto's r || s, for P-256. */
function rawECDSASignature(der: Uint8Array): Uint8Array<ArrayBuffer> {
  const seq = readDer(der);
  const [r, s] = children(seq);
  if (seq.tag !== 0x30 || r?.tag !== 0x02 || s?.tag !== 0x02) throw new Error("ECDSA signature: malformed");
  const fixed = (v: Uint8Array) => {
    const t = v.subarray(Math.max(0, v.findIndex((b) => b !== 0)));
    if (t.length > 32) throw new Error("ECDSA signature: value too long for P-256");
    const out = new Uint8Array(32);
    out.set(t, 32 - t.length);
    return out;
  };
  return concat(fixed(r.value), fixed(s.value));
}

const RSA_HASHES: Record<string, string> = {
  [OID.sha256WithRSA]: "SHA-256",
  [OID.sha384WithRSA]: "SHA-384",
  [OID.sha512WithRSA]: "SHA-512",
};

/** Web Crypto's name of a digest algorithm a signer may use. */
const DIGESTS: Record<string, string> = { [OID.sha256]: "SHA-256", [OID.sha384]: "SHA-384", [OID.sha512]: "SHA-512" };

/**
 * Verifies a signature by the key of an SPKI: ecdsa-with-SHA256 by a P-256
 * key, or RSA PKCS#1 v1.5 with SHA-256, SHA-384 or SHA-512 by an RSA key.
 * A CMS signer may name its algorithm rsaEncryption alone: digest is then
 * its digest algorithm (Web Crypto name).
 */
async function verifySignature(spki: Uint8Array, alg: string, signature: Uint8Array, data: Uint8Array, digest = "SHA-256"): Promise<boolean> {
  const [keyAlg] = children(readDer(spki));
  const [kind, curve] = keyAlg ? children(keyAlg) : [];
  const keyKind = kind ? oid(kind) : "";
  if (alg === OID.ecdsaWithSHA256 || (alg === OID.ecPublicKey && digest === "SHA-256")) {
    if (keyKind !== OID.ecPublicKey || !curve || curve.tag !== 0x06 || oid(curve) !== OID.p256) throw new Error("ECDSA signature by a key that is not ECDSA P-256");
    const key = await crypto.subtle.importKey("spki", new Uint8Array(spki), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    return crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, rawECDSASignature(signature), new Uint8Array(data));
  }
  const hash = alg === OID.rsaEncryption ? digest : RSA_HASHES[alg];
  if (hash === undefined) throw new Error(`unsupported signature algorithm ${alg}`);
  if (keyKind !== OID.rsaEncryption) throw new Error("RSA signature by a key that is not RSA");
  const key = await crypto.subtle.importKey("spki", new Uint8Array(spki), { name: "RSASSA-PKCS1-v1_5", hash }, false, ["verify"]);
  return crypto.subtle.verify({ name: "RSASSA-PKCS1-v1_5" }, key, new Uint8Array(signature), new Uint8Array(data));
}

/** Whether c is marked a CA (basicConstraints cA TRUE) allowed to sign certificates, and its path length limit. */
function caConstraints(c: X509): { ca: boolean; pathLen: number | undefined } {
  const bc = c.extensions.find((e) => e.id === OID.basicConstraints);
  if (!bc) return { ca: false, pathLen: undefined };
  const f = children(readDer(bc.value));
  const ca = f[0]?.tag === 0x01 && f[0].value[0] !== 0;
  const pl = f.find((d) => d.tag === 0x02);
  const ku = c.extensions.find((e) => e.id === OID.keyUsage);
  const certSign = !ku || ((readDer(ku.value).value[1] ?? 0) & 0x04) !== 0; // keyCertSign, bit 5
  return { ca: ca && certSign, pathLen: pl ? Number(integer(pl)) : undefined };
}

/** At most this many intermediate CAs between a TSA certificate and a given CA. */
const MAX_INTERMEDIATES = 4;

/**
 * The chain from the TSA certificate to one of roots: each certificate's
 * signature verified by its issuer's key, each valid at time, each
 * intermediate (from the token's certificates, when allowed) a CA whose
 * path length limit holds. Returns the certificates above the TSA one,
 * the root last; throws saying why there is none.
 */
async function chainToRoot(signer: X509, pool: X509[], roots: X509[], time: bigint): Promise<X509[]> {
  let reason = "";
  const validAt = (c: X509) => time >= c.notBefore && time <= c.notAfter;
  const walk = async (c: X509, above: X509[]): Promise<X509[] | undefined> => {
    for (const r of roots) {
      if (!equal(c.issuer, r.subject)) continue;
      if (!(await verifySignature(r.spki, c.sigAlg, c.signature, c.tbs).catch(() => false))) {
        reason ||= above.length === 0 ? "TSA certificate signature does not verify with the TSA root" : "intermediate CA certificate signature does not verify with the TSA root";
        continue;
      }
      if (!validAt(r)) {
        reason = "TSA root was not valid at the token's time";
        continue;
      }
      return [...above, r];
    }
    if (above.length >= MAX_INTERMEDIATES) return undefined;
    for (const p of pool) {
      if (p === signer || above.includes(p) || !equal(c.issuer, p.subject)) continue;
      const { ca, pathLen } = caConstraints(p);
      if (!ca) {
        reason = "an intermediate certificate in the token is not a CA";
        continue;
      }
      if (pathLen !== undefined && pathLen < above.length) {
        reason = "an intermediate CA's path length limit is exceeded";
        continue;
      }
      if (!(await verifySignature(p.spki, c.sigAlg, c.signature, c.tbs).catch(() => false))) {
        reason ||= "a certificate signature does not verify with its intermediate CA";
        continue;
      }
      if (!validAt(p)) {
        reason = "intermediate CA certificate was not valid at the token's time";
        continue;
      }
      const found = await walk(p, [...above, p]);
      if (found) return found;
    }
    return undefined;
  };
  const chain = await walk(signer, []);
  if (chain) return chain;
  throw new Error(reason || "TSA certificate is not issued by the TSA root");
}

export interface TimestampToken {
  genTime: { seconds: bigint; nanos: number };
  serial: bigint;
  policy: string;
  /** The imprint: SHA-256 of what the TSA stamped. */
  digest: Uint8Array;
  /** The common name of the TSA certificate. */
  signer: string;
}

/**
 * Checks an RFC 3161 TimeStampResp as ipreg.VerifyToken does: granted, one
 * signer with its certificate embedded, signed attributes binding the
 * TSTInfo (content type, message digest) and the signer's certificate (ESS
 * signing-certificate-v2), an ECDSA signature by that certificate, which
 * the TSA root issued, which carries exactly the critical timeStamping
 * EKU, and which was valid at the token's time, as was the root. Returns
 * what the token says; throws saying what is wrong.
 */
export async function verifyTimestampToken(token: Uint8Array, rootPEM: string): Promise<TimestampToken> {
  return verifyToken(token, [parseCert(pemCert(rootPEM))], false);
}

/** The DER of every CERTIFICATE block of PEM texts. */
function pemCerts(pems: string[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const pem of pems) {
    for (const m of pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)) out.push(b64(m[1]!.replace(/\s+/g, "")));
  }
  return out;
}

/**
 * verifyTimestampToken for a token of an independent timestamp authority
 * (a certificate's externalTimestamps): its TSA certificate must chain to
 * one of the CA certificates in caPEMs, directly or through intermediate
 * CAs embedded in the token (each a CA, each signature verified, each
 * valid at the token's time); signatures may be ECDSA P-256 with SHA-256
 * or RSA PKCS#1 v1.5 with SHA-256, SHA-384 or SHA-512, as real
 * authorities use; and its ESS signing-certificate attribute may be v1
 * (SHA-1, OpenSSL's default and that of many authorities) or v2.
 */
export async function verifyExternalTimestampToken(token: Uint8Array, caPEMs: string[]): Promise<TimestampToken> {
  const roots = pemCerts(caPEMs).map(parseCert);
  if (roots.length === 0) throw new Error("no CERTIFICATE in the authorities' CA PEM");
  return verifyToken(token, roots, true);
}

/**
 * external: a token of an independent authority, which may use ESS v1,
 * RSA and SHA-384/512, and intermediate CAs embedded in the token.
 */
async function verifyToken(token: Uint8Array, roots: X509[], external: boolean): Promise<TimestampToken> {
  const resp = children(readDer(token));
  const status = children(at(resp, 0, 0x30, "timestamp response status"));
  const granted = integer(at(status, 0, 0x02, "timestamp response status"));
  if (granted !== 0n && granted !== 1n) throw new Error(`timestamp response status ${granted}: not granted`);
  const contentInfo = children(at(resp, 1, 0x30, "timestamp token"));
  if (oid(at(contentInfo, 0, 0x06, "timestamp token content type")) !== OID.signedData) throw new Error("timestamp token is not CMS SignedData");
  const sd = children(at(children(at(contentInfo, 1, 0xa0, "timestamp token content")), 0, 0x30, "SignedData"));
  const encap = children(at(sd, 2, 0x30, "SignedData content"));
  if (oid(at(encap, 0, 0x06, "SignedData content type")) !== OID.tstInfo) throw new Error("timestamp token content is not TSTInfo");
  const tstInfoDer = at(children(at(encap, 1, 0xa0, "SignedData content")), 0, 0x04, "TSTInfo").value;
  let i = 3;
  const certs: X509[] = [];
  if (sd[i]?.tag === 0xa0) {
    for (const c of children(sd[i]!)) certs.push(parseCert(c.raw));
    i++;
  }
  if (sd[i]?.tag === 0xa1) i++; // CRLs
  const signers = children(at(sd, i, 0x31, "SignedData signer infos"));
  if (signers.length !== 1 || signers[0]!.tag !== 0x30) throw new Error("timestamp token must have exactly one signer");
  const si = children(signers[0]!);
  const sid = children(at(si, 1, 0x30, "signer identifier (issuer and serial)"));
  const sidIssuer = at(sid, 0, 0x30, "signer issuer").raw;
  const sidSerial = integer(at(sid, 1, 0x02, "signer serial"));
  const signer = certs.find((c) => equal(c.issuer, sidIssuer) && c.serial === sidSerial);
  if (!signer) throw new Error("timestamp token must have exactly one signer with an embedded certificate");
  const digestName = DIGESTS[oid(at(children(at(si, 2, 0x30, "signer digest algorithm")), 0, 0x06, "signer digest algorithm"))];
  if (digestName === undefined || (!external && digestName !== "SHA-256")) throw new Error(`timestamp token signer digest is not ${external ? "SHA-256, SHA-384 or SHA-512" : "SHA-256"}`);
  const signedAttrs = at(si, 3, 0xa0, "signed attributes");
  const attrs = new Map<string, Der[]>();
  for (const a of children(signedAttrs)) {
    const [id, values] = children(a);
    if (id && values?.tag === 0x31) attrs.set(oid(id), children(values));
  }
  const ct = attrs.get(OID.contentType)?.[0];
  if (!ct || oid(ct) !== OID.tstInfo) throw new Error("timestamp token signed content type is not TSTInfo");
  const md = attrs.get(OID.messageDigest)?.[0];
  if (md?.tag !== 0x04 || !equal(md.value, new Uint8Array(await crypto.subtle.digest(digestName, new Uint8Array(tstInfoDer))))) throw new Error("timestamp token message digest does not match its TSTInfo");
  // ESS signing-certificate-v2: SEQUENCE { certs SEQUENCE OF ESSCertIDv2 { [hashAlgorithm] certHash ... } }
  let scv2 = attrs.get(OID.signingCertificateV2)?.[0];
  let certHash = await sha256(signer.raw);
  if (!scv2 && external && attrs.get(OID.signingCertificate)?.[0]) {
    // ESS v1 (RFC 2634): ESSCertID names the certificate by SHA-1 and has no hashAlgorithm.
    scv2 = attrs.get(OID.signingCertificate)![0];
    certHash = new Uint8Array(await crypto.subtle.digest("SHA-1", new Uint8Array(signer.raw)));
  }
  if (!scv2) throw new Error("timestamp token lacks the ESS signing-certificate-v2 attribute");
  const essCerts = children(at(children(scv2), 0, 0x30, "ESS certificates"));
  if (essCerts.length === 0) throw new Error("timestamp token ESS attribute names no certificate");
  const essId = children(essCerts[0]!);
  let h = 0;
  if (essId[0]?.tag === 0x30) {
    if (oid(at(children(essId[0]), 0, 0x06, "ESS hash algorithm")) !== OID.sha256) throw new Error("timestamp token ESS attribute uses an unsupported hash");
    h = 1;
  }
  if (!equal(at(essId, h, 0x04, "ESS certificate hash").value, certHash)) {
    throw new Error("timestamp token ESS attribute does not match the signing certificate");
  }
  const sigAlg = oid(at(children(at(si, 4, 0x30, "signature algorithm")), 0, 0x06, "signature algorithm"));
  const signature = at(si, 5, 0x04, "signature").value;
  // The signature covers the signed attributes as a SET (RFC 5652 §5.4).
  const signedBytes = concat(new Uint8Array([0x31]), signedAttrs.raw.subarray(1));
  if (!external && sigAlg !== OID.ecdsaWithSHA256) throw new Error(`unsupported signature algorithm ${sigAlg}`);
  if (!(await verifySignature(signer.spki, sigAlg, signature, signedBytes, digestName))) throw new Error("timestamp token signature does not verify");

  // The TSA certificate: exactly the critical timeStamping EKU, issued by the root (through intermediates for an external one).
  const eku = signer.extensions.filter((e) => e.id === OID.extKeyUsage);
  if (eku.length !== 1 || !eku[0]!.critical) throw new Error("TSA certificate extended key usage is not critical");
  const usages = children(readDer(eku[0]!.value)).map(oid);
  if (usages.length !== 1 || usages[0] !== OID.timeStamping) throw new Error("TSA certificate extended key usage must be exactly timeStamping");
  const ku = signer.extensions.find((e) => e.id === OID.keyUsage);
  if (ku) {
    const bits = readDer(ku.value).value[1] ?? 0; // first byte after the unused-bits count
    if ((bits & 0xc0) === 0) throw new Error("TSA certificate key usage does not allow signing");
  }
  const tst = children(readDer(tstInfoDer));
  const policy = oid(at(tst, 1, 0x06, "TSTInfo policy"));
  const imprint = children(at(tst, 2, 0x30, "TSTInfo message imprint"));
  if (oid(at(children(at(imprint, 0, 0x30, "imprint algorithm")), 0, 0x06, "imprint algorithm")) !== OID.sha256) throw new Error("timestamp token imprint is not SHA-256");
  const digest = at(imprint, 1, 0x04, "imprint").value;
  if (digest.length !== 32) throw new Error("timestamp token imprint is not SHA-256");
  const serial = integer(at(tst, 3, 0x02, "TSTInfo serial"));
  const genTime = derTime(at(tst, 4, 0x18, "TSTInfo time"));
  // Valid at the token's time, not now: the TSA vouched for the time while its certificate was valid.
  await chainToRoot(signer, external ? certs : [], roots, genTime.seconds);
  if (genTime.seconds < signer.notBefore || genTime.seconds > signer.notAfter) throw new Error("TSA certificate was not valid at the token's time");
  return { genTime, serial, policy, digest: new Uint8Array(digest), signer: signer.commonName };
}

function isoSeconds(t: { seconds: bigint; nanos: number }): string {
  return new Date(Number(t.seconds) * 1000).toISOString().replace(".000Z", "Z");
}

async function runChecks(
  c: Certificate,
  options: CheckCertificateOptions,
): Promise<{ checks: CertificateCheck[]; token?: TimestampToken; checkpoint?: OpenedCheckpoint }> {
  const checks: CertificateCheck[] = [];
  const add = (name: string, ok: boolean, detail: string, skipped = false) => {
    checks.push(skipped ? { name, ok, detail, skipped } : { name, ok, detail });
    return ok;
  };
  const notChecked = (name: string, because: string) => add(name, false, `not checked: ${because} failed`);
  add("bundle_format", c.format === "creativeops/certificate/v1", c.format || "(none)");

  let rec: Record<string, unknown> | undefined;
  let recError = "";
  try {
    const parsed: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(c.record));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not a JSON object");
    rec = parsed as Record<string, unknown>;
  } catch (e) {
    recError = `record bytes are not JSON: ${(e as Error).message}`;
  }

  const work = options.work;
  if (!work) add("work_hash", true, "skipped: no work supplied", true);
  else if (!rec) notChecked("work_hash", "record");
  else {
    const got = "sha256:" + hex(await sha256(work));
    add("work_hash", got === rec.content_hash, got === rec.content_hash ? `work matches ${got}` : `work hashes to ${got}, record says ${String(rec.content_hash)}`);
  }

  const recTime = rec && typeof rec.timestamp === "string" ? parseRFC3339(rec.timestamp) : undefined;
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
      .filter(([k, v]) => rec[k] !== v)
      .map(([k, v]) => `${k}: record ${JSON.stringify(rec[k])}, shown "${v}"`);
    const shownTime = c.timestamp ? { seconds: c.timestamp.seconds, nanos: c.timestamp.nanos } : undefined;
    if (!recTime || !shownTime || recTime.seconds !== shownTime.seconds || recTime.nanos !== shownTime.nanos)
      diffs.push(`timestamp: record ${String(rec.timestamp)}, shown ${c.timestamp ? timestampDate(c.timestamp).toISOString() : "none"}`);
    if (rec.format !== "creativeops/record/v1") diffs.push(`format: ${String(rec.format)}`);
    add("record", diffs.length === 0, diffs.length === 0 ? "record bytes match the displayed fields" : diffs.join("; "));
    add(
      "content_hash",
      /^sha256:[0-9a-f]{64}$/.test(c.contentHash) && rec.content_hash === c.contentHash,
      rec.content_hash === c.contentHash ? c.contentHash : `record has ${JSON.stringify(rec.content_hash)}, bundle shows "${c.contentHash}"`,
    );
  } else {
    add("record", false, recError);
    notChecked("content_hash", "record");
  }

  let token: TimestampToken | undefined;
  try {
    token = await verifyTimestampToken(c.token, c.tsaRootPem);
    if (token.policy !== c.tsaPolicyOid) throw new Error(`token policy ${token.policy}, bundle says ${c.tsaPolicyOid}`);
    add("timestamp_token", true, `signed by "${token.signer}" under policy ${token.policy}, serial ${token.serial}`);
  } catch (e) {
    token = undefined;
    add("timestamp_token", false, (e as Error).message);
  }
  if (token) {
    const digest = await sha256(c.record);
    add(
      "timestamp_imprint",
      equal(token.digest, digest),
      equal(token.digest, digest) ? `token stamps sha256(record) = ${hex(digest)}` : `token stamps ${hex(token.digest)}, record hashes to ${hex(digest)}`,
    );
    if (!recTime) notChecked("timestamp_time", "record");
    else {
      const same = token.genTime.seconds === recTime.seconds && token.genTime.nanos === 0;
      add("timestamp_time", same, same ? `token time ${isoSeconds(token.genTime)}` : `token time ${isoSeconds(token.genTime)}, record time ${String(rec?.timestamp)}`);
    }
  } else {
    notChecked("timestamp_imprint", "timestamp_token");
    notChecked("timestamp_time", "timestamp_token");
  }

  let cp: OpenedCheckpoint | undefined;
  try {
    cp = await openCheckpoint(c.checkpoint, c.logVerifierKey);
    add("checkpoint_signature", true, `Ed25519 signature of ${cp.origin}: tree size ${cp.size}, root ${toB64(cp.root)}`);
  } catch (e) {
    add("checkpoint_signature", false, (e as Error).message);
  }
  if (!cp) notChecked("log_inclusion", "checkpoint_signature");
  else if (cp.size !== c.treeSize) add("log_inclusion", false, `bundle tree_size ${c.treeSize}, checkpoint size ${cp.size}`);
  else {
    try {
      const root = await rootFromInclusionProof(c.logIndex, cp.size, await leafHash(c.record), c.inclusionProof);
      add("log_inclusion", equal(root, cp.root), equal(root, cp.root) ? `record is entry ${c.logIndex} of ${cp.size}` : `proof leads to root ${toB64(root)}, checkpoint has ${toB64(cp.root)}`);
    } catch (e) {
      add("log_inclusion", false, `inclusion proof for index ${c.logIndex}: ${(e as Error).message}`);
    }
  }

  const keys = options.keys;
  if (keys) {
    let problem = "";
    try {
      if (!equal(pemCert(keys.tsaRootPem), pemCert(c.tsaRootPem))) problem = "bundle TSA root is not the pinned root";
    } catch (e) {
      problem = `TSA root: ${(e as Error).message}`;
    }
    if (!problem && !keys.logKeys.some((k) => k.verifierKey.trim() === c.logVerifierKey.trim())) problem = "bundle log verifier key is not one of the pinned keys";
    add("trust_anchors", problem === "", problem || "bundle uses the pinned TSA root and log key");
  }
  return { checks, ...(token ? { token } : {}), ...(cp ? { checkpoint: cp } : {}) };
}

/**
 * How far an external timestamp's time may be from the record's
 * (ipreg.ExternalTimeTolerance), in seconds: within it the token
 * corroborates the registration time; later, it proves existence at its
 * own time only; earlier by more, it contradicts the record.
 */
export const EXTERNAL_TIME_TOLERANCE_SECONDS = 300n;

/**
 * Checks offline a certificate's timestamps from independent RFC 3161
 * authorities (externalTimestamps), one check per authority, named
 * external_timestamp[1], [2], ... as `creativeops verify --tsa-ca` names
 * them. caPEMs are the authorities' CA certificates, obtained from the
 * authorities, never from the bundle; with none, an ok token is reported
 * skipped and unchecked, never ok. A pending or failed timestamp is
 * reported skipped: the certificate has no token from that authority.
 */
export async function checkExternalTimestamps(c: Certificate, caPEMs: string[]): Promise<CertificateCheck[]> {
  const digest = await sha256(c.record);
  let recTime: { seconds: bigint; nanos: number } | undefined;
  try {
    const rec = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(c.record)) as { timestamp?: unknown };
    if (typeof rec.timestamp === "string") recTime = parseRFC3339(rec.timestamp);
  } catch {
    recTime = undefined;
  }
  const checks: CertificateCheck[] = [];
  for (const [i, et] of c.externalTimestamps.entries()) {
    const name = `external_timestamp[${i + 1}]`;
    const url = et.authorityUrl;
    if (et.status === "pending") {
      checks.push({ name, ok: true, skipped: true, detail: `${url}: pending: the authority's token has not been fetched yet${et.error ? ` (last attempt: ${et.error})` : ""}` });
      continue;
    }
    if (et.status === "failed") {
      checks.push({ name, ok: true, skipped: true, detail: `${url}: failed: the authority gave no token (${et.error})` });
      continue;
    }
    if (et.status !== "ok") {
      checks.push({ name, ok: false, detail: `${url}: unknown status ${JSON.stringify(et.status)}` });
      continue;
    }
    if (caPEMs.length === 0) {
      checks.push({ name, ok: true, skipped: true, detail: `UNCHECKED: ${url}: no CA of the authority given; its token is not checked` });
      continue;
    }
    let t: TimestampToken;
    try {
      t = await verifyExternalTimestampToken(et.token, caPEMs);
    } catch (e) {
      checks.push({ name, ok: false, detail: `${url}: ${(e as Error).message}` });
      continue;
    }
    let problem = "";
    if (!equal(t.digest, digest)) problem = `token stamps ${hex(t.digest)}, record hashes to ${hex(digest)}`;
    else if (!recTime) problem = "record unreadable";
    else if (et.genTime && et.genTime.seconds !== t.genTime.seconds) problem = `token time ${isoSeconds(t.genTime)}, bundle shows ${timestampDate(et.genTime).toISOString()}`;
    else if (t.genTime.seconds < recTime.seconds - EXTERNAL_TIME_TOLERANCE_SECONDS)
      problem = `token time ${isoSeconds(t.genTime)} is before the record's time ${isoSeconds(recTime)} by more than ${EXTERNAL_TIME_TOLERANCE_SECONDS} s`;
    if (problem || !recTime) {
      checks.push({ name, ok: false, detail: `${url}: ${problem}` });
      continue;
    }
    const after = t.genTime.seconds - recTime.seconds;
    const when =
      after > EXTERNAL_TIME_TOLERANCE_SECONDS
        ? `proves the record existed by ${isoSeconds(t.genTime)} only, ${after} s after its registration`
        : `stamps sha256(record) at ${isoSeconds(t.genTime)}, within ${EXTERNAL_TIME_TOLERANCE_SECONDS} s of the record's time`;
    checks.push({ name, ok: true, detail: `${url}: signed by "${t.signer}", serial ${t.serial}, ${when}` });
  }
  return checks;
}
