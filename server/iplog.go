package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"mime"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/dashboard"
	"github.com/creativeops/creativeops/ipreg"
)

// The transparency log is public, as C2SP tlog-tiles
// (https://c2sp.org/tlog-tiles), so that anyone's tiles client can fetch
// and audit the whole tree without an API key:
//
//   - /v1/ip/logs/{log_id}/ is the base URL of each log, current or
//     retired by a key rotation ({log_id} is the last element of its
//     origin): checkpoint (the signed note, text/plain) and
//     tile/<L>/<N>[.p/<W>]. Its tiles never change: cacheable forever.
//   - /v1/ip/log/ is the base URL of the current log: tile/... as above,
//     and checkpoint, which is also the API's GetCheckpoint (JSON, with a
//     credential). A request without a credential that does not ask for
//     JSON alone gets the signed note (publicCheckpoint). After a key
//     rotation this base names another log, so its tiles are cached for
//     a short time only.
//
// Entry bundles (tile/entries/...) are not published: an entry is a
// record's canonical bytes, which name its organization, creator, title
// and description, and a bundle mixes organizations. The hash tiles are
// all a monitor or an auditor of the tree needs; a record's owner proves
// its inclusion with the certificate's record bytes.
//
// Each client address may make Config.LogReadLimit requests per second to
// these routes; the handlers go through the REST middleware like every
// route (request id, request log, metrics under their templates).

const (
	currentLogPrefix = "/v1/ip/log/"
	logsPrefix       = "/v1/ip/logs/"
	checkpointPath   = currentLogPrefix + "checkpoint"
)

var (
	currentCheckpointRoute = route{http.MethodGet, checkpointPath}
	currentTileRoute       = route{http.MethodGet, currentLogPrefix + "tile/{tile...}"}
	logCheckpointRoute     = route{http.MethodGet, logsPrefix + "{log_id}/checkpoint"}
	logTileRoute           = route{http.MethodGet, logsPrefix + "{log_id}/tile/{tile...}"}
)

// DefaultLogReadLimit is what one client address may read of the public
// log: auditing a whole tree of a million records fetches some 4,000
// tiles, a minute and a half at this rate; a monitor fetches a checkpoint
// and a few tiles a minute.
var DefaultLogReadLimit = auth.RateLimit{RequestsPerSecond: 50, Burst: 500}

// Cache lifetimes of the public log's responses.
const (
	// immutableTile: a tile of a log named by its id never changes (a
	// partial one is the first W hashes of the full one, forever).
	immutableTile = "public, max-age=31536000, immutable"
	// currentTile: the current log's base names another log after a key
	// rotation.
	currentTile = "public, max-age=300"
	// checkpointCache: a checkpoint is replaced by every batch of
	// registrations.
	checkpointCache = "public, max-age=5"
)

// publicLogPath reports whether path is one of the public log's routes
// that no credential is asked for whatever the request (the current log's
// checkpoint depends on the request: publicCheckpoint).
func publicLogPath(path string) bool {
	return strings.HasPrefix(path, currentLogPrefix+"tile/") || strings.HasPrefix(path, logsPrefix)
}

// publicCheckpoint reports whether r asks for the current log's checkpoint
// as a signed note: GET (or HEAD) /v1/ip/log/checkpoint, without a body,
// without a credential (an Authorization header, or the dashboard's CSRF
// header that goes with its session cookie), and not asking for JSON
// only. Any other request to the path is the API's GetCheckpoint, which
// answers JSON to a key with ip:read, as it always has.
func publicCheckpoint(r *http.Request) bool {
	if r.URL.Path != checkpointPath || r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if r.Body != nil && r.Body != http.NoBody {
		return false
	}
	h := r.Header
	if len(h["Authorization"]) > 0 || h.Get(dashboard.CSRFHeader) != "" {
		return false
	}
	return !wantsJSONOnly(h.Values("Accept"))
}

// wantsJSONOnly reports whether Accept values ask for JSON and nothing a
// signed note could be: no text/plain, text/* or */*.
func wantsJSONOnly(accept []string) bool {
	json := false
	for _, line := range accept {
		for _, part := range strings.Split(line, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || params["q"] == "0" {
				continue
			}
			switch {
			case mt == "text/plain" || mt == "text/*" || mt == "*/*":
				return false
			case mt == "application/json" || strings.HasSuffix(mt, "+json"):
				json = true
			}
		}
	}
	return json
}

