package valueset

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/creativeops/creativeops/analytics"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/engine"
	"github.com/creativeops/creativeops/internal/rpcrule"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/webhooks"
)

// The domain names each set in Go constants, the API in the protos: every
// field that carries a set must hold exactly the domain's values, so a
// status added on one side only fails here rather than in a client that
// rejects it.
func TestDomainConstantsMatchTheProtos(t *testing.T) {
	jobStatuses := []string{jobs.Queued, jobs.Processing, jobs.Completed, jobs.Failed, jobs.Canceled}
	eventTypes := webhooks.EventTypes()
	for field, want := range map[string][]string{
		"creativeops.v1.Job.status":                      jobStatuses,
		"creativeops.v1.ListJobsRequest.status":          jobStatuses,
		"creativeops.v1.Webhook.status":                  {webhooks.WebhookActive, webhooks.WebhookDisabled},
		"creativeops.v1.Delivery.status":                 {webhooks.DeliveryPending, webhooks.DeliverySucceeded, webhooks.DeliveryFailed},
		"creativeops.v1.Delivery.event_type":             eventTypes,
		"creativeops.v1.CreateWebhookRequest.events":     append([]string{webhooks.EventWildcard}, eventTypes...),
		"creativeops.v1.Webhook.events":                  append([]string{webhooks.EventWildcard}, eventTypes...),
		"creativeops.v1.UsageReport.granularity":         {string(analytics.Minute), string(analytics.Hour), string(analytics.Day)},
		"creativeops.v1.GetUsageRequest.granularity":     {string(analytics.Minute), string(analytics.Hour), string(analytics.Day)},
		"creativeops.v1.CreateKeyRequest.scopes":         auth.AllScopes,
		"creativeops.v1.APIKey.scopes":                   auth.AllScopes,
		"creativeops.v1.CreateOAuthClientRequest.scopes": auth.AllScopes,
		"creativeops.v1.Closure.kind":                    {string(engine.ClosureShutdown), string(engine.ClosureSale), string(engine.ClosureMarket)},
		"creativeops.v1.OAuthClient.scopes":              auth.AllScopes,
	} {
		got, err := Named(field)
		if err != nil {
			t.Errorf("%s: %v", field, err)
			continue
		}
		if !sameSet(got, want) {
			t.Errorf("%s declares %q; the domain has %q", field, got, want)
		}
	}
}

// Every declaration in the protos must resolve: a same_as naming a field
// that does not exist, or one with no set, is an error rather than a field
// silently left without its enum.
func TestEveryDeclarationResolves(t *testing.T) {
	declarations := 0
	protoregistry.GlobalFiles.RangeFilesByPackage(rpcrule.Package, func(fd protoreflect.FileDescriptor) bool {
		ms := fd.Messages()
		for i := 0; i < ms.Len(); i++ {
			fs := ms.Get(i).Fields()
			for j := 0; j < fs.Len(); j++ {
				set, err := Of(fs.Get(j))
				if err != nil {
					t.Error(err)
				}
				if len(set) > 0 {
					declarations++
				}
				if slices.Contains(set, "") {
					t.Errorf("%s: the empty string is not a value", fs.Get(j).FullName())
				}
			}
		}
		return true
	})
	if declarations < 15 {
		t.Errorf("only %d fields declare a set of values", declarations)
	}
}

func TestSameAsExcept(t *testing.T) {
	got, err := Named("creativeops.v1.Delivery.event_type")
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, "*") || !slices.Contains(got, "webhook.test") {
		t.Errorf("Delivery.event_type = %q: the wildcard is a subscription, not an event's type", got)
	}
	if _, err := Named("creativeops.v1.Job.nope"); err == nil || !strings.Contains(err.Error(), "no field") {
		t.Errorf("an unknown field: %v", err)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
