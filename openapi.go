// Package creativeops embeds build artifacts that the service serves.
package creativeops

import _ "embed"

// OpenAPIJSON is the OpenAPI 3 document served at /v1/openapi.json, as
// internal/genopenapi generates it into gen/openapi.
//
//go:embed gen/openapi/openapi.json
var OpenAPIJSON []byte

// WebhooksOpenAPIJSON is the OpenAPI 3.1 document of the webhook events,
// served at /v1/openapi/webhooks.json.
//
//go:embed gen/openapi/webhooks.json
var WebhooksOpenAPIJSON []byte
