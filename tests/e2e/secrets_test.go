package e2e

// Secrets in logs and endpoints (issue 20, item 5): a password given as
// ?password= was not masked in the start-up lines or by `dynamopg status`,
// a wrong scheme printed the whole URL in the fatal error, and --pprof
// served /debug/pprof/cmdline, which shows --db. Every form (userinfo,
// query parameters, DSN keywords) is masked everywhere now, and cmdline is
// not served.

import (
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dynamopg/dynamopg/tests/harness"
	"github.com/dynamopg/dynamopg/tests/pgtest"
)

// noSecret fails when text holds any of the secrets.
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%s shows the secret %q:\n%s", what, s, text)
		}
	}
}

func TestSecretsMasked(t *testing.T) {
	t.Parallel()
	// The test clusters trust local connections, so passwords are accepted
	// and ignored: the server runs with them in its --db.
	plain := pgtest.URL(t)
	db := strings.Replace(plain, "postgres://postgres@", "postgres://postgres:S3cretUser@", 1) + "&password=S3cretQuery"
	secrets := []string{"S3cretUser", "S3cretQuery"}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pprofAddr := l.Addr().String()
	l.Close()
	s := harness.StartDB(t, "postgres", db, "--log-level", "info", "--pprof", pprofAddr)
	createHashTable(t, s.Client(), "secrets")

	logs := s.Logs()
	noSecret(t, "the start-up lines", logs, secrets...)
	if !strings.Contains(logs, "postgres:*****@") || !strings.Contains(logs, "password=*****") {
		t.Errorf("the start-up lines do not show the masked --db:\n%s", logs)
	}

	for _, path := range []string{"/debug/pprof/cmdline", "/debug/pprof/"} {
		var resp *http.Response
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if resp, err = http.Get("http://" + pprofAddr + path); err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		noSecret(t, "GET "+path, string(body), secrets...)
		if path == "/debug/pprof/cmdline" && resp.StatusCode == 200 {
			t.Errorf("GET %s = 200: the command line is served", path)
		}
	}

	bin := harness.Binary(t)
	for _, format := range []string{"text", "json"} {
		out, err := exec.Command(bin, "status", "--db", db, "--format", format).CombinedOutput()
		if err != nil {
			t.Fatalf("status --format %s: %v\n%s", format, err, out)
		}
		noSecret(t, "dynamopg status --format "+format, string(out), secrets...)
		if !strings.Contains(string(out), "*****") {
			t.Errorf("dynamopg status --format %s does not show the masked --db:\n%s", format, out)
		}
	}

	// Fatal errors, whatever the form of the password.
	for _, args := range [][]string{
		{"serve", "--listen", "127.0.0.1:0", "--db", "postgresx://u:S3cretScheme@h/db"},
		{"serve", "--listen", "127.0.0.1:0", "--db", "host=127.0.0.1 user=u password=S3cretKeyword dbname=d"},
		{"serve", "--listen", "127.0.0.1:0", "--db", "host=127.0.0.1 password='S3cret Quoted' dbname=d"},
		{"serve", "--listen", "127.0.0.1:0", "postgres://u:S3cretPositional@127.0.0.1:1/db"},
		{"migrate", "--db", "postgres://u:S3cretMigrate@127.0.0.1:1/db?sslmode=disable&password=S3cretMigrateQ&connect_timeout=2"},
		{"status", "--db", "postgres://u:S3cretStatus@127.0.0.1:1/db?sslmode=disable&connect_timeout=2"},
		{"status", "--db", "postgresx://u:S3cretStatusScheme@h/db"},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err == nil {
			t.Errorf("dynamopg %v succeeded", args)
		}
		noSecret(t, "dynamopg "+args[0]+"'s fatal error", string(out), "S3cretScheme", "S3cretKeyword", "S3cret Quoted", "S3cretPositional", "S3cretMigrate", "S3cretStatus")
	}
}
