package storage

import (
	"context"
	"net/url"
	"testing"

	"github.com/creativeops/creativeops/internal/testdb"
)

// A replica's PostgreSQL pool holds DefaultMaxConns connections unless the
// database URL's pool_max_conns asks for another number.
func TestPostgresPoolSize(t *testing.T) {
	base := testdb.PostgresURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("pool_max_conns", "3")
	u.RawQuery = q.Encode()
	for _, c := range []struct {
		url  string
		want int32
	}{
		{base, DefaultMaxConns},
		{u.String(), 3},
	} {
		st, err := Open(context.Background(), c.url)
		if err != nil {
			t.Fatal(err)
		}
		got := st.Pool.Config().MaxConns
		st.Close()
		if got != c.want {
			t.Errorf("%s: pool of %d, want %d", c.url, got, c.want)
		}
	}
}
