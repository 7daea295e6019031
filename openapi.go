// Package creativeops embeds build artifacts that the service serves.
package creativeops

import _ "embed"

// OpenAPIYAML is the generated OpenAPI 3 document (gen/openapi).
//
//go:embed gen/openapi/openapi.yaml
var OpenAPIYAML []byte
