package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/creativeops/creativeops/audit"
	"github.com/creativeops/creativeops/storage"
)

// maxAuditList bounds --limit: the command reads the rows at once.
const maxAuditList = 10000

// auditList prints an organization's audit events, or with --installation
// the installation-wide ones (master keys, IP registry keys), newest first.
func auditList(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs, dbURL, org := keysFlags("audit list (--org NAME | --installation) [--action A] [--actor A] [--target-id ID] [--limit N] [flags]")
	installation := false
	fs.Var(boolValue{&installation}, "installation", "list installation-wide events (master keys, IP registry keys) instead of an organization's")
	var action, actor, target string
	fs.Var(textValue{&action, oneOf(actionNames()...)}, "action", "only this action: "+strings.Join(actionNames(), ", "))
	fs.StringVar(&actor, "actor", "", `only changes by this actor (an API key id, "cli:<user>" or "system")`)
	fs.StringVar(&target, "target-id", "", "only changes to this resource (a key or webhook id)")
	limit := 50
	fs.Var(intValue{&limit, 1}, "limit", fmt.Sprintf("at most this many events, newest first (up to %d)", maxAuditList))
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if limit > maxAuditList {
		return usagef("--limit: must be at most %d", maxAuditList)
	}
	if installation == (*org != "") {
		return usagef("audit list needs --org NAME or --installation (one of them)")
	}
	var st *storage.Store
	orgID := "" // installation-wide events
	if installation {
		var err error
		if st, err = openStore(ctx, dbURL()); err != nil {
			return err
		}
	} else {
		s, o, err := openOrg(ctx, "audit list", dbURL(), *org)
		if err != nil {
			return err
		}
		st, orgID = s, o.ID
	}
	defer st.Close()
	evs, err := audit.List(ctx, st.Ent, audit.Filter{
		OrganizationID: orgID, Action: audit.Action(action), Actor: actor, TargetID: target, Limit: limit,
	})
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tACTION\tACTOR\tTARGET\tTRANSPORT\tCLIENT IP\tREQUEST ID\tDETAILS")
	for _, e := range evs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\n", e.CreatedAt.Format(time.RFC3339), e.Action, e.Actor,
			e.TargetType, e.TargetID, e.Origin.Transport, dash(e.Origin.ClientIP), dash(e.Origin.RequestID), details(e.Details))
	}
	return tw.Flush()
}

func actionNames() []string {
	out := make([]string, len(audit.Actions))
	for i, a := range audit.Actions {
		out[i] = string(a)
	}
	return out
}

// details renders an event's details as name=value pairs in name order.
func details(d map[string]string) string {
	if len(d) == 0 {
		return "-"
	}
	parts := make([]string, 0, len(d))
	for _, k := range slices.Sorted(maps.Keys(d)) {
		parts = append(parts, k+"="+d[k])
	}
	return strings.Join(parts, " ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
