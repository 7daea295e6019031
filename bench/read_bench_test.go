package bench

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/creativeops/creativeops/creators"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/internal/testdb"
	"github.com/creativeops/creativeops/internal/testserver"
	"github.com/creativeops/creativeops/server"
)

// The read benchmark: GET /v1/creators/{id} through the whole service
// (auth, rate limiting, analytics, request logging, REST and gRPC) beside
// two anchors per protocol: a bare handler that makes the service's own
// read of the row (creators.Service.Get) and writes it with nothing around
// it, and a plain one that answers the same creator from memory. All run
// in this process, one at a time, under the same closed loop; ratios to
// the anchors in the same round are the figures that survive a noisy,
// shared machine. Service over bare is what the chain (gateway, auth,
// limits, analytics, logging) costs; bare over plain what the database
// read does.
//
//	make bench-read      # = GOGC=400 go test -run '^$' -bench ReadRatio -benchtime 1x ./bench/
//
// make runs it at GOGC=400 (unless GOGC is set), the collector's setting
// under `creativeops serve`'s default memory limit: the service is measured
// as it runs. Every target shares the process, so the anchors run with it
// too.
//
// Environment: BENCH_SECONDS (per round and target, default 2),
// BENCH_ROUNDS (default 5, medians are reported), BENCH_CLIENTS
// (default 32), BENCH_TARGETS (the targets to run, by id, comma-separated:
// plain-http,bare-http,rest,plain-grpc,bare-grpc,grpc,grpc-port), BENCH_DB (sqlite, postgres or both; PostgreSQL needs
// CREATIVEOPS_TEST_POSTGRES_URL), BENCH_LOG_REQUESTS (the server's
// --log-requests, default its default). The OTEL_* variables trace the
// service as they trace `creativeops serve` (docs/tracing.md); with
// OTEL_TRACES_EXPORTER=otlp and no endpoint, spans go to an OTLP receiver
// in this process that counts them.

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// readTarget is one thing the load is pointed at.
type readTarget struct {
	id   string // short, for the benchmark's metrics
	name string
	do   func(ctx context.Context, i int) error
	// bare and plain index the targets this one's ratios are to: the
	// bare server of its protocol (the service's read, no chain) and the
	// plain one (no database at all). -1: the target is that anchor.
	bare, plain int
}

