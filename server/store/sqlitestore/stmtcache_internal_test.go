package sqlitestore

import "testing"

func TestMultiStatement(t *testing.T) {
	for text, want := range map[string]bool{
		"SELECT 1":              false,
		"SELECT 1;":             false,
		"SELECT 1; -- done\n":   false,
		"SELECT 1; /* done */ ": false,
		"SELECT ';x'":           false,
		`SELECT "a;b" FROM t`:   false,
		"SELECT 1 -- a; b\n":    false,
		"CREATE TABLE a (x);\nCREATE TABLE b (y);": true,
		"SELECT 1;;":               false,
		"SELECT 'it''s'; SELECT 2": true,
	} {
		if got := multiStatement(text); got != want {
			t.Errorf("multiStatement(%q) = %v, want %v", text, got, want)
		}
	}
}
