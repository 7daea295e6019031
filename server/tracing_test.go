package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// traced is a test server whose spans are kept in memory.
type traced struct {
	*testserver.Server
	spans *tracetest.InMemoryExporter
}

func startTraced(t *testing.T, b testdb.Backend, configure ...func(*server.Config)) *traced {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := testserver.Start(t, testserver.Options{DatabaseURL: b.URL(t), Configure: func(c *server.Config) {
		c.TracerProvider = tp
		for _, f := range configure {
			f(c)
		}
	}})
	return &traced{Server: s, spans: exp}
}

// caller is a client's span: the parent a request names in traceparent.
type caller struct {
	trace trace.TraceID
	span  trace.SpanID
}

// newCaller is a caller of a trace of its own: tests tell their requests'
// spans apart by trace id.
func newCaller() caller {
	var c caller
	_, _ = rand.Read(c.trace[:])
	_, _ = rand.Read(c.span[:])
	return c
}

func (c caller) traceparent() string {
	return "00-" + c.trace.String() + "-" + c.span.String() + "-01"
}

// wait returns the first span that satisfies ok, once it has ended.
func (tr *traced) wait(t *testing.T, what string, ok func(tracetest.SpanStub) bool) tracetest.SpanStub {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, s := range tr.spans.GetSpans() {
			if ok(s) {
				return s
			}
		}
	}
	var names []string
	for _, s := range tr.spans.GetSpans() {
		names = append(names, s.Name+" "+s.SpanContext.TraceID().String())
	}
	t.Fatalf("no span %s among:\n%s", what, strings.Join(names, "\n"))
	return tracetest.SpanStub{}
}

func named(name string, traceID trace.TraceID) func(tracetest.SpanStub) bool {
	return func(s tracetest.SpanStub) bool { return s.Name == name && s.SpanContext.TraceID() == traceID }
}

func childOf(parent tracetest.SpanStub, prefix string) func(tracetest.SpanStub) bool {
	return func(s tracetest.SpanStub) bool {
		return strings.HasPrefix(s.Name, prefix) && s.Parent.SpanID() == parent.SpanContext.SpanID() && s.Parent.TraceID() == parent.SpanContext.TraceID()
	}
}

