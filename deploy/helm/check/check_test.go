// Package check lints and renders the creativeops Helm chart and decodes
// every object it renders, strictly, into its Kubernetes API type: a
// misspelt or misplaced field fails here rather than being dropped by the
// API server. It is a module of its own so that the main module does not
// depend on Helm and Kubernetes.
package check

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

var chartDir = filepath.Join("..", "creativeops")

// rendered is what one helm template produced, by kind.
type rendered struct {
	deployment     *appsv1.Deployment
	service        *corev1.Service
	pdb            *policyv1.PodDisruptionBudget
	serviceMonitor *monitoringv1.ServiceMonitor
}

// render renders the chart with values over its defaults, as helm
// template does, and decodes each object strictly.
func render(t *testing.T, values string) rendered {
	t.Helper()
	chrt, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := chartutil.ReadValues([]byte(values))
	if err != nil {
		t.Fatal(err)
	}
	top, err := chartutil.ToRenderValues(chrt, vals, chartutil.ReleaseOptions{Name: "co", Namespace: "prod", IsInstall: true}, chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(chrt, top)
	if err != nil {
		t.Fatal(err)
	}
	var r rendered
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range files {
			if !yield(name) {
				return
			}
		}
	}) {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for doc := range strings.SplitSeq(files[name], "\n---") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			if err := r.decode([]byte(doc)); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
		}
	}
	return r
}

func (r *rendered) decode(doc []byte) error {
	var meta metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return err
	}
	var obj any
	switch meta.APIVersion + " " + meta.Kind {
	case "apps/v1 Deployment":
		r.deployment = new(appsv1.Deployment)
		obj = r.deployment
	case "v1 Service":
		r.service = new(corev1.Service)
		obj = r.service
	case "policy/v1 PodDisruptionBudget":
		r.pdb = new(policyv1.PodDisruptionBudget)
		obj = r.pdb
	case "monitoring.coreos.com/v1 ServiceMonitor":
		r.serviceMonitor = new(monitoringv1.ServiceMonitor)
		obj = r.serviceMonitor
	default:
		return fmt.Errorf("unexpected object %s %s", meta.APIVersion, meta.Kind)
	}
	// Unknown or duplicate fields fail, as kubectl --validate=strict.
	return yaml.UnmarshalStrict(doc, obj)
}

// helm lint finds nothing worth a warning, with the defaults and with
// every optional part on.
func TestLint(t *testing.T) {
	for _, values := range []map[string]any{
		nil,
		{"serviceMonitor": map[string]any{"enabled": true}, "publicUrl": "https://api.example.com"},
	} {
		l := lint.All(chartDir, values, "prod", false)
		for _, m := range l.Messages {
			if m.Severity >= support.WarningSev {
				t.Errorf("helm lint %v: %s", values, m)
			}
		}
	}
}