func BenchmarkReadRatio(b *testing.B) {
	var backends []testdb.Backend
	for _, be := range testdb.Backends(b) {
		if db := os.Getenv("BENCH_DB"); db == "" || db == be.Name {
			backends = append(backends, be)
		}
	}
	rounds, clients := envInt("BENCH_ROUNDS", 5), envInt("BENCH_CLIENTS", 32)
	d := time.Duration(envInt("BENCH_SECONDS", 2)) * time.Second
	var out strings.Builder
	fmt.Fprintf(&out, "\nGET /v1/creators/{id}, %d closed-loop clients on loopback, %d rounds of %v per target (targets take turns).\n", clients, rounds, d)
	fmt.Fprintf(&out, "req/s: the median round (all rounds). vs bare / vs plain: the median of each round's ratio to the same round of its protocol's bare server\n")
	fmt.Fprintf(&out, "(the service's own read of the row, nothing around it) and of its plain server (no database, the same response built in memory), all rounds in parentheses.\n")
	fmt.Fprintf(&out, "CPU per request: this process's CPU time (clients, servers, SQLite) over the target's requests; steadier than req/s on a shared machine.\n\n")
	fmt.Fprintf(&out, "| Database | Target | req/s (rounds) | vs bare (rounds) | vs plain (rounds) | p50 ms | p99 ms | CPU µs per request | pool waits per 1k requests | mean pool wait ms |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, be := range backends {
		b.Run(be.Name, func(b *testing.B) {
			targets, db := readTargets(b, be.URL(b))
			targets = selectTargets(b, targets, os.Getenv("BENCH_TARGETS"))
			results := make([][]Result, len(targets))
			// The service and the bare handlers share the database pool;
			// targets take turns, so its waits are each target's own.
			waits := make([]sql.DBStats, len(targets))
			// CPU time of this process (load generator, service, bare
			// handlers and, on SQLite, the database) while each target ran.
			cpu := make([]time.Duration, len(targets))
			for range b.N {
				for r := 0; r < rounds; r++ {
					for i, t := range targets {
						before, cpuBefore := db.Stats(), cpuTime()
						results[i] = append(results[i], Closed(context.Background(), clients, d, 1<<30, t.do))
						after := db.Stats()
						cpu[i] += cpuTime() - cpuBefore
						waits[i].WaitCount += after.WaitCount - before.WaitCount
						waits[i].WaitDuration += after.WaitDuration - before.WaitDuration
					}
				}
			}
			for i, t := range targets {
				m := medianRound(results[i])
				var each []string
				for _, res := range results[i] {
					each = append(each, fmt.Sprintf("%.0f", res.Throughput()))
					if res.Errors > 0 {
						b.Errorf("%s: %d errors", t.name, res.Errors)
					}
				}
				var requests int
				for _, res := range results[i] {
					requests += res.OK + res.Errors
				}
				meanWait := 0.0
				if waits[i].WaitCount > 0 {
					meanWait = float64(waits[i].WaitDuration.Microseconds()) / 1000 / float64(waits[i].WaitCount)
				}
				bare, bareRounds := roundRatios(results, i, t.bare)
				plain, plainRounds := roundRatios(results, i, t.plain)
				fmt.Fprintf(&out, "| %s | %s | %.0f (%s) | %s | %s | %.2f | %.2f | %.0f | %.1f | %.2f |\n", be.Name, t.name, m.Throughput(),
					strings.Join(each, ", "), ratioCell(bare, bareRounds), ratioCell(plain, plainRounds),
					float64(m.P50.Microseconds())/1000, float64(m.P99.Microseconds())/1000,
					float64(cpu[i].Microseconds())/float64(max(1, requests)), 1000*float64(waits[i].WaitCount)/float64(max(1, requests)), meanWait)
				if t.bare >= 0 {
					b.ReportMetric(bare, t.id+"-ratio")
				}
				if t.plain >= 0 {
					b.ReportMetric(plain, t.id+"-plain-ratio")
				}
				b.ReportMetric(float64(cpu[i].Microseconds())/float64(max(1, requests)), t.id+"-cpu-µs/req")
			}
		})
	}
	fmt.Fprintln(os.Stdout, out.String())
}

// selectTargets keeps the targets whose ids are listed (comma-separated;
// all when the list is empty). A ratio to an anchor left out is not shown:
// one target alone is for a profile of it.
func selectTargets(b *testing.B, targets []readTarget, list string) []readTarget {
	if list == "" {
		return targets
	}
	index := make([]int, len(targets))
	var out []readTarget
	for i, t := range targets {
		index[i] = -1
		if slices.Contains(strings.Split(list, ","), t.id) {
			index[i] = len(out)
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		b.Fatalf("BENCH_TARGETS=%s: no such target", list)
	}
	for i := range out {
		for _, a := range []*int{&out[i].bare, &out[i].plain} {
			if *a >= 0 {
				*a = index[*a]
			}
		}
	}
	return out
}

// roundRatios is the median, over rounds, of target i's throughput over
// target base's in the same round, and each round's ratio formatted; -1
// and nil when base < 0.
func roundRatios(results [][]Result, i, base int) (float64, []string) {
	if base < 0 {
		return -1, nil
	}
	var rs []float64
	var each []string
	for r, res := range results[i] {
		rs = append(rs, res.Throughput()/results[base][r].Throughput())
		each = append(each, fmt.Sprintf("%.2f", rs[r]))
	}
	return median(rs), each
}

func ratioCell(ratio float64, rounds []string) string {
	if rounds == nil {
		return "–"
	}
	return fmt.Sprintf("**%.2f×** (%s)", ratio, strings.Join(rounds, ", "))
}

// medianRound is the round with the median throughput.
func medianRound(rs []Result) Result {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b Result) int { return cmp.Compare(a.Throughput(), b.Throughput()) })
	return rs[len(rs)/2]
}

