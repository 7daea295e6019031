package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/oauth"
	"github.com/creativeops/creativeops/storage"
)

// clientsService manages clients of the database st; it issues and
// verifies nothing, so it needs neither an issuer nor the master keys.
// openClients opens the database and the organization an oauth-clients
// command works on, and the OAuth service over them; close the store.
func openClients(ctx context.Context, cmd, dbURL, org string) (*storage.Store, *ent.Organization, *oauth.Service, error) {
	st, o, err := openOrg(ctx, cmd, dbURL, org)
	if err != nil {
		return nil, nil, nil, err
	}
	svc, err := oauth.New(oauth.Config{Ent: st.Ent})
	if err != nil {
		st.Close()
		return nil, nil, nil, err
	}
	return st, o, svc, nil
}

func oauthClientsCreate(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs, dbURL, org := keysFlags("oauth-clients create --org NAME --scopes LIST [--name LABEL] [flags]")
	scopeList := fs.String("scopes", "", `comma-separated scopes the client may be issued, or "*" for all`)
	name := fs.String("name", "cli", "label of the client")
	var lifetime time.Duration
	fs.Var(tokenLifetime{durationValue{p: &lifetime}}, "token-lifetime", "lifetime of its access tokens, 1m to 24h (default: the server's --oauth-token-lifetime)")
	jwksFile := fs.String("jwks-file", "", "file holding the client's public keys as a JWK set, for private_key_jwt")
	jwksURI := fs.String("jwks-uri", "", "https URL serving the client's public keys as a JWK set, for private_key_jwt")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *scopeList == "" {
		return usagef("oauth-clients create needs --scopes (comma-separated, or \"*\" for all)")
	}
	scopes := strings.Split(*scopeList, ",")
	for i, sc := range scopes {
		scopes[i] = strings.TrimSpace(sc)
		if !auth.ValidScope(scopes[i]) {
			return usagef("--scopes: unknown scope %q (known: %s)", scopes[i], strings.Join(auth.AllScopes, ", "))
		}
	}
	params := oauth.NewClientParams{Name: *name, Scopes: scopes, TokenLifetime: lifetime, JWKSURI: *jwksURI}
	if *jwksFile != "" {
		b, err := os.ReadFile(*jwksFile)
		if err != nil {
			return err
		}
		params.JWKS = string(b)
	}
	st, o, svc, err := openClients(ctx, "oauth-clients create", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	params.OrganizationID = o.ID
	c, secret, err := svc.CreateClient(audit.CLI(ctx), params)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n%s\n", c.ID, secret)
	return nil
}

func oauthClientsList(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs, dbURL, org := keysFlags("oauth-clients list --org NAME [flags]")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	st, o, svc, err := openClients(ctx, "oauth-clients list", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPES\tTOKEN LIFETIME\tCREATED\tSTATE")
	after := ""
	for {
		cs, err := svc.ListClients(ctx, o.ID, after, 200)
		if err != nil {
			return err
		}
		for _, c := range cs {
			state := "active"
			if c.RevokedAt != nil {
				state = "revoked"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\t%s\t%s\n", c.ID, c.Name, c.Prefix, strings.Join(c.Scopes, ","), c.TokenLifetime, c.CreatedAt.Format(time.RFC3339), state)
		}
		if len(cs) < 200 {
			break
		}
		after = cs[len(cs)-1].ID
	}
	return tw.Flush()
}

func oauthClientsRotate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dbURL, org := keysFlags("oauth-clients rotate --org NAME --id CLIENT_ID [--grace-period D] [flags]")
	id := fs.String("id", "", "id of the client (creativeops oauth-clients list shows them)")
	grace := 24 * time.Hour
	fs.Var(durationValue{p: &grace, zero: "the old secret stops at once"}, "grace-period", "how long the old secret keeps working (at most 720h)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *id == "" {
		return usagef("oauth-clients rotate needs --id CLIENT_ID")
	}
	st, o, svc, err := openClients(ctx, "oauth-clients rotate", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	c, secret, err := svc.RotateClient(audit.CLI(ctx), nil, o.ID, *id, grace)
	if errors.Is(err, oauth.ErrNoSuchClient) {
		return fmt.Errorf("no active OAuth client %s in organization %q", *id, *org)
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, secret)
	if c.PreviousSecretExpiresAt != nil {
		fmt.Fprintf(stderr, "the previous secret works until %s\n", c.PreviousSecretExpiresAt.Format(time.RFC3339))
	}
	return nil
}

func oauthClientsRevoke(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dbURL, org := keysFlags("oauth-clients revoke --org NAME --id CLIENT_ID [flags]")
	id := fs.String("id", "", "id of the client to revoke (creativeops oauth-clients list shows them)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *id == "" {
		return usagef("oauth-clients revoke needs --id CLIENT_ID")
	}
	st, o, svc, err := openClients(ctx, "oauth-clients revoke", dbURL(), *org)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := svc.RevokeClient(audit.CLI(ctx), nil, o.ID, *id); errors.Is(err, oauth.ErrNoSuchClient) {
		return fmt.Errorf("no active OAuth client %s in organization %q", *id, *org)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "revoked %s; its access tokens stop working within a second\n", *id)
	return nil
}

// oauthRotateSigningKey makes a new key sign access tokens. The servers
// pick it up within a second; the old key stays published, and keeps
// verifying, for oauth.MaxTokenLifetime.
func oauthRotateSigningKey(ctx context.Context, args []string, stdout, _ io.Writer) error {
	st, keyring, err := openSealed(ctx, "oauth rotate-signing-key [flags]", args, stdout)
	if err != nil {
		return err
	}
	defer st.Close()
	svc, err := oauth.New(oauth.Config{Ent: st.Ent, Keyring: keyring})
	if err != nil {
		return err
	}
	kid, err := svc.RotateSigningKey(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "access tokens are now signed with key %s; the previous key verifies for %s more\n", kid, oauth.MaxTokenLifetime)
	return nil
}
