package main

import (
	"strings"
	"testing"
)

func TestMaskDB(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw1@h:5432/db?sslmode=disable":               "postgres://u:*****@h:5432/db?sslmode=disable",
		"postgres://u@h/db?sslmode=disable&password=pw2":           "postgres://u@h/db?sslmode=disable&password=*****",
		"postgresql://u:p%40ss@h/db?PassWord=x&sslpassword=y#frag": "postgresql://u:*****@h/db?PassWord=*****&sslpassword=*****", // the fragment goes with the value: masking more is safe
		"postgresx://u:secret@h/db":                                "postgresx://u:*****@h/db",
		"host=h user=u password=pw3 dbname=d":                      "host=h user=u password=***** dbname=d",
		"host=h password='a b\\' c' dbname=d":                      "host=h password=***** dbname=d",
		"sqlite:/tmp/x.db":                                         "sqlite:/tmp/x.db",
		"postgres://h/db":                                          "postgres://h/db",
		"postgres://u:a@b@h/db":                                    "postgres://u:*****@h/db",
		"postgres://u:pw@h1,h2/db?target_session_attrs=read-write": "postgres://u:*****@h1,h2/db?target_session_attrs=read-write",
		"memory": "memory",
	} {
		if got := maskDB(in); got != want {
			t.Errorf("maskDB(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMaskTextRemembered(t *testing.T) {
	remember("postgres://u:Rem3mbered@h/db?password=Qu3ry")
	remember("host=h password=Kw0rd")
	msg := maskText(`failed: password "Rem3mbered" rejected; Qu3ry; Kw0rd; postgres://x:y@z`)
	for _, s := range []string{"Rem3mbered", "Qu3ry", "Kw0rd", ":y@"} {
		if strings.Contains(msg, s) {
			t.Errorf("%q survived in %q", s, msg)
		}
	}
}
