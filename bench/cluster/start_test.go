package main

import (
	"context"
	"testing"

	"github.com/creativeops/creativeops/internal/clustertest"
)

// startCluster starts a cluster and a client for a test, and stops both
// when it ends, showing the replicas' logs if it failed.
func startCluster(ctx context.Context, t *testing.T, cfg clustertest.Config) (*clustertest.Cluster, *clustertest.Client) {
	t.Helper()
	c, err := clustertest.StartCluster(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range c.Replicas {
				t.Logf("%s log tail:\n%s", r.Name, r.LogTail(3000))
			}
		}
		if err := c.Close(); err != nil {
			t.Logf("close cluster: %v", err)
		}
	})
	client, err := clustertest.NewClient(c.Addr, c.Key, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	return c, client
}
