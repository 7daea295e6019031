package oauth

import "fmt"

// The wire types of RFC 6749 and RFC 8414 that the endpoints write. They
// are the few fields a client_credentials server needs; an OpenID
// Connect library's types would bring a provider's worth of code along.

// grantClientCredentials is the one grant type served.
const grantClientCredentials = "client_credentials"

// The client authentication methods of the token, introspection and
// revocation endpoints (RFC 8414 section 2, OpenID Connect's names).
var authMethods = []string{"client_secret_basic", "client_secret_post", "private_key_jwt"}

// AuthorizationServerMetadata is the RFC 8414 document.
type AuthorizationServerMetadata struct {
	Issuer                                             string   `json:"issuer"`
	TokenEndpoint                                      string   `json:"token_endpoint"`
	IntrospectionEndpoint                              string   `json:"introspection_endpoint"`
	RevocationEndpoint                                 string   `json:"revocation_endpoint"`
	JwksURI                                            string   `json:"jwks_uri"`
	ScopesSupported                                    []string `json:"scopes_supported"`
	GrantTypesSupported                                []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported                  []string `json:"token_endpoint_auth_methods_supported"`
	TokenEndpointAuthSigningAlgValuesSupported         []string `json:"token_endpoint_auth_signing_alg_values_supported"`
	RevocationEndpointAuthMethodsSupported             []string `json:"revocation_endpoint_auth_methods_supported"`
	RevocationEndpointAuthSigningAlgValuesSupported    []string `json:"revocation_endpoint_auth_signing_alg_values_supported"`
	IntrospectionEndpointAuthMethodsSupported          []string `json:"introspection_endpoint_auth_methods_supported"`
	IntrospectionEndpointAuthSigningAlgValuesSupported []string `json:"introspection_endpoint_auth_signing_alg_values_supported"`
	ServiceDocumentation                               string   `json:"service_documentation,omitempty"`
}

// tokenResponse is the RFC 6749 section 5.1 response.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   uint64 `json:"expires_in,omitempty"`
	// Scope is space-delimited.
	Scope string `json:"scope,omitempty"`
}

// protocolError is the RFC 6749 section 5.2 error response.
type protocolError struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *protocolError) Error() string {
	if e.Description == "" {
		return e.Code
	}
	return e.Code + ": " + e.Description
}

func oauthError(code, format string, args ...any) *protocolError {
	return &protocolError{Code: code, Description: fmt.Sprintf(format, args...)}
}