func attr(s tracetest.SpanStub, key string) string {
	for _, a := range s.Attributes {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}

func linksTo(s tracetest.SpanStub, sc trace.SpanContext) bool {
	for _, l := range s.Links {
		if l.SpanContext.TraceID() == sc.TraceID() && l.SpanContext.SpanID() == sc.SpanID() {
			return true
		}
	}
	return false
}

// checkRequestSpan checks what every request's span carries: the client's
// span as its parent, the server kind, the caller's organization and the
// request id the response named.
func checkRequestSpan(t *testing.T, s tracetest.SpanStub, c caller, org, requestID string) {
	t.Helper()
	if s.Parent.TraceID() != c.trace || s.Parent.SpanID() != c.span || !s.Parent.IsRemote() {
		t.Errorf("%s: parent %v, want the client's span %v", s.Name, s.Parent, c.span)
	}
	if s.SpanKind != trace.SpanKindServer {
		t.Errorf("%s: kind %v, want server", s.Name, s.SpanKind)
	}
	if got := attr(s, "creativeops.organization_id"); got != org {
		t.Errorf("%s: organization %q, want %q", s.Name, got, org)
	}
	if got := attr(s, "creativeops.request_id"); got != requestID || requestID == "" {
		t.Errorf("%s: request id %q, want %q", s.Name, got, requestID)
	}
}

// Every transport gives a request a server span under the caller's
// traceparent, named by its route, with its organization and request id,
// and the statements it runs are children of it.
func TestTracingTransports(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			tr := startTraced(t, b)
			creator := createCreator(t, tr.Server, tr.AdminKey)["id"].(string)

			t.Run("REST", func(t *testing.T) {
				c := newCaller()
				r := tr.Do(t, "GET", "/v1/creators/"+creator, tr.AdminKey, nil, "traceparent", c.traceparent())
				if r.Status != http.StatusOK {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				span := tr.wait(t, "of the REST request", named("GET /v1/creators/{id}", c.trace))
				checkRequestSpan(t, span, c, tr.OrgID, r.Header.Get("X-Request-Id"))
				if got := attr(span, "http.route"); got != "/v1/creators/{id}" {
					t.Errorf("http.route %q", got)
				}
				tr.wait(t, "of a statement under the REST request", childOf(span, "sql."))
			})

			t.Run("REST refused before the gateway", func(t *testing.T) {
				c := newCaller()
				r := tr.Do(t, "POST", "/v1/creators", "co_live_nope", map[string]any{"name": "x"}, "traceparent", c.traceparent())
				if r.Status != http.StatusUnauthorized {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				span := tr.wait(t, "of the refused request", named("POST /v1/creators", c.trace))
				checkRequestSpan(t, span, c, "", r.Header.Get("X-Request-Id"))
			})

			t.Run("gRPC", func(t *testing.T) {
				c := newCaller()
				ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+tr.AdminKey, "traceparent", c.traceparent())
				var header metadata.MD
				if _, err := creativeopsv1.NewCreatorsServiceClient(tr.Conn(t)).GetCreator(ctx, &creativeopsv1.GetCreatorRequest{Id: creator}, grpc.Header(&header)); err != nil {
					t.Fatal(err)
				}
				span := tr.wait(t, "of the gRPC call", named("creativeops.v1.CreatorsService/GetCreator", c.trace))
				checkRequestSpan(t, span, c, tr.OrgID, strings.Join(header.Get("x-request-id"), ""))
				tr.wait(t, "of a statement under the gRPC call", childOf(span, "sql."))
			})

			msg, _ := proto.Marshal(&creativeopsv1.GetCreatorRequest{Id: creator})
			frame := make([]byte, 5+len(msg))
			binary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))
			copy(frame[5:], msg)
			for _, rpc := range []struct {
				name, contentType string
				body              []byte
			}{
				{"Connect", "application/json", []byte(`{"id":"` + creator + `"}`)},
				{"gRPC-Web", "application/grpc-web+proto", frame},
			} {
				t.Run(rpc.name, func(t *testing.T) {
					c := newCaller()
					req, _ := http.NewRequest("POST", tr.URL+"/creativeops.v1.CreatorsService/GetCreator", bytes.NewReader(rpc.body))
					req.Header.Set("Content-Type", rpc.contentType)
					req.Header.Set("Authorization", "Bearer "+tr.AdminKey)
					req.Header.Set("Traceparent", c.traceparent())
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("%d", resp.StatusCode)
					}
					outer := tr.wait(t, "of the HTTP request", named("POST /creativeops.v1.CreatorsService/GetCreator", c.trace))
					if outer.Parent.SpanID() != c.span || attr(outer, "creativeops.organization_id") != tr.OrgID {
						t.Errorf("HTTP span: parent %v, organization %q", outer.Parent.SpanID(), attr(outer, "creativeops.organization_id"))
					}
					call := tr.wait(t, "of the call under it", childOf(outer, "creativeops.v1.CreatorsService/GetCreator"))
					if attr(call, "creativeops.organization_id") != tr.OrgID || attr(call, "creativeops.request_id") != resp.Header.Get("X-Request-Id") {
						t.Errorf("call span attributes %v, response request id %q", call.Attributes, resp.Header.Get("X-Request-Id"))
					}
					tr.wait(t, "of a statement under the call", childOf(call, "sql."))
				})
			}

			t.Run("background statements start no traces", func(t *testing.T) {
				// The queue polls the database every fetchPollInterval
				// (on SQLite through the traced pool).
				time.Sleep(300 * time.Millisecond)
				for _, s := range tr.spans.GetSpans() {
					if strings.HasPrefix(s.Name, "sql.") && !s.Parent.IsValid() {
						t.Fatalf("a statement outside any request or job is the root of a trace: %s %v", s.Name, s.Attributes)
					}
				}
			})

			t.Run("probes are not traced", func(t *testing.T) {
				c := newCaller()
				if r := tr.Do(t, "GET", "/readyz", "", nil, "traceparent", c.traceparent()); r.Status != http.StatusOK {
					t.Fatal(r.Status)
				}
				// A request after the probe: once its span is in, the
				// probe's would be too.
				tr.Do(t, "GET", "/v1/creators/"+creator, tr.AdminKey, nil, "traceparent", c.traceparent())
				tr.wait(t, "of the request after the probe", named("GET /v1/creators/{id}", c.trace))
				for _, s := range tr.spans.GetSpans() {
					if s.SpanContext.TraceID() == c.trace && strings.Contains(s.Name, "readyz") || s.Name == "GET" && s.SpanContext.TraceID() == c.trace {
						t.Errorf("probe traced: %s", s.Name)
					}
				}
			})
		})
	}
}

