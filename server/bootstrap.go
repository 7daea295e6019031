package server

import (
	"context"
	"fmt"

	"github.com/creativeops/creativeops/auth"
)

// Bootstrap gives a brand-new installation a way in: on an empty database it
// creates the organization "default" with one all-scopes key, printed once
// on the console. When replicas start together only the one whose
// organization insert wins prints a key.
func (s *Server) Bootstrap(ctx context.Context) error {
	orgID, secret, err := s.keys.Bootstrap(ctx)
	if err != nil || orgID == "" {
		return err
	}
	fmt.Fprintf(s.cfg.Console, "\nCreated organization %q (%s) and an API key with all scopes.\nIt is shown only this once:\n\n    %s\n\n", auth.DefaultOrganization, orgID, secret)
	return nil
}
