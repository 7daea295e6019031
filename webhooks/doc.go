// Package webhooks holds the domain logic for creativeops' outgoing webhooks:
// secrets and signatures, the event payload, endpoint URL policy, an
// SSRF-safe HTTP client, the retry schedule and a single delivery attempt
// (the pure rules, testable without a database), and the durable part built
// on them: the Dispatcher that turns events into deliveries and the River
// Worker that makes the attempts (store.go, worker.go).
//
// # Signing
//
// Deliveries follow the Standard Webhooks specification
// (https://www.standardwebhooks.com), the same scheme Svix uses, so that
// customers can verify them with any off-the-shelf verifier instead of
// code we would have to document and support. Each request carries:
//
//	webhook-id:        the event id (evt_...), identical on every retry so
//	                   receivers can deduplicate
//	webhook-timestamp: the attempt time in Unix seconds, so receivers can
//	                   reject replays outside their tolerance (usually 5 min)
//	webhook-signature: v1,<base64(HMAC-SHA256(key, id + "." + timestamp + "." + body))>
//
// The key is the base64 decoding of a "whsec_" secret, or the raw UTF-8
// bytes of any other secret (for customers who bring their own).
// GenerateSecret produces whsec_ secrets. After a secret rotation, for the
// grace period, webhook-signature holds two space-separated signatures,
// the new secret's first: Standard Webhooks verifiers accept a request
// when any one of them matches, so receivers switch secrets at their own
// pace.
//
// The body is the JSON form of Event:
//
//	{"id":"evt_...","type":"engine.job.completed","timestamp":"2026-01-02T03:04:05.678Z","data":{...}}
//
// The payload timestamp is RFC 3339 in UTC with exactly three fractional
// digits (milliseconds). It records when the event happened, not when it was
// sent, so it stays constant across retries, unlike webhook-timestamp.
//
// # Retries
//
// DefaultSchedule is the Svix schedule: the first attempt immediately, then
// retries 5 seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, 10 hours and
// 10 hours after the previous failure, eight attempts spanning roughly 28
// hours, long enough to ride out a customer's overnight outage. Every delay
// gets ±10% jitter so that the retries caused by one outage do not all
// land on the recovering endpoint at the same instant. When an endpoint
// answers 429 or 503 with Retry-After, the service should wait for the larger
// of the scheduled delay and Attempt.RetryAfter.
//
// # Disabling
//
// A webhook is disabled through the API (:disable), when its endpoint
// answers 410 Gone, or when Worker.DisableAfter of its deliveries in a
// row failed after every retry (a success resets the count). The last
// two record a webhook.disabled event, which the organization's other
// endpoints receive. :enable makes it active again.
//
// # Outcomes
//
// Deliver classifies each attempt as one of:
//
//   - Succeeded: any 2xx response.
//   - Disable: 410 Gone. The receiver has told us the endpoint is gone for
//     good, so the webhook must be disabled and the message not retried.
//   - Retry: everything else: network errors, timeouts, refused (SSRF)
//     dials, 5xx, 429 and any other non-2xx, including 3xx, because
//     redirects are never followed (a redirect could point at an internal
//     address that the URL check never saw).
//
// # Durability
//
// An event, its deliveries (one per matching active webhook) and their
// River jobs are written in the transaction of the change that caused the
// event, so a crash loses nothing. Each job makes one attempt and records
// it, with the delivery's new state and the job of the next attempt, in
// one transaction. The job carries the attempt count it expects, so a job
// that runs twice (rescued after a crash) cannot send a later attempt
// twice; a crash between the HTTP request and that transaction means the
// attempt is made again, which is why deliveries are at least once and
// receivers deduplicate on webhook-id. Failed HTTP attempts never count
// against River's own retries, which are left for errors of ours such as
// a database outage. Deleting or disabling a webhook fails its pending
// deliveries in the same transaction, and every attempt re-reads the
// webhook, so a gone endpoint receives nothing more.
//
// # SSRF
//
// Endpoint URLs come from customers, so they are checked twice: ValidateURL
// rejects obviously internal targets when a webhook is registered, and the
// client built by NewClient re-checks every resolved IP address at dial
// time, which is the check that matters because DNS can change after
// registration (DNS rebinding).
package webhooks
