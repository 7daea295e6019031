package main

import (
	"github.com/creativeops/creativeops/oauth"
)

// The OAuth 2.0 authorization server's endpoints (package oauth) are plain
// HTTP routes beside the gateway, with RFC-defined shapes: form-encoded
// requests, RFC 6749 errors. They are in the document so that a client
// generated from it can get, check and revoke a token. See docs/oauth.md.

// oauthSchemas are the bodies of the OAuth endpoints.
func oauthSchemas() map[string]any {
	str := func(d string) map[string]any { return map[string]any{"type": "string", "description": d} }
	strs := func(d string) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": d}
	}
	clientAuth := map[string]any{
		"client_id":             str("The client's id (oc_…), with client_secret or client_assertion; leave out with HTTP Basic."),
		"client_secret":         str("client_secret_post: the client's secret (co_oauth_…)."),
		"client_assertion_type": map[string]any{"type": "string", "enum": []any{"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}, "description": "private_key_jwt (RFC 7523)."},
		"client_assertion":      str("private_key_jwt: a JWT signed with a key of the client's jwks_uri."),
	}
	with := func(own map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range clientAuth {
			out[k] = v
		}
		for k, v := range own {
			out[k] = v
		}
		return out
	}
	return map[string]any{
		"OAuthTokenRequest": map[string]any{
			"type":        "object",
			"description": "RFC 6749 section 4.4: the client credentials grant. The client authenticates with exactly one of HTTP Basic (client_secret_basic), client_secret (client_secret_post) or client_assertion (private_key_jwt).",
			"required":    []any{"grant_type"},
			"properties": with(map[string]any{
				"grant_type": map[string]any{"type": "string", "enum": []any{"client_credentials"}},
				"scope":      str("Space-separated scopes, a subset of the client's; all of them when left out."),
			}),
		},
		"OAuthToken": map[string]any{
			"type":        "object",
			"description": "RFC 6749 section 5.1. Send access_token as Authorization: Bearer <token> to the API.",
			"required":    []any{"access_token", "token_type"},
			"properties": map[string]any{
				"access_token": str("A signed JWT."),
				"token_type":   map[string]any{"type": "string", "enum": []any{"Bearer"}},
				"expires_in":   map[string]any{"type": "integer", "minimum": 0, "description": "Seconds the token is valid for."},
				"scope":        str("Space-separated scopes the token carries."),
			},
		},
		"OAuthTokenOperand": map[string]any{
			"type":        "object",
			"description": "The token to introspect (RFC 7662) or revoke (RFC 7009), with the client's authentication as for the token endpoint.",
			"required":    []any{"token"},
			"properties": with(map[string]any{
				"token":           str("An access token."),
				"token_type_hint": map[string]any{"type": "string", "enum": []any{"access_token"}},
			}),
		},
		"OAuthIntrospection": map[string]any{
			"type":        "object",
			"description": "RFC 7662 section 2.2. Only active is sent for a token that is not active (expired, revoked, another organization's, not a token).",
			"required":    []any{"active"},
			"properties": map[string]any{
				"active":     map[string]any{"type": "boolean"},
				"scope":      str("Space-separated scopes."),
				"client_id":  str("The client the token was issued to."),
				"token_type": str("Bearer."),
				"exp":        map[string]any{"type": "integer", "description": "Expiry, Unix seconds."},
				"iat":        map[string]any{"type": "integer", "description": "Issued at, Unix seconds."},
				"nbf":        map[string]any{"type": "integer", "description": "Not before, Unix seconds."},
				"sub":        str("The subject: the client."),
				"aud":        strs("The audience."),
				"iss":        str("The issuer."),
				"jti":        str("The token's id."),
			},
		},
		"OAuthError": map[string]any{
			"type":        "object",
			"description": "RFC 6749 section 5.2.",
			"required":    []any{"error"},
			"properties": map[string]any{
				"error":             map[string]any{"type": "string", "description": "invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, unsupported_token_type, slow_down or server_error."},
				"error_description": str("For a person."),
			},
		},
		"OAuthServerMetadata": map[string]any{
			"type":        "object",
			"description": "RFC 8414 authorization server metadata.",
			"required":    []any{"issuer", "token_endpoint", "jwks_uri", "grant_types_supported"},
			"properties": map[string]any{
				"issuer":                                str("The issuer tokens name."),
				"token_endpoint":                        str("POST here for a token."),
				"introspection_endpoint":                str("RFC 7662."),
				"revocation_endpoint":                   str("RFC 7009."),
				"jwks_uri":                              str("The keys tokens are signed with."),
				"scopes_supported":                      strs(""),
				"grant_types_supported":                 strs(""),
				"token_endpoint_auth_methods_supported": strs(""),
				"token_endpoint_auth_signing_alg_values_supported":         strs(""),
				"introspection_endpoint_auth_methods_supported":            strs(""),
				"introspection_endpoint_auth_signing_alg_values_supported": strs(""),
				"revocation_endpoint_auth_methods_supported":               strs(""),
				"revocation_endpoint_auth_signing_alg_values_supported":    strs(""),
				"service_documentation":                                    str(""),
			},
		},
		"JSONWebKeySet": map[string]any{
			"type":        "object",
			"description": "RFC 7517 key set: the public keys tokens are verified with, retired ones still in their overlap included.",
			"required":    []any{"keys"},
			"properties": map[string]any{
				"keys": map[string]any{"type": "array", "items": map[string]any{
					"type":                 "object",
					"required":             []any{"kty"},
					"additionalProperties": true,
					"properties": map[string]any{
						"kty": str("Key type."), "kid": str("Key id."), "alg": str("Algorithm."), "use": str("sig."),
					},
				}},
			},
		},
	}
}

// oauthOperations are the endpoints, by path.
func oauthOperations() map[string]any {
	schema := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	jsonBody := func(description, name string) map[string]any {
		return map[string]any{"description": description, "content": map[string]any{"application/json": map[string]any{"schema": schema(name)}}}
	}
	withExample := func(r map[string]any, example any) map[string]any {
		for _, media := range r["content"].(map[string]any) {
			media.(map[string]any)["example"] = example
		}
		return r
	}
	form := func(name string, example map[string]any) map[string]any {
		return map[string]any{"required": true, "content": map[string]any{"application/x-www-form-urlencoded": map[string]any{"schema": schema(name), "example": example}}}
	}
	const (
		clientID = "oc_01k3zz6m8n0p2q4r6s8t0v2w4x"
		secret   = oauth.SecretPrefix + "MFRGGZDFMZTWQ2LKNNWG23TPOB"
		token    = "eyJhbGciOiJFUzI1NiIsImtpZCI6IjNmYTEifQ.eyJzdWIiOiJvY18wMWszeno2bThuMHAycTRyNnM4dDB2Mnc0eCJ9.c2lnbmF0dXJl"
		issuer   = "https://api.example.com"
	)
	tokenExample := map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": "engine:read analytics:read"}
	introspection := map[string]any{"active": true, "scope": "engine:read analytics:read", "client_id": clientID, "token_type": "Bearer", "exp": 1793611800, "iat": 1793608200, "nbf": 1793608200, "sub": clientID, "aud": []any{issuer}, "iss": issuer, "jti": "tok_01k3zz9q1r3s5t7v9w1x3y5z7a"}
	methods := []any{"client_secret_basic", "client_secret_post", "private_key_jwt"}
	algs := []any{"ES256", "RS256"}
	metadata := map[string]any{
		"issuer": issuer, "token_endpoint": issuer + oauth.TokenPath, "introspection_endpoint": issuer + oauth.IntrospectPath,
		"revocation_endpoint": issuer + oauth.RevokePath, "jwks_uri": issuer + oauth.JWKSPath,
		"scopes_supported": []any{"engine:read", "analytics:read"}, "grant_types_supported": []any{"client_credentials"},
		"token_endpoint_auth_methods_supported": methods, "token_endpoint_auth_signing_alg_values_supported": algs,
		"introspection_endpoint_auth_methods_supported": methods, "introspection_endpoint_auth_signing_alg_values_supported": algs,
		"revocation_endpoint_auth_methods_supported": methods, "revocation_endpoint_auth_signing_alg_values_supported": algs,
	}
	jwks := map[string]any{"keys": []any{map[string]any{"kty": "EC", "kid": "3fa1", "alg": "ES256", "use": "sig", "crv": "P-256",
		"x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}}}
	// Client authentication: HTTP Basic, or in the form (no security
	// scheme); never an API key.
	clientSecurity := []any{map[string]any{"oauthClient": []any{}}, map[string]any{}}
	errors := func(ok map[string]any) map[string]any {
		return map[string]any{
			"200": ok,
			"400": jsonBody("The request is invalid (RFC 6749 section 5.2).", "OAuthError"),
			"401": jsonBody("The client failed to authenticate (invalid_client), with WWW-Authenticate: Basic.", "OAuthError"),
			"413": jsonBody("The form is larger than the server reads.", "OAuthError"),
			"429": map[string]any{"description": "Too many requests from this address, or too many failed authentications of this client.", "headers": map[string]any{"Retry-After": map[string]any{"description": "Seconds to wait.", "schema": map[string]any{"type": "integer"}}}, "content": map[string]any{"application/json": map[string]any{"schema": schema("OAuthError")}}},
			"500": jsonBody("An internal error.", "OAuthError"),
		}
	}
	op := func(id, summary, description string, extra map[string]any) map[string]any {
		o := map[string]any{"operationId": id, "tags": []any{"OAuth"}, "summary": summary, "description": description}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	return map[string]any{
		oauth.TokenPath: map[string]any{"post": op("OAuth_Token", "Get an access token",
			"The client credentials grant (RFC 6749 section 4.4): an OAuth client (POST /v1/oauth/clients) gets a short-lived token to send as Authorization: Bearer. See docs/oauth.md.",
			map[string]any{"security": clientSecurity, "requestBody": form("OAuthTokenRequest", map[string]any{"grant_type": "client_credentials", "client_id": clientID, "client_secret": secret, "scope": "engine:read"}), "responses": errors(withExample(jsonBody("The token.", "OAuthToken"), tokenExample))})},
		oauth.IntrospectPath: map[string]any{"post": op("OAuth_Introspect", "Introspect a token",
			"Whether a token is active (RFC 7662), for a client of the token's organization.",
			map[string]any{"security": clientSecurity, "requestBody": form("OAuthTokenOperand", map[string]any{"token": token, "client_id": clientID, "client_secret": secret}), "responses": errors(withExample(jsonBody("The token's state.", "OAuthIntrospection"), introspection))})},
		oauth.RevokePath: map[string]any{"post": op("OAuth_Revoke", "Revoke a token",
			"Revokes an access token at once (RFC 7009); only the client it was issued to may. An unknown, expired or already revoked token is answered 200 too.",
			map[string]any{"security": clientSecurity, "requestBody": form("OAuthTokenOperand", map[string]any{"token": token, "token_type_hint": "access_token", "client_id": clientID, "client_secret": secret}), "responses": errors(map[string]any{"description": "Revoked, or nothing to revoke."})})},
		oauth.MetadataPath: map[string]any{"get": op("OAuth_Metadata", "Authorization server metadata",
			"RFC 8414: where the endpoints are and what they support. No authentication.",
			map[string]any{"security": []any{}, "responses": map[string]any{"200": withExample(jsonBody("The metadata.", "OAuthServerMetadata"), metadata)}})},
		oauth.JWKSPath: map[string]any{"get": op("OAuth_JWKS", "Token signing keys",
			"The public keys (RFC 7517) access tokens are verified with. No authentication.",
			map[string]any{"security": []any{}, "responses": map[string]any{"200": withExample(jsonBody("The key set.", "JSONWebKeySet"), jwks)}})},
	}
}
