package server

import (
	"context"
	"fmt"

	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ids"
)

// Bootstrap gives a brand-new installation a way in: on an empty database it
// creates the organization "default" with one all-scopes key, printed once
// on stderr. When replicas start together only the one whose organization
// insert wins prints a key.
func (s *Server) Bootstrap(ctx context.Context) error {
	n, err := s.store.Ent.Organization.Query().Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	org, err := s.store.Ent.Organization.Create().SetID(ids.New(ids.Organization)).SetName("default").Save(ctx)
	if ent.IsConstraintError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	_, secret, err := s.keys.CreateKey(ctx, auth.NewKeyParams{OrganizationID: org.ID, Name: "bootstrap", Scopes: []string{auth.ScopeAll}})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.cfg.Console, "\nCreated organization %q (%s) and an API key with all scopes.\nIt is shown only this once:\n\n    %s\n\n", org.Name, org.ID, secret)
	return nil
}
