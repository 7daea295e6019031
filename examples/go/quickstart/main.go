// Command quickstart calls creativeops from Go with the generated connect-go
// clients (gen/creativeops/v1/creativeopsv1connect): it creates creators,
// shows what the API's errors carry, runs a workflow as a background job and
// waits for it, and lists creators a page at a time.
//
//	CREATIVEOPS_KEY=$(cat data/bootstrap-key) go run ./examples/go/quickstart
//
// CREATIVEOPS_URL is the server's base URL (default http://localhost:8080).
// The key needs the creators:read, creators:write, engine:run and
// engine:read scopes; the key of a new installation has every scope.
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/types/known/structpb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/gen/creativeops/v1/creativeopsv1connect"
)

func main() {
	key := os.Getenv("CREATIVEOPS_KEY")
	if key == "" {
		fmt.Fprintln(os.Stderr, "quickstart: set CREATIVEOPS_KEY to an API key (a new installation writes one to data/bootstrap-key)")
		os.Exit(2)
	}
	baseURL := cmp.Or(os.Getenv("CREATIVEOPS_URL"), "http://localhost:8080")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, baseURL, key, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", describe(err))
		os.Exit(1)
	}
}

// run is the whole example; main only reads the environment.
func run(ctx context.Context, baseURL, key string, out io.Writer) error {
	// One http.Client for every service: connections are shared. The
	// timeout bounds each call; waitForJob bounds the wait as a whole.
	httpClient := &http.Client{Timeout: 30 * time.Second}
	// The clients speak the Connect protocol (binary protobuf over HTTP
	// POST). connect.WithGRPC() would make them speak native gRPC on the
	// same port instead (it needs HTTP/2: an https:// URL, or an
	// http.Client whose transport allows unencrypted HTTP/2).
	opts := []connect.ClientOption{connect.WithInterceptors(bearer(key))}
	creators := creativeopsv1connect.NewCreatorsServiceClient(httpClient, baseURL, opts...)
	engine := creativeopsv1connect.NewEngineServiceClient(httpClient, baseURL, opts...)

	// Emails are unique per organization: a suffix lets the example run
	// more than once against one server.
	suffix := strings.ToLower(rand.Text()[:8])
	email := "nova+" + suffix + "@example.com"
	metadata, err := structpb.NewStruct(map[string]any{"label": "Night Owl"})
	if err != nil {
		return err
	}
	nova, err := createCreator(ctx, creators, &creativeopsv1.CreateCreatorRequest{
		Name: "Nova Reyes", Email: email, Vertical: "music", Metadata: metadata,
	})
	if err != nil {
		return fmt.Errorf("create creator: %w", err)
	}
	fmt.Fprintf(out, "created creator %s: %s <%s>, %s, %s\n", nova.GetId(), nova.GetName(), nova.GetEmail(), nova.GetVertical(), nova.GetStatus())

	// Errors: every error of the API is a *connect.Error whose code is the
	// gRPC code, with a google.rpc.ErrorInfo (a stable reason) and, for
	// bad input, a google.rpc.BadRequest naming the fields at fault.
	_, err = createCreator(ctx, creators, &creativeopsv1.CreateCreatorRequest{Name: "Nova Reyes", Email: email, Vertical: "music"})
	if connect.CodeOf(err) != connect.CodeAlreadyExists {
		return fmt.Errorf("the same email twice: want already_exists, got %v", err)
	}
	fmt.Fprintf(out, "the same email again: %s\n", describe(err))
	_, err = createCreator(ctx, creators, &creativeopsv1.CreateCreatorRequest{Name: "Nova Reyes", Email: "nova-at-example.com", Vertical: "music"})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		return fmt.Errorf("an invalid email: want invalid_argument, got %v", err)
	}
	fmt.Fprintf(out, "an invalid email: %s\n", describe(err))

	// A workflow run as a background job: the answer is the queued job,
	// polled until it ends. Without Async the call returns the finished
	// job itself.
	runContext, err := structpb.NewStruct(map[string]any{
		"artist": "Nova Reyes", "genre": "indie pop", "releaseDate": "2027-03-03",
	})
	if err != nil {
		return err
	}
	started, err := engine.RunWorkflow(ctx, connect.NewRequest(&creativeopsv1.RunWorkflowRequest{
		Vertical: "music", Workflow: "release-strategy", Context: runContext, Async: true,
	}))
	if err != nil {
		return fmt.Errorf("run workflow: %w", err)
	}
	fmt.Fprintf(out, "job %s %s\n", started.Msg.GetId(), started.Msg.GetStatus())
	job, err := waitForJob(ctx, engine, started.Msg.GetId(), 2*time.Minute)
	if err != nil {
		return fmt.Errorf("wait for job %s: %w", started.Msg.GetId(), err)
	}
	if job.GetStatus() != "completed" {
		return fmt.Errorf("job %s %s: %s", job.GetId(), job.GetStatus(), job.GetError().GetMessage())
	}
	strategy := job.GetResult().GetFields()["strategy"].GetStringValue()
	fmt.Fprintf(out, "job %s %s (%d%%): %s\n", job.GetId(), job.GetStatus(), job.GetProgress(), headline(strategy))

	// Two more creators, so that the list below takes more than one page.
	for _, name := range []string{"Kai Moreno", "Ada Lind"} {
		email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "+" + suffix + "@example.com"
		c, err := createCreator(ctx, creators, &creativeopsv1.CreateCreatorRequest{Name: name, Email: email, Vertical: "music"})
		if err != nil {
			return fmt.Errorf("create creator: %w", err)
		}
		fmt.Fprintf(out, "created creator %s: %s <%s>, %s, %s\n", c.GetId(), c.GetName(), c.GetEmail(), c.GetVertical(), c.GetStatus())
	}

	// Pagination: follow next_page_token until it is empty.
	pages, total := 0, 0
	for token := ""; ; {
		res, err := creators.ListCreators(ctx, connect.NewRequest(&creativeopsv1.ListCreatorsRequest{
			Vertical: "music", PageSize: 2, PageToken: token,
		}))
		if err != nil {
			return fmt.Errorf("list creators: %w", err)
		}
		pages++
		names := make([]string, 0, len(res.Msg.GetCreators()))
		for _, c := range res.Msg.GetCreators() {
			names = append(names, c.GetName())
		}
		total += len(names)
		fmt.Fprintf(out, "page %d: %s\n", pages, strings.Join(names, ", "))
		if token = res.Msg.GetNextPageToken(); token == "" {
			break
		}
	}
	fmt.Fprintf(out, "%d music creators in %d pages\n", total, pages)
	return nil
}

