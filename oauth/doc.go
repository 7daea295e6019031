// Package oauth is the OAuth 2.0 authorization server for machine-to-machine
// integrations: organizations' clients (client credentials grant, with
// client_secret_basic, client_secret_post or private_key_jwt client
// authentication), the keys access tokens are signed with, and the
// verification of those tokens wherever an API key is accepted.
//
// Access tokens are JWTs per RFC 9068, signed with ES256 by go-jose. Every
// replica reads the same signing keys and revocations from the database and
// keeps them in memory, refreshed by polling a change counter, so verifying
// a token costs no database round trip while that memory is known current.
package oauth
