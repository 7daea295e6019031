package tracing

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

func fromEnv(t *testing.T, env map[string]string) (*Provider, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	p, err := FromEnv(context.Background(), "test", slog.New(slog.DiscardHandler))
	if p != nil {
		t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	}
	return p, err
}

// Tracing is off unless asked for, whatever else is set: the
// OpenTelemetry default exporter (otlp) would send every installation's
// spans to a collector it does not have.
func TestOffByDefault(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"nothing set":      {"OTEL_TRACES_EXPORTER": ""},
		"only an endpoint": {"OTEL_TRACES_EXPORTER": "", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
		"none":             {"OTEL_TRACES_EXPORTER": "none"},
		"SDK disabled":     {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := fromEnv(t, env)
			if p != nil || err != nil {
				t.Fatalf("got a provider (%v, %v), want tracing off", p, err)
			}
		})
	}
}

func TestProtocols(t *testing.T) {
	for _, c := range []struct{ protocolVar, protocol, want string }{
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "", ProtocolHTTP},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", ProtocolGRPC},
		{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc", ProtocolGRPC},
		{"OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", ProtocolHTTP},
	} {
		t.Run(c.protocolVar+"="+c.protocol, func(t *testing.T) {
			p, err := fromEnv(t, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", c.protocolVar: c.protocol})
			if err != nil || p == nil || p.Protocol != c.want {
				t.Errorf("%+v, %v; want %s", p, err, c.want)
			}
		})
	}
}

// What the SDK would only log, replacing it by a default (a sampler it
// cannot read becomes "sample everything"), stops the start and names the
// variable.
func TestConfigurationErrorsNameTheVariable(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_TRACES_SAMPLER": "sometimes"}, "OTEL_TRACES_SAMPLER"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1%"}, "OTEL_TRACES_SAMPLER_ARG"},
	} {
		t.Run(c.want, func(t *testing.T) {
			p, err := fromEnv(t, c.env)
			if p != nil || err == nil || !strings.HasPrefix(err.Error(), c.want+":") {
				t.Errorf("%v: %v, %v; want an error naming %s", c.env, p, err, c.want)
			}
		})
	}
	t.Run("a valid sampler", func(t *testing.T) {
		if _, err := fromEnv(t, map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.01"}); err != nil {
			t.Fatal(err)
		}
	})
}