// readTargets starts the service on the database, a bare net/http handler
// and a bare gRPC server on the same rows, a plain net/http handler and a
// plain gRPC server that answer the same creator from memory, and returns
// the seven loads (per protocol: plain, bare, then the service; gRPC on
// the API port and on the gRPC-only port) and the pool the reads go
// through.
func readTargets(b *testing.B, url string) ([]readTarget, *sql.DB) {
	logFile, err := os.Create(b.TempDir() + "/server.log")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { logFile.Close() })
	// The log goes to a file, as a deployed server's goes to a pipe: the
	// writes are real.
	log := slog.New(slog.NewJSONHandler(logFile, nil))
	tp := benchTracing(b, log)
	s := testserver.Start(b, testserver.Options{DatabaseURL: url, Configure: func(c *server.Config) {
		c.Logger = log
		c.LogRequests = os.Getenv("BENCH_LOG_REQUESTS")
		c.DisableAnalytics = false
		if tp != nil {
			c.TracerProvider = tp
		}
	}})
	r := s.Do(b, "POST", "/v1/creators", s.AdminKey, map[string]any{"name": "Nova Reyes", "email": "nova@example.com", "vertical": "music", "metadata": map[string]any{"label": "Night Owl"}})
	if r.Status != http.StatusCreated {
		b.Fatalf("create creator: %d %s", r.Status, r.Body)
	}
	id := r.JSON["id"].(string)
	// The bare servers read as the service does, through the same store.
	svc := creators.NewService(s.Store, nil)
	orgID := s.OrgID

	bareHTTP := serveBareHTTP(b, svc, orgID)
	bareGRPC := serveCreatorsGRPC(b, &bareCreators{svc: svc, orgID: orgID})
	row, err := svc.Get(context.Background(), orgID, id)
	if err != nil {
		b.Fatal(err)
	}
	plainHTTP := servePlainHTTP(b, row)
	plainGRPC := serveCreatorsGRPC(b, &bareCreators{row: row})
	client := Client()
	b.Cleanup(client.CloseIdleConnections)
	grpcService := grpcClients(b, s.Addr, s.AdminKey)
	// The gRPC-only port (--grpc-addr) serves on gRPC's own transport,
	// the API port through net/http.
	grpcLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = s.ServeGRPC(grpcLn) }()
	grpcPort := grpcClients(b, grpcLn.Addr().String(), s.AdminKey)
	grpcBare := grpcClients(b, bareGRPC, "")
	grpcPlain := grpcClients(b, plainGRPC, "")
	getRequest := &creativeopsv1.GetCreatorRequest{Id: id}
	grpcGet := func(cs []creativeopsv1.CreatorsServiceClient) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			c, err := cs[i%len(cs)].GetCreator(ctx, getRequest)
			if err == nil && c.GetId() != id {
				err = fmt.Errorf("got creator %q", c.GetId())
			}
			return err
		}
	}
	restGet := func(url, key string) func(ctx context.Context, i int) error {
		f := get(client, url, key)
		return func(ctx context.Context, _ int) error { return f(ctx) }
	}
	return []readTarget{
		{"plain-http", "plain net/http (no database, JSON)", restGet(plainHTTP+"/v1/creators/"+id, ""), -1, -1},
		{"bare-http", "bare net/http (the service's read, JSON)", restGet(bareHTTP+"/v1/creators/"+id, ""), -1, 0},
		{"rest", "REST GET /v1/creators/{id}", restGet(s.URL+"/v1/creators/"+id, s.AdminKey), 1, 0},
		{"plain-grpc", "plain gRPC server (no database)", grpcGet(grpcPlain), -1, -1},
		{"bare-grpc", "bare gRPC server (the service's read)", grpcGet(grpcBare), -1, 3},
		{"grpc", "gRPC GetCreator (API port)", grpcGet(grpcService), 4, 3},
		{"grpc-port", "gRPC GetCreator (--grpc-addr)", grpcGet(grpcPort), 4, 3},
	}, s.Store.ReadDB()
}

