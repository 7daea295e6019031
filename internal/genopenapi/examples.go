package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/creativeops/creativeops/oauth"
)

// responseFields are the example values of response fields, by schema and
// field, where the field's name alone (examples, then byName) does not say
// it. A nullable field without one is null in the example.
var responseFields = map[string]any{
	"Job.status":                   "completed",
	"Job.progress":                 100,
	"Job.context":                  map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03"},
	"Job.result":                   planExample,
	"Job.started_at":               "2026-11-02T09:30:00.120Z",
	"Job.completed_at":             "2026-11-02T09:30:00.184Z",
	"Job.attempts":                 1,
	"Job.id":                       "job_01k3zr2b6c8d0e2f4g6h8j0k2m",
	"Job.plan_id":                  "",
	"Plan.id":                      "plan_01k3zx2g4h6j8k0m2n4p6q8r0s",
	"Plan.vertical":                "music",
	"Plan.workflow":                "release-strategy",
	"Plan.context":                 map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03"},
	"Plan.result":                  planExample,
	"Plan.revision":                1,
	"Plan.job_id":                  "job_01k3zr2b6c8d0e2f4g6h8j0k2m",
	"Plan.as_of":                   "2026-11-02",
	"Plan.time_zone":               "UTC",
	"Plan.state":                   "active",
	"Plan.remind_days_before":      3,
	"Plan.auto_replan":             true,
	"Plan.feed_active":             false,
	"Plan.milestones":              []any{map[string]any{"key": "distribution-delivery", "title": "Deliver to distributor", "date": "2027-01-27", "deliverable": true, "state": "pending", "done_at": nil, "revision": 1}},
	"PlanFeed.url":                 "https://api.example.com/v1/plans/plan_01k3zx2g4h6j8k0m2n4p6q8r0s/calendar.ics?token=pft_Xq3vN8kR3xT5wY1zB4cD6fG9hJ2kL5m",
	"MilestoneChange.key":          "distribution-delivery",
	"MilestoneChange.title":        "Deliver to distributor",
	"MilestoneChange.change":       "moved",
	"MilestoneChange.from_date":    "2027-01-27",
	"MilestoneChange.to_date":      "2027-02-03",
	"APIKey.name":                  "Release pipeline",
	"APIKey.prefix":                "co_live_7Hq2",
	"APIKey.rate_limit":            map[string]any{"requests_per_second": 5, "burst": 10},
	"APIKey.expires_at":            "2036-01-01T00:00:00Z",
	"OAuthClient.name":             "Royalty reporting service",
	"OAuthClient.prefix":           oauth.SecretPrefix + "MFRG",
	"OAuthClient.scopes":           []any{"engine:read", "analytics:read"},
	"OAuthClient.jwks_uri":         "",
	"Webhook.secret":               nil,
	"Webhook.disabled_reason":      "",
	"Webhook.description":          "Release pipeline notifications",
	"Webhook.consecutive_failures": 0,
	"Event.id":                     "evt_01k3zw0e2f4g6h8j0k2m4n6p8q",
	"Event.type":                   "creator.created",
	"Event.data":                   map[string]any{"id": "cr_01k3zq8m4d2v7h0b5x9y6t1c2e", "name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "metadata": map[string]any{}, "created_at": "2026-11-02T09:30:00Z"},
	"Event.object_id":              "cr_01k3zq8m4d2v7h0b5x9y6t1c2e",
	"LogWitness.name":              "witness.example/w1",
	"LogWitness.verifier_key":      "witness.example/w1+8c2d4e6f+BGw7qJ3cWk1Zp9xR4tY6uV8sN2mL0hF5dA3gB7eC1iK9",
	"LogWitness.url":               "https://witness.example/w1",
	"LogWitness.status":            "ok",
	"LogWitness.detail":            "",
	"LogWitness.cosigned_size":     "42",
	"LogWitness.cosigned_at":       "2026-11-02T09:30:01Z",
	"Event.sequence":               "42",
	"ListEventsResponse.events": []any{map[string]any{
		"id": "evt_01k3zw0e2f4g6h8j0k2m4n6p8q", "type": "creator.created", "timestamp": "2026-11-02T09:30:00Z",
		"data":      map[string]any{"id": "cr_01k3zq8m4d2v7h0b5x9y6t1c2e", "name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "metadata": map[string]any{}, "created_at": "2026-11-02T09:30:00Z"},
		"object_id": "cr_01k3zq8m4d2v7h0b5x9y6t1c2e", "sequence": "42",
	}},
	"Creator.revision":          1,
	"CreatorDeleted.id":         "cr_01k3zq8m4d2v7h0b5x9y6t1c2e",
	"CreatorDeleted.deleted_at": "2026-11-03T10:00:00Z",
	"CreatorExport.exported_at": "2026-11-03T10:00:00Z",
	"CreatorExport.events": []any{map[string]any{"id": "evt_01k3zw0e2f4g6h8j0k2m4n6p8q", "type": "creator.created", "created_at": "2026-11-02T09:30:00Z",
		"data":       map[string]any{"id": "cr_01k3zq8m4d2v7h0b5x9y6t1c2e", "name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "status": "active", "metadata": nil, "created_at": "2026-11-02T09:30:00Z", "updated_at": "2026-11-02T09:30:00Z", "revision": 1},
		"deliveries": []any{}}},
	"ExportedEvent.id":              "evt_01k3zw0e2f4g6h8j0k2m4n6p8q",
	"ExportedEvent.type":            "creator.created",
	"ExportedEvent.data":            map[string]any{"id": "cr_01k3zq8m4d2v7h0b5x9y6t1c2e", "name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "status": "active", "metadata": nil, "created_at": "2026-11-02T09:30:00Z", "updated_at": "2026-11-02T09:30:00Z", "revision": 1},
	"Delivery.event_type":           "webhook.test",
	"Delivery.status":               "succeeded",
	"Delivery.last_error":           "",
	"Delivery.completed_at":         "2026-11-02T09:31:00.412Z",
	"DeliveryAttempt.error":         "",
	"DeliveryAttempt.response_body": `{"received":true}`,
	"AuditEvent.actor":              "key_01k3zq1x3y5z7a9b1c3d5e7f9g",
	"AuditEvent.action":             "key.created",
	"AuditEvent.target_type":        "api_key",
	"AuditEvent.target_id":          "key_01k3zs4h6j8k0m2n4p6q8r0s2t",
	"AuditEvent.details":            map[string]any{"name": "Release pipeline", "scopes": "engine:run,engine:read"},
	"Workflow.description":          "Plans a single's release: pre-save, pitching, content and the week of release.",
	"Workflow.input_schema":         map[string]any{"type": "object", "required": []any{"artist", "releaseDate"}, "properties": map[string]any{"artist": map[string]any{"type": "string"}, "releaseDate": map[string]any{"type": "string", "format": "date"}}},
	"Workflow.example_context":      map[string]any{"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03"},
	"Workflow.steps":                []any{"analyze", "schedule", "recommend"},
	"Vertical.description":          "Singles, EPs and albums: releases, pitching and touring.",
	"Vertical.name":                 "Music",
	"Vertical.key":                  "music",
	"Workflow.name":                 "Release strategy",
	"Workflow.id":                   "release-strategy",
	"IPRecord.status":               "registered",
	"Certificate.format":            "creativeops/certificate/v1",
	"Certificate.external_timestamps": []any{map[string]any{
		"authority_url": "https://freetsa.org/tsr", "status": "ok", "token": "MIIWsjADAgEAMIIWqQYJKoZIhvcNAQcCoIIWmjCCFpY=",
		"gen_time": "2026-11-22T02:31:09Z", "error": "", "attempts": 1,
	}},
	"CertificateUpdated.external_timestamps": []any{map[string]any{
		"authority_url": "https://freetsa.org/tsr", "status": "ok", "token": "MIIWsjADAgEAMIIWqQYJKoZIhvcNAQcCoIIWmjCCFpY=",
		"gen_time": "2026-11-22T02:31:09Z", "error": "", "attempts": 1,
	}},
	"ExternalTimestamp.authority_url":  "https://freetsa.org/tsr",
	"ExternalTimestamp.status":         "ok",
	"ExternalTimestamp.gen_time":       "2026-11-22T02:31:09Z",
	"ExternalTimestamp.error":          "",
	"ExternalTimestamp.attempts":       1,
	"Certificate.description":          "Debut single, master v3.",
	"Checkpoint.checkpoint":            "creativeops.example/ip-log\n42\nq0JtS3z0cYw0DPbmTyjR2ZK0RnHGsU5y3PGBYcV2mEY=\n\n— creativeops.example/ip-log Az3gk8e6Ykq9...\n",
	"Certificate.checkpoint":           "creativeops.example/ip-log\n42\nq0JtS3z0cYw0DPbmTyjR2ZK0RnHGsU5y3PGBYcV2mEY=\n\n— creativeops.example/ip-log Az3gk8e6Ykq9...\n",
	"Checkpoint.origin":                "creativeops.example/ip-log",
	"LogKey.origin":                    "creativeops.example/ip-log",
	"Country.code":                     "DE",
	"Country.name":                     "Germany",
	"Country.aliases":                  []any{},
	"ClosureSource.title":              "Chinese New Year factory closures",
	"ClosureSource.url":                "https://www.hktdc.com/",
	"ClosureSource.checked":            "2026-11",
	"Closure.key":                      "factory-new-year",
	"Closure.name":                     "the Chinese New Year factory closure",
	"Closure.kind":                     "shutdown",
	"Closure.affects":                  "Factories in mainland China",
	"Closure.known_from":               2026,
	"Closure.known_to":                 2028,
	"Closure.estimate":                 "From one week before to two weeks after the lunar new year.",
	"ListCalendarsResponse.currencies": []any{"EUR", "GBP", "JPY", "USD"},
	"EndpointUsage.method":             "POST",
	"EndpointUsage.route":              "/v1/engine/run",
	"UsageReport.from":                 "2026-11-01T09:00:00Z",
	"UsageReport.to":                   "2026-11-02T09:00:00Z",
	"UsageReport.granularity":          "hour",
	"UsageTotals.error_rate":           0.0125,
	"UsagePoint.start":                 "2026-11-02T08:00:00Z",
	"JobStats.avg_duration_ms":         41.7,
	"ListCatalogResponse.total":        1,
	"ListWorkflowsResponse.total":      1,
	"ListVerticalsResponse.total":      1,
}

// operationFields are the top-level values of one operation's response
// example: what only that method returns (a secret shown once).
var operationFields = map[string]map[string]any{
	"KeysService_CreateKey":                 {"secret": "co_live_7Hq2vN8kR3xT5wY1zB4cD6fG9hJ2kL5m"},
	"KeysService_RotateKey":                 {"secret": "co_live_3Pw9sD1fG5hJ7kL2mN4qR6tV8xZ0bC3e", "previous_secret_expires_at": "2026-11-03T09:30:00Z"},
	"OAuthClientsService_CreateOAuthClient": {"secret": oauth.SecretPrefix + "MFRGGZDFMZTWQ2LKNNWG23TPOB"},
	"OAuthClientsService_RotateOAuthClient": {"secret": oauth.SecretPrefix + "KRUGKIDROVUWG2ZAMJZG653OEB", "previous_secret_expires_at": "2026-11-03T09:30:00Z"},
	"WebhooksService_CreateWebhook":         {"secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"},
	"WebhooksService_RotateWebhookSecret":   {"secret": "whsec_Vd2kL9mQ4rT7wY0zB3cE6fH9jK2nP5sU", "previous_secret_expires_at": "2026-11-03T09:30:00Z"},
	"WebhooksService_DisableWebhook":        {"status": "disabled", "disabled_reason": "disabled through the API", "disabled_at": "2026-11-02T09:35:00Z"},
	"WebhooksService_TestWebhook":           {"status": "pending", "attempts": 0, "response_status": 0, "latency_ms": 0, "completed_at": nil, "attempt_log": []any{}},
	"WebhooksService_RedeliverDelivery":     {"event_type": "engine.job.completed", "status": "pending", "attempts": 0, "response_status": 0, "latency_ms": 0, "completed_at": nil, "attempt_log": []any{}},
	"EngineService_CancelJob":               {"status": "canceled", "progress": 40, "result": nil, "completed_at": "2026-11-02T09:30:02Z", "async": true},
	"CreatorsService_CreateCreator":         {"metadata": map[string]any{"label": "Night Owl"}},
	"CreatorsService_GetCreator":            {"metadata": map[string]any{"label": "Night Owl"}},
}

// byName are example values of response fields by name alone.
var byName = map[string]any{
	"organization_id":     "org_01k3zp0a2b4c6d8e0f2g4h6j8k",
	"creator_id":          "cr_01k3zq8m4d2v7h0b5x9y6t1c2e",
	"certificate_id":      "cert_01k3zt6v8w0x2y4z6a8b0c2d4e",
	"webhook_id":          "wh_01k3zv8c0d2e4f6g8h0j2k4m6n",
	"event_id":            "evt_01k3zw0e2f4g6h8j0k2m4n6p8q",
	"content_hash":        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
	"timestamp":           "2026-11-02T09:30:00Z",
	"created_at":          "2026-11-02T09:30:00Z",
	"updated_at":          "2026-11-02T09:30:00Z",
	"at":                  "2026-11-02T09:31:00.301Z",
	"log_index":           "41",
	"tree_size":           "42",
	"from":                "40",
	"to":                  "42",
	"root_hash":           "q0JtS3z0cYw0DPbmTyjR2ZK0RnHGsU5y3PGBYcV2mEY=",
	"verifier_key":        "creativeops.example/ip-log+5f3c1a2b+AcYp3yQ2x9oE3mWn8u1rVf0Jk4Lh6Tq5Zs7Db2Gc8Ne0",
	"log_verifier_key":    "creativeops.example/ip-log+5f3c1a2b+AcYp3yQ2x9oE3mWn8u1rVf0Jk4Lh6Tq5Zs7Db2Gc8Ne0",
	"tsa_root_pem":        "-----BEGIN CERTIFICATE-----\nMIIBhDCCASmgAwIBAgIUQ...\n-----END CERTIFICATE-----\n",
	"tsa_certificate_pem": "-----BEGIN CERTIFICATE-----\nMIIBkTCCATegAwIBAgIUY...\n-----END CERTIFICATE-----\n",
	"tsa_policy_oid":      "1.3.6.1.4.1.57264.2.1",
	"record":              "eyJjb250ZW50X2hhc2giOiJzaGEyNTY6OWY4Ni4uLiJ9",
	"token":               "MIIGkjADAgEAMIIGiQYJKoZIhvcNAQcCoIIGejCCBnYCAQMx",
	"inclusion_proof":     []any{"3q2+7w3rz8h1m9PV9nS1Zq3Qy4Xl0kGfW2m8eT7uVbA=", "u6vH4Xn0m2Q9kR7sT1yW3zB5cD8fG0hJ2kL4mN6pQ8s="},
	"proof":               []any{"3q2+7w3rz8h1m9PV9nS1Zq3Qy4Xl0kGfW2m8eT7uVbA="},
	"current":             true,
	"next_page_token":     "",
	"token_lifetime":      "3600s",
	"response_status":     200,
	"latency_ms":          87,
	"number":              1,
	"attempts":            1,
	"workflow_count":      4,
	"requests":            "1280",
	"errors":              "16",
	"p50_ms":              3.1,
	"p95_ms":              11.8,
	"p99_ms":              24.6,
	"queued":              "0",
	"processing":          "1",
	"completed":           "37",
	"failed":              "1",
	"canceled":            "0",
	"client_ip":           "203.0.113.7",
	"user_agent":          "creativeops-ts/1.4.0",
	"request_id":          "req_01k3zx2g4h6j8k0m2n4p6q8r0s",
	"transport":           "rest",
	"progress":            100,
	"async":               false,
}

// idPrefixes are the prefixes of each resource's id.
var idPrefixes = map[string]string{
	"Creator": "cr_01k3zq8m4d2v7h0b5x9y6t1c2e", "IPRecord": "ip_01k3zs2f4g6h8j0k2m4n6p8q0r",
	"Certificate": "ip_01k3zs2f4g6h8j0k2m4n6p8q0r", "Webhook": "wh_01k3zv8c0d2e4f6g8h0j2k4m6n",
	"Delivery": "whd_01k3zy4j6k8m0n2p4q6r8s0t2v", "APIKey": "key_01k3zs4h6j8k0m2n4p6q8r0s2t",
	"OAuthClient": "oc_01k3zz6m8n0p2q4r6s8t0v2w4x", "AuditEvent": "aud_01k400a8b0c2d4e6f8g0h2j4k6",
}

// planExample is a release-strategy plan, shortened.
var planExample = map[string]any{
	"strategy": "Release \"The Long Night\" on Friday 5 March 2027 with a four-week pre-save campaign and editorial pitching five weeks out.",
	"recommendations": []any{
		map[string]any{"title": "Pitch to editorial playlists", "detail": "Submit the single in Spotify for Artists at least 7 days before release; 4 weeks gives curators time.", "priority": "high", "due_date": "2027-02-05"},
		map[string]any{"title": "Schedule short-form teasers", "detail": "Three 15-second clips in the two weeks before release.", "priority": "medium"},
	},
	"timeline": map[string]any{
		"milestones": []any{
			map[string]any{"key": "master_delivery", "title": "Deliver the master to the distributor", "date": "2027-02-01", "days_from_as_of": 91, "passed": false, "deliverable": true, "kind": "deliverable"},
			map[string]any{"key": "pitch", "title": "Editorial pitch", "date": "2027-02-05", "days_from_as_of": 95, "passed": false, "kind": "action", "after": []any{"master_delivery"}},
			map[string]any{"key": "release", "title": "Release day", "date": "2027-03-05", "days_from_as_of": 123, "passed": false, "kind": "event"},
		},
		"start":       "2027-02-01",
		"end":         "2027-03-05",
		"target_date": "2027-03-05",
		"region":      "US",
		"precedences": []any{map[string]any{"before": "master_delivery", "after": "pitch", "min_working_days": 0}},
	},
	"warnings": []any{},
	"as_of":    "2026-11-02",
	"budget":   map[string]any{"total": 2500, "currency": "USD"},
}

// addResponseExample gives an operation's JSON success responses an
// example built from their schema: realistic values by schema and field,
// the operation's own where it has some.
func addResponseExample(op map[string]any, schemas map[string]any) error {
	id, _ := op["operationId"].(string)
	responses, _ := op["responses"].(map[string]any)
	for code, raw := range responses {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		r, _ := raw.(map[string]any)
		content, _ := r["content"].(map[string]any)
		shared, _ := content["application/json"].(map[string]any)
		if shared == nil {
			continue
		}
		// The responses of one operation share their content (a run's
		// 200 and 202); each gets an example of its own.
		media := maps.Clone(shared)
		r["content"] = map[string]any{"application/json": media}
		schema, _ := media["schema"].(map[string]any)
		ref, _ := schema["$ref"].(string)
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		example, err := exampleOf(name, schemas, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		if extra, ok := operationFields[id]; ok {
			m := example.(map[string]any)
			for k, v := range extra {
				m[k] = v
			}
		}
		if code == "202" && name == "Job" {
			example = queued(example.(map[string]any))
		}
		media["example"] = example
	}
	return nil
}

// queued is the job as RunWorkflow answers with async: true.
func queued(job map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range job {
		out[k] = v
	}
	out["status"], out["progress"], out["result"], out["started_at"], out["completed_at"], out["attempts"], out["async"] = "queued", 0, nil, nil, nil, 0, true
	return out
}

func exampleOf(name string, schemas map[string]any, depth int) (any, error) {
	if depth > 8 {
		return nil, fmt.Errorf("schema %s nests too deep for an example", name)
	}
	schema, ok := schemas[name].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no schema %s", name)
	}
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := schema["required"].([]any); ok {
		for _, r := range rs {
			required[r.(string)] = true
		}
	}
	out := map[string]any{}
	for key, raw := range props {
		prop, _ := raw.(map[string]any)
		v, ok, err := fieldExample(name, key, prop, schemas, depth)
		if err != nil && required[key] {
			return nil, err
		}
		if ok && (required[key] || v != nil) {
			out[key] = v
		}
	}
	return out, nil
}

// fieldExample is the example value of one field of schema name; ok is
// false for an optional field the example leaves out.
func fieldExample(name, key string, prop map[string]any, schemas map[string]any, depth int) (any, bool, error) {
	if v, ok := responseFields[name+"."+key]; ok {
		return v, true, nil
	}
	if key == "id" {
		if v, ok := idPrefixes[name]; ok {
			return v, true, nil
		}
	}
	if v, ok := byName[key]; ok {
		return v, true, nil
	}
	if nullable(prop) {
		return nil, true, nil
	}
	if v, ok := examples[key]; ok && key != "name" && key != "secret" {
		return v, true, nil
	}
	if key == "name" && name == "Creator" {
		return examples[key], true, nil
	}
	v, err := valueOf(name+"."+key, prop, schemas, depth)
	return v, v != nil, err
}

// nullable reports whether a field's schema admits null: a null type
// beside its own, or one of a referenced schema or null (see
// describeField).
func nullable(prop map[string]any) bool {
	if types, ok := prop["type"].([]any); ok && slices.Contains(types, any("null")) {
		return true
	}
	one, _ := prop["oneOf"].([]any)
	for _, alt := range one {
		if m, _ := alt.(map[string]any); m["type"] == "null" {
			return true
		}
	}
	return false
}

// valueOf is an example of a schema with no example of its own: the first
// of its enum, one item of an array, an object built field by field.
func valueOf(where string, prop map[string]any, schemas map[string]any, depth int) (any, error) {
	if ref, ok := prop["$ref"].(string); ok {
		return exampleOf(strings.TrimPrefix(ref, "#/components/schemas/"), schemas, depth+1)
	}
	if all, ok := prop["allOf"].([]any); ok && len(all) == 1 {
		return valueOf(where, all[0].(map[string]any), schemas, depth)
	}
	if one, ok := prop["oneOf"].([]any); ok && len(one) > 0 {
		return valueOf(where, one[0].(map[string]any), schemas, depth)
	}
	if enum, ok := prop["enum"].([]any); ok && len(enum) > 0 {
		return enum[0], nil
	}
	switch prop["type"] {
	case "array":
		items, _ := prop["items"].(map[string]any)
		item, err := valueOf(where, items, schemas, depth)
		if err != nil || item == nil {
			return []any{}, err
		}
		return []any{item}, nil
	case "object":
		if _, ok := prop["additionalProperties"]; ok {
			return map[string]any{}, nil
		}
	case "boolean":
		return false, nil
	}
	return nil, fmt.Errorf("%s has no example value: add one to responseFields or byName", where)
}