// mountPublicLog adds the public log's routes to mux. The current log's
// checkpoint is served before the mux (see Handler): its path is an API
// route's, which the mux leaves to the gateway.
func (s *Server) mountPublicLog(mux *http.ServeMux) {
	mux.HandleFunc(currentTileRoute.Method+" "+currentTileRoute.Template, func(w http.ResponseWriter, r *http.Request) {
		s.serveLogTile(w, r, currentTileRoute, "")
	})
	mux.HandleFunc(logCheckpointRoute.Method+" "+logCheckpointRoute.Template, func(w http.ResponseWriter, r *http.Request) {
		s.serveLogCheckpoint(w, r, logCheckpointRoute, r.PathValue("log_id"))
	})
	mux.HandleFunc(logTileRoute.Method+" "+logTileRoute.Template, func(w http.ResponseWriter, r *http.Request) {
		s.serveLogTile(w, r, logTileRoute, r.PathValue("log_id"))
	})
}

// admitLogRead names the request by rt and spends a token of its client
// address (an IPv6 client's /64, as every per-address limit counts it);
// past the limit it answers 429 and returns false.
func (s *Server) admitLogRead(w http.ResponseWriter, r *http.Request, rt route) bool {
	if ri := requestInfoFrom(r.Context()); ri != nil {
		ri.route = rt
	}
	lim := s.cfg.LogReadLimit
	c := rateCharge{lim: lim, d: s.limiter.Take(r.Context(), "ip_log:addr:"+s.proxies.RequestLimitKey(r), lim), cost: 1}
	c.setHeaders(w.Header())
	if !c.d.Allowed {
		s.metrics.rateLimited.Inc()
		writeError(w, r, c.exceeded("one client address may read the public log %s times per second", nil).GRPCStatus())
		return false
	}
	return true
}

// logOrigin is the origin of the log a request names: the current one
// for an empty id.
func (s *Server) logOrigin(r *http.Request, id string) (string, error) {
	if id == "" {
		return s.registry.Keys().Origin(), nil
	}
	return s.registry.LogOrigin(r.Context(), id)
}

// serveCurrentCheckpoint answers a publicCheckpoint request.
func (s *Server) serveCurrentCheckpoint(w http.ResponseWriter, r *http.Request) {
	s.serveLogCheckpoint(w, r, currentCheckpointRoute, "")
}

func (s *Server) serveLogCheckpoint(w http.ResponseWriter, r *http.Request, rt route, id string) {
	if !s.admitLogRead(w, r, rt) {
		return
	}
	origin, err := s.logOrigin(r, id)
	if err != nil {
		s.logReadFailed(w, r, id, err)
		return
	}
	head, err := s.registry.LogHead(r.Context(), origin)
	if err != nil {
		s.logReadFailed(w, r, id, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", checkpointCache)
	h.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(head.Checkpoint))
}

func (s *Server) serveLogTile(w http.ResponseWriter, r *http.Request, rt route, id string) {
	if !s.admitLogRead(w, r, rt) {
		return
	}
	p := "tile/" + r.PathValue("tile")
	t, err := ipreg.ParseTilePath(p)
	if err != nil {
		writeError(w, r, apierror.Invalid("MALFORMED_TILE_PATH", "tile",
			"not a C2SP tlog-tiles path: want tile/<L>/<N>[.p/<W>], N in 3-digit elements (tile/0/x001/234.p/5)").GRPCStatus())
		return
	}
	if t.L < 0 {
		writeError(w, r, apierror.New(codes.NotFound, "NOT_PUBLISHED",
			"entry bundles are not published: entries are records, which name their organization and title; the hash tiles prove the tree").GRPCStatus())
		return
	}
	origin, err := s.logOrigin(r, id)
	if err != nil {
		s.logReadFailed(w, r, id, err)
		return
	}
	head, err := s.registry.LogHead(r.Context(), origin)
	if err != nil {
		s.logReadFailed(w, r, id, err)
		return
	}
	data, err := s.registry.ReadTile(r.Context(), origin, head.Size, t)
	if err != nil {
		s.logReadFailed(w, r, id, err)
		return
	}
	writeTile(w, r, data, id != "")
}

// writeTile answers with a tile's data; immutable says whether its URL
// names it forever (a log by id) or only until a key rotation.
func writeTile(w http.ResponseWriter, r *http.Request, data []byte, immutable bool) {
	sum := sha256.Sum256(data)
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("ETag", `"`+hex.EncodeToString(sum[:16])+`"`)
	if immutable {
		h.Set("Cache-Control", immutableTile)
	} else {
		h.Set("Cache-Control", currentTile)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (s *Server) logReadFailed(w http.ResponseWriter, r *http.Request, id string, err error) {
	switch {
	case errors.Is(err, ipreg.ErrNoLog):
		writeError(w, r, apierror.NotFound("log", id).GRPCStatus())
	case errors.Is(err, ipreg.ErrNoTile):
		writeError(w, r, apierror.New(codes.NotFound, "NOT_FOUND",
			"no such tile in the tree of the latest checkpoint").GRPCStatus())
	default:
		writeError(w, r, status.Convert(toStatusError(r.Context(), s.log, err)))
	}
}
