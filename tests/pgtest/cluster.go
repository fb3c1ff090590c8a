package pgtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ory/dockertest/v3"
)

// EnvURL names the variable holding a PostgreSQL server URL to use instead
// of a throwaway cluster. Its user must be allowed to create databases.
const EnvURL = "DYNAMOPG_TEST_PG"

var (
	mu        sync.Mutex
	serverURL string
	serverErr error
	started   *cluster
	running   *container
)

// Server returns the URL of this process's PostgreSQL server (its
// "postgres" database), started on first use: DYNAMOPG_TEST_PG if set;
// else, when a Docker engine answers (DOCKER_HOST or the default socket),
// a container of DYNAMOPG_TEST_PG_IMAGE (DefaultImage); else a throwaway
// cluster from the local binaries. The choice is printed to stderr (the
// test log). Stop stops what it started.
func Server() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if serverURL != "" || serverErr != nil {
		return serverURL, serverErr
	}
	var pool *dockertest.Pool
	src := chooseSource(os.Getenv, func() (err error) { pool, err = dockerPool(); return err })
	switch src.kind {
	case "env":
		serverURL = src.url
	case "docker":
		c, err := startContainer(pool, src.image)
		if err == nil {
			running, serverURL = c, c.url
			break
		}
		src.why = fmt.Sprintf("PostgreSQL from initdb (local binaries): Docker failed: %v", err)
		fallthrough
	case "initdb":
		c, err := startCluster()
		if err != nil {
			serverErr = fmt.Errorf("pgtest: %s: %w", src.why, err)
			return "", serverErr
		}
		started, serverURL = c, c.url
	}
	fmt.Fprintf(os.Stderr, "pgtest: %s\n", src.why)
	return serverURL, nil
}

// Stop stops and removes the cluster or container Server started, if any.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	if started != nil {
		started.stop()
		started = nil
	}
	if running != nil {
		running.stop()
		running = nil
	}
}

// serverSettings are the settings of every throwaway server: durability
// off (a test's data need not survive a crash), room for many pools.
var serverSettings = []string{
	"fsync=off",
	"synchronous_commit=off",
	"full_page_writes=off",
	"max_connections=200",
}

// cluster is a PostgreSQL cluster in a temporary directory.
type cluster struct {
	bindir string
	dir    string
	url    string
	asUser string // run binaries as this user ("" for ourselves)
	opts   string // the server's options (pg_ctl -o), for every start
}

// startCluster runs initdb and starts a server on a free local port with
// durability off. settings ("name=value") are added after the defaults,
// so they override them.
func startCluster(settings ...string) (*cluster, error) {
	bindir, err := findBindir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "dynamopg-pgtest-")
	if err != nil {
		return nil, err
	}
	c := &cluster{bindir: bindir, dir: dir}
	if os.Geteuid() == 0 { // initdb and postgres refuse to run as root
		c.asUser = "postgres"
		if err := chownTo(dir, c.asUser); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if out, err := c.run("initdb", "-D", data, "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	opts := []string{
		"-p", strconv.Itoa(port),
		"-k", dir,
		"-c", "listen_addresses=127.0.0.1",
	}
	for _, kv := range append(append([]string(nil), serverSettings...), settings...) {
		opts = append(opts, "-c", kv)
	}
	c.opts = strings.Join(opts, " ")
	if err := c.start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

// start starts the server and waits until it accepts connections.
func (c *cluster) start() error {
	if out, err := c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-o", c.opts, "-l", filepath.Join(c.dir, "log"), "-w", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		return fmt.Errorf("pg_ctl start: %w: %s\n%s", err, out, log)
	}
	return nil
}

// shutdown stops the server in pg_ctl's mode (smart, fast or immediate)
// and waits until it has.
func (c *cluster) shutdown(mode string) error {
	if out, err := c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", mode, "-w", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop -m %s: %w: %s", mode, err, out)
	}
	return nil
}

// stop stops the server at once and removes its directory.
func (c *cluster) stop() {
	_ = c.shutdown("immediate")
	os.RemoveAll(c.dir)
}

// run runs a PostgreSQL binary, as c.asUser when set.
func (c *cluster) run(name string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bindir, name)
	var cmd *exec.Cmd
	if c.asUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.asUser, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// findBindir locates initdb: PostgreSQL 15's directory, pg_config --bindir,
// then the newest /usr/lib/postgresql/*/bin.
func findBindir() (string, error) {
	candidates := []string{"/usr/lib/postgresql/15/bin"}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	globbed, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(globbed)))
	candidates = append(candidates, globbed...)
	for _, d := range candidates {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL binaries (initdb) found; set " + EnvURL)
}

// chownTo gives dir to the named user.
func chownTo(dir, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("user %s: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// freePort asks the kernel for a free local TCP port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
