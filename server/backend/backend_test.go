package backend

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	for _, db := range []string{"memory", "sqlite:" + filepath.Join(t.TempDir(), "b.db")} {
		b, err := Open(ctx, db, Options{TTLInterval: DefaultTTLInterval})
		if err != nil {
			t.Fatalf("Open %s: %v", db, err)
		}
		if err := b.Store.Ping(ctx); err != nil {
			t.Errorf("%s: Ping: %v", db, err)
		}
		b.Close()
	}
	// An unknown scheme is refused without echoing the rest (a password).
	_, err := Open(ctx, "postgress://u:hunter2@h/db", Options{})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), `"postgress"`) {
		t.Errorf("unknown scheme: %v", err)
	}
}