func TestDefaults(t *testing.T) {
	r := render(t, "")
	if r.deployment == nil || r.service == nil || r.pdb == nil {
		t.Fatalf("rendered %+v; want a Deployment, a Service and a PodDisruptionBudget", r)
	}
	if r.serviceMonitor != nil {
		t.Error("a ServiceMonitor by default; it needs the Prometheus Operator, so it is opt-in")
	}
	d := r.deployment
	pod := d.Spec.Template
	if !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(pod.Labels)) {
		t.Errorf("the Deployment's selector %v does not select its pods %v", d.Spec.Selector.MatchLabels, pod.Labels)
	}
	if *d.Spec.Replicas < 2 {
		t.Errorf("%d replicas by default", *d.Spec.Replicas)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]

	probe := func(what string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port.StrVal != "http" {
			t.Errorf("%s probe %+v; want GET %s on the http port", what, p, path)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	probe("startup", c.StartupProbe, "/healthz")
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Sleep.Seconds < 1 {
		t.Errorf("lifecycle %+v; want a preStop sleep, so that the pod leaves the Service before SIGTERM", c.Lifecycle)
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g < 30 {
		t.Errorf("termination grace period %v; want room for the pause and 20 s of draining", g)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("ports %+v; want http 8080", c.Ports)
	}

	// Requests follow the measured RSS (values.yaml), the limit leaves
	// room above the Go heap's own limit of 120 MiB.
	req, limit := c.Resources.Requests[corev1.ResourceMemory], c.Resources.Limits[corev1.ResourceMemory]
	if req.Cmp(resource.MustParse("100Mi")) < 0 || limit.Cmp(resource.MustParse("200Mi")) < 0 || req.Cmp(limit) > 0 {
		t.Errorf("memory request %s, limit %s", req.String(), limit.String())
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		t.Error("no CPU request")
	}

	psc, sc := pod.Spec.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod security context %+v; want non-root", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container security context %+v; want a read-only root, no escalation, no capabilities", sc)
	}

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if e := env["CREATIVEOPS_DATABASE_URL"]; e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
		e.ValueFrom.SecretKeyRef.Name != "creativeops-database" || e.Value != "" {
		t.Errorf("CREATIVEOPS_DATABASE_URL %+v; want it from the Secret creativeops-database", e)
	}
	if env["CREATIVEOPS_HTTP_ADDR"].Value != "0.0.0.0:8080" {
		t.Errorf("CREATIVEOPS_HTTP_ADDR %+v", env["CREATIVEOPS_HTTP_ADDR"])
	}
	keyFile := env["CREATIVEOPS_MASTER_KEY_FILE"].Value
	var keyVolume string
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(keyFile, m.MountPath+"/") {
			keyVolume = m.Name
		}
	}
	writable := map[string]bool{}
	for _, m := range c.VolumeMounts {
		writable[m.MountPath] = !m.ReadOnly
	}
	if !writable["/data"] || !writable["/tmp"] {
		t.Errorf("mounts %+v; the read-only root needs /data and /tmp mounted writable", c.VolumeMounts)
	}
	var fromSecret bool
	for _, v := range pod.Spec.Volumes {
		if v.Name == keyVolume && v.Secret != nil && v.Secret.SecretName == "creativeops-master-key" {
			fromSecret = true
		}
	}
	if keyFile == "" || !fromSecret {
		t.Errorf("master key file %q (volume %q) is not from the Secret creativeops-master-key", keyFile, keyVolume)
	}

	s := r.service
	if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("the Service's selector %v does not select the pods %v", s.Spec.Selector, pod.Labels)
	}
	if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].TargetPort.StrVal != "http" {
		t.Errorf("service ports %+v; want one to the http port", s.Spec.Ports)
	}

	sel, err := metav1.LabelSelectorAsSelector(r.pdb.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("the PodDisruptionBudget's selector %v does not select the pods (%v)", r.pdb.Spec.Selector, err)
	}
	if r.pdb.Spec.MaxUnavailable == nil || r.pdb.Spec.MaxUnavailable.IntValue() != 1 {
		t.Errorf("PodDisruptionBudget maxUnavailable %v; want 1", r.pdb.Spec.MaxUnavailable)
	}
}

func TestOptions(t *testing.T) {
	r := render(t, `
serviceMonitor: {enabled: true, labels: {release: prom}}
podDisruptionBudget: {enabled: false}
publicUrl: https://api.example.com
env: {CREATIVEOPS_REDIS_URL: "redis://redis:6379/0"}
database: {existingSecret: pg, secretKey: dsn}
masterKey: {existingSecret: mk, secretKey: key}
`)
	if r.pdb != nil {
		t.Error("a PodDisruptionBudget though disabled")
	}
	m := r.serviceMonitor
	if m == nil {
		t.Fatal("no ServiceMonitor though enabled")
	}
	if m.Labels["release"] != "prom" || len(m.Spec.Endpoints) != 1 || m.Spec.Endpoints[0].Port != "http" || m.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor %+v", m)
	}
	if !labels.SelectorFromSet(m.Spec.Selector.MatchLabels).Matches(labels.Set(r.service.Labels)) {
		t.Errorf("the ServiceMonitor's selector %v does not select the Service %v", m.Spec.Selector.MatchLabels, r.service.Labels)
	}
	c := r.deployment.Spec.Template.Spec.Containers[0]
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	if env["CREATIVEOPS_PUBLIC_URL"].Value != "https://api.example.com" || env["CREATIVEOPS_REDIS_URL"].Value != "redis://redis:6379/0" {
		t.Errorf("environment %+v", c.Env)
	}
	if ref := env["CREATIVEOPS_DATABASE_URL"].ValueFrom.SecretKeyRef; ref.Name != "pg" || ref.Key != "dsn" {
		t.Errorf("database URL from %+v; want pg/dsn", ref)
	}
	if env["CREATIVEOPS_MASTER_KEY_FILE"].Value != "/run/secrets/creativeops/key" {
		t.Errorf("master key file %q", env["CREATIVEOPS_MASTER_KEY_FILE"].Value)
	}
}

// A field the API does not know is refused, not dropped.
func TestStrictDecode(t *testing.T) {
	var r rendered
	doc := []byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec:\n  ports: [{port: 80, targetPrt: http}]\n")
	if err := r.decode(doc); err == nil || !strings.Contains(err.Error(), "targetPrt") {
		t.Fatalf("a misspelt field decoded: %v", err)
	}
	if err := r.decode(bytes.ReplaceAll(doc, []byte("targetPrt"), []byte("targetPort"))); err != nil {
		t.Fatal(err)
	}
}