// grpcClients opens 4 HTTP/2 connections, as a client library's small
// pool would; calls take them in turn.
func grpcClients(b *testing.B, addr, key string) []creativeopsv1.CreatorsServiceClient {
	var out []creativeopsv1.CreatorsServiceClient
	for range 4 {
		opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
		if key != "" {
			opts = append(opts, grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
				return invoker(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key), method, req, reply, cc, opts...)
			}))
		}
		cc, err := grpc.NewClient("passthrough:///"+addr, opts...)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cc.Close() })
		out = append(out, creativeopsv1.NewCreatorsServiceClient(cc))
	}
	return out
}

// creatorJSON is the REST representation the bare handler writes.
type creatorJSON struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Email     string         `json:"email"`
	Vertical  string         `json:"vertical"`
	Status    string         `json:"status"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
}

func serveBareHTTP(b *testing.B, svc *creators.Service, orgID string) string {
	return serveCreatorJSON(b, func(r *http.Request) (*creators.Creator, error) {
		return svc.Get(r.Context(), orgID, r.PathValue("id"))
	})
}

// servePlainHTTP answers every read with row, from memory: what net/http
// and encoding/json cost with no database at all.
func servePlainHTTP(b *testing.B, row *creators.Creator) string {
	return serveCreatorJSON(b, func(r *http.Request) (*creators.Creator, error) {
		if r.PathValue("id") != row.ID {
			return nil, fmt.Errorf("creator %q not found", r.PathValue("id"))
		}
		return row, nil
	})
}

func serveCreatorJSON(b *testing.B, get func(*http.Request) (*creators.Creator, error)) string {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/creators/{id}", func(w http.ResponseWriter, r *http.Request) {
		c, err := get(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(creatorJSON{c.ID, c.Name, c.Email, c.Vertical, c.Status, c.Metadata, c.CreatedAt, c.UpdatedAt})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// bareCreators reads the creator as the service does or, when row is set
// (the plain server), answers row from memory.
type bareCreators struct {
	creativeopsv1.UnimplementedCreatorsServiceServer
	svc   *creators.Service
	orgID string
	row   *creators.Creator
}

func (s *bareCreators) GetCreator(ctx context.Context, req *creativeopsv1.GetCreatorRequest) (*creativeopsv1.Creator, error) {
	c := s.row
	if c == nil {
		var err error
		if c, err = s.svc.Get(ctx, s.orgID, req.GetId()); err != nil {
			return nil, err
		}
	} else if req.GetId() != c.ID {
		return nil, status.Errorf(codes.NotFound, "creator %q not found", req.GetId())
	}
	out := &creativeopsv1.Creator{Id: c.ID, Name: c.Name, Email: c.Email, Vertical: c.Vertical, Status: c.Status,
		CreatedAt: timestamppb.New(c.CreatedAt), UpdatedAt: timestamppb.New(c.UpdatedAt)}
	if c.Metadata != nil {
		out.Metadata, _ = structpb.NewStruct(c.Metadata)
	}
	return out, nil
}

// serveCreatorsGRPC serves bc on a gRPC server with no interceptors.
func serveCreatorsGRPC(b *testing.B, bc *bareCreators) string {
	srv := grpc.NewServer()
	creativeopsv1.RegisterCreatorsServiceServer(srv, bc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(srv.Stop)
	return ln.Addr().String()
}