// bearer sends the API key on every call.
func bearer(key string) connect.UnaryInterceptorFunc {
	return func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			req.Header().Set("Authorization", "Bearer "+key)
			return next(ctx, req)
		}
	}
}

// createCreator sends the create with an Idempotency-Key: should the
// program send it again after a lost answer (with the same key), the
// creator is created once and the first answer is replayed.
func createCreator(ctx context.Context, client creativeopsv1connect.CreatorsServiceClient, msg *creativeopsv1.CreateCreatorRequest) (*creativeopsv1.Creator, error) {
	req := connect.NewRequest(msg)
	req.Header().Set("Idempotency-Key", rand.Text())
	res, err := client.CreateCreator(ctx, req)
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// waitForJob polls a job until it is completed, failed or canceled, or the
// timeout passes.
func waitForJob(ctx context.Context, engine creativeopsv1connect.EngineServiceClient, id string, timeout time.Duration) (*creativeopsv1.Job, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for interval := 100 * time.Millisecond; ; interval = min(2*interval, 2*time.Second) {
		res, err := engine.GetJob(ctx, connect.NewRequest(&creativeopsv1.GetJobRequest{Id: id}))
		if err != nil {
			return nil, err
		}
		switch res.Msg.GetStatus() {
		case "completed", "failed", "canceled":
			return res.Msg, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("job still %s: %w", res.Msg.GetStatus(), ctx.Err())
		case <-time.After(interval):
		}
	}
}

// describe renders an API error with what its details carry: the code, the
// message, the ErrorInfo reason and the fields of any BadRequest. Other
// errors (a refused connection, a timeout) are rendered as they are.
func describe(err error) string {
	var cerr *connect.Error
	if !errors.As(err, &cerr) {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", cerr.Code(), cerr.Message())
	for _, d := range cerr.Details() {
		v, err := d.Value()
		if err != nil {
			continue // a detail type this program does not link
		}
		switch v := v.(type) {
		case *errdetails.ErrorInfo:
			fmt.Fprintf(&b, " (reason %s)", v.GetReason())
		case *errdetails.BadRequest:
			for _, fv := range v.GetFieldViolations() {
				fmt.Fprintf(&b, " [field %s: %s]", fv.GetField(), fv.GetDescription())
			}
		}
	}
	if id := cerr.Meta().Get("X-Request-Id"); id != "" {
		fmt.Fprintf(&b, " (request %s)", id)
	}
	return b.String()
}

// headline is the first clause of a strategy, which names the date.
func headline(s string) string {
	if i := strings.Index(s, ": "); i > 0 {
		return s[:i]
	}
	return s
}
