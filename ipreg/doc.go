// Package ipreg is the domain logic of the creativeops IP registry: it turns
// a registration into a certificate that anyone can check offline, years
// later, without trusting or even reaching the service.
//
// # What a certificate proves
//
// A certificate ([Bundle]) binds a record (who registered which content,
// under what title, at what time) to two independent pieces of evidence:
//
//   - An RFC 3161 timestamp token from the registry's TSA over
//     SHA-256(record bytes). It proves the record existed, exactly as
//     written, no later than the token's genTime. Standard tools check it:
//     openssl ts -verify -digest <sha256 of record> -in token.tsr -CAfile root.pem
//   - Membership in an append-only transparency log: an inclusion proof from
//     the record to a checkpoint signed by the log key. Because the log only
//     grows (consistency proofs show that any later checkpoint extends any
//     earlier one), the operator cannot quietly back-date, remove or rewrite a
//     registration without publishing a checkpoint that contradicts one
//     someone has already seen.
//
// Together these show that the content whose SHA-256 is in the record was
// registered at that time by that creator. They do not show that the
// creator authored the work, only that this claim was on record here by that time.
//
// A bundle carries its own trust anchors (the TSA root and the log verifier
// key), so [Verify] establishes internal consistency only. A verifier must
// compare those anchors with the values the service publishes, for example
// with [VerifyPinned] or by comparing [Keys.RootFingerprint].
//
// # Canonical record bytes
//
// Every signature and hash covers the output of [CanonicalBytes]: the
// RFC 8785 (JCS) encoding of a JSON object with only string members,
//
//	{"certificate_id":…,"content_hash":…,"creator_id":…,"description":…,
//	 "format":"creativeops/record/v1","id":…,"organization_id":…,
//	 "timestamp":…,"title":…,"type":…}
//
// (shown wrapped; the real bytes contain no whitespace): keys in sorted
// order, all present, only '"', '\' and control characters escaped, the
// timestamp as RFC 3339 UTC with trailing fractional zeros dropped
// ("2025-03-04T04:06:07.12Z"), content_hash as "sha256:<64 lowercase hex>"
// (see [NormalizeContentHash]). Verifiers hash the bytes shipped in the
// bundle; they never need to re-encode, and [ParseRecord] rejects any other
// spelling so the displayed fields cannot diverge from the signed ones.
//
// # Log format
//
// The log is an RFC 6962 Merkle tree as implemented by
// golang.org/x/mod/sumdb/tlog. A record's leaf hash is
// SHA-256(0x00 || record bytes) ([tlog.RecordHash]); interior nodes are
// SHA-256(0x01 || left || right). Checkpoints follow C2SP tlog-checkpoint:
// a signed note (C2SP signed-note, Ed25519) whose text is
//
//	<origin>
//	<tree size, decimal>
//	<root hash, standard base64>
//
// signed by a key whose name equals the origin, e.g.
// "creativeops.example/ip-log/1".
//
// Storage belongs to the caller: it stores the hashes returned by
// [AppendHashes] at consecutive tlog storage indexes starting at
// tlog.StoredHashIndex(0, n) and serves them back through a tlog.HashReader.
//
// # Timestamp tokens
//
// Tokens are DER TimeStampResp messages (application/timestamp-reply),
// SHA-256 imprint, signed with ECDSA P-256 by a TSA certificate that carries
// a critical timeStamping-only extended key usage and is issued by the
// registry's self-signed root. The token embeds the TSA certificate and an
// ESS signing-certificate-v2 attribute, and names the TSA policy
// [PolicyOID]. genTime has one-second resolution and one-second stated
// accuracy, and must equal the record's timestamp truncated to the second.
package ipreg
