package auth

import (
	"crypto/sha256"
	"testing"
	"time"
)

// The cache answers only while a poll that started within KeyChangeBound
// has confirmed it current, and never stores what was read before a drop.
func TestKeyCacheBound(t *testing.T) {
	sum := sha256.Sum256([]byte("secret"))
	e := &cachedKey{read: time.Now(), p: Principal{KeyID: "key_1"}}

	c := newKeyCache()
	if _, _, ok := c.lookup(sum); ok {
		t.Fatal("a cache never polled answers")
	}
	c.observe(1, time.Now())
	_, gen, ok := c.lookup(sum)
	if !ok {
		t.Fatal("a cache polled just now does not answer")
	}
	c.store(sum, e, gen)
	if got, _, _ := c.lookup(sum); got != e {
		t.Fatal("stored entry not found")
	}
	c.observe(1, time.Now())
	if got, _, _ := c.lookup(sum); got != e {
		t.Fatal("a poll that saw the same epoch dropped the cache")
	}

	// A read that began before the epoch moved must not be stored after.
	_, before, _ := c.lookup(sum)
	c.observe(2, time.Now())
	if got, _, _ := c.lookup(sum); got != nil {
		t.Fatal("a new epoch did not drop the cache")
	}
	c.store(sum, e, before)
	if got, _, _ := c.lookup(sum); got != nil {
		t.Fatal("an entry read before the drop was stored after it")
	}

	// An entry older than maxKeyAge is read again, epoch or not.
	c.observe(3, time.Now())
	_, gen, _ = c.lookup(sum)
	old := &cachedKey{read: time.Now().Add(-maxKeyAge)}
	c.store(sum, old, gen)
	if got, _, ok := c.lookup(sum); got != nil || !ok {
		t.Fatal("an entry past maxKeyAge answers")
	}

	// The last successful poll started longer ago than the bound (polls
	// have been failing): the cache is bypassed, entries or not.
	stale := newKeyCache()
	stale.observe(1, time.Now())
	_, gen, _ = stale.lookup(sum)
	stale.store(sum, e, gen)
	stale.checked = time.Now().Add(-KeyChangeBound)
	if got, _, ok := stale.lookup(sum); got != nil || ok {
		t.Fatal("a cache not confirmed within the bound answers")
	}
}
