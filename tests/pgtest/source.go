package pgtest

import (
	"context"
	"fmt"
	"time"

	"github.com/ory/dockertest/v3"
)

// EnvImage names the variable holding the PostgreSQL image to run when a
// Docker engine answers (and DYNAMOPG_TEST_PG is not set).
const EnvImage = "DYNAMOPG_TEST_PG_IMAGE"

// DefaultImage is the image run without EnvImage: the PostgreSQL major
// version of the local binaries the initdb path prefers.
const DefaultImage = "postgres:15-alpine"

// source is where this process's PostgreSQL server comes from.
type source struct {
	kind  string // "env", "docker" or "initdb"
	url   string // kind env: the server's URL
	image string // kind docker: the image to run
	why   string // for the test log
}

// chooseSource picks the server: DYNAMOPG_TEST_PG when set; else a
// container of DYNAMOPG_TEST_PG_IMAGE (DefaultImage when unset) when a
// Docker engine answers ping; else a cluster from the local binaries.
func chooseSource(getenv func(string) string, ping func() error) source {
	if u := getenv(EnvURL); u != "" {
		return source{kind: "env", url: u, why: "PostgreSQL from " + EnvURL}
	}
	image := getenv(EnvImage)
	if image == "" {
		image = DefaultImage
	}
	if err := ping(); err != nil {
		why := fmt.Sprintf("PostgreSQL from initdb (local binaries): %v", err)
		if getenv(EnvImage) != "" {
			why += "; " + EnvImage + " ignored"
		}
		return source{kind: "initdb", why: why}
	}
	return source{kind: "docker", image: image, why: "PostgreSQL from Docker, image " + image}
}

// dockerPool connects to the Docker engine of DOCKER_HOST (or the default
// socket) and returns it once it answers ping.
func dockerPool() (*dockertest.Pool, error) {
	pool, err := dockertest.NewPool("")
	if err != nil {
		return nil, fmt.Errorf("no Docker engine: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := pool.Client.PingWithContext(ctx); err != nil {
		return nil, fmt.Errorf("no Docker engine at %s: %w", pool.Client.Endpoint(), err)
	}
	return pool, nil
}
