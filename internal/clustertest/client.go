package clustertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
)

// Transport is how a request travels.
type Transport string

// The two faces of the API.
const (
	REST Transport = "REST"
	GRPC Transport = "gRPC"
)

// Client calls the API over REST and gRPC with one key.
type Client struct {
	BaseURL string
	Key     string
	HTTP    *http.Client
	conns   []*grpc.ClientConn
	next    atomic.Uint64
}

// NewClient connects to addr (host:port). grpcConns HTTP/2 connections are
// opened and used in turn, as a client library with a small pool would.
func NewClient(addr, key string, grpcConns int) (*Client, error) {
	c := &Client{
		BaseURL: "http://" + addr,
		Key:     key,
		HTTP: &http.Client{
			Transport: &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 30 * time.Second},
			Timeout:   15 * time.Second,
		},
	}
	for i := 0; i < max(1, grpcConns); i++ {
		cc, err := grpc.NewClient("passthrough:///"+addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithPerRPCCredentials(bearer(key)))
		if err != nil {
			c.Close()
			return nil, err
		}
		c.conns = append(c.conns, cc)
	}
	return c, nil
}

// Close releases the connections.
func (c *Client) Close() {
	for _, cc := range c.conns {
		cc.Close()
	}
	c.HTTP.CloseIdleConnections()
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

func (c *Client) conn() *grpc.ClientConn {
	return c.conns[c.next.Add(1)%uint64(len(c.conns))]
}

// CallError is a failed call, classified so that tests can tell a server
// fault from a proxy reporting a dead replica.
type CallError struct {
	At        time.Time
	Op        string
	Transport Transport
	// HTTPStatus is the REST status (0 for gRPC or when no response came).
	HTTPStatus int
	// Code is the gRPC status code (for REST, derived from HTTPStatus).
	Code codes.Code
	// Backend is the replica that answered, when a proxy said so.
	Backend string
	// FromProxy marks errors the cluster proxy generated because a replica
	// could not be reached or died mid-request.
	FromProxy bool
	// Network marks a REST request that got no HTTP response at all.
	Network bool
	Msg     string
}

func (e *CallError) Error() string {
	where := ""
	if e.Backend != "" {
		where = " via " + e.Backend
	}
	if e.Transport == REST {
		return fmt.Sprintf("%s %s%s: HTTP %d: %s", e.Transport, e.Op, where, e.HTTPStatus, e.Msg)
	}
	return fmt.Sprintf("%s %s%s: %s: %s", e.Transport, e.Op, where, e.Code, e.Msg)
}

// ServerError reports a failure that the service itself produced: a 5xx
// or a gRPC code that means the server failed, not the caller.
func (e *CallError) ServerError() bool {
	if e.FromProxy {
		return false
	}
	if e.Transport == REST {
		return e.HTTPStatus >= 500 || e.Network
	}
	switch e.Code {
	case codes.Unknown, codes.Internal, codes.Unavailable, codes.DataLoss, codes.Unimplemented, codes.DeadlineExceeded:
		return true
	}
	return false
}

// rest makes one JSON call and decodes a response with status want into out.
func (c *Client) rest(ctx context.Context, op, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return &CallError{At: time.Now(), Op: op, Transport: REST, Network: true, Code: codes.Unavailable, Msg: err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		return &CallError{At: time.Now(), Op: op, Transport: REST, HTTPStatus: resp.StatusCode, Code: codeOfHTTP(resp.StatusCode),
			Backend: resp.Header.Get(HeaderBackend), FromProxy: resp.Header.Get(HeaderProxyError) != "", Msg: strings.TrimSpace(string(msg))}
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return &CallError{At: time.Now(), Op: op, Transport: REST, HTTPStatus: resp.StatusCode, Backend: resp.Header.Get(HeaderBackend), Network: true, Code: codes.Unavailable, Msg: "decode: " + err.Error()}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return nil
}

func codeOfHTTP(s int) codes.Code {
	switch {
	case s == 400:
		return codes.InvalidArgument
	case s == 401:
		return codes.Unauthenticated
	case s == 403:
		return codes.PermissionDenied
	case s == 404:
		return codes.NotFound
	case s == 409:
		return codes.AlreadyExists
	case s == 429:
		return codes.ResourceExhausted
	case s == 502 || s == 503:
		return codes.Unavailable
	case s >= 500:
		return codes.Internal
	}
	return codes.Unknown
}

func grpcErr(op string, err error) error {
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	e := &CallError{At: time.Now(), Op: op, Transport: GRPC, Code: st.Code(), Msg: st.Message()}
	if strings.HasPrefix(st.Message(), ProxyErrorPrefix) {
		e.FromProxy = true
		// The message names the replica: `cluster proxy: replica "r2": ...`.
		if _, rest, ok := strings.Cut(st.Message(), `replica "`); ok {
			e.Backend, _, _ = strings.Cut(rest, `"`)
		}
	}
	return e
}

// AsCallError unwraps a CallError.
func AsCallError(err error) (*CallError, bool) {
	var ce *CallError
	ok := errors.As(err, &ce)
	return ce, ok
}

// CreateCreator creates a music creator and returns its id.
func (c *Client) CreateCreator(ctx context.Context, tr Transport, name, email string) (string, error) {
	const op = "CreateCreator"
	if tr == GRPC {
		cr, err := creativeopsv1.NewCreatorsServiceClient(c.conn()).CreateCreator(ctx, &creativeopsv1.CreateCreatorRequest{Name: name, Email: email, Vertical: "music"})
		if err != nil {
			return "", grpcErr(op, err)
		}
		return cr.GetId(), nil
	}
	var out struct {
		ID string `json:"id"`
	}
	err := c.rest(ctx, op, "POST", "/v1/creators", map[string]any{"name": name, "email": email, "vertical": "music", "metadata": map[string]any{"label": "Night Owl"}}, http.StatusCreated, &out)
	return out.ID, err
}

// GetCreator reads a creator.
func (c *Client) GetCreator(ctx context.Context, tr Transport, id string) error {
	const op = "GetCreator"
	if tr == GRPC {
		_, err := creativeopsv1.NewCreatorsServiceClient(c.conn()).GetCreator(ctx, &creativeopsv1.GetCreatorRequest{Id: id})
		return grpcErr(op, err)
	}
	return c.rest(ctx, op, "GET", "/v1/creators/"+id, nil, http.StatusOK, nil)
}

// ListCreators lists the first page (20) of music creators and returns how
// many came back.
func (c *Client) ListCreators(ctx context.Context, tr Transport) (int, error) {
	const op = "ListCreators"
	if tr == GRPC {
		r, err := creativeopsv1.NewCreatorsServiceClient(c.conn()).ListCreators(ctx, &creativeopsv1.ListCreatorsRequest{Vertical: "music", PageSize: 20})
		if err != nil {
			return 0, grpcErr(op, err)
		}
		return len(r.GetCreators()), nil
	}
	var out struct {
		Creators []json.RawMessage `json:"creators"`
	}
	err := c.rest(ctx, op, "GET", "/v1/creators?vertical=music&page_size=20", nil, http.StatusOK, &out)
	return len(out.Creators), err
}

// releaseContext is music's release-strategy input, with a release date far
// enough ahead that the plan is feasible whenever the benchmark runs.
func releaseContext(artist string) map[string]any {
	return map[string]any{"artist": artist, "genre": "pop", "release_date": time.Now().AddDate(0, 4, 0).Format(time.DateOnly)}
}

// Run runs music/release-strategy, synchronously (200, completed) or
// asynchronously (202, queued), and returns the job id.
func (c *Client) Run(ctx context.Context, tr Transport, artist string, async bool) (string, error) {
	return c.RunWorkflow(ctx, tr, "release-strategy", releaseContext(artist), async)
}

// RunWorkflow runs a music workflow with the given context.
func (c *Client) RunWorkflow(ctx context.Context, tr Transport, workflow string, wctx map[string]any, async bool) (string, error) {
	op := "RunWorkflow(sync)"
	want := http.StatusOK
	if async {
		op, want = "RunWorkflow(async)", http.StatusAccepted
	}
	var id, st string
	if tr == GRPC {
		sc, err := structpb.NewStruct(wctx)
		if err != nil {
			return "", err
		}
		j, err := creativeopsv1.NewEngineServiceClient(c.conn()).RunWorkflow(ctx, &creativeopsv1.RunWorkflowRequest{Vertical: "music", Workflow: workflow, Context: sc, Async: async})
		if err != nil {
			return "", grpcErr(op, err)
		}
		id, st = j.GetId(), j.GetStatus()
	} else {
		var out struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		err := c.rest(ctx, op, "POST", "/v1/engine/run", map[string]any{"vertical": "music", "workflow": workflow, "context": wctx, "async": async}, want, &out)
		if err != nil {
			return "", err
		}
		id, st = out.ID, out.Status
	}
	if !async && st != "completed" {
		return id, &CallError{At: time.Now(), Op: op, Transport: tr, Code: codes.Internal, Msg: "sync run answered status " + st}
	}
	return id, nil
}

// JobStatus reads a job's status.
func (c *Client) JobStatus(ctx context.Context, tr Transport, id string) (string, error) {
	const op = "GetJob"
	if tr == GRPC {
		j, err := creativeopsv1.NewEngineServiceClient(c.conn()).GetJob(ctx, &creativeopsv1.GetJobRequest{Id: id})
		if err != nil {
			return "", grpcErr(op, err)
		}
		return j.GetStatus(), nil
	}
	var out struct {
		Status string `json:"status"`
	}
	err := c.rest(ctx, op, "GET", "/v1/engine/status/"+id, nil, http.StatusOK, &out)
	return out.Status, err
}

// Registered is the part of an IP record the load needs.
type Registered struct {
	ID            string `json:"id"`
	CertificateID string `json:"certificate_id"`
}

// Register registers a work by its SHA-256 (64 hex digits).
func (c *Client) Register(ctx context.Context, tr Transport, creatorID, title, hash string) (Registered, error) {
	const op = "RegisterWork"
	if tr == GRPC {
		r, err := creativeopsv1.NewIPServiceClient(c.conn()).RegisterWork(ctx, &creativeopsv1.RegisterWorkRequest{CreatorId: creatorID, Title: title, Type: "song", ContentHash: hash})
		if err != nil {
			return Registered{}, grpcErr(op, err)
		}
		return Registered{ID: r.GetId(), CertificateID: r.GetCertificateId()}, nil
	}
	var out Registered
	err := c.rest(ctx, op, "POST", "/v1/ip/register", map[string]any{"creator_id": creatorID, "title": title, "type": "song", "content_hash": hash}, http.StatusCreated, &out)
	return out, err
}

// Catalog lists a creator's first page of records (20) and returns how
// many came back.
func (c *Client) Catalog(ctx context.Context, tr Transport, creatorID string) (int, error) {
	const op = "ListCatalog"
	if tr == GRPC {
		r, err := creativeopsv1.NewIPServiceClient(c.conn()).ListCatalog(ctx, &creativeopsv1.ListCatalogRequest{CreatorId: creatorID, PageSize: 20})
		if err != nil {
			return 0, grpcErr(op, err)
		}
		return len(r.GetRecords()), nil
	}
	var out struct {
		Records []json.RawMessage `json:"records"`
	}
	err := c.rest(ctx, op, "GET", "/v1/ip/catalog?page_size=20&creator_id="+creatorID, nil, http.StatusOK, &out)
	return len(out.Records), err
}

// CreateWebhook subscribes url to every event type.
func (c *Client) CreateWebhook(ctx context.Context, url, secret string) (string, error) {
	var out struct {
		ID string `json:"id"`
	}
	err := c.rest(ctx, "CreateWebhook", "POST", "/v1/webhooks", map[string]any{"url": url, "events": []string{"*"}, "secret": secret}, http.StatusCreated, &out)
	return out.ID, err
}

// Certificate fetches a certificate bundle over gRPC.
func (c *Client) Certificate(ctx context.Context, certID string) (*creativeopsv1.Certificate, error) {
	cert, err := creativeopsv1.NewIPServiceClient(c.conn()).GetCertificate(ctx, &creativeopsv1.GetCertificateRequest{CertificateId: certID})
	return cert, grpcErr("GetCertificate", err)
}

// IPKeys fetches the published signing keys over gRPC.
func (c *Client) IPKeys(ctx context.Context) (*creativeopsv1.IPKeys, error) {
	k, err := creativeopsv1.NewIPServiceClient(c.conn()).GetKeys(ctx, &creativeopsv1.GetKeysRequest{})
	return k, grpcErr("GetKeys", err)
}