// What a request causes later is traced too: an asynchronous run's job and
// a webhook delivery are spans linked to the request that queued them, the
// receiver gets the delivery's traceparent, and an IP registration's
// sealing batch is a child of the request.
func TestTracingBackgroundWork(t *testing.T) {
	for _, b := range testdb.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			tr := startTraced(t, b)

			t.Run("asynchronous run", func(t *testing.T) {
				c := newCaller()
				r := tr.Do(t, "POST", "/v1/engine/run", tr.AdminKey, map[string]any{"vertical": "music", "workflow": "release-strategy", "context": releaseContext, "async": true},
					"traceparent", c.traceparent())
				if r.Status != http.StatusAccepted {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				req := tr.wait(t, "of the request", named("POST /v1/engine/run", c.trace))
				job := tr.wait(t, "of the job", func(s tracetest.SpanStub) bool {
					return s.Name == "river.work/engine.run" && linksTo(s, req.SpanContext)
				})
				if job.SpanKind != trace.SpanKindConsumer || attr(job, "river.job.attempt") != "1" {
					t.Errorf("job span: kind %v, attributes %v", job.SpanKind, job.Attributes)
				}
				tr.wait(t, "of a statement of the job", childOf(job, "sql."))
			})

			t.Run("webhook delivery", func(t *testing.T) {
				rc := newReceiver(t, nil)
				createWebhook(t, tr.Server, tr.AdminKey, rc.URL, []string{"creator.created"}, "")
				c := newCaller()
				r := tr.Do(t, "POST", "/v1/creators", tr.AdminKey, map[string]any{"name": "Traced", "email": "traced@example.com", "vertical": "music"},
					"traceparent", c.traceparent())
				if r.Status != http.StatusCreated {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				got := rc.wait(t, 1, 15*time.Second)
				parent := got[0].Header.Get("Traceparent")
				parts := strings.Split(parent, "-")
				if len(parts) != 4 {
					t.Fatalf("receiver got traceparent %q", parent)
				}
				delivery := tr.wait(t, "of the delivery", func(s tracetest.SpanStub) bool {
					return s.Name == "webhook.deliver" && s.SpanContext.TraceID().String() == parts[1] && s.SpanContext.SpanID().String() == parts[2]
				})
				if delivery.SpanKind != trace.SpanKindClient || attr(delivery, "http.response.status_code") != "204" || attr(delivery, "webhook.event.type") != "creator.created" {
					t.Errorf("delivery span: kind %v, attributes %v", delivery.SpanKind, delivery.Attributes)
				}
				job := tr.wait(t, "of the delivery's job", func(s tracetest.SpanStub) bool {
					return s.Name == "river.work/webhooks.deliver" && s.SpanContext.SpanID() == delivery.Parent.SpanID()
				})
				// The job was queued by the request, or by a fan-out job
				// the request queued: either way its links lead back.
				req := tr.wait(t, "of the request", named("POST /v1/creators", c.trace))
				if !leadsTo(tr.spans.GetSpans(), job, req.SpanContext.TraceID()) {
					t.Errorf("the delivery's job links to %v, which does not lead to the request's trace", job.Links)
				}
			})

			t.Run("IP sealing batch", func(t *testing.T) {
				creator := createCreator(t, tr.Server, tr.AdminKey)["id"].(string)
				c := newCaller()
				r := tr.Do(t, "POST", "/v1/ip/register", tr.AdminKey, map[string]any{"creator_id": creator, "title": "Traced 2", "type": "book", "content_hash": digestOf("traced 2 " + b.Name)},
					"traceparent", c.traceparent())
				if r.Status != http.StatusCreated {
					t.Fatalf("%d %s", r.Status, r.Body)
				}
				req := tr.wait(t, "of the request", named("POST /v1/ip/register", c.trace))
				batch := tr.wait(t, "of the sealing batch", childOf(req, "ipreg.seal_batch"))
				if attr(batch, "ipreg.batch.records") != "1" || attr(batch, "ipreg.batch.failed") != "0" {
					t.Errorf("batch attributes %v", batch.Attributes)
				}
				tr.wait(t, "of a statement of the batch", childOf(batch, "sql."))
			})
		})
	}
}

// leadsTo reports whether s, through its parents and links, reaches a span
// of trace id.
func leadsTo(spans tracetest.SpanStubs, s tracetest.SpanStub, id trace.TraceID) bool {
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, sp := range spans {
		byID[sp.SpanContext.SpanID()] = sp
	}
	seen := map[trace.SpanID]bool{}
	var walk func(sc trace.SpanContext) bool
	walk = func(sc trace.SpanContext) bool {
		if sc.TraceID() == id {
			return true
		}
		if seen[sc.SpanID()] {
			return false
		}
		seen[sc.SpanID()] = true
		sp, ok := byID[sc.SpanID()]
		if !ok {
			return false
		}
		if sp.Parent.IsValid() && walk(sp.Parent) {
			return true
		}
		for _, l := range sp.Links {
			if walk(l.SpanContext) {
				return true
			}
		}
		return false
	}
	return walk(s.SpanContext)
}
