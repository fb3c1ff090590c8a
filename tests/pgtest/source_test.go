package pgtest

import (
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func TestChooseSource(t *testing.T) {
	engineUp := func() error { return nil }
	engineDown := func() error { return errors.New("dial unix /var/run/docker.sock: no such file") }
	for _, tc := range []struct {
		name      string
		env       map[string]string
		ping      func() error
		kind      string
		image     string
		whyHas    string
		pingNeeds bool // whether the engine must be asked
	}{
		{"env wins over an engine", map[string]string{EnvURL: "postgres://u@h/db", EnvImage: "postgres:17"}, engineUp, "env", "", EnvURL, false},
		{"env wins without an engine", map[string]string{EnvURL: "postgres://u@h/db"}, engineDown, "env", "", EnvURL, false},
		{"engine, default image", nil, engineUp, "docker", DefaultImage, "Docker, image " + DefaultImage, true},
		{"engine, the named image", map[string]string{EnvImage: "postgres:16"}, engineUp, "docker", "postgres:16", "image postgres:16", true},
		{"no engine", nil, engineDown, "initdb", "", "initdb (local binaries): dial unix", true},
		{"no engine, image named", map[string]string{EnvImage: "postgres:16"}, engineDown, "initdb", "", EnvImage + " ignored", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			src := chooseSource(func(k string) string { return tc.env[k] }, func() error { asked = true; return tc.ping() })
			if src.kind != tc.kind || src.image != tc.image || !strings.Contains(src.why, tc.whyHas) {
				t.Errorf("got %+v, want kind %s image %q, why containing %q", src, tc.kind, tc.image, tc.whyHas)
			}
			if asked != tc.pingNeeds {
				t.Errorf("engine asked: %v, want %v", asked, tc.pingNeeds)
			}
			if tc.kind == "env" && src.url != tc.env[EnvURL] {
				t.Errorf("url %q", src.url)
			}
		})
	}
}

// dockerPool asks the engine at DOCKER_HOST: a fake engine that answers
// /_ping is found, a socket nobody listens on is not.
func TestDockerPool(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "docker.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var pings atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_ping" {
			pings.Add(1)
			w.Write([]byte("OK"))
			return
		}
		http.NotFound(w, r)
	})}
	go srv.Serve(ln)
	defer srv.Close()

	t.Setenv("DOCKER_HOST", "unix://"+sock)
	if _, err := dockerPool(); err != nil || pings.Load() != 1 {
		t.Errorf("fake engine: %v (pings %d), want found", err, pings.Load())
	}
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "none.sock"))
	if _, err := dockerPool(); err == nil || !strings.Contains(err.Error(), "no Docker engine") {
		t.Errorf("no engine: %v, want an error", err)
	}
}

func TestSplitImage(t *testing.T) {
	for in, want := range map[string][2]string{
		"postgres:15-alpine":           {"postgres", "15-alpine"},
		"postgres":                     {"postgres", ""},
		"registry:5000/pg/postgres:16": {"registry:5000/pg/postgres", "16"},
		"registry:5000/postgres":       {"registry:5000/postgres", ""},
	} {
		if r, tag := splitImage(in); r != want[0] || tag != want[1] {
			t.Errorf("splitImage(%q) = %q, %q", in, r, tag)
		}
	}
}
