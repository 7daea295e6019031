// Package creativeops embeds build artifacts that the service serves.
package creativeops

import _ "embed"

// OpenAPIJSON is the OpenAPI 3 document served at /v1/openapi.json, as
// internal/genopenapi generates it into gen/openapi.
//
//go:embed gen/openapi/openapi.json
var OpenAPIJSON []byte
