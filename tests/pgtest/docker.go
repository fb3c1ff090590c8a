package pgtest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// container is a PostgreSQL server in a Docker container.
type container struct {
	pool *dockertest.Pool
	res  *dockertest.Resource
	url  string
}

// startContainer runs image (pulled if missing) with the settings of a
// throwaway cluster and waits until it accepts connections.
func startContainer(pool *dockertest.Pool, image string) (*container, error) {
	repo, tag := splitImage(image)
	cmd := []string{"postgres"}
	for _, kv := range serverSettings {
		cmd = append(cmd, "-c", kv)
	}
	res, err := pool.RunWithOptions(&dockertest.RunOptions{
		Repository: repo,
		Tag:        tag,
		Env:        []string{"POSTGRES_HOST_AUTH_METHOD=trust", "POSTGRES_INITDB_ARGS=--locale=C --encoding=UTF8"},
		Cmd:        cmd,
		Labels:     map[string]string{"dynamopg.pgtest": "1"},
	}, func(hc *dc.HostConfig) {
		hc.AutoRemove = true
		hc.RestartPolicy = dc.RestartPolicy{Name: "no"}
	})
	if err != nil {
		return nil, fmt.Errorf("docker run %s: %w", image, err)
	}
	c := &container{pool: pool, res: res,
		url: fmt.Sprintf("postgres://postgres@%s/postgres?sslmode=disable", res.GetHostPort("5432/tcp"))}
	pool.MaxWait = 2 * time.Minute
	err = pool.Retry(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, c.url)
		if err != nil {
			return err
		}
		return conn.Close(ctx)
	})
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("%s did not accept connections: %w", image, err)
	}
	return c, nil
}

// stop removes the container.
func (c *container) stop() { _ = c.pool.Purge(c.res) }

// splitImage splits "name:tag" ("registry:5000/name:tag" too); the tag is
// "" (latest) when absent.
func splitImage(image string) (repo, tag string) {
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		return image[:i], image[i+1:]
	}
	return image, ""
}
